//go:build e2e

package e2eutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Components of the control plane, as hack/lib/e2e-ctl.sh names them.
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
	Kwok                  = "kwok"
)

// StopComponent stops a component (SIGTERM to its process group, SIGKILL
// after 15 s). The whole test binary shares one control plane: a test that
// stops something must not run in parallel with others, and should restart it
// with t.Cleanup.
func (c *Cluster) StopComponent(t testing.TB, name string) {
	t.Helper()
	c.ctl(t, "stop", name)
}

// StartComponent starts a stopped component with its original command line;
// for kube-apiserver it returns once /readyz answers ok.
func (c *Cluster) StartComponent(t testing.TB, name string) {
	t.Helper()
	c.ctl(t, "start", name)
}

// RestartAPIServer stops kube-apiserver, keeps it down for down, starts it
// again with the same flags and waits for /readyz. Clients see connection
// refused in between; watches must re-establish.
func (c *Cluster) RestartAPIServer(t testing.TB, down time.Duration) {
	t.Helper()
	c.ctl(t, "restart", KubeAPIServer, strconv.FormatFloat(down.Seconds(), 'f', 3, 64))
}

// SwitchRelease restarts kube-apiserver and kube-controller-manager as another release
// (v1.37.2 or v1.36.3) with the workload API on or off ("on", "off"), on the same etcd:
// the seed's upgrade and downgrade. Both releases must be built. A test that switches
// must switch back to the run's release, with the API on, in t.Cleanup.
func (c *Cluster) SwitchRelease(t testing.TB, version, gates string) {
	t.Helper()
	c.ctl(t, "release", version, gates)
}

func (c *Cluster) ctl(t testing.TB, args ...string) {
	t.Helper()
	script := os.Getenv(EnvCtl)
	if script == "" {
		t.Fatalf("%s is not set: run the e2e tests with hack/e2e.sh", EnvCtl)
	}
	out, err := exec.Command(script, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
	t.Logf("%s", out)
}

// PauseComponent freezes a component (SIGSTOP to its process group) until
// ResumeComponent, which t.Cleanup also calls. A paused etcd leaves requests
// hanging in kube-apiserver: writes sent before the pause may commit after
// their clients gave up.
func (c *Cluster) PauseComponent(t testing.TB, name string) {
	t.Helper()
	c.signalComponent(t, name, syscall.SIGSTOP)
	t.Cleanup(func() { c.signalComponent(t, name, syscall.SIGCONT) })
	t.Logf("paused %s", name)
}

// ResumeComponent lets a paused component go on (SIGCONT).
func (c *Cluster) ResumeComponent(t testing.TB, name string) {
	t.Helper()
	c.signalComponent(t, name, syscall.SIGCONT)
	t.Logf("resumed %s", name)
}

func (c *Cluster) signalComponent(t testing.TB, name string, sig syscall.Signal) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.Dir, name+".pid"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s.pid: %v", name, err)
	}
	// The component leads its own process group (hack/lib/e2e-cluster.sh).
	if err := syscall.Kill(-pid, sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, name, err)
	}
}
