//go:build e2e

package e2eutil

// Kueue v0.17.0 (hack/cluster/kueue) on the control plane, for the tests that run it
// beside phalanx (test/e2e/kueue_test.go), started by hack/kueuectl (shared with
// hack/bench-cluster); the test-only helpers (its objects, histories) are here. Kueue
// never enters phalanx's module: its objects are unstructured.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/hack/kueuectl"
)

// KueueVersion is the Kueue hack/cluster/kueue builds.
const KueueVersion = kueuectl.Version

// KueueNamespace is Kueue's namespace (its default, kept).
const KueueNamespace = kueuectl.Namespace

const kueueFieldManager = "phalanx-e2e-kueue"

// KueueNamespaceLabel marks the namespaces whose Jobs Kueue manages (and whose Jobs its
// webhooks see): a namespace of another test, created while Kueue runs, is left alone.
const KueueNamespaceLabel = "e2e.phalanx.dev/kueue"

// KueueGroupVersion is the API version the tests use (v1beta2, Kueue's storage version).
var KueueGroupVersion = kueuectl.GroupVersion

// Kueue is a running Kueue manager (hack/kueuectl starts it).
type Kueue struct {
	*kueuectl.Kueue
}

var kueueModule struct {
	sync.Once
	dir string
	err error
}

// kueueModuleDir is where the Go module cache holds sigs.k8s.io/kueue at the version
// hack/cluster/kueue/go.mod pins (its CRDs and webhook manifests are read from there).
func kueueModuleDir(t testing.TB) string {
	t.Helper()
	kueueModule.Do(func() {
		cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kueue")
		cmd.Dir = filepath.Join(RepoRoot(t), "hack", "cluster", "kueue")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.Output()
		if err != nil {
			kueueModule.err = fmt.Errorf("go list -m sigs.k8s.io/kueue in hack/cluster/kueue: %w", err)
			return
		}
		kueueModule.dir = strings.TrimSpace(string(out))
	})
	if kueueModule.err != nil {
		t.Fatal(kueueModule.err)
	}
	return kueueModule.dir
}

// StartKueue installs Kueue's CRDs and webhook configurations and starts its manager
// (kueuectl.Start), with the admin kubeconfig, managing batch/v1 Jobs in the namespaces
// labelled KueueNamespaceLabel (CreateKueueNamespace), and waits for it to be ready. It
// is stopped when the test ends, and its webhook configurations deleted, so that other
// tests' Jobs never wait for a Kueue that is gone.
func (c *Cluster) StartKueue(t testing.TB) *Kueue {
	t.Helper()
	bin := filepath.Join(c.BinDir, "kueue")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: %v (hack/e2e.sh builds it from hack/cluster/kueue)", bin, err)
	}
	k, err := kueuectl.Start(Context(t), c.Client, c.dynamic(t), kueuectl.Options{
		Bin:            bin,
		ModuleDir:      kueueModuleDir(t),
		Kubeconfig:     os.Getenv(EnvKubeconfig),
		Dir:            c.Dir,
		NamespaceLabel: KueueNamespaceLabel,
		FieldManager:   kueueFieldManager,
	})
	if err != nil {
		if err := kueuectl.DeleteWebhooks(context.Background(), c.Client); err != nil {
			t.Error(err)
		}
		if k != nil {
			dumpFile(t, k.Log, 80)
		}
		t.Fatalf("starting kueue: %v", err)
	}
	t.Logf("started kueue %s (pid %d), webhooks on %s, log %s", KueueVersion, k.Pid(), k.Webhook, k.Log)
	t.Cleanup(func() {
		k.Stop()
		c.uninstallKueue(t)
		if t.Failed() {
			dumpFile(t, k.Log, 80)
		}
	})
	return &Kueue{k}
}

// uninstallKueue, once the manager is stopped: its webhook configurations deleted, and
// the finalizers it would have removed taken off its objects, so that namespaces and
// cluster-scoped queues the test made go away without it. The CRDs stay (cluster-wide,
// unused by other tests; the next StartKueue applies them again).
func (c *Cluster) uninstallKueue(t testing.TB) {
	ctx := context.Background()
	if err := kueuectl.DeleteWebhooks(ctx, c.Client); err != nil {
		t.Error(err)
	}
	dyn := c.dynamic(t)
	for _, resource := range []string{"workloads", "localqueues", "clusterqueues", "resourceflavors", "topologies", "cohorts", "workloadpriorityclasses"} {
		api := dyn.Resource(KueueGroupVersion.WithResource(resource))
		list, err := api.List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, item := range list.Items {
			if len(item.GetFinalizers()) == 0 {
				continue
			}
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			_, err := api.Namespace(item.GetNamespace()).Patch(ctx, item.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("remove the finalizers of %s %s/%s: %v", resource, item.GetNamespace(), item.GetName(), err)
			}
		}
	}
}

// CreateKueueNamespace is CreateNamespace labelled KueueNamespaceLabel.
func (c *Cluster) CreateKueueNamespace(t testing.TB) string {
	t.Helper()
	ns := c.CreateNamespace(t)
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, KueueNamespaceLabel))
	if _, err := c.Client.CoreV1().Namespaces().Patch(Context(t), ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("label namespace %s: %v", ns, err)
	}
	return ns
}

// Kueue objects, unstructured.

// KueueObject is a Kueue object of kind with the given spec, in KueueGroupVersion.
func KueueObject(kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(KueueGroupVersion.String())
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// KueueResource is the resource (plural) of a Kueue kind.
func KueueResource(kind string) schema.GroupVersionResource {
	plural := strings.ToLower(kind) + "s"
	switch kind {
	case "Topology":
		plural = "topologies"
	case "WorkloadPriorityClass":
		plural = "workloadpriorityclasses"
	}
	return KueueGroupVersion.WithResource(plural)
}

// CreateKueueObject creates obj (through Kueue's webhooks) and returns it as created.
// Objects left are deleted when Kueue stops (StartKueue's cleanup takes the finalizers
// off) and by their namespace's deletion.
func (c *Cluster) CreateKueueObject(t testing.TB, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	api := c.dynamic(t).Resource(KueueResource(obj.GetKind()))
	var created *unstructured.Unstructured
	var err error
	if ns := obj.GetNamespace(); ns != "" {
		created, err = api.Namespace(ns).Create(Context(t), obj, metav1.CreateOptions{})
	} else {
		created, err = api.Create(Context(t), obj, metav1.CreateOptions{})
		t.Cleanup(func() { _ = api.Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
	}
	if err != nil {
		t.Fatalf("create %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return created
}

// GetKueueObject gets a Kueue object of kind.
func (c *Cluster) GetKueueObject(ctx context.Context, t testing.TB, kind, ns, name string) (*unstructured.Unstructured, error) {
	api := c.dynamic(t).Resource(KueueResource(kind))
	if ns != "" {
		return api.Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	}
	return api.Get(ctx, name, metav1.GetOptions{})
}

// PatchKueueObject applies a JSON patch to a Kueue object of kind.
func (c *Cluster) PatchKueueObject(ctx context.Context, t testing.TB, kind, ns, name string, patch []byte) (*unstructured.Unstructured, error) {
	api := c.dynamic(t).Resource(KueueResource(kind))
	if ns != "" {
		return api.Namespace(ns).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{})
	}
	return api.Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{})
}

// KueueWorkloads lists the Kueue Workloads of a namespace.
func (c *Cluster) KueueWorkloads(ctx context.Context, t testing.TB, ns string) ([]unstructured.Unstructured, error) {
	list, err := c.dynamic(t).Resource(KueueGroupVersion.WithResource("workloads")).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// KueueCondition is a status condition of a Kueue object, or nil.
func KueueCondition(u *unstructured.Unstructured, typ string) map[string]any {
	return kueuectl.Condition(u, typ)
}

func dumpFile(t testing.TB, path string, lines int) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	t.Logf("last %d lines of %s:\n%s", len(all), path, strings.Join(all, "\n"))
}

// KueueWorkloadHistory is every version of a namespace's Kueue Workloads in the order
// their watch delivered them (one resource, so in the API server's order).
type KueueWorkloadHistory struct {
	mu       sync.Mutex
	versions []*unstructured.Unstructured
}

// RecordKueueWorkloads starts recording the Kueue Workloads of ns until the test ends.
func (c *Cluster) RecordKueueWorkloads(t testing.TB, ns string) *KueueWorkloadHistory {
	t.Helper()
	h := &KueueWorkloadHistory{}
	api := c.dynamic(t).Resource(KueueGroupVersion.WithResource("workloads")).Namespace(ns)
	ctx := Context(t)
	list, err := api.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list Kueue Workloads: %v", err)
	}
	for i := range list.Items {
		h.versions = append(h.versions, &list.Items[i])
	}
	w, err := api.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch Kueue Workloads: %v", err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type != "ERROR" && ev.Type != "BOOKMARK" {
				if ev.Type == "DELETED" {
					u = u.DeepCopy()
					u.SetAnnotations(map[string]string{"e2e.phalanx.dev/deleted": "true"})
				}
				h.mu.Lock()
				h.versions = append(h.versions, u)
				h.mu.Unlock()
			}
		}
	}()
	return h
}

// Versions returns the versions seen so far, in order.
func (h *KueueWorkloadHistory) Versions() []*unstructured.Unstructured {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*unstructured.Unstructured(nil), h.versions...)
}

// KueueConditionTrue tells whether u has condition typ with status True.
func KueueConditionTrue(u *unstructured.Unstructured, typ string) bool {
	return kueuectl.ConditionTrue(u, typ)
}
