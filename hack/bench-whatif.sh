#!/usr/bin/env bash
# make bench-whatif: `phalanx snapshot` and `phalanx whatif` on a large cluster of the e2e
# control plane (hack/lib/e2e-cluster.sh): NODES kwok nodes (default 5000) full of PODS
# bound pods (default 50000) and 100 pending ones (hack/bench-whatif/main.go), then a gang
# Job and a preempting pod asked about. It prints each command's wall time and peak
# memory (/usr/bin/time). Not part of CI: filling the cluster takes minutes.
set -euo pipefail
# shellcheck source=hack/lib/e2e-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e-cluster.sh"
NODES=${NODES:-5000}
PODS=${PODS:-50000}
[[ -x /usr/bin/time ]] || e2e::die "/usr/bin/time (GNU time) is needed for the peak memory"

e2e::build
work="$(mktemp -d "${TMPDIR:-/tmp}/phalanx-bench-whatif.XXXXXX")"
(cd "${E2E_REPO_ROOT}" && go build -o "${work}/phalanx" ./cmd/phalanx && go build -o "${work}/bench-whatif" ./hack/bench-whatif) ||
  e2e::die "build failed"
PHALANX_E2E_DIR="${work}/cluster"
mkdir -p "${PHALANX_E2E_DIR}"
export PHALANX_E2E_DIR
# shellcheck disable=SC2317 # reached through the trap
teardown() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  e2e::down
  [[ ${KEEP_E2E_DIR:-0} == 1 ]] && e2e::log "kept ${work}" || rm -rf "${work}"
  exit "${rc}"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
e2e::up
kubeconfig="${PHALANX_E2E_DIR}/kubeconfig"
"${work}/bench-whatif" --kubeconfig "${kubeconfig}" --nodes "${NODES}" --pods "${PODS}" --out "${work}/new.yaml"

# timed NAME CMD...: runs a command under /usr/bin/time, prints wall seconds and peak MiB.
timed() {
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "${work}/time" "$@" >"${work}/${name}.out" 2>"${work}/${name}.err" || true
  read -r wall kib <"${work}/time"
  printf '| %s | %s | %d |\n' "${name}" "${wall}" $((kib / 1024))
  tail -n 3 "${work}/${name}.err" >&2
}
echo "| command | wall s | peak MiB |"
echo "| --- | ---: | ---: |"
timed "snapshot" "${work}/phalanx" snapshot --kubeconfig "${kubeconfig}" -o "${work}/snapshot.yaml"
timed "whatif --kubeconfig (snapshot + what-if)" "${work}/phalanx" whatif --kubeconfig "${kubeconfig}" -f "${work}/new.yaml"
timed "whatif --snapshot" "${work}/phalanx" whatif --snapshot "${work}/snapshot.yaml" -f "${work}/new.yaml"
e2e::log "snapshot: $(du -h "${work}/snapshot.yaml" | cut -f1); the answer (abridged):"
answer="${work}/whatif --kubeconfig (snapshot + what-if).out"
grep -v '^    ' "${answer}"
