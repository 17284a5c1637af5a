#!/usr/bin/env bash
# Runs every fuzz target for a short time (FUZZTIME, default 10s each). CI runs this; run it
# longer locally when touching parsers or the preemption engine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
FUZZTIME=${FUZZTIME:-10s}
# fuzz_once runs one target; a run that fails only with "context deadline exceeded" and
# writes no failing input is Go's fuzzing coordinator racing its own -fuzztime deadline
# (go.dev/issue/75804, fixed in Go 1.27), not a finding: it is run once more. Any other
# failure, or a second one, fails.
fuzz_once() {
	local pkg=$1 target=$2 log
	log=$(mktemp)
	for attempt in 1 2; do
		if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg" 2>&1 | tee "$log" | grep -v '^fuzz: elapsed'; [ "${PIPESTATUS[0]}" = 0 ]; then
			rm -f "$log"
			return 0
		fi
		if [ "$attempt" = 1 ] && grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"; then
			echo "== $target: the fuzzing coordinator's deadline race (go.dev/issue/75804), no failing input; running it again"
			continue
		fi
		rm -f "$log"
		return 1
	done
}

for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$dir"/*_test.go 2>/dev/null | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort -u); do
		echo "== $pkg $target ($FUZZTIME)"
		fuzz_once "$pkg" "$target"
	done
done

# The randomized property tests, at length: the cache against a model (issue 14) and
# preemption against a brute-force reference, pod-vs-gang parity and order independence
# (issues 10 and 13). `make test` runs short versions of the same tests.
echo "== property tests (CACHE_RANDOM_SEQUENCES=${CACHE_RANDOM_SEQUENCES:=20000}, PREEMPTION_PROPERTY_CLUSTERS=${PREEMPTION_PROPERTY_CLUSTERS:=10000})"
CACHE_RANDOM_SEQUENCES=$CACHE_RANDOM_SEQUENCES go test -count=1 -run '^TestRandomCacheOperations$' ./pkg/cache
PREEMPTION_PROPERTY_CLUSTERS=$PREEMPTION_PROPERTY_CLUSTERS go test -count=1 -timeout 30m \
	-run '^(TestPreemptionMatchesBruteForce|TestPodAndOneMemberGangDecideAlike|TestVictimCostIndependentOfOrder|TestMediumReferenceMatchesBruteForce)$' ./pkg/driver/sim
# Medium and large clusters against the exact reference (issue 20): the least cost on
# enough of them.
echo "== medium and large clusters (PREEMPTION_MEDIUM_CLUSTERS=${PREEMPTION_MEDIUM_CLUSTERS:=200}, PREEMPTION_LARGE_CLUSTERS=${PREEMPTION_LARGE_CLUSTERS:=40} of each kind)"
PREEMPTION_MEDIUM_CLUSTERS=$PREEMPTION_MEDIUM_CLUSTERS PREEMPTION_LARGE_CLUSTERS=$PREEMPTION_LARGE_CLUSTERS go test -count=1 -timeout 30m \
	-run '^TestPreemptionOptimalOn(Medium|Large)Clusters$' ./pkg/driver/sim

# phalanx's plugins against kube-scheduler v1.37.2's own code (issue 27): a million
# generated cases per plugin and as many whole cycles and single-pod preemptions, and the cases of
# kube-scheduler's own plugin test tables (docs/kube-scheduler-differences.md).
# `make test` runs 2,000 of each.
echo "== phalanx against kube-scheduler (SCHEDULERDIFF_CASES=${SCHEDULERDIFF_CASES:=1000000})"
(cd hack/schedulerdiff && SCHEDULERDIFF_CASES=$SCHEDULERDIFF_CASES go test -count=1 -timeout 6h -run '^(TestPluginsAgree|TestWholeCycleAgrees|TestPreemptionAgrees|TestUpstreamTables)$' .)
# Sequences of pods through both schedulers with OpportunisticBatching (decision 42): every
# pod's node and whether it took its batch's hint. `make test` runs 300.
echo "== batched sequences against kube-scheduler (SCHEDULERDIFF_SEQUENCES=${SCHEDULERDIFF_SEQUENCES:=20000})"
(cd hack/schedulerdiff && SCHEDULERDIFF_CASES=$SCHEDULERDIFF_SEQUENCES go test -count=1 -timeout 2h -run '^TestBatchedSequenceAgrees$' .)
