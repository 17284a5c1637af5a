//go:build e2e

package e2e

// `phalanx run` against an API server it cannot use: it says which server and why at once,
// keeps /readyz false meanwhile, retries, and exits 1 after --startup-timeout; and a
// SIGTERM ends it promptly in every phase, whatever the API server does meanwhile.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// promptly is how long a stop may take after SIGTERM: phalanx bounds its shutdown to 3 s
// (releasing the Lease, stopping informers, writing events); the margin is for a loaded
// machine. A process that waits on a request the API server never answers takes far
// longer (23 s before this test existed).
const promptly = 10 * time.Second

// TestStartFailsClearly: an API server that cannot be used is named, with the cause, at
// once; /readyz says so while phalanx retries; after --startup-timeout it exits 1 with
// the same words.
func TestStartFailsClearly(t *testing.T) {
	c := e2eutil.Connect(t)
	closed := closedAddress(t)
	silent := silentServer(t)
	bogus := kubeconfigFor(t, c, c.Config.Host, "not-a-token", c.Config.TLSClientConfig.CAFile)
	forbidden := kubeconfigFor(t, c, c.Config.Host, serviceAccountToken(t, c), c.Config.TLSClientConfig.CAFile)
	for _, tc := range []struct {
		name, kubeconfig, server, phase, cause string
	}{
		{"nothing listens", kubeconfigFor(t, c, "https://"+closed, "x", ""), "https://" + closed, "the API server",
			"connection refused: nothing listens at that address"},
		{"no answer", kubeconfigFor(t, c, "https://"+silent, "x", ""), "https://" + silent, "the API server",
			"no answer within"},
		{"credentials refused", bogus, c.Config.Host, "the API server", "401 Unauthorized: it refuses phalanx's credentials"},
		{"no permissions", forbidden, c.Config.Host, "the informer caches", "is forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := c.StartPhalanx(t, "start", "--kubeconfig="+tc.kubeconfig, "--leader-elect=false", "--startup-timeout=20s")
			e2eutil.WaitFor(t, 30*time.Second, "/readyz to say why it is not ready", func(ctx context.Context) (bool, error) {
				if p.Exited() {
					return false, fmt.Errorf("exited before /readyz said why")
				}
				code, body, err := p.Get(ctx, "/readyz")
				return err == nil && code == http.StatusServiceUnavailable && strings.Contains(body, tc.cause), nil
			})
			if code := p.ExitCode(); code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			log := p.ReadLog(t)
			want := fmt.Sprintf("gave up after --startup-timeout 20s waiting for %s", tc.phase)
			for _, s := range []string{want, tc.server, tc.cause} {
				if !strings.Contains(log, s) {
					t.Errorf("the log does not say %q", s)
				}
			}
			// The first problem is logged as an error when it is met, not only at the end.
			if i, j := strings.Index(log, tc.cause), strings.Index(log, want); i < 0 || i > j {
				t.Errorf("the cause was not logged before phalanx gave up")
			}
		})
	}
}

// TestStopIsPromptInEveryPhase: SIGTERM while phalanx waits for discovery, for its
// informers, for the Lease, and while it schedules with the API server frozen: each time
// it exits 0 within seconds.
func TestStopIsPromptInEveryPhase(t *testing.T) {
	c := e2eutil.Connect(t)
	for _, tc := range []struct {
		name string
		// hold: requests whose path matches are held, never answered.
		hold string
		// leaderElect, and a Lease held by another replica.
		leaderElect, leaseTaken bool
		// ready: phalanx's caches fill before the stop (else they never do).
		ready bool
		// freeze holds every request once phalanx is ready (the API server gone silent).
		freeze bool
	}{
		{name: "discovery", hold: `^/apis/scheduling\.`},
		{name: "informer sync", hold: `^/api/v1/pods`},
		{name: "standby waiting for the Lease", leaderElect: true, leaseTaken: true, ready: true},
		{name: "leader election unanswered", hold: `^/apis/coordination\.k8s\.io/`, leaderElect: true, ready: true},
		{name: "scheduling, the API server silent", leaderElect: true, ready: true, freeze: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := newHoldingProxy(t, c)
			proxy.hold(tc.hold)
			if tc.leaseTaken {
				takeLease(t, c)
			}
			args := []string{"--kubeconfig=" + proxy.kubeconfig, "--leader-elect=" + fmt.Sprint(tc.leaderElect)}
			p := c.StartPhalanx(t, "stop", append(args, shortLease...)...)
			if tc.ready {
				p.WaitReady(t)
			}
			if tc.freeze {
				ns := c.CreateNamespace(t)
				createNodes(t, c, 1, "4")
				e2eutil.WaitFor(t, time.Minute, "phalanx to lead", func(ctx context.Context) (bool, error) { return p.IsLeader(ctx), nil })
				pod := e2eutil.Pod{Namespace: ns, Name: "p", SchedulerName: e2eutil.SchedulerName(t), CPU: "100m"}.Build()
				if _, err := c.Client.CoreV1().Pods(ns).Create(e2eutil.Context(t), pod, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				proxy.hold(".")
			}
			if tc.hold != "" || tc.freeze {
				e2eutil.WaitFor(t, time.Minute, "a request to be held", func(context.Context) (bool, error) { return proxy.held() > 0, nil })
			}
			start := time.Now()
			code := p.Stop(t)
			if took := time.Since(start); took > promptly {
				t.Errorf("exited %s after SIGTERM, want within %s", took.Round(100*time.Millisecond), promptly)
			}
			if code != 0 {
				t.Errorf("exit status %d after SIGTERM, want 0", code)
			}
		})
	}
}

// closedAddress is a loopback address where nothing listens.
func closedAddress(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// silentServer accepts connections and never says a word.
func silentServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range conns {
			conn.Close()
		}
	})
	return ln.Addr().String()
}

// kubeconfigFor writes a kubeconfig for a server and a token (a CA file when the server
// is the test's API server).
func kubeconfigFor(t *testing.T, c *e2eutil.Cluster, server, token, caFile string) string {
	t.Helper()
	cluster := "insecure-skip-tls-verify: true"
	if caFile != "" {
		cluster = "certificate-authority: " + caFile
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	data := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '%s', %s}}]\n"+
		"contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: '%s'}}]\ncurrent-context: c\n",
		server, cluster, token)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serviceAccountToken is a token of a new ServiceAccount that no role is bound to.
func serviceAccountToken(t *testing.T, c *e2eutil.Cluster) string {
	t.Helper()
	ns := c.CreateNamespace(t)
	ctx := e2eutil.Context(t)
	sa, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// takeLease makes another replica hold phalanx's Lease for longer than the test.
func takeLease(t *testing.T, c *e2eutil.Cluster) {
	t.Helper()
	ctx := e2eutil.Context(t)
	leases := c.Client.CoordinationV1().Leases(e2eutil.PhalanxNamespace)
	_ = leases.Delete(ctx, e2eutil.PhalanxLease, metav1.DeleteOptions{})
	now := metav1.NowMicro()
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: e2eutil.PhalanxLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("another-replica"), LeaseDurationSeconds: ptr(int32(3600)),
			AcquireTime: &now, RenewTime: &now},
	}
	if _, err := leases.Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = leases.Delete(context.Background(), e2eutil.PhalanxLease, metav1.DeleteOptions{}) })
}

// holdingProxy stands between phalanx and the API server: it passes requests on, with
// the token of phalanx's ServiceAccount, except those whose path matches a pattern, which
// it holds without an answer until the client gives up.
type holdingProxy struct {
	kubeconfig string
	mu         sync.Mutex
	pattern    *regexp.Regexp
	nheld      int
}

func newHoldingProxy(t *testing.T, c *e2eutil.Cluster) *holdingProxy {
	t.Helper()
	target, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	// The API server's CA, and no credentials: phalanx's own token is passed on.
	transport, err := rest.TransportFor(&rest.Config{Host: c.Config.Host, TLSClientConfig: rest.TLSClientConfig{CAFile: c.Config.TLSClientConfig.CAFile}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(c.PhalanxKubeconfig(t))
	if err != nil {
		t.Fatal(err)
	}
	token := ""
	for _, u := range cfg.AuthInfos {
		token = u.Token
	}
	hp := &holdingProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Set("Authorization", "Bearer "+token) // phalanx's ServiceAccount
		},
		Transport: transport,
	}
	rp.FlushInterval = -1 // watches stream
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hp.mu.Lock()
		hold := hp.pattern != nil && hp.pattern.MatchString(r.URL.Path)
		if hold {
			hp.nheld++
		}
		hp.mu.Unlock()
		if hold {
			<-r.Context().Done()
			return
		}
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	hp.kubeconfig = kubeconfigFor(t, c, "http://"+ln.Addr().String(), "", "")
	return hp
}

// hold holds, from now on, the requests whose path matches pattern ("" for none).
func (hp *holdingProxy) hold(pattern string) {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.pattern = nil
	if pattern != "" {
		hp.pattern = regexp.MustCompile(pattern)
	}
}

// held counts the requests held so far.
func (hp *holdingProxy) held() int {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	return hp.nheld
}
