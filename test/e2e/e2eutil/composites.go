//go:build e2e

package e2eutil

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// CompositePodGroups: phalanx's CRD (scheduling.phalanx.dev/v1alpha1) and Kubernetes
// 1.37's own (scheduling.k8s.io/v1alpha3, the CompositePodGroup gate).

var compositeResource = v1alpha1.SchemeGroupVersion.WithResource("compositepodgroups")

// compositeCRD is the name and file of the CompositePodGroup CRD in config/crd.
const (
	compositeCRD     = "compositepodgroups.scheduling.phalanx.dev"
	compositeCRDFile = "scheduling.phalanx.dev_compositepodgroups.yaml"
)

func (c *Cluster) dynamic(t testing.TB) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// CreateComposite creates a CompositePodGroup of phalanx's CRD (the namespace's deletion
// cleans it up).
func (c *Cluster) CreateComposite(t testing.TB, cpg *v1alpha1.CompositePodGroup) {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cpg)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(v1alpha1.SchemeGroupVersion.String())
	u.SetKind(nativegroup.KindCompositePodGroup)
	if _, err := c.dynamic(t).Resource(compositeResource).Namespace(cpg.Namespace).Create(Context(t), u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CompositePodGroup %s/%s: %v", cpg.Namespace, cpg.Name, err)
	}
}

// GetComposite reads a CompositePodGroup of phalanx's CRD.
func (c *Cluster) GetComposite(ctx context.Context, t testing.TB, ns, name string) (*v1alpha1.CompositePodGroup, error) {
	u, err := c.dynamic(t).Resource(compositeResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	out := &v1alpha1.CompositePodGroup{}
	return out, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)
}

// WaitCompositeCondition waits until a CRD CompositePodGroup's condition typ has status
// (and, if message is not "", that message) and returns it.
func (c *Cluster) WaitCompositeCondition(t testing.TB, ns, name, typ string, status metav1.ConditionStatus, message string, timeout time.Duration) metav1.Condition {
	t.Helper()
	return waitGroupCondition(t, "CompositePodGroup "+ns+"/"+name, typ, status, message, timeout, func(ctx context.Context) ([]metav1.Condition, bool) {
		cpg, err := c.GetComposite(ctx, t, ns, name)
		if err != nil {
			return nil, false
		}
		return cpg.Status.Conditions, true
	})
}

// ServesNativeComposites reports whether the control plane serves
// scheduling.k8s.io/v1alpha3 CompositePodGroups.
func (c *Cluster) ServesNativeComposites(t testing.TB) bool {
	t.Helper()
	return c.serves(t, nativegroup.V1alpha3, "compositepodgroups")
}

func (c *Cluster) serves(t testing.TB, groupVersion, resource string) bool {
	t.Helper()
	disc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	list, err := disc.ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resource })
}

// WaitNativeCompositeCondition waits until a native CompositePodGroup's condition typ has
// status (and, if message is not "", that message) and returns it.
func (c *Cluster) WaitNativeCompositeCondition(t testing.TB, ns, name, typ string, status metav1.ConditionStatus, message string, timeout time.Duration) metav1.Condition {
	t.Helper()
	return waitGroupCondition(t, "CompositePodGroup.scheduling.k8s.io "+ns+"/"+name, typ, status, message, timeout, func(ctx context.Context) ([]metav1.Condition, bool) {
		cpg, err := c.Client.SchedulingV1alpha3().CompositePodGroups(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, false
		}
		return cpg.Status.Conditions, true
	})
}

// CreateNativeComposite creates a v1alpha3 CompositePodGroup and returns it as created.
func (c *Cluster) CreateNativeComposite(t testing.TB, cpg *schedulingv1alpha3.CompositePodGroup) *schedulingv1alpha3.CompositePodGroup {
	t.Helper()
	out, err := c.Client.SchedulingV1alpha3().CompositePodGroups(cpg.Namespace).Create(Context(t), cpg, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create CompositePodGroup.scheduling.k8s.io %s/%s: %v", cpg.Namespace, cpg.Name, err)
	}
	return out
}

// WithoutCompositeCRD deletes phalanx's CompositePodGroup CRD (and so every CRD
// composite) until the test ends, when it is installed again from config/crd: the cluster
// of a user who never installed it. It waits until discovery no longer serves it.
func (c *Cluster) WithoutCompositeCRD(t testing.TB) {
	t.Helper()
	crds := c.dynamic(t).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if err := crds.Delete(Context(t), compositeCRD, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete CRD %s: %v", compositeCRD, err)
	}
	t.Cleanup(func() {
		file := filepath.Join(RepoRoot(t), "config", "crd", compositeCRDFile)
		if out, err := exec.Command(filepath.Join(c.BinDir, "e2ectl"), "apply", os.Getenv(EnvKubeconfig), file).CombinedOutput(); err != nil {
			t.Errorf("reinstalling the CRD %s: %v\n%s", compositeCRD, err, out)
		}
	})
	WaitFor(t, time.Minute, "the CompositePodGroup CRD gone from discovery", func(context.Context) (bool, error) {
		return !c.serves(t, v1alpha1.SchemeGroupVersion.String(), "compositepodgroups"), nil
	})
}
