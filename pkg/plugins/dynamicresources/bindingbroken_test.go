package dynamicresources

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

var testNow = time.Date(2026, time.November, 28, 12, 0, 0, 0, time.UTC)

// clockCluster is cluster's two nodes with a handle whose clock reads testNow.
func clockCluster(t *testing.T) (*cache.Cache, *DynamicResources, *fakeClient) {
	t.Helper()
	c, _, fc := cluster(t)
	pl, err := New(nil, &testutil.Handle{Cache: c, Client: fc, Now: fixedClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	return c, pl.(*DynamicResources), fc
}

func (f *fakeClient) CreateResourceClaim(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	c = c.DeepCopy()
	if c.Name == "" {
		c.Name = fmt.Sprintf("%sx%d", c.GenerateName, len(f.claims))
	}
	return f.write(c)
}

func (f *fakeClient) PatchPodExtendedResourceClaimStatus(context.Context, *v1.Pod, *v1.PodExtendedResourceClaimStatus) error {
	return nil
}

func condition(typ string, st metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: typ, Status: st, Reason: "R"}
}

// A claim allocated on a device with binding conditions whose binding failed (a failure
// condition True) or timed out (not ready bindingTimeout after its allocationTimestamp)
// before this attempt (a scheduler restart, say) is available on no node, as in
// kube-scheduler's Filter; PostFilter then deallocates it unless another pod reserves it.
func TestFilterBindingBroken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   []metav1.Condition
		stamp    *time.Time
		reserved bool // by another pod
		filter   string
		dealloc  bool
	}{
		{name: "ready", status: []metav1.Condition{condition("Attached", metav1.ConditionTrue)}, filter: "Success"},
		{name: "pending, no stamp", filter: "Success"},
		{name: "pending, recent", stamp: new(testNow.Add(-time.Minute)), filter: "Success"},
		{name: "pending, timed out", stamp: new(testNow.Add(-DefaultBindingTimeout - time.Second)),
			filter: "UnschedulableAndUnresolvable: " + msgNotAvailable, dealloc: true},
		{name: "failed", status: []metav1.Condition{condition("AttachFailed", metav1.ConditionTrue)},
			filter: "UnschedulableAndUnresolvable: " + msgNotAvailable, dealloc: true},
		{name: "failed, reserved by another pod", status: []metav1.Condition{condition("AttachFailed", metav1.ConditionTrue)}, reserved: true,
			filter: "UnschedulableAndUnresolvable: " + msgNotAvailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := clockCluster(t)
			cl := testutil.Claim("gpus", "gpu", 1)
			cl.Status.Allocation = &resourceapi.AllocationResult{
				Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
					Request: "devices", Driver: driver, Pool: "n2", Device: "gpu-0",
					BindingConditions: []string{"Attached"}, BindingFailureConditions: []string{"AttachFailed"},
				}}},
				NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n2"}}},
				}}},
			}
			if tc.stamp != nil {
				cl.Status.Allocation.AllocationTimestamp = &metav1.Time{Time: *tc.stamp}
			}
			if tc.status != nil {
				cl.Status.Devices = []resourceapi.AllocatedDeviceStatus{{Driver: driver, Pool: "n2", Device: "gpu-0", Conditions: tc.status}}
			}
			if tc.reserved {
				cl.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "other", UID: "other-uid"}}
			}
			addClaim(c, fc, cl)
			p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
			cs := framework.NewCycleState()
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := pl.Filter(ctx, cs, p, c.Get("n2"))
			got := st.Code().String()
			if msg := st.Message(); msg != "" {
				got += ": " + msg
			}
			if got != tc.filter {
				t.Errorf("Filter n2: %s, want %s", got, tc.filter)
			}
			_, pst := pl.PostFilter(ctx, cs, p, nil)
			if pst.Code() != framework.Unschedulable {
				t.Errorf("PostFilter: %v, want Unschedulable", pst)
			}
			if gone := fc.claims["default/gpus"].Status.Allocation == nil; gone != tc.dealloc {
				t.Errorf("deallocated: %v, want %v", gone, tc.dealloc)
			}
			if tc.dealloc && pst.Message() != "deallocation of ResourceClaim completed" {
				t.Errorf("PostFilter message %q", pst.Message())
			}
		})
	}
}

// PreBind stamps the allocation it writes with the clock's time, as kube-scheduler v1.37
// does, and leaves the allocation of a claim allocated earlier as it is.
func TestPreBindStampsAllocation(t *testing.T) {
	c, pl, fc := clockCluster(t)
	addClaim(c, fc, testutil.Claim("gpus", "gpu", 1))
	p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
	cs := framework.NewCycleState()
	ctx := context.Background()
	pl.PreFilter(ctx, cs, p)
	if st := pl.Filter(ctx, cs, p, c.Get("n2")); !st.IsSuccess() {
		t.Fatal(st)
	}
	pl.Reserve(ctx, cs, p, "n2")
	if st := pl.PreBind(ctx, cs, p, "n2"); !st.IsSuccess() {
		t.Fatal(st)
	}
	a := fc.claims["default/gpus"].Status.Allocation
	if a == nil || a.AllocationTimestamp == nil || !a.AllocationTimestamp.Time.Equal(testNow) {
		t.Fatalf("allocation %+v, want stamped %v", a, testNow)
	}

	// A claim allocated earlier by someone else keeps its stamp, or its lack of one (the
	// API server refuses any change of an allocation).
	for _, stamp := range []*metav1.Time{nil, {Time: testNow.Add(-time.Hour)}} {
		cl := testutil.Claim("pre", "gpu", 1)
		cl.Status.Allocation = &resourceapi.AllocationResult{AllocationTimestamp: stamp,
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "devices", Driver: driver, Pool: "n2", Device: "gpu-1"}}}}
		addClaim(c, fc, cl)
		q := framework.NewPodInfo(testutil.Pod("q").Claims("pre").Obj())
		qs := framework.NewCycleState()
		pl.PreFilter(ctx, qs, q)
		pl.Reserve(ctx, qs, q, "n2")
		if st := pl.PreBind(ctx, qs, q, "n2"); !st.IsSuccess() {
			t.Fatal(st)
		}
		if got := fc.claims["default/pre"].Status.Allocation.AllocationTimestamp; (got == nil) != (stamp == nil) || (got != nil && !got.Time.Equal(stamp.Time)) {
			t.Errorf("stamp %v: written %v, want it unchanged", stamp, got)
		}
	}
}

// PreBindReady waits, as kube-scheduler's PreBind, for the binding conditions of the
// devices of the claim PreBind made for the pod's extended resources; a wait that began
// before a stamp older than bindingTimeout ends in a timeout at once.
func TestPreBindReadyExtendedClaim(t *testing.T) {
	c := cache.New()
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	sl := testutil.Slice("n1", driver, "gpu", 1)
	sl.Spec.Devices[0].BindingConditions = []string{"Attached"}
	sl.Spec.Devices[0].BindingFailureConditions = []string{"AttachFailed"}
	c.Devices().SetResourceSlice(sl)
	name := "example.com/gpu"
	dc := testutil.DeviceClass("gpu", driver)
	dc.Spec.ExtendedResourceName = &name
	c.Devices().SetDeviceClass(dc)
	fc := &fakeClient{claims: map[string]*resourceapi.ResourceClaim{}}
	plugin, err := New(nil, &testutil.Handle{Cache: c, Client: fc, Now: fixedClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	pl := plugin.(*DynamicResources)
	pod := testutil.Pod("p").Obj()
	pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceName(name): resource.MustParse("1")}
	p := framework.NewPodInfo(pod)
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n1")); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Reserve(ctx, cs, p, "n1"); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.PreBind(ctx, cs, p, "n1"); !st.IsSuccess() {
		t.Fatal(st)
	}
	key := readState(cs).extended.created
	if fc.claims[key] == nil {
		t.Fatalf("no extended claim %q written: %v", key, fc.claims)
	}
	if st := pl.PreBindReady(ctx, cs, p, "n1", 0); st.Code() != framework.Wait {
		t.Fatalf("PreBindReady before the device is readied: %v, want Wait", st)
	}
	fc.claims[key].Status.Devices = []resourceapi.AllocatedDeviceStatus{{Driver: driver, Pool: "n1", Device: "gpu-0",
		Conditions: []metav1.Condition{condition("Attached", metav1.ConditionTrue)}}}
	if st := pl.PreBindReady(ctx, cs, p, "n1", 10*time.Second); !st.IsSuccess() {
		t.Fatalf("PreBindReady once readied: %v", st)
	}
	// Not ready, and stamped longer ago than bindingTimeout: timed out, though this
	// binding has only just begun waiting.
	fc.claims[key].Status.Devices = nil
	fc.claims[key].Status.Allocation.AllocationTimestamp = &metav1.Time{Time: testNow.Add(-DefaultBindingTimeout - time.Second)}
	if st := pl.PreBindReady(ctx, cs, p, "n1", 0); st.Code() != framework.Error {
		t.Fatalf("PreBindReady after the stamp's timeout: %v, want an error", st)
	}
}

func (f *fakeClient) DeleteClaim(_ context.Context, ns, name string) error {
	delete(f.claims, ns+"/"+name)
	return nil
}

// The claim an earlier attempt made for a pod's extended resources (annotated, the pod
// its controller owner; allocated or not, named in the pod's status or not) rejects every
// node with kube-scheduler's message, and PostFilter deletes it (its finalizer first) so
// that the next attempt makes another. A claim of another pod, or not annotated, is not
// the pod's.
func TestLeftoverExtendedClaim(t *testing.T) {
	for _, tc := range []struct {
		name      string
		owner     string // the UID of the pod that owns the claim
		annotated bool
		allocated bool
		leftover  bool
	}{
		{name: "allocated", owner: "pod-uid", annotated: true, allocated: true, leftover: true},
		{name: "not allocated", owner: "pod-uid", annotated: true, leftover: true},
		{name: "another pod's", owner: "other-uid", annotated: true, allocated: true},
		{name: "not annotated", owner: "pod-uid", allocated: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := clockCluster(t)
			name := "example.com/gpu"
			dc := testutil.DeviceClass("gpu", driver)
			dc.Spec.ExtendedResourceName = &name
			c.Devices().SetDeviceClass(dc)
			pod := testutil.Pod("p").Obj()
			pod.UID = "pod-uid"
			pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceName(name): resource.MustParse("1")}
			yes := true
			cl := testutil.Claim("p-extended-resources-abcde", "gpu", 1)
			cl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: types.UID(tc.owner), Controller: &yes}}
			if tc.annotated {
				cl.Annotations = map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"}
			}
			cl.Finalizers = []string{resourceapi.Finalizer}
			if tc.allocated {
				cl.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
					Request: "devices", Driver: driver, Pool: "n1", Device: "gpu-0"}}}}
				pod.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: cl.Name}
			}
			addClaim(c, fc, cl)
			p := framework.NewPodInfo(pod)
			cs := framework.NewCycleState()
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := pl.Filter(ctx, cs, p, c.Get("n2"))
			if rejected := st.Code() == framework.UnschedulableAndUnresolvable && st.Message() == msgLeftover; rejected != tc.leftover {
				t.Errorf("Filter n2: %v %q; rejected as a leftover: %v, want %v", st.Code(), st.Message(), rejected, tc.leftover)
			}
			_, pst := pl.PostFilter(ctx, cs, p, nil)
			_, kept := fc.claims["default/"+cl.Name]
			if kept == tc.leftover {
				t.Errorf("claim kept: %v, want %v", kept, !tc.leftover)
			}
			if tc.leftover && pst.Message() != "deletion of ResourceClaim completed" {
				t.Errorf("PostFilter: %v", pst)
			}
		})
	}
}

// When the binding fails after PreBind made the claim for a pod's extended resources,
// Unreserve deletes it, as kube-scheduler's Unreserve does, so that the next attempt
// makes another rather than finding it left over (found by kube-scheduler's TestPlugin
// case extended-resource-name-bind-failure, decision 38).
func TestUnreserveDeletesExtendedClaim(t *testing.T) {
	c, pl, fc := cluster(t)
	name := "example.com/gpu"
	dc := testutil.DeviceClass("gpu", driver)
	dc.Spec.ExtendedResourceName = &name
	c.Devices().SetDeviceClass(dc)
	pod := testutil.Pod("p").Obj()
	pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceName(name): resource.MustParse("1")}
	p := framework.NewPodInfo(pod)
	ctx := context.Background()
	for _, step := range []string{"before PreBind", "after PreBind"} {
		cs := framework.NewCycleState()
		if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
			t.Fatal(st)
		}
		if st := pl.Filter(ctx, cs, p, c.Get("n1")); !st.IsSuccess() {
			t.Fatal(st)
		}
		if st := pl.Reserve(ctx, cs, p, "n1"); !st.IsSuccess() {
			t.Fatal(st)
		}
		if step == "after PreBind" {
			if st := pl.PreBind(ctx, cs, p, "n1"); !st.IsSuccess() {
				t.Fatal(st)
			}
			if len(fc.claims) != 1 {
				t.Fatalf("PreBind made claims %v, want one", fc.claims)
			}
		}
		pl.Unreserve(ctx, cs, p, "n1")
		if len(fc.claims) != 0 {
			t.Errorf("%s: Unreserve left claims %v, want none", step, fc.claims)
		}
	}
}
