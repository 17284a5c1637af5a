//go:build e2e

package e2eutil

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Where config/ installs phalanx, and whom it runs as.
const (
	PhalanxNamespace      = "phalanx-system"
	PhalanxServiceAccount = "phalanx"
	// PhalanxLease is the leader-election Lease config/rbac lets phalanx use.
	PhalanxLease = "phalanx"
)

// EnvPhalanx names the phalanx binary hack/e2e.sh builds for the tests. Without it,
// the tests build one.
const EnvPhalanx = "PHALANX_E2E_PHALANX"

// RepoRoot is the repository's root (the folder of go.mod above the test's).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "cmd", "phalanx")); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("repository root not found above the working directory")
		}
		dir = parent
	}
}

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// PhalanxBinary returns the phalanx binary under test.
func PhalanxBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		if p := os.Getenv(EnvPhalanx); p != "" {
			binaryPath = p
			return
		}
		dir, err := os.MkdirTemp("", "phalanx-e2e-bin")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "phalanx")
		cmd := exec.Command("go", "build", "-o", binaryPath, "./cmd/phalanx")
		cmd.Dir = RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("go build ./cmd/phalanx: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

var (
	rbacOnce       sync.Once
	rbacKubeconfig string
	rbacErr        error
)

// PhalanxKubeconfig installs config/namespace.yaml and config/rbac (once per test
// binary) and returns a kubeconfig with a token of phalanx's ServiceAccount: phalanx
// under test has exactly the permissions a real installation gives it.
func (c *Cluster) PhalanxKubeconfig(t testing.TB) string {
	t.Helper()
	rbacOnce.Do(func() { rbacKubeconfig, rbacErr = c.installRBAC(t) })
	if rbacErr != nil {
		t.Fatalf("installing phalanx's RBAC: %v", rbacErr)
	}
	return rbacKubeconfig
}

// ForgetPhalanxRBAC makes the next PhalanxKubeconfig install phalanx's namespace and RBAC
// again and issue a new token, and the next SnapshotKubeconfig the same for the snapshot's
// ServiceAccount, which lives in that namespace: for a test that uninstalled them (the
// install test).
func ForgetPhalanxRBAC() {
	rbacOnce = sync.Once{}
	rbacKubeconfig, rbacErr = "", nil
	snapshotOnce = sync.Once{}
	snapshotKubeconfig, snapshotErr = "", nil
}

func (c *Cluster) installRBAC(t testing.TB) (string, error) {
	root := RepoRoot(t)
	files := []string{filepath.Join(root, "config", "namespace.yaml")}
	rbac, err := filepath.Glob(filepath.Join(root, "config", "rbac", "*.yaml"))
	if err != nil {
		return "", err
	}
	sort.Strings(rbac)
	files = append(files, rbac...)
	args := append([]string{"apply", os.Getenv(EnvKubeconfig)}, files...)
	if out, err := exec.Command(filepath.Join(c.BinDir, "e2ectl"), args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("e2ectl apply: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	expiry := int64(6 * 3600)
	tr, err := c.Client.CoreV1().ServiceAccounts(PhalanxNamespace).CreateToken(ctx, PhalanxServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", PhalanxNamespace, PhalanxServiceAccount, err)
	}
	path := filepath.Join(c.Dir, "phalanx-sa.kubeconfig")
	return path, c.writeTokenKubeconfig(path, "phalanx", tr.Status.Token)
}

// writeTokenKubeconfig writes a kubeconfig of the control plane with a user's token.
func (c *Cluster) writeTokenKubeconfig(path, user, token string) error {
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: %s
  context: {cluster: e2e, user: %s}
current-context: %s
`, c.Config.Host, c.Config.TLSClientConfig.CAFile, user, token, user, user, user)
	return os.WriteFile(path, []byte(kubeconfig), 0o600)
}

var schedulerNames sync.Map // test name -> scheduler name

// SchedulerName is the spec.schedulerName of the test's pods, unique to the test: the
// processes StartPhalanx starts for it schedule only those, so pods a previous test
// left pending (its namespace still terminating) cannot change this test's outcome.
func SchedulerName(t testing.TB) string {
	name, _ := schedulerNames.LoadOrStore(t.Name(), UniqueName(t, "phalanx-"+t.Name()))
	return name.(string)
}

// phalanxConfig writes config/deploy/scheduler-config.yaml, the example configuration
// the Deployment uses, with the test's scheduler name, and returns its path.
func (c *Cluster) phalanxConfig(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(RepoRoot(t), "config", "deploy", "scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const profile = "- schedulerName: phalanx\n"
	if !strings.Contains(string(data), profile) {
		t.Fatalf("config/deploy/scheduler-config.yaml has no profile %q", profile)
	}
	name := SchedulerName(t)
	path := filepath.Join(c.Dir, name+".yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), profile, "- schedulerName: "+name+"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Phalanx is a `phalanx run` process.
type Phalanx struct {
	Name string
	// Addr is its /healthz, /readyz and /metrics listener.
	Addr string
	Log  string

	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

var phalanxSeq struct {
	sync.Mutex
	n int
}

// StartPhalanx starts `phalanx run` as phalanx's ServiceAccount, with the example
// configuration answering to SchedulerName(t), leader election on the Lease
// config/rbac grants, a listener on a free loopback port, -v=2, and then args (later
// flags win). The process is stopped (SIGTERM) when the test ends, and its
// log printed if the test failed.
func (c *Cluster) StartPhalanx(t testing.TB, name string, args ...string) *Phalanx {
	t.Helper()
	bin := PhalanxBinary(t)
	kubeconfig := c.PhalanxKubeconfig(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	phalanxSeq.Lock()
	phalanxSeq.n++
	n := phalanxSeq.n
	phalanxSeq.Unlock()
	p := &Phalanx{
		Name: name,
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Log:  filepath.Join(c.Dir, fmt.Sprintf("phalanx-%03d-%s.log", n, name)),
		done: make(chan struct{}),
	}
	full := append([]string{"run",
		"--kubeconfig=" + kubeconfig,
		"--config=" + c.phalanxConfig(t),
		"--bind-address=" + p.Addr,
		"--leader-elect-resource-namespace=" + PhalanxNamespace,
		"--leader-elect-resource-name=" + PhalanxLease,
		"--v=2",
	}, args...)
	logf, err := os.Create(p.Log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, full...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting phalanx: %v", err)
	}
	t.Logf("started phalanx %s (pid %d) on %s, log %s", name, p.cmd.Process.Pid, p.Addr, p.Log)
	go func() {
		p.err = p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.Exited() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		if t.Failed() {
			p.dumpLog(t, 80)
		}
	})
	return p
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (p *Phalanx) dumpLog(t testing.TB, lines int) {
	data, err := os.ReadFile(p.Log)
	if err != nil {
		return
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	t.Logf("last %d lines of %s:\n%s", len(all), p.Log, strings.Join(all, "\n"))
}

// Exited tells whether the process has ended.
func (p *Phalanx) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitCode is the process's exit status (-1 if killed by a signal); it waits for the
// end.
func (p *Phalanx) ExitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}

// Kill sends SIGKILL and waits for the process to end.
func (p *Phalanx) Kill(t testing.TB) {
	t.Helper()
	_ = p.cmd.Process.Kill()
	<-p.done
	t.Logf("killed phalanx %s", p.Name)
}

// Stop sends SIGTERM and returns the exit status.
func (p *Phalanx) Stop(t testing.TB) int {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Errorf("phalanx %s did not exit within 30s of SIGTERM", p.Name)
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *Phalanx) get(ctx context.Context, path string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.Addr+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Get asks the process's listener for a path, and returns the status and the body.
func (p *Phalanx) Get(ctx context.Context, path string) (int, string, error) { return p.get(ctx, path) }

// ReadLog returns the process's log so far.
func (p *Phalanx) ReadLog(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(p.Log)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Ready tells whether /readyz answers 200.
func (p *Phalanx) Ready(ctx context.Context) bool {
	code, _, err := p.get(ctx, "/readyz")
	return err == nil && code == http.StatusOK
}

// WaitReady waits for /readyz, failing the test if the process exits first.
func (p *Phalanx) WaitReady(t testing.TB) {
	t.Helper()
	WaitFor(t, time.Minute, "phalanx "+p.Name+" ready", func(ctx context.Context) (bool, error) {
		if p.Exited() {
			return false, fmt.Errorf("phalanx %s exited with status %d", p.Name, p.cmd.ProcessState.ExitCode())
		}
		return p.Ready(ctx), nil
	})
}

// Metric returns the value of the sample name{labels} from /metrics (labels in the
// exposition's order, e.g. `result="error"`; "" for none), and whether it was there.
func (p *Phalanx) Metric(ctx context.Context, name, labels string) (float64, bool, error) {
	code, body, err := p.get(ctx, "/metrics")
	if err != nil {
		return 0, false, err
	}
	if code != http.StatusOK {
		return 0, false, fmt.Errorf("/metrics: HTTP %d", code)
	}
	want := name
	if labels != "" {
		want += "{" + labels + "}"
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || line[:i] != want {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		return v, err == nil, err
	}
	return 0, false, sc.Err()
}

// MetricFamilies returns the whole of /metrics, parsed.
func (p *Phalanx) MetricFamilies(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	code, body, err := p.get(ctx, "/metrics")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("/metrics: HTTP %d", code)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(strings.NewReader(body))
}

// MetricSum returns the sum of a metric's samples over all its labels from /metrics (0
// when it has none).
func (p *Phalanx) MetricSum(ctx context.Context, name string) (float64, error) {
	code, body, err := p.get(ctx, "/metrics")
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("/metrics: HTTP %d", code)
	}
	sum := 0.0
	for _, line := range strings.Split(body, "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") || (line[:i] != name && !strings.HasPrefix(line, name+"{")) {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum, nil
}

// IsLeader tells whether the process holds the Lease, by its
// leader_election_master_status metric.
func (p *Phalanx) IsLeader(ctx context.Context) bool {
	v, ok, err := p.Metric(ctx, "leader_election_master_status", `name="`+PhalanxLease+`"`)
	return err == nil && ok && v == 1
}

// CacheComparison is phalanx's /debug/cache-comparison (it needs --debug-endpoints):
// the differences between its cache and queue and the cluster.
type CacheComparison struct {
	Nodes       int      `json:"nodes"`
	BoundPods   int      `json:"boundPods"`
	AssumedPods int      `json:"assumedPods"`
	PendingPods int      `json:"pendingPods"`
	Differences []string `json:"differences"`
}

// CompareCache asks phalanx to compare its cache with the cluster.
func (p *Phalanx) CompareCache(ctx context.Context) (*CacheComparison, error) {
	code, body, err := p.get(ctx, "/debug/cache-comparison")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("/debug/cache-comparison: HTTP %d: %s", code, body)
	}
	c := &CacheComparison{}
	return c, json.Unmarshal([]byte(body), c)
}

// WaitCacheConsistent waits until phalanx's cache matches the cluster (informer events
// on their way show as differences for a moment), and fails the test with the last
// differences if it never does.
func (p *Phalanx) WaitCacheConsistent(t testing.TB, timeout time.Duration) *CacheComparison {
	t.Helper()
	var last *CacheComparison
	var lastErr error
	err := Poll(Context(t), timeout, func(ctx context.Context) (bool, error) {
		last, lastErr = p.CompareCache(ctx)
		return lastErr == nil && len(last.Differences) == 0, nil
	})
	if err != nil {
		if lastErr != nil {
			t.Fatalf("phalanx %s: cache comparison: %v", p.Name, lastErr)
		}
		t.Fatalf("phalanx %s: the cache still differs from the cluster after %v:\n%s", p.Name, timeout, strings.Join(last.Differences, "\n"))
	}
	return last
}
