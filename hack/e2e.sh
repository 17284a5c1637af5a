#!/usr/bin/env bash
# Runs phalanx's e2e tests (test/e2e, build tag e2e) against a real control plane
# on 127.0.0.1: etcd, kube-apiserver, kube-controller-manager and kwok, all built
# from Go modules (hack/cluster/README.md says how and what the tests may rely on).
#
#   hack/e2e.sh [GO TEST ARGS...]   build if needed, start, run the tests, tear down
#   hack/e2e.sh --build-only        only build the binaries into .cache/e2e/bin
#   hack/e2e.sh --up                start the control plane, print its env file,
#                                   and keep it up until Ctrl-C
#
# KEEP_E2E_DIR=1 keeps the temp dir (logs, kubeconfig, etcd data) after teardown.
set -euo pipefail
# shellcheck source=hack/lib/e2e-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e-cluster.sh"

mode="test"
case ${1:-} in
--build-only) mode=build; shift ;;
--up) mode=up; shift ;;
esac

command -v go >/dev/null || e2e::die "go is not on PATH"
command -v setsid >/dev/null || e2e::die "setsid (util-linux) is not on PATH"

t0=${SECONDS}
e2e::build
e2e::log "binaries ready in ${E2E_BIN_DIR} ($((SECONDS - t0))s)"
[[ ${mode} == build ]] && exit 0

# --- start -------------------------------------------------------------------

PHALANX_E2E_DIR="$(mktemp -d "${TMPDIR:-/tmp}/phalanx-e2e.XXXXXX")"
export PHALANX_E2E_DIR
dir=${PHALANX_E2E_DIR}
failed=1

# shellcheck disable=SC2317 # reached through the trap
teardown() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  e2e::down
  if ((failed)); then
    local c
    for c in "${E2E_COMPONENTS[@]}"; do
      [[ -f "${dir}/${c}.log" ]] || continue
      printf '\n===== last 50 lines of %s/%s.log =====\n' "${dir}" "${c}" >&2
      tail -n 50 "${dir}/${c}.log" >&2
    done
  fi
  if [[ ${KEEP_E2E_DIR:-0} == 1 ]]; then
    e2e::log "kept ${dir}"
  else
    rm -rf "${dir}"
  fi
  exit "${rc}"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The phalanx under test, built from this checkout (tests run it as a process, so
# they can kill and restart it).
e2e::log "building phalanx into ${dir}"
(cd "${E2E_REPO_ROOT}" && go build -o "${dir}/phalanx" ./cmd/phalanx) || e2e::die "building phalanx failed"

e2e::up
if [[ ${mode} == up ]]; then
  failed=0
  e2e::log "env file: ${dir}/env"
  cat "${dir}/env"
  e2e::log "logs: ${dir}/*.log; Ctrl-C tears everything down"
  while true; do
    for c in "${E2E_COMPONENTS[@]}"; do
      [[ -f "${dir}/${c}.pid" ]] || continue # stopped on purpose by e2e-ctl.sh
      if ! e2e::alive "$(cat "${dir}/${c}.pid")"; then
        failed=1
        e2e::die "${c} exited"
      fi
    done
    sleep 2
  done
fi

# --- test --------------------------------------------------------------------

t2=${SECONDS}
cd "${E2E_REPO_ROOT}"
rc=0
go test -p=1 -tags e2e -count=1 -timeout 30m ./test/e2e/... "$@" || rc=$?
e2e::log "tests took $((SECONDS - t2))s (exit ${rc})"
((rc == 0)) && failed=0
exit "${rc}"
