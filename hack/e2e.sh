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
  local i
  for ((i = ${#E2E_COMPONENTS[@]} - 1; i >= 0; i--)); do
    e2e::stop "${E2E_COMPONENTS[i]}"
  done
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

t1=${SECONDS}
e2e::log "starting control plane in ${dir}"
"${E2E_BIN_DIR}/e2ectl" certs "${dir}/pki"
mapfile -t ports < <("${E2E_BIN_DIR}/e2ectl" ports 3)
((${#ports[@]} == 3)) || e2e::die "could not pick free ports"
etcd_port=${ports[0]} etcd_peer_port=${ports[1]} apiserver_port=${ports[2]}
kubeconfig="${dir}/kubeconfig"
pki="${dir}/pki"

cat >"${kubeconfig}" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: https://127.0.0.1:${apiserver_port}
    certificate-authority: ${pki}/ca.crt
users:
- name: admin
  user:
    token: $(cat "${pki}/admin.token")
contexts:
- name: e2e
  context:
    cluster: e2e
    user: admin
current-context: e2e
EOF
chmod 600 "${kubeconfig}"

# etcd: fsync off, as the data is thrown away with the temp dir.
e2e::launch etcd "${E2E_BIN_DIR}/etcd" \
  --name=e2e \
  --data-dir="${dir}/etcd" \
  --listen-client-urls="http://127.0.0.1:${etcd_port}" \
  --advertise-client-urls="http://127.0.0.1:${etcd_port}" \
  --listen-peer-urls="http://127.0.0.1:${etcd_peer_port}" \
  --initial-advertise-peer-urls="http://127.0.0.1:${etcd_peer_port}" \
  --initial-cluster="e2e=http://127.0.0.1:${etcd_peer_port}" \
  --unsafe-no-fsync \
  --log-level=warn
e2e::wait_port "${etcd_port}" 30 || { e2e::check_running etcd; e2e::die "etcd did not listen on ${etcd_port}"; }

# Kubernetes' own workload scheduling API (scheduling.k8s.io/v1alpha2 Workload and
# PodGroup, KEP-4671/5547/5710/5732) is alpha in v1.36: served only with these gates and
# the runtime-config below. WorkloadWithJob makes the Job controller create a Workload
# and a PodGroup for gang-shaped Indexed Jobs. The same gates go to both components.
feature_gates=(
  GenericWorkload=true
  GangScheduling=true
  WorkloadAwarePreemption=true
  TopologyAwareWorkloadScheduling=true
  WorkloadWithJob=true
)
feature_gates_flag="--feature-gates=$(IFS=,; echo "${feature_gates[*]}")"

# --shutdown-send-retry-after: on SIGTERM, drain and stop in ~2 s instead of
# waiting up to --request-timeout (60 s) for watches, so stopping it in a test
# is quick. --endpoint-reconciler-type=none: the "kubernetes" Service's
# endpoints may not be a loopback address; nothing here needs them.
e2e::launch kube-apiserver "${E2E_BIN_DIR}/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:${etcd_port}" \
  --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 \
  --secure-port="${apiserver_port}" \
  --cert-dir="${dir}/kube-apiserver-certs" \
  --tls-cert-file="${pki}/serving.crt" \
  --tls-private-key-file="${pki}/serving.key" \
  --client-ca-file="${pki}/ca.crt" \
  --token-auth-file="${pki}/tokens.csv" \
  --authorization-mode=RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="${pki}/sa.key" \
  --service-account-signing-key-file="${pki}/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --endpoint-reconciler-type=none \
  --allow-privileged=true \
  --shutdown-send-retry-after=true \
  --runtime-config=scheduling.k8s.io/v1alpha2=true \
  "${feature_gates_flag}" \
  --profiling=false \
  --v=1
e2e::wait_apiserver 120s || e2e::die "kube-apiserver did not become ready"
e2e::log "kube-apiserver ready on https://127.0.0.1:${apiserver_port} ($((SECONDS - t1))s)"

# Controllers the tests rely on, and the ones that make workloads behave
# (hack/cluster/README.md). Not taint-eviction: a test stopping kwok or the
# apiserver must not see its pods evicted. No serving port: nothing reads its
# /healthz or /metrics, and serving would need request-header auth set up.
controllers=(
  serviceaccount-controller
  serviceaccount-token-controller
  root-ca-certificate-publisher-controller
  namespace-controller
  garbage-collector-controller
  node-lifecycle-controller
  pod-garbage-collector-controller
  disruption-controller
  replicaset-controller
  deployment-controller
  statefulset-controller
  job-controller
  podgroup-protection-controller
  validatingadmissionpolicy-status-controller
  persistentvolume-binder-controller
  resourceclaim-controller
)
e2e::launch kube-controller-manager "${E2E_BIN_DIR}/kube-controller-manager" \
  --kubeconfig="${kubeconfig}" \
  --secure-port=0 \
  --leader-elect=false \
  --controllers="$(IFS=,; echo "${controllers[*]}")" \
  --service-account-private-key-file="${pki}/sa.key" \
  --root-ca-file="${pki}/ca.crt" \
  "${feature_gates_flag}" \
  --profiling=false \
  --v=1

# kwok manages only nodes annotated kwok.x-k8s.io/node=fake, and the pods on
# them, with the stages in hack/cluster/kwok-stages. KWOK_WORKDIR keeps it from
# reading ~/.kwok/kwok.yaml.
stage_args=()
for f in "${E2E_CLUSTER_DIR}"/kwok-stages/*.yaml; do
  stage_args+=("--config=${f}")
done
mkdir -p "${dir}/kwok-workdir"
e2e::launch kwok env "KWOK_WORKDIR=${dir}/kwok-workdir" "${E2E_BIN_DIR}/kwok" \
  "${stage_args[@]}" \
  --kubeconfig="${kubeconfig}" \
  --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --cidr=10.0.0.0/16 \
  --node-lease-duration-seconds=40

"${E2E_BIN_DIR}/e2ectl" wait-ready "${kubeconfig}" 120s || {
  e2e::check_running kube-controller-manager
  e2e::die "no default ServiceAccount: is kube-controller-manager working?"
}
e2e::check_running kwok || e2e::die "kwok exited"

shopt -s nullglob
crds=()
for f in "${E2E_REPO_ROOT}"/config/crd/*.yaml "${E2E_REPO_ROOT}"/config/crd/bases/*.yaml; do
  [[ $(basename "${f}") == kustomization.yaml ]] || crds+=("${f}")
done
shopt -u nullglob
if ((${#crds[@]})); then
  e2e::log "applying ${#crds[@]} file(s) from config/crd"
  "${E2E_BIN_DIR}/e2ectl" apply "${kubeconfig}" "${crds[@]}"
fi

cat >"${dir}/env" <<EOF
export KUBECONFIG=${kubeconfig}
export PHALANX_E2E_PHALANX=${dir}/phalanx
export PHALANX_E2E_DIR=${dir}
export PHALANX_E2E_BIN_DIR=${E2E_BIN_DIR}
export PHALANX_E2E_CTL=${E2E_REPO_ROOT}/hack/lib/e2e-ctl.sh
EOF
# shellcheck source=/dev/null
source "${dir}/env"
e2e::log "control plane up in $((SECONDS - t1))s"

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
