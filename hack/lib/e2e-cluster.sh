# shellcheck shell=bash
# Functions for the e2e control plane, sourced by hack/e2e.sh and hack/lib/e2e-ctl.sh.
# Layout and contract: hack/cluster/README.md.

E2E_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
E2E_CLUSTER_DIR="${E2E_REPO_ROOT}/hack/cluster"
E2E_BIN_DIR="${PHALANX_E2E_BIN_DIR:-${E2E_REPO_ROOT}/.cache/e2e/bin}"

# The components, in start order.
# shellcheck disable=SC2034 # used by hack/e2e.sh
E2E_COMPONENTS=(etcd kube-apiserver kube-controller-manager kwok)

e2e::log() { printf '[e2e %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
e2e::die() { e2e::log "ERROR: $*"; exit 1; }

# --- build -------------------------------------------------------------------

# Version stamping as kubernetes' hack/lib/version.sh does it, so that /version
# and the compatibility-version logic see v1.36.3, not v0.0.0-master.
e2e::kube_ldflags() {
  local v=v1.36.3 pkg
  local flags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=${v} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=36"
    flags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  printf '%s' "${flags}"
}

# e2e::stamp FILE... prints a hash of the Go toolchain, the build flags and the
# given files: a binary is rebuilt when any of them changes.
e2e::stamp() {
  {
    go version
    go env GOOS GOARCH
    printf '%s\n' "$(e2e::kube_ldflags)" "${E2E_GOBUILD_FLAGS[*]}"
    cat "$@"
  } | sha256sum | cut -d' ' -f1
}

E2E_GOBUILD_FLAGS=(-trimpath)

# e2e::build_one NAME MODULE_DIR STAMP_FILES... -- GO_BUILD_ARGS...
# Builds into E2E_BIN_DIR unless its stamp says the binaries are current.
e2e::build_one() {
  local name=$1 moddir=$2
  shift 2
  local files=()
  while [[ $1 != -- ]]; do files+=("$1"); shift; done
  shift
  local stampfile="${E2E_BIN_DIR}/.stamp-${name}" want
  want="$(e2e::stamp "${files[@]}")"
  if [[ -f ${stampfile} && "$(cat "${stampfile}")" == "${want}" ]]; then
    e2e::log "${name}: up to date"
    return 0
  fi
  e2e::log "${name}: building (cold: several minutes)"
  local start=${SECONDS}
  rm -f "${stampfile}"
  (cd "${moddir}" && GOWORK=off CGO_ENABLED=0 go build "${E2E_GOBUILD_FLAGS[@]}" -o "${E2E_BIN_DIR}/" "$@") ||
    e2e::die "building ${name} failed"
  printf '%s\n' "${want}" >"${stampfile}"
  e2e::log "${name}: built in $((SECONDS - start))s"
}

# Two chains in parallel: kubernetes then e2ectl (same module: e2ectl reuses
# the cached client-go), and etcd then kwok. On 2 cores that overlaps each
# binary's single-threaded link with the other chain's compiles, and only the
# standard library is compiled twice.
e2e::build() {
  mkdir -p "${E2E_BIN_DIR}"
  local c=${E2E_CLUSTER_DIR} pids=() pid failed=0 b
  for b in etcd kube-apiserver kube-controller-manager kwok e2ectl; do
    [[ -x "${E2E_BIN_DIR}/${b}" ]] || rm -f "${E2E_BIN_DIR}"/.stamp-*
  done
  {
    e2e::build_one kubernetes "${c}" "${c}/go.mod" "${c}/go.sum" -- \
      -ldflags="$(e2e::kube_ldflags)" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
    e2e::build_one e2ectl "${c}" "${c}/go.mod" "${c}/go.sum" "${c}"/e2ectl/*.go -- \
      -ldflags="-s -w" ./e2ectl
  } &
  pids+=($!)
  {
    e2e::build_one etcd "${c}/etcd" "${c}/etcd/go.mod" "${c}/etcd/go.sum" "${c}/etcd/main.go" -- \
      -ldflags="-s -w" .
    e2e::build_one kwok "${c}/kwok" "${c}/kwok/go.mod" "${c}/kwok/go.sum" -- \
      -ldflags="-s -w" sigs.k8s.io/kwok/cmd/kwok
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
