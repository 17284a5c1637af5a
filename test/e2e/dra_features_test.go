//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
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

// TestDRADeviceBindingConditions: device binding conditions (DRADeviceBindingConditions,
// beta and on in v1.37) on the real API server; the test plays the driver and sets the
// devices' status itself. Each node's GPU must be attached before a pod uses it. phalanx
// allocates the claim and reserves it, says BindingConditionsPending, and binds the pod
// only once the test reports Attached=True. On the other node the driver reports
// AttachFailed: the binding fails, the claim is deallocated and allocated again on the
// next attempt, and the pod is bound once that attach succeeds. The metrics count both
// waits.
func TestDRADeviceBindingConditions(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	yes := true
	var nodes []string
	var pins []map[string]string
	for _, slot := range []string{"a", "b"} {
		pin := map[string]string{pinLabel: e2eutil.UniqueName(t, "bind-"+slot)}
		pins = append(pins, pin)
		n := c.CreateReadyNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
		publishDevice(t, c, n.Name, func(d *resourceapi.Device) {
			d.BindsToNode = &yes
			d.BindingConditions = []string{"Attached"}
			d.BindingFailureConditions = []string{"AttachFailed"}
		})
		nodes = append(nodes, n.Name)
	}
	class := createGPUClass(t, c)
	p := c.StartPhalanx(t, "bind")
	p.WaitReady(t)

	tmpl := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gpu"},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: gpuRequest(class, 1, "")}},
	}
	if _, err := c.Client.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tmplName := tmpl.Name
	for i, name := range []string{"attached", "failed"} {
		pod := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Memory: "100Mi"}.Build()
		pod.Spec.NodeSelector = pins[i]
		pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmplName}}
		c.CreatePod(t, pod)
	}
	// report sets a condition of the claim's allocated device, as its driver would.
	report := func(claim, cond string) {
		t.Helper()
		e2eutil.WaitFor(t, time.Minute, "the driver's status of "+claim, func(ctx context.Context) (bool, error) {
			cl, err := c.Client.ResourceV1().ResourceClaims(ns).Get(ctx, claim, metav1.GetOptions{})
			if err != nil || cl.Status.Allocation == nil || len(cl.Status.ReservedFor) == 0 {
				return false, err
			}
			r := cl.Status.Allocation.Devices.Results[0]
			if len(r.BindingConditions) == 0 {
				return false, fmt.Errorf("allocation %+v has no binding conditions", r)
			}
			if cl.Status.Allocation.AllocationTimestamp == nil {
				return false, fmt.Errorf("allocation of %s not stamped (allocationTimestamp), as kube-scheduler v1.37 stamps it", claim)
			}
			cl.Status.Devices = []resourceapi.AllocatedDeviceStatus{{Driver: r.Driver, Pool: r.Pool, Device: r.Device, Conditions: []metav1.Condition{{
				Type: cond, Status: metav1.ConditionTrue, Reason: "E2E", Message: "set by the test", LastTransitionTime: metav1.Now(),
			}}}}
			_, err = c.Client.ResourceV1().ResourceClaims(ns).UpdateStatus(ctx, cl, metav1.UpdateOptions{})
			if apierrors.IsConflict(err) {
				return false, nil
			}
			return err == nil, err
		})
	}
	for _, name := range []string{"attached", "failed"} {
		waitEventNote(t, c, ns, name, "BindingConditionsPending", "waiting for binding conditions for device on node ")
	}
	// Waiting: allocated and reserved, not bound.
	attachedClaim := claimOf(t, c, ns, "attached")
	waitClaim(t, c, ns, attachedClaim, "allocated and reserved for attached", func(cl *resourceapi.ResourceClaim) bool {
		return cl.Status.Allocation != nil && reservedFor(cl, "pods", "attached")
	})
	if got, err := c.Client.CoreV1().Pods(ns).Get(ctx, "attached", metav1.GetOptions{}); err != nil || got.Spec.NodeName != "" {
		t.Fatalf("attached bound to %q before its device is attached (%v)", got.Spec.NodeName, err)
	}
	report(attachedClaim, "Attached")
	bound := c.WaitPodsBound(t, ns, []string{"attached"}, time.Minute)
	if got := bound["attached"].Spec.NodeName; got != nodes[0] {
		t.Errorf("attached bound to %s, want %s", got, nodes[0])
	}

	// AttachFailed: the binding fails and the claim is given back; the next attempt
	// allocates it again, and the attach succeeds.
	failedClaim := claimOf(t, c, ns, "failed")
	report(failedClaim, "AttachFailed")
	waitEventNote(t, c, ns, "failed", "FailedScheduling", "Binding rejected: ")
	e2eutil.WaitFor(t, time.Minute, "failed's claim allocated again without the failure", func(ctx context.Context) (bool, error) {
		cl, err := c.Client.ResourceV1().ResourceClaims(ns).Get(ctx, failedClaim, metav1.GetOptions{})
		return err == nil && cl.Status.Allocation != nil && len(cl.Status.Devices) == 0 && reservedFor(cl, "pods", "failed"), err
	})
	report(failedClaim, "Attached")
	c.WaitPodsBound(t, ns, []string{"failed"}, time.Minute)

	for _, status := range []string{"success", "failure"} {
		labels := fmt.Sprintf(`driver="%s",profile="%s",status="%s"`, gpuDriver, e2eutil.SchedulerName(t), status)
		if v, ok, err := p.Metric(ctx, "scheduler_dra_bindingconditions_allocations_total", labels); err != nil || !ok || v < 1 {
			t.Errorf("scheduler_dra_bindingconditions_allocations_total{%s} = %v (found %v, %v), want at least 1", labels, v, ok, err)
		}
	}
}

// TestDRAWorkloadResourceClaims: the claims of Kubernetes' own PodGroup
// (DRAWorkloadResourceClaims, beta in v1.37, on in the e2e control plane). A gang of two
// shares the GPU its PodGroup's spec.resourceClaims makes from a template:
// kube-controller-manager's ResourceClaim controller makes one claim for the group (named
// in the PodGroup's status), and phalanx allocates it once, reserves it for the
// scheduling.k8s.io PodGroup, and binds both members where the GPU is.
func TestDRAWorkloadResourceClaims(t *testing.T) {
	c := e2eutil.Connect(t)
	if c.NativeVersion(t) == nativegroup.V1alpha2 {
		t.Skip("Kubernetes 1.36's v1alpha2 PodGroups have no resourceClaims")
	}
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	pin := map[string]string{pinLabel: e2eutil.UniqueName(t, "wrc")}
	c.CreateReadyNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	b := c.CreateReadyNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	publishGPUs(t, c, b.Name, "h100")
	class := createGPUClass(t, c)
	p := c.StartPhalanx(t, "wrc")
	p.WaitReady(t)

	tmpl := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one-gpu"},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: gpuRequest(class, 1, "")}},
	}
	if _, err := c.Client.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tmplName := tmpl.Name
	c.CreateNativePodGroup(t, &nativegroup.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gang"},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}},
			ResourceClaims:   []schedulingv1beta1.PodGroupResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmplName}},
		},
	})
	for _, name := range []string{"gang-1", "gang-2"} {
		pod := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Memory: "100Mi"}.Build()
		pod.Spec.NodeSelector = pin
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("gang")}
		pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmplName}}
		c.CreatePod(t, pod)
	}
	bound := c.WaitPodsBound(t, ns, []string{"gang-1", "gang-2"}, 2*time.Minute)
	for n, pod := range bound {
		if pod.Spec.NodeName != b.Name {
			t.Errorf("%s bound to %s, want %s (where the GPU is)", n, pod.Spec.NodeName, b.Name)
		}
	}
	claimName := ""
	e2eutil.WaitFor(t, time.Minute, "the PodGroup's claim in its status", func(ctx context.Context) (bool, error) {
		pg, err := c.NativePodGroup(ctx, t, ns, "gang")
		if err != nil || len(pg.Status.ResourceClaimStatuses) == 0 || pg.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
			return false, err
		}
		claimName = *pg.Status.ResourceClaimStatuses[0].ResourceClaimName
		return true, nil
	})
	cl := waitClaim(t, c, ns, claimName, "allocated and reserved for the PodGroup", func(cl *resourceapi.ResourceClaim) bool {
		return cl.Status.Allocation != nil && reservedFor(cl, "podgroups", "gang")
	})
	if want := []string{b.Name + "/gpu-0"}; !slices.Equal(devicesOf(cl), want) {
		t.Errorf("the group's claim: devices %v, want %v", devicesOf(cl), want)
	}
	for _, r := range cl.Status.ReservedFor {
		if r.Resource == "podgroups" && r.APIGroup != nativegroup.GroupName {
			t.Errorf("reserved for %+v, want the %s PodGroup", r, nativegroup.GroupName)
		}
	}
	// No claim was made per pod: the members share the group's.
	list, err := c.Client.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		var names []string
		for _, it := range list.Items {
			names = append(names, it.Name)
		}
		t.Errorf("claims %v, want only the group's", names)
	}
}
