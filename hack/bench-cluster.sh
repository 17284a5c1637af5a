#!/usr/bin/env bash
# make bench-cluster: phalanx head to head with upstream kube-scheduler, built from the
# same k8s.io/kubernetes module as the e2e control plane. Each scheduler runs on a fresh
# control plane (hack/lib/e2e-cluster.sh, with upstream's gang scheduling gates and its
# native PodGroup API on) with the same workloads, once with its defaults and once with
# equal client limits; the trivial binder (no scheduling) measures the ceiling. It then
# prints one table (hack/bench-cluster/table.go). Not part of CI: at full size it takes
# about 15 minutes on 2 cores.
#
#   hack/bench-cluster.sh [bench-cluster run flags]
#       e.g. --nodes 100 --burst-pods 500 --stream-pods 200 --preemptors 50 --gangs 10
#       for a smoke run (hack/bench-cluster/main.go lists the flags);
#       --workloads kueue (or burst,stream,preemption,gang,kueue) adds 100 gang Jobs
#       admitted by Kueue v0.17.0 a few at a time (--kueue-jobs, --kueue-admit)
#
# RUNS picks the runs (default: all five), EQUAL_QPS/EQUAL_BURST the equal limits
# (default 500/1000), RESULTS the results file (default: a new one in the work dir),
# E2E_KWOK_POD_WORKERS kwok's pod-stage workers (default 32 here, kwok's 4 in the e2e
# tests: with 4 the victims of the preemption wave left up to 13 s after their deadlines,
# docs/decisions/0071).
# KEEP_E2E_DIR=1 keeps each control plane's dir (logs of every component and scheduler).
set -euo pipefail
# shellcheck source=hack/lib/e2e-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e-cluster.sh"

RUNS=${RUNS:-"phalanx:defaults kube-scheduler:defaults phalanx:equal kube-scheduler:equal binder:none"}
EQUAL_QPS=${EQUAL_QPS:-500}
EQUAL_BURST=${EQUAL_BURST:-1000}
export E2E_KWOK_POD_WORKERS=${E2E_KWOK_POD_WORKERS:-32}

e2e::build
e2e::build_kube_scheduler
work="$(mktemp -d "${TMPDIR:-/tmp}/phalanx-bench.XXXXXX")"
results=${RESULTS:-${work}/results.jsonl}
e2e::log "building phalanx and bench-cluster into ${work}"
(cd "${E2E_REPO_ROOT}" && go build -o "${work}/phalanx" ./cmd/phalanx && go build -o "${work}/bench-cluster" ./hack/bench-cluster) ||
  e2e::die "build failed"

# Kueue's CRDs and webhook manifests, for the kueue workload (--workloads ...,kueue).
kueue_module="$(cd "${E2E_CLUSTER_DIR}/kueue" && GOWORK=off GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)" ||
  e2e::die "go list -m sigs.k8s.io/kueue in hack/cluster/kueue failed"

# Upstream's gang scheduling reads the native PodGroup API, beta in v1.37 (off by
# default): e2e::up serves it (with its feature gates) on every control plane, v1.37.2
# unless E2E_KUBE_VERSION says otherwise.

# shellcheck disable=SC2317 # reached through the trap
teardown() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n ${child:-} ]]; then
    kill -TERM "${child}" 2>/dev/null
    wait "${child}"
  fi
  if [[ -n ${PHALANX_E2E_DIR:-} ]]; then
    e2e::down
    [[ ${KEEP_E2E_DIR:-0} == 1 ]] || rm -rf "${PHALANX_E2E_DIR}"
  fi
  exit "${rc}"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

failed=0
for run in ${RUNS}; do
  kind=${run%%:*}
  limits=${run#*:}
  flags=()
  if [[ ${limits} == equal ]]; then
    flags=(--qps "${EQUAL_QPS}" --burst "${EQUAL_BURST}")
  fi
  PHALANX_E2E_DIR="$(mktemp -d "${TMPDIR:-/tmp}/phalanx-bench-${kind}.XXXXXX")"
  export PHALANX_E2E_DIR
  e2e::log "${kind} (${limits}): fresh control plane in ${PHALANX_E2E_DIR}"
  e2e::up
  # In the background, so that a signal reaches the trap at once (which stops it).
  "${work}/bench-cluster" run --scheduler "${kind}" --limits "${limits}" "${flags[@]}" \
    --phalanx "${work}/phalanx" --kube-scheduler "${E2E_KUBE_BIN_DIR}/kube-scheduler" \
    --kueue "${E2E_BIN_DIR}/kueue" --kueue-module "${kueue_module}" \
    --dir "${PHALANX_E2E_DIR}" --out "${results}" "$@" &
  child=$!
  wait "${child}" || failed=1
  child=""
  e2e::down
  if [[ ${KEEP_E2E_DIR:-0} == 1 ]]; then
    e2e::log "kept ${PHALANX_E2E_DIR}"
  else
    rm -rf "${PHALANX_E2E_DIR}"
  fi
  PHALANX_E2E_DIR=""
done

"${work}/bench-cluster" table "${results}" | tee "${work}/table.md"
e2e::log "results: ${results}; table: ${work}/table.md"
exit "${failed}"
