#!/usr/bin/env bash
# Runs every fuzz target for a short time (FUZZTIME, default 10s each). CI runs this; run it
# longer locally when touching parsers or the preemption engine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
FUZZTIME=${FUZZTIME:-10s}
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$dir"/*_test.go 2>/dev/null | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort -u); do
		echo "== $pkg $target ($FUZZTIME)"
		go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg"
	done
done

# The randomized property tests, at length: the cache against a model (issue 14) and
# preemption against a brute-force reference, pod-vs-gang parity and order independence
# (issues 10 and 13). `make test` runs short versions of the same tests.
echo "== property tests (CACHE_RANDOM_SEQUENCES=${CACHE_RANDOM_SEQUENCES:=20000}, PREEMPTION_PROPERTY_CLUSTERS=${PREEMPTION_PROPERTY_CLUSTERS:=10000})"
CACHE_RANDOM_SEQUENCES=$CACHE_RANDOM_SEQUENCES go test -count=1 -run '^TestRandomCacheOperations$' ./pkg/cache
PREEMPTION_PROPERTY_CLUSTERS=$PREEMPTION_PROPERTY_CLUSTERS go test -count=1 -timeout 30m \
	-run '^(TestPreemptionMatchesBruteForce|TestPodAndOneMemberGangDecideAlike|TestVictimCostIndependentOfOrder|TestMediumReferenceMatchesBruteForce)$' ./pkg/driver/sim
# Medium clusters against the exact reference (issue 20): the least cost on enough of them.
echo "== medium clusters (PREEMPTION_MEDIUM_CLUSTERS=${PREEMPTION_MEDIUM_CLUSTERS:=200} of each kind)"
PREEMPTION_MEDIUM_CLUSTERS=$PREEMPTION_MEDIUM_CLUSTERS go test -count=1 -timeout 30m -run '^TestPreemptionOptimalOnMediumClusters$' ./pkg/driver/sim
