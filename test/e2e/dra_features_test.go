//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// publishDevice creates a node's ResourceSlice with one device of the test driver, shaped
// by edit, and deletes it when the test ends.
func publishDevice(t *testing.T, c *e2eutil.Cluster, node string, edit func(*resourceapi.Device)) {
	t.Helper()
	d := resourceapi.Device{Name: "gpu-0"}
	edit(&d)
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: gpuDriver, NodeName: &node,
			Pool:    resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
			Devices: []resourceapi.Device{d},
		},
	}
	if _, err := c.Client.ResourceV1().ResourceSlices().Create(e2eutil.Context(t), slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ResourceSlice: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Client.ResourceV1().ResourceSlices().Delete(context.Background(), slice.Name, metav1.DeleteOptions{})
	})
}

// TestDRAConsumableCapacity: consumable capacity (DRAConsumableCapacity, beta and on in
// v1.37) on the real API server. The node's one GPU allows multiple allocations and has
// 40Gi of memory; each pod's claim, made by kube-controller-manager from a template, asks
// for a 16Gi share. Two pods get shares of the same GPU (each result with a share ID and
// the capacity it consumes); the third waits, and gets its share once the first pod is
// deleted and the controller deletes its claim.
func TestDRAConsumableCapacity(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	pin := map[string]string{pinLabel: e2eutil.UniqueName(t, "share")}
	n := c.CreateReadyNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	yes := true
	publishDevice(t, c, n.Name, func(d *resourceapi.Device) {
		d.AllowMultipleAllocations = &yes
		d.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}}
	})
	class := createGPUClass(t, c)
	p := c.StartPhalanx(t, "share")
	p.WaitReady(t)

	req := gpuRequest(class, 1, "")
	req.Requests[0].Exactly.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("16Gi")}}
	tmpl := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gpu-share"},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: req}},
	}
	if _, err := c.Client.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tmplName := tmpl.Name
	pod := func(name string) *corev1.Pod {
		p := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Memory: "100Mi"}.Build()
		p.Spec.NodeSelector = pin
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmplName}}
		return p
	}
	c.CreatePod(t, pod("first"))
	c.WaitPodsBound(t, ns, []string{"first"}, 2*time.Minute)
	c.CreatePod(t, pod("second"))
	c.WaitPodsBound(t, ns, []string{"second"}, 2*time.Minute)
	for _, name := range []string{"first", "second"} {
		cl := waitClaim(t, c, ns, claimOf(t, c, ns, name), "allocated a share", func(cl *resourceapi.ResourceClaim) bool {
			return cl.Status.Allocation != nil && reservedFor(cl, "pods", name)
		})
		r := cl.Status.Allocation.Devices.Results
		if len(r) != 1 || r[0].Device != "gpu-0" || r[0].ShareID == nil {
			t.Fatalf("%s's claim: results %+v, want a share of gpu-0", name, r)
		}
		if q := r[0].ConsumedCapacity["memory"]; q.Cmp(resource.MustParse("16Gi")) != 0 {
			t.Errorf("%s's share consumes %s of memory, want 16Gi", name, q.String())
		}
	}

	// 16Gi more would exceed the 40Gi.
	// (Its first attempt may find its claim not made yet.)
	c.CreatePod(t, pod("third"))
	waitEventNote(t, c, ns, "third", "FailedScheduling", "0/1 nodes are available: 1 cannot allocate all claims.")
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, "first", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.WaitPodsBound(t, ns, []string{"third"}, 2*time.Minute)
}

// claimOf waits until a pod's status names the claim made for its first entry and returns
// the claim's name.
func claimOf(t *testing.T, c *e2eutil.Cluster, ns, pod string) string {
	t.Helper()
	name := ""
	e2eutil.WaitFor(t, time.Minute, pod+"'s claim in its status", func(ctx context.Context) (bool, error) {
		got, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		if err != nil || len(got.Status.ResourceClaimStatuses) == 0 || got.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
			return false, err
		}
		name = *got.Status.ResourceClaimStatuses[0].ResourceClaimName
		return true, nil
	})
	return name
}

// waitEventNote waits for an event of reason about a pod whose note starts with prefix.
func waitEventNote(t *testing.T, c *e2eutil.Cluster, ns, name, reason, prefix string) {
	t.Helper()
	e2eutil.WaitFor(t, time.Minute, fmt.Sprintf("%s event for %s/%s saying %q", reason, ns, name, prefix), func(ctx context.Context) (bool, error) {
		list, err := c.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, e := range e2eutil.EventsFor(list.Items, name, reason) {
			if strings.HasPrefix(e.Note, prefix) {
				return true, nil
			}
		}
		return false, nil
	})
}
