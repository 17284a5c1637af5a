# shellcheck shell=bash
# Functions for the e2e control plane, sourced by hack/e2e.sh and hack/lib/e2e-ctl.sh.
# Layout and contract: hack/cluster/README.md.

E2E_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
E2E_CLUSTER_DIR="${E2E_REPO_ROOT}/hack/cluster"
E2E_BIN_DIR="${PHALANX_E2E_BIN_DIR:-${E2E_REPO_ROOT}/.cache/e2e/bin}"

# The Kubernetes release of the control plane: v1.37.2 (the default, hack/cluster) or
# v1.36.3 (hack/cluster/v1.36), each built from its own module into its own folder of
# E2E_BIN_DIR; etcd, kwok and e2ectl are shared.
E2E_KUBE_VERSION=${E2E_KUBE_VERSION:-v1.37.2}
case ${E2E_KUBE_VERSION} in
v1.37.2) E2E_KUBE_MODULE_DIR=${E2E_CLUSTER_DIR} ;;
v1.36.3) E2E_KUBE_MODULE_DIR=${E2E_CLUSTER_DIR}/v1.36 ;;
*) printf 'E2E_KUBE_VERSION=%s: v1.37.2 or v1.36.3\n' "${E2E_KUBE_VERSION}" >&2; exit 2 ;;
esac
# kube-apiserver, kube-controller-manager and kube-scheduler of E2E_KUBE_VERSION.
E2E_KUBE_BIN_DIR="${E2E_BIN_DIR}/${E2E_KUBE_VERSION}"

# The components, in start order.
# shellcheck disable=SC2034 # used by hack/e2e.sh
E2E_COMPONENTS=(etcd kube-apiserver kube-controller-manager kwok)

e2e::log() { printf '[e2e %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
e2e::die() { e2e::log "ERROR: $*"; exit 1; }

# --- build -------------------------------------------------------------------

# Version stamping as kubernetes' hack/lib/version.sh does it, so that /version
# and the compatibility-version logic see the release, not v0.0.0-master.
# e2e::kube_ldflags [VERSION]: E2E_KUBE_VERSION's by default.
e2e::kube_ldflags() {
  local v=${1:-${E2E_KUBE_VERSION}} pkg minor
  minor=${v#v1.}
  minor=${minor%%.*}
  local flags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=${v} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
    flags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  printf '%s' "${flags}"
}

# e2e::stamp ARGS -- FILE... prints a hash of the Go toolchain, the build flags and
# arguments, and the given files: a binary is rebuilt when any of them changes.
e2e::stamp() {
  local args=()
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  {
    go version
    go env GOOS GOARCH
    printf '%s\n' "${E2E_GOBUILD_FLAGS[*]}" "${args[@]}"
    cat "$@"
  } | sha256sum | cut -d' ' -f1
}

E2E_GOBUILD_FLAGS=(-trimpath)

# e2e::build_one NAME OUT_DIR MODULE_DIR STAMP_FILES... -- GO_BUILD_ARGS...
# Builds into OUT_DIR unless its stamp says the binaries are current.
e2e::build_one() {
  local name=$1 out=$2 moddir=$3
  shift 3
  local files=()
  while [[ $1 != -- ]]; do files+=("$1"); shift; done
  shift
  local stampfile="${out}/.stamp-${name}" want
  want="$(e2e::stamp "$@" -- "${files[@]}")"
  if [[ -f ${stampfile} && "$(cat "${stampfile}")" == "${want}" ]]; then
    e2e::log "${name}: up to date"
    return 0
  fi
  e2e::log "${name}: building (cold: several minutes)"
  local start=${SECONDS}
  mkdir -p "${out}"
  rm -f "${stampfile}"
  (cd "${moddir}" && GOWORK=off CGO_ENABLED=0 go build "${E2E_GOBUILD_FLAGS[@]}" -o "${out}/" "$@") ||
    e2e::die "building ${name} failed"
  printf '%s\n' "${want}" >"${stampfile}"
  e2e::log "${name}: built in $((SECONDS - start))s"
}

# e2e::build_kube NAME...: builds the named commands of k8s.io/kubernetes at
# E2E_KUBE_VERSION (one stamp per command set).
e2e::build_kube() {
  local m=${E2E_KUBE_MODULE_DIR} cmds=() c
  for c in "$@"; do cmds+=("k8s.io/kubernetes/cmd/${c}"); done
  e2e::build_one "$(IFS=+; echo "$*")" "${E2E_KUBE_BIN_DIR}" "${m}" "${m}/go.mod" "${m}/go.sum" -- \
    -ldflags="$(e2e::kube_ldflags)" "${cmds[@]}"
}

# Two chains in parallel: kubernetes then e2ectl, and etcd then kwok. On 2 cores
# that overlaps each binary's single-threaded link with the other chain's
# compiles, and only the standard library is compiled twice.
e2e::build() {
  mkdir -p "${E2E_BIN_DIR}"
  local c=${E2E_CLUSTER_DIR} pids=() pid failed=0 b
  for b in etcd kwok e2ectl; do
    [[ -x "${E2E_BIN_DIR}/${b}" ]] || rm -f "${E2E_BIN_DIR}"/.stamp-*
  done
  [[ -x "${E2E_BIN_DIR}/kubectl" ]] || rm -f "${E2E_BIN_DIR}/.stamp-kubectl"
  [[ -x "${E2E_BIN_DIR}/kueue" ]] || rm -f "${E2E_BIN_DIR}/.stamp-kueue"
  for b in kube-apiserver kube-controller-manager; do
    [[ -x "${E2E_KUBE_BIN_DIR}/${b}" ]] || rm -f "${E2E_KUBE_BIN_DIR}"/.stamp-*
  done
  {
    e2e::build_kube kube-apiserver kube-controller-manager
    e2e::build_one e2ectl "${E2E_BIN_DIR}" "${c}" "${c}/go.mod" "${c}/go.sum" "${c}"/e2ectl/*.go -- \
      -ldflags="-s -w" ./e2ectl
    # kubectl v1.37.2 (its own module, hack/cluster/kubectl), for both releases: the
    # install test runs the commands of docs/install.md with it.
    e2e::build_one kubectl "${E2E_BIN_DIR}" "${c}/kubectl" "${c}/kubectl/go.mod" "${c}/kubectl/go.sum" \
      "${c}/kubectl/main.go" -- -ldflags="$(e2e::kube_ldflags v1.37.2)" .
  } &
  pids+=($!)
  {
    e2e::build_one etcd "${E2E_BIN_DIR}" "${c}/etcd" "${c}/etcd/go.mod" "${c}/etcd/go.sum" "${c}/etcd/main.go" -- \
      -ldflags="-s -w" .
    e2e::build_one kwok "${E2E_BIN_DIR}" "${c}/kwok" "${c}/kwok/go.mod" "${c}/kwok/go.sum" -- \
      -ldflags="-s -w" sigs.k8s.io/kwok/cmd/kwok
    # Kueue v0.17.0 (its own module, hack/cluster/kueue), started only by the tests
    # that need it (test/e2e/kueue_test.go, e2eutil.StartKueue).
    e2e::build_kueue
  } &
  pids+=($!)
  # An interrupted build must not leave the other chain compiling.
  trap 'e2e::kill_tree "${pids[@]}"; exit 130' INT
  trap 'e2e::kill_tree "${pids[@]}"; exit 143' TERM
  for pid in "${pids[@]}"; do
    wait "${pid}" || failed=1
  done
  trap - INT TERM
  ((failed == 0)) || e2e::die "build failed"
}

# e2e::build_kueue builds Kueue's manager from hack/cluster/kueue into E2E_BIN_DIR/kueue.
e2e::build_kueue() {
  local m=${E2E_CLUSTER_DIR}/kueue
  e2e::build_one kueue "${E2E_BIN_DIR}" "${m}" "${m}/go.mod" "${m}/go.sum" -- \
    -ldflags="-s -w" sigs.k8s.io/kueue/cmd/kueue
}

# e2e::build_kube_scheduler builds upstream kube-scheduler from the control plane's
# module (hack/bench-cluster.sh runs it beside phalanx; the e2e tests do not need it).
e2e::build_kube_scheduler() {
  e2e::build_kube kube-scheduler
}

# e2e::kill_tree PID...: SIGTERM to each PID and all its descendants.
e2e::kill_tree() {
  local p c
  for p in "$@"; do
    # shellcheck disable=SC2013 # the file is one line of space-separated pids
    for c in $(cat /proc/"${p}"/task/*/children 2>/dev/null); do
      e2e::kill_tree "${c}"
    done
    kill -TERM "${p}" 2>/dev/null || true
  done
}

# --- processes ---------------------------------------------------------------

# e2e::alive PID: the process exists and is not a zombie.
e2e::alive() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ ${stat:0:1} != Z && ${stat:0:1} != X ]]
}

# e2e::start NAME: starts a component from DIR/NAME.args (one argument a line,
# the binary first) in its own session, so it is its own process group and a
# Ctrl-C on the terminal reaches only the script, which then stops it. The
# subshell makes it nobody's child: whether hack/e2e.sh or e2e-ctl.sh started
# it, it is stopped the same way, and the shell prints no job notices.
# Output is appended to DIR/NAME.log and the pid written to DIR/NAME.pid.
e2e::start() {
  local name=$1 dir=${PHALANX_E2E_DIR:?}
  local args=()
  mapfile -t args <"${dir}/${name}.args"
  (
    setsid "${args[@]}" >>"${dir}/${name}.log" 2>&1 </dev/null &
    echo $! >"${dir}/${name}.pid"
  )
}

# e2e::launch NAME BINARY ARGS...: records the command line, then starts it.
e2e::launch() {
  local name=$1
  shift
  printf '%s\n' "$@" >"${PHALANX_E2E_DIR:?}/${name}.args"
  e2e::start "${name}"
}

# e2e::stop NAME: SIGTERM to the component's process group, SIGKILL after 15 s.
e2e::stop() {
  local name=$1 dir=${PHALANX_E2E_DIR:?} pid i
  [[ -f "${dir}/${name}.pid" ]] || return 0
  pid="$(cat "${dir}/${name}.pid")"
  if e2e::alive "${pid}"; then
    kill -TERM -- "-${pid}" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
      e2e::alive "${pid}" || break
      sleep 0.1
    done
    if e2e::alive "${pid}"; then
      e2e::log "${name} (pid ${pid}) ignored SIGTERM; killing"
      kill -KILL -- "-${pid}" 2>/dev/null || true
    fi
  fi
  rm -f "${dir}/${name}.pid"
}

# e2e::wait_port PORT SECONDS: something accepts TCP connections on 127.0.0.1:PORT.
e2e::wait_port() {
  local port=$1 deadline=$((SECONDS + $2))
  while ((SECONDS < deadline)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

# e2e::check_running NAME: fails with the tail of its log if NAME has exited.
e2e::check_running() {
  local name=$1 dir=${PHALANX_E2E_DIR:?}
  if ! e2e::alive "$(cat "${dir}/${name}.pid" 2>/dev/null || echo 0)"; then
    e2e::log "${name} is not running; last lines of ${dir}/${name}.log:"
    tail -n 50 "${dir}/${name}.log" >&2 || true
    return 1
  fi
}

e2e::wait_apiserver() {
  local timeout=$1
  "${E2E_BIN_DIR}/e2ectl" wait-readyz "${PHALANX_E2E_DIR}/kubeconfig" "${timeout}" ||
    { e2e::check_running kube-apiserver; return 1; }
}

# --- control plane -------------------------------------------------------------

# e2e::feature_gates and e2e::runtime_config print the gates (for kube-apiserver and
# kube-controller-manager alike) and the API versions of the workload API for
# E2E_KUBE_VERSION: on, or, with E2E_WORKLOAD_GATES=off, off (the seed's downgrade: the
# API not served, spec.schedulingGroup dropped, pods scheduled one by one).
#
# v1.36: scheduling.k8s.io/v1alpha2, alpha; GangScheduling and WorkloadAwarePreemption
# are gates of their own.
# v1.37: v1beta1 (GenericWorkload is beta, off by default; gang scheduling and
# workload-aware preemption are part of it) and v1alpha3 (CompositePodGroup,
# PodGroupPreemptionPolicy); DRAWorkloadResourceClaims is beta, off by default.
# Both: WorkloadWithJob makes the Job controller create a Workload and a PodGroup for
# gang-shaped Indexed Jobs; TopologyAwareWorkloadScheduling allows topology constraints.
e2e::feature_gates() {
  local gates g on=true out=()
  [[ ${E2E_WORKLOAD_GATES:-on} == off ]] && on=false
  case ${E2E_KUBE_VERSION} in
  v1.36.3) gates=(GenericWorkload GangScheduling WorkloadAwarePreemption TopologyAwareWorkloadScheduling WorkloadWithJob) ;;
  *) gates=(GenericWorkload TopologyAwareWorkloadScheduling WorkloadWithJob CompositePodGroup PodGroupPreemptionPolicy DRAWorkloadResourceClaims) ;;
  esac
  for g in "${gates[@]}"; do out+=("${g}=${on}"); done
  (IFS=,; echo "${out[*]}")
}

e2e::runtime_config() {
  local on=true
  [[ ${E2E_WORKLOAD_GATES:-on} == off ]] && on=false
  case ${E2E_KUBE_VERSION} in
  v1.36.3) echo "scheduling.k8s.io/v1alpha2=${on}" ;;
  *) echo "scheduling.k8s.io/v1beta1=${on},scheduling.k8s.io/v1alpha3=${on}" ;;
  esac
}

# kwok's workers playing pod stages (its podPlayStageParallelism, 4 by default): the
# victims' removals at their deadlines and pods becoming Running all go through them
# (docs/decisions/0071).
E2E_KWOK_POD_WORKERS=${E2E_KWOK_POD_WORKERS:-4}

# e2e::kwok_configuration prints kwok's KwokConfiguration. kwok applies none of its
# defaults to a configuration read from a file, so it names every option the flags of
# e2e::up do not set, with kwok v0.8.0's defaults but for the pod-stage workers.
e2e::kwok_configuration() {
  cat <<EOF
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  podPlayStageParallelism: ${E2E_KWOK_POD_WORKERS}
  nodePlayStageParallelism: 4
  nodeLeaseParallelism: 4
  podsOnNodeSyncParallelism: 1
  enablePodsOnNodeSyncListPager: true
  enablePodsOnNodeSyncStreamWatch: false
  enableDebuggingHandlers: true
  enableContentionProfiling: false
  enableProfilingHandler: true
EOF
}

# e2e::up starts etcd, kube-apiserver, kube-controller-manager and kwok in
# $PHALANX_E2E_DIR (hack/cluster/README.md), waits until they are ready, applies
# config/crd and writes $PHALANX_E2E_DIR/env, which it also sources.
# E2E_APISERVER_EXTRA_ARGS (an array) is appended to kube-apiserver's flags.
e2e::up() {
  local dir=${PHALANX_E2E_DIR:?} t1=${SECONDS}
  local ports etcd_port etcd_peer_port apiserver_port kubeconfig pki controllers stage_args f crds
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

  # Kubernetes' own workload scheduling API (Workload and PodGroup, KEP-4671/5547/5710/
  # 5732), served only with its gates and the runtime-config below (e2e::kube_apis).
  local feature_gates_flag runtime_config_flag
  feature_gates_flag="--feature-gates=$(e2e::feature_gates)"
  runtime_config_flag="--runtime-config=$(e2e::runtime_config)"

  # --shutdown-send-retry-after: on SIGTERM, drain and stop in ~2 s instead of
  # waiting up to --request-timeout (60 s) for watches, so stopping it in a test
  # is quick. --endpoint-reconciler-type=none: the "kubernetes" Service's
  # endpoints may not be a loopback address; nothing here needs them.
  e2e::launch kube-apiserver "${E2E_KUBE_BIN_DIR}/kube-apiserver" \
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
    "${runtime_config_flag}" \
    "${feature_gates_flag}" \
    --profiling=false \
    --v=1 \
    ${E2E_APISERVER_EXTRA_ARGS[@]+"${E2E_APISERVER_EXTRA_ARGS[@]}"}
  e2e::wait_apiserver 120s || e2e::die "kube-apiserver did not become ready"
  e2e::log "kube-apiserver ready on https://127.0.0.1:${apiserver_port} ($((SECONDS - t1))s)"

  # Controllers the tests rely on, and the ones that make workloads behave
  # (hack/cluster/README.md). Its client limits are raised from 20/30: with
  # hundreds of nodes (hack/bench-cluster.sh), lifting their not-ready taints
  # one request at a time took minutes. Not taint-eviction: a test stopping kwok or the
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
  e2e::launch kube-controller-manager "${E2E_KUBE_BIN_DIR}/kube-controller-manager" \
    --kubeconfig="${kubeconfig}" \
    --secure-port=0 \
    --leader-elect=false \
    --controllers="$(IFS=,; echo "${controllers[*]}")" \
    --service-account-private-key-file="${pki}/sa.key" \
    --root-ca-file="${pki}/ca.crt" \
    --kube-api-qps=200 \
    --kube-api-burst=400 \
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
  e2e::kwok_configuration >"${dir}/kwok-configuration.yaml"
  stage_args+=("--config=${dir}/kwok-configuration.yaml")
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
export PHALANX_E2E_KUBE_VERSION=${E2E_KUBE_VERSION}
EOF
  # shellcheck source=/dev/null
  source "${dir}/env"
  e2e::log "control plane up in $((SECONDS - t1))s"
}

# e2e::down stops the components, newest first.
e2e::down() {
  local i
  for ((i = ${#E2E_COMPONENTS[@]} - 1; i >= 0; i--)); do
    e2e::stop "${E2E_COMPONENTS[i]}"
  done
}
