#!/usr/bin/env bash
# Stops and starts one component of a running e2e control plane (hack/e2e.sh),
# with the exact command line it was first started with. Tests reach it through
# $PHALANX_E2E_CTL; the Go helpers in test/e2e/e2eutil wrap it.
#
#   e2e-ctl.sh stop    COMPONENT
#   e2e-ctl.sh start   COMPONENT            (kube-apiserver: waits for /readyz)
#   e2e-ctl.sh restart COMPONENT [SECONDS]  (stopped for SECONDS, default 0)
#   e2e-ctl.sh release VERSION on|off      (kube-apiserver and kube-controller-manager
#                                            restarted as VERSION, v1.37.2 or v1.36.3, with
#                                            the workload API's gates on or off: the seed's
#                                            upgrade and downgrade; both must be built)
#
# COMPONENT: etcd, kube-apiserver, kube-controller-manager or kwok.
# Needs PHALANX_E2E_DIR (exported by hack/e2e.sh).
set -euo pipefail
# shellcheck source=hack/lib/e2e-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/e2e-cluster.sh"

usage() { echo "usage: $0 stop|start|restart COMPONENT [SECONDS] | release VERSION on|off" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
: "${PHALANX_E2E_DIR:?PHALANX_E2E_DIR is not set: run under hack/e2e.sh}"
action=$1 name=$2 down=${3:-0}
if [[ ${action} == release ]]; then
  [[ ${down} == on || ${down} == off ]] || usage
  # Rewrite the two components' command lines for the release and gates (the binary,
  # --feature-gates and --runtime-config: e2e::up's), then restart them, the API server
  # first (an upgrade order: the seed's upgrade and downgrade strategy).
  E2E_KUBE_VERSION=${name} E2E_WORKLOAD_GATES=${down}
  # shellcheck source=hack/lib/e2e-cluster.sh
  source "$(dirname "${BASH_SOURCE[0]}")/e2e-cluster.sh"
  gates="--feature-gates=$(e2e::feature_gates)" runtime="--runtime-config=$(e2e::runtime_config)"
  for c in kube-controller-manager kube-apiserver; do
    e2e::stop "${c}"
  done
  for c in kube-apiserver kube-controller-manager; do
    f="${PHALANX_E2E_DIR}/${c}.args"
    [[ -x "${E2E_KUBE_BIN_DIR}/${c}" ]] || e2e::die "${E2E_KUBE_BIN_DIR}/${c} is not built (E2E_KUBE_VERSION=${name} hack/e2e.sh --build-only)"
    sed -i -e "1s|.*|${E2E_KUBE_BIN_DIR}/${c}|" -e "s|^--feature-gates=.*|${gates}|" -e "s|^--runtime-config=.*|${runtime}|" "${f}"
    e2e::log "starting ${c} ${name}, workload API ${down}"
    e2e::start "${c}"
    if [[ ${c} == kube-apiserver ]]; then
      e2e::wait_apiserver 120s
    fi
  done
  # kwok plays every kubelet: restarted, it watches the new server at once (its old
  # watches come back only after a backoff that took minutes under load, and meanwhile no
  # pod finished terminating).
  e2e::stop kwok
  e2e::start kwok
  sleep 0.5
  e2e::check_running kube-controller-manager
  e2e::check_running kwok
  exit 0
fi
[[ -f "${PHALANX_E2E_DIR}/${name}.args" ]] || e2e::die "unknown component ${name}"

start() {
  if [[ -f "${PHALANX_E2E_DIR}/${name}.pid" ]] && e2e::alive "$(cat "${PHALANX_E2E_DIR}/${name}.pid")"; then
    e2e::die "${name} is already running"
  fi
  e2e::log "starting ${name}"
  e2e::start "${name}"
  if [[ ${name} == kube-apiserver ]]; then
    # As long as a release switch allows: an API server restarted under a soak's load,
    # on a busy 2-core machine, has taken more than a minute to be ready.
    e2e::wait_apiserver 120s
  fi
  sleep 0.5
  e2e::check_running "${name}"
}

case ${action} in
stop) e2e::log "stopping ${name}"; e2e::stop "${name}" ;;
start) start ;;
restart)
  e2e::log "stopping ${name} for ${down}s"
  e2e::stop "${name}"
  sleep "${down}"
  start
  ;;
*) usage ;;
esac
