//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// gpuDriver is the DRA driver the tests' ResourceSlices name. kwok nodes run no driver:
// the tests publish the slices themselves, which is all the scheduler reads.
const gpuDriver = "gpu.e2e.phalanx.dev"

// publishGPUs creates a ResourceSlice with a node's GPUs, each with a model attribute, and
// deletes it when the test ends.
func publishGPUs(t *testing.T, c *e2eutil.Cluster, node string, models ...string) {
	t.Helper()
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   gpuDriver,
			NodeName: &node,
			Pool:     resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for i, m := range models {
		model := m
		slice.Spec.Devices = append(slice.Spec.Devices, resourceapi.Device{
			Name:       fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: &model}},
		})
	}
	if _, err := c.Client.ResourceV1().ResourceSlices().Create(e2eutil.Context(t), slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ResourceSlice: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Client.ResourceV1().ResourceSlices().Delete(context.Background(), slice.Name, metav1.DeleteOptions{})
	})
}

// createGPUClass creates a DeviceClass selecting the test driver's devices.
func createGPUClass(t *testing.T, c *e2eutil.Cluster) string {
	t.Helper()
	name := e2eutil.UniqueName(t, "gpu")
	dc := &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", gpuDriver)},
		}}},
	}
	if _, err := c.Client.ResourceV1().DeviceClasses().Create(e2eutil.Context(t), dc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create DeviceClass: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Client.ResourceV1().DeviceClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// gpuRequest asks for count GPUs of a class, of a model when model is not "".
func gpuRequest(class string, count int64, model string) resourceapi.DeviceClaim {
	req := resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}
	if model != "" {
		req.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: fmt.Sprintf("device.attributes[%q].model == %q", gpuDriver, model),
		}}}
	}
	return resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "gpus", Exactly: &req}}}
}

// waitClaim waits until a claim satisfies cond and returns it.
func waitClaim(t *testing.T, c *e2eutil.Cluster, ns, name, what string, cond func(*resourceapi.ResourceClaim) bool) *resourceapi.ResourceClaim {
	t.Helper()
	var got *resourceapi.ResourceClaim
	e2eutil.WaitFor(t, time.Minute, fmt.Sprintf("ResourceClaim %s/%s %s", ns, name, what), func(ctx context.Context) (bool, error) {
		cl, err := c.Client.ResourceV1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		got = cl
		return cond(cl), nil
	})
	return got
}

func devicesOf(cl *resourceapi.ResourceClaim) []string {
	var out []string
	if a := cl.Status.Allocation; a != nil {
		for _, r := range a.Devices.Results {
			out = append(out, r.Pool+"/"+r.Device)
		}
	}
	slices.Sort(out)
	return out
}

func reservedFor(cl *resourceapi.ResourceClaim, resource, name string) bool {
	return slices.ContainsFunc(cl.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
		return r.Resource == resource && r.Name == name
	})
}

// TestDynamicResources: DRA on the real API server, with kube-controller-manager's
// ResourceClaim controller. A pod whose template asks for two H100s waits for the
// controller to make its claim, and phalanx allocates it on the only node with two H100s,
// writes the allocation and the reservation, and binds the pod there. A gang sharing a
// claim (the PodGroup's spec.resourceClaims) gets it allocated once and reserved for the
// group. When the pod is deleted, the controller deletes its claim, and the GPUs go to
// the next pod.
func TestDynamicResources(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	pin := map[string]string{pinLabel: e2eutil.UniqueName(t, "dra")}
	a := c.CreateNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	b := c.CreateNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	c.WaitNodeReady(t, a.Name)
	c.WaitNodeReady(t, b.Name)
	publishGPUs(t, c, a.Name, "a100", "h100")
	publishGPUs(t, c, b.Name, "h100", "h100")
	class := createGPUClass(t, c)
	p := c.StartPhalanx(t, "dra")
	p.WaitReady(t)

	tmpl := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "two-h100"},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: gpuRequest(class, 2, "h100")}},
	}
	if _, err := c.Client.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := func(name string) *corev1.Pod {
		p := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Memory: "100Mi"}.Build()
		p.Spec.NodeSelector = pin
		return p
	}
	withClaim := func(p *corev1.Pod, claims ...corev1.PodResourceClaim) *corev1.Pod {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, claims...)
		return p
	}
	tmplName := "two-h100"
	trainer := withClaim(pod("trainer"), corev1.PodResourceClaim{Name: "gpus", ResourceClaimTemplateName: &tmplName})
	c.CreatePod(t, trainer)
	bound := c.WaitPodsBound(t, ns, []string{"trainer"}, 2*time.Minute)
	if got := bound["trainer"].Spec.NodeName; got != b.Name {
		t.Fatalf("trainer bound to %s, want %s (the only node with two H100s)", got, b.Name)
	}
	claimName := ""
	e2eutil.WaitFor(t, time.Minute, "trainer's claim in its status", func(ctx context.Context) (bool, error) {
		got, err := c.Client.CoreV1().Pods(ns).Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil || len(got.Status.ResourceClaimStatuses) == 0 || got.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
			return false, err
		}
		claimName = *got.Status.ResourceClaimStatuses[0].ResourceClaimName
		return true, nil
	})
	cl := waitClaim(t, c, ns, claimName, "allocated and reserved for trainer", func(cl *resourceapi.ResourceClaim) bool {
		return cl.Status.Allocation != nil && reservedFor(cl, "pods", "trainer")
	})
	if want := []string{b.Name + "/gpu-0", b.Name + "/gpu-1"}; !slices.Equal(devicesOf(cl), want) {
		t.Errorf("trainer's claim allocated %v, want %v", devicesOf(cl), want)
	}
	if !slices.Contains(cl.Finalizers, resourceapi.Finalizer) {
		t.Errorf("trainer's claim has finalizers %v, want %s", cl.Finalizers, resourceapi.Finalizer)
	}

	// A second such pod waits: no node has two free H100s.
	c.CreatePod(t, withClaim(pod("second"), corev1.PodResourceClaim{Name: "gpus", ResourceClaimTemplateName: &tmplName}))
	c.WaitEvent(t, ns, "second", "FailedScheduling", time.Minute)

	// A gang of two shares a claim for one A100 and is reserved as a group.
	shared := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shared-a100"},
		Spec:       resourceapi.ResourceClaimSpec{Devices: gpuRequest(class, 1, "a100")},
	}
	if _, err := c.Client.ResourceV1().ResourceClaims(ns).Create(ctx, shared, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sharedName := "shared-a100"
	pg := gangGroup(ns, "gang", 2, "", nil)
	pg.Spec.ResourceClaims = []v1alpha1.PodGroupResourceClaim{{Name: "shared", ResourceClaimName: &sharedName}}
	c.CreatePodGroup(t, pg)
	for _, n := range []string{"gang-1", "gang-2"} {
		c.CreatePod(t, member(withClaim(pod(n), corev1.PodResourceClaim{Name: "shared", ResourceClaimName: &sharedName}), "gang"))
	}
	gang := c.WaitPodsBound(t, ns, []string{"gang-1", "gang-2"}, 2*time.Minute)
	for n, gp := range gang {
		if gp.Spec.NodeName != a.Name {
			t.Errorf("%s bound to %s, want %s (where the A100 is)", n, gp.Spec.NodeName, a.Name)
		}
	}
	cl = waitClaim(t, c, ns, sharedName, "reserved for the group", func(cl *resourceapi.ResourceClaim) bool {
		return cl.Status.Allocation != nil && reservedFor(cl, "podgroups", "gang")
	})
	// kube-controller-manager's ResourceClaim controller also reserves the claim for each
	// bound pod that uses it (it does not know phalanx's PodGroups); phalanx reserved it
	// for the group, once.
	if want := []string{a.Name + "/gpu-0"}; !slices.Equal(devicesOf(cl), want) {
		t.Errorf("shared claim: devices %v, want %v", devicesOf(cl), want)
	}
	groups := 0
	for _, r := range cl.Status.ReservedFor {
		if r.Resource == "podgroups" {
			groups++
		}
	}
	if groups != 1 {
		t.Errorf("shared claim reserved for %v, want the group once", cl.Status.ReservedFor)
	}

	// trainer goes: the controller deletes its claim, and second gets the H100s.
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, "trainer", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	bound = c.WaitPodsBound(t, ns, []string{"second"}, 2*time.Minute)
	if got := bound["second"].Spec.NodeName; got != b.Name {
		t.Errorf("second bound to %s, want %s", got, b.Name)
	}
}

// TestVolumeBinding: a WaitForFirstConsumer claim of a local volume on the real API
// server. The only volume that fits is on node b: phalanx binds the pod there after
// pointing the volume at the claim, and kube-controller-manager's PV controller completes
// the binding (the claim is Bound to the volume).
func TestVolumeBinding(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	pin := map[string]string{pinLabel: e2eutil.UniqueName(t, "vol")}
	a := c.CreateNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	b := c.CreateNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	c.WaitNodeReady(t, a.Name)
	c.WaitNodeReady(t, b.Name)

	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	class := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: e2eutil.UniqueName(t, "local")},
		Provisioner:       "kubernetes.io/no-provisioner",
		VolumeBindingMode: &wffc,
	}
	if _, err := c.Client.StorageV1().StorageClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.StorageV1().StorageClasses().Delete(context.Background(), class.Name, metav1.DeleteOptions{})
	})
	localPV := func(node, size string) string {
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: e2eutil.UniqueName(t, "pv")},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName:              class.Name,
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
				}}}},
			},
		}
		if _, err := c.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.Client.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
		})
		return pv.Name
	}
	localPV(a.Name, "1Gi")
	big := localPV(b.Name, "10Gi")
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class.Name,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}},
		},
	}
	if _, err := c.Client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := c.StartPhalanx(t, "volumes")
	p.WaitReady(t)

	pod := e2eutil.Pod{Namespace: ns, Name: "trainer", SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Memory: "100Mi"}.Build()
	pod.Spec.NodeSelector = pin
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
	}}}
	c.CreatePod(t, pod)
	bound := c.WaitPodsBound(t, ns, []string{"trainer"}, 2*time.Minute)
	if got := bound["trainer"].Spec.NodeName; got != b.Name {
		t.Errorf("trainer bound to %s, want %s (the only volume large enough is there)", got, b.Name)
	}
	got, err := c.Client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.VolumeName != big || got.Status.Phase != corev1.ClaimBound {
		t.Errorf("claim: volume %q, phase %s; want %s, Bound (by the PV controller, before the pod was bound)", got.Spec.VolumeName, got.Status.Phase, big)
	}
}
