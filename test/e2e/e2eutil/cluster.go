//go:build e2e

// Package e2eutil is what phalanx's e2e tests share: a client for the control
// plane hack/e2e.sh starts, kwok nodes, namespaces and pods that clean up after
// themselves, polling for conditions, and stopping and starting components.
package e2eutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Environment variables hack/e2e.sh exports (hack/cluster/README.md).
const (
	EnvKubeconfig = "KUBECONFIG"
	EnvDir        = "PHALANX_E2E_DIR"     // temp dir: logs, pid and args files, kubeconfig
	EnvBinDir     = "PHALANX_E2E_BIN_DIR" // etcd, kwok, e2ectl; <release>/kube-apiserver, kube-controller-manager
	EnvCtl        = "PHALANX_E2E_CTL"     // hack/lib/e2e-ctl.sh
)

// Cluster is the control plane under test.
type Cluster struct {
	Config *rest.Config
	Client kubernetes.Interface
	// Dir and BinDir are PHALANX_E2E_DIR and PHALANX_E2E_BIN_DIR.
	Dir, BinDir string
}

// Connect returns a client for the cluster KUBECONFIG names. Outside
// hack/e2e.sh there is none, and the test fails saying so.
func Connect(t testing.TB) *Cluster {
	t.Helper()
	path := os.Getenv(EnvKubeconfig)
	if path == "" || os.Getenv(EnvDir) == "" {
		t.Fatalf("%s and %s are not set: run the e2e tests with hack/e2e.sh", EnvKubeconfig, EnvDir)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	// Tests create objects in bursts; the client-side default (5 qps) would
	// make them measure the rate limiter.
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return &Cluster{Config: cfg, Client: cs, Dir: os.Getenv(EnvDir), BinDir: os.Getenv(EnvBinDir)}
}

// Context is a context cancelled when the test ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

// UniqueName is prefix (or the test's name) made a valid DNS label, with a
// random suffix, so reruns and parallel tests do not collide.
func UniqueName(t testing.TB, prefix string) string {
	if prefix == "" {
		prefix = t.Name()
	}
	p := strings.Trim(nonName.ReplaceAllString(strings.ToLower(prefix), "-"), "-")
	if len(p) > 40 {
		p = strings.TrimRight(p[:40], "-")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return p + "-" + hex.EncodeToString(b)
}

// CreateNamespace creates a namespace deleted when the test ends, and waits
// for its default ServiceAccount: until the serviceaccount controller has made
// it, the ServiceAccount admission plugin refuses pods there.
func (c *Cluster) CreateNamespace(t testing.TB) string {
	t.Helper()
	ctx := Context(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: UniqueName(t, "")}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		err := c.Client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete namespace %s: %v", ns.Name, err)
		}
	})
	WaitFor(t, time.Minute, "default ServiceAccount in "+ns.Name, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	return ns.Name
}

// WaitFor polls cond every 100 ms until it returns true, and fails the test
// when timeout passes first, or cond returns an error. Timeouts are for
// hung tests, not assertions: make them generous.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := Poll(Context(t), timeout, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// Poll is WaitFor returning the error instead of failing the test. A
// transient API error (the apiserver restarting, say) should be turned into
// (false, nil) by cond if the caller wants to ride it out.
func Poll(ctx context.Context, timeout time.Duration, cond func(ctx context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not after %v", timeout)
		case <-tick.C:
		}
	}
}
