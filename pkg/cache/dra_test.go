package cache_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const gpuDriver = "gpu.example.com"

func allocation(node string, devices ...string) *resourceapi.AllocationResult {
	a := &resourceapi.AllocationResult{}
	for _, d := range devices {
		a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "devices", Driver: gpuDriver, Pool: node, Device: d})
	}
	return a
}

// newDRACache is a node with two GPUs and a bound pod whose claim holds gpu-0.
func newDRACache(t *testing.T) (*cache.Cache, *framework.PodInfo) {
	t.Helper()
	c := cache.New()
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", gpuDriver))
	c.Devices().SetResourceSlice(testutil.Slice("n1", gpuDriver, "gpu", 2))
	held := testutil.Claim("held", "gpu", 1)
	held.Status.Allocation = allocation("n1", "gpu-0")
	held.Finalizers = []string{resourceapi.Finalizer} // the scheduler allocated it
	c.Devices().SetResourceClaim(held)
	c.Devices().SetResourceClaim(testutil.Claim("free", "gpu", 1))
	victim := testutil.Pod("victim").Req("cpu", "1").Claims("held").Node("n1").Info()
	if err := c.Nodes().AddBoundPod(victim); err != nil {
		t.Fatal(err)
	}
	return c, victim
}

func id(node, device string) framework.DeviceID {
	return framework.AllocatedDevices(allocation(node, device))[0]
}

func verify(t *testing.T, c *cache.Cache) {
	t.Helper()
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
}

// Removing a pod in a simulation frees its claim's devices (the ResourceClaim controller
// would deallocate the claim); rolling back takes them again; a real removal leaves them
// taken until the API says the claim was deallocated.
func TestRemovingThePodFreesItsDevices(t *testing.T) {
	c, victim := newDRACache(t)
	dra := c.DRA()
	verify(t, c)
	if !dra.Allocated().Has(id("n1", "gpu-0")) || dra.Claim("default/held").Users != 1 {
		t.Fatalf("held claim: taken %v, users %d", dra.Allocated().Has(id("n1", "gpu-0")), dra.Claim("default/held").Users)
	}
	cp := c.Checkpoint()
	c.RemovePod(victim)
	verify(t, c)
	if dra.Allocated().Has(id("n1", "gpu-0")) || !dra.Claim("default/held").Freed {
		t.Error("removing the claim's only pod in a simulation did not free gpu-0")
	}
	c.Rollback(cp)
	verify(t, c)
	if !dra.Allocated().Has(id("n1", "gpu-0")) || dra.Claim("default/held").Freed {
		t.Error("rollback did not take gpu-0 again")
	}
	c.Nodes().RemoveBoundPod(victim.Key)
	verify(t, c)
	if !dra.Allocated().Has(id("n1", "gpu-0")) {
		t.Error("a real removal freed gpu-0 before the claim was deallocated")
	}
	deallocated := testutil.Claim("held", "gpu", 1)
	c.Devices().SetResourceClaim(deallocated)
	if dra.Allocated().Len() != 0 {
		t.Errorf("taken %v after the claim was deallocated", dra.Allocated())
	}
	verify(t, c)
}

// A claim shared by two pods is freed only when both are removed.
func TestSharedClaimFreedWithItsLastUser(t *testing.T) {
	c, victim := newDRACache(t)
	other := testutil.Pod("other").Req("cpu", "1").Claims("held").Node("n1").Info()
	if err := c.Nodes().AddBoundPod(other); err != nil {
		t.Fatal(err)
	}
	cp := c.Checkpoint()
	c.RemovePod(victim)
	if !c.DRA().Allocated().Has(id("n1", "gpu-0")) {
		t.Error("freed while another pod uses the claim")
	}
	c.RemovePod(other)
	if c.DRA().Allocated().Has(id("n1", "gpu-0")) {
		t.Error("not freed with its last user")
	}
	verify(t, c)
	c.Rollback(cp)
	verify(t, c)
}

// A claim is freed only when removing its users would really deallocate it (issue 20): one
// allocated outside the scheduler (no delete-protection finalizer), or still reserved for
// a pod the simulation keeps, stays allocated; one made for the removed pod (owned by it)
// is freed whatever its finalizers.
func TestClaimFreedOnlyWhenReallyDeallocated(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(cl *resourceapi.ResourceClaim, victim *framework.PodInfo)
		freed bool
	}{
		{"allocated by the scheduler, reserved for the victim", func(cl *resourceapi.ResourceClaim, v *framework.PodInfo) {
			cl.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: v.Pod.Name, UID: v.Pod.UID}}
		}, true},
		{"allocated outside the scheduler (no finalizer)", func(cl *resourceapi.ResourceClaim, _ *framework.PodInfo) {
			cl.Finalizers = nil
		}, false},
		{"also reserved for a pod the cache does not hold", func(cl *resourceapi.ResourceClaim, v *framework.PodInfo) {
			cl.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{
				{Resource: "pods", Name: v.Pod.Name, UID: v.Pod.UID}, {Resource: "pods", Name: "elsewhere", UID: "uid-elsewhere"}}
		}, false},
		{"made for the victim (owned by it), no finalizer", func(cl *resourceapi.ResourceClaim, v *framework.PodInfo) {
			cl.Finalizers = nil
			cl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: v.Pod.Name, UID: v.Pod.UID, Controller: ptrTo(true)}}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
			c.Devices().SetResourceSlice(testutil.Slice("n1", gpuDriver, "gpu", 1))
			victim := testutil.Pod("victim").Req("cpu", "1").Claims("held").Node("n1").Info()
			victim.Pod.UID = "uid-victim"
			held := testutil.Claim("held", "gpu", 1)
			held.Status.Allocation = allocation("n1", "gpu-0")
			held.Finalizers = []string{resourceapi.Finalizer}
			tc.edit(held, victim)
			c.Devices().SetResourceClaim(held)
			if err := c.Nodes().AddBoundPod(victim); err != nil {
				t.Fatal(err)
			}
			cp := c.Checkpoint()
			c.RemovePod(victim)
			if freed := !c.DRA().Allocated().Has(id("n1", "gpu-0")); freed != tc.freed {
				t.Errorf("freed %v, want %v", freed, tc.freed)
			}
			verify(t, c)
			c.Rollback(cp)
			if !c.DRA().Allocated().Has(id("n1", "gpu-0")) || len(c.DRA().Claim("default/held").Gone) != 0 {
				t.Error("rollback did not restore the claim")
			}
			verify(t, c)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// Assumed allocations take devices, are undone by rollback, and give way to the API's.
func TestAssumedAllocations(t *testing.T) {
	c, _ := newDRACache(t)
	dra := c.DRA()
	cp := c.Checkpoint()
	dra.AssumeAllocation("default/free", allocation("n1", "gpu-1"))
	if !dra.Allocated().Has(id("n1", "gpu-1")) || dra.Claim("default/free").Allocation() == nil {
		t.Fatal("assumed allocation does not take gpu-1")
	}
	c.Rollback(cp)
	if dra.Allocated().Has(id("n1", "gpu-1")) || dra.Claim("default/free").Assumed != nil {
		t.Fatal("rollback kept the assumed allocation")
	}
	verify(t, c)

	v0 := dra.DevicesVersion("n1")
	dra.AssumeAllocation("default/free", allocation("n1", "gpu-1"))
	if dra.DevicesVersion("n1") == v0 {
		t.Error("DevicesVersion did not change when a device was taken")
	}
	written := testutil.Claim("free", "gpu", 1)
	written.Status.Allocation = allocation("n1", "gpu-1")
	c.Devices().SetResourceClaim(written)
	if ci := dra.Claim("default/free"); ci.Assumed != nil || ci.Allocation() != written.Status.Allocation {
		t.Error("the API's allocation did not replace the assumed one")
	}
	verify(t, c)
	dra.ForgetAllocation("default/free")
	if !dra.Allocated().Has(id("n1", "gpu-1")) {
		t.Error("forgetting nothing assumed dropped the API's allocation")
	}
	c.Devices().RemoveResourceClaim("default/free")
	if dra.Allocated().Has(id("n1", "gpu-1")) || dra.Claim("default/free") != nil {
		t.Error("a deleted claim still holds its device")
	}
	verify(t, c)
}

// A pod's claims are those of its group when its entries match the group's.
func TestGroupClaimUsers(t *testing.T) {
	c := cache.New()
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	name := "fabric"
	pg := &v1alpha1.PodGroup{}
	pg.Namespace, pg.Name = "default", "g"
	pg.Spec.SchedulingPolicy.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: 2}
	pg.Spec.ResourceClaims = []v1alpha1.PodGroupResourceClaim{{Name: "fabric", ResourceClaimName: &name}}
	c.Groups().SetGroup(&framework.GroupInfo{PodGroup: pg, Key: "default/g"})
	shared := testutil.Claim("fabric", "gpu", 1)
	shared.Status.Allocation = allocation("n1", "gpu-0")
	shared.Finalizers = []string{resourceapi.Finalizer}
	c.Devices().SetResourceClaim(shared)
	for _, n := range []string{"m1", "m2"} {
		p := testutil.Pod(n).Labels(v1alpha1.LabelPodGroup, "g").Claims("fabric").Node("n1").Info()
		if err := c.Nodes().AddBoundPod(p); err != nil {
			t.Fatal(err)
		}
	}
	if users := c.Devices().ClaimUsers("default/fabric"); len(users) != 2 || c.DRA().Claim("default/fabric").Users != 2 {
		t.Fatalf("users %v", users)
	}
	cp := c.Checkpoint()
	for _, p := range c.Devices().ClaimUsers("default/fabric") {
		c.RemovePod(p)
	}
	if c.DRA().Allocated().Len() != 0 {
		t.Error("removing the whole group did not free its claim")
	}
	verify(t, c)
	c.Rollback(cp)
	verify(t, c)
}

// Volume assumptions are undone by rollback and dropped when the API shows the binding;
// the pods using a claim are counted.
func TestVolumeAssumptions(t *testing.T) {
	c := cache.New()
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	vols := c.Volumes()
	p := testutil.Pod("p").PVC("data").Node("n1").Info()
	if err := c.Nodes().AddBoundPod(p); err != nil {
		t.Fatal(err)
	}
	if vols.PVCUsers("default/data") != 1 {
		t.Errorf("users %d, want 1", vols.PVCUsers("default/data"))
	}
	cp := c.Checkpoint()
	c.RemovePod(p)
	vols.AssumeBinding("default/other", "pv-1")
	vols.AssumeProvisioning("default/third", "n1")
	if vols.PVCUsers("default/data") != 0 || vols.AssumedClaimOf("pv-1") != "default/other" || vols.AssumedNodeOf("default/third") != "n1" {
		t.Error("assumptions not recorded")
	}
	verify(t, c)
	c.Rollback(cp)
	if vols.PVCUsers("default/data") != 1 || vols.AssumedClaimOf("pv-1") != "" || vols.AssumedNodeOf("default/third") != "" {
		t.Error("rollback left assumptions")
	}
	verify(t, c)
	vols.AssumeBinding("default/other", "pv-1")
	pvc := testutil.PVC("other", "pv-1")
	c.Storage().SetPVC(pvc)
	if vols.AssumedVolumeOf("default/other") != "" || vols.AssumedClaimOf("pv-1") != "" {
		t.Error("the API's binding did not replace the assumed one")
	}
	verify(t, c)
}

// A victim gone for real leaves its claim allocated until the ResourceClaim controller acts:
// Releasing names it (for that victim only), and FreeReleasing frees its devices in a
// simulation only, as the preemptor's check sees the node once the claim is released.
func TestReleasingClaimsOfGoneVictims(t *testing.T) {
	c, victim := newDRACache(t)
	dra := c.DRA()
	if got := dra.Releasing([]*framework.PodInfo{victim}); len(got) != 0 {
		t.Fatalf("releasing %v while the victim runs", got)
	}
	c.Nodes().RemoveBoundPod(victim.Key)
	other := testutil.Pod("other").Req("cpu", "1").Node("n1").Info()
	for _, tc := range []struct {
		gone []*framework.PodInfo
		want int
	}{{nil, 0}, {[]*framework.PodInfo{other}, 0}, {[]*framework.PodInfo{victim}, 1}} {
		if got := dra.Releasing(tc.gone); len(got) != tc.want || (tc.want == 1 && got[0] != "default/held") {
			t.Errorf("Releasing(%d pods) = %v, want %d claim(s)", len(tc.gone), got, tc.want)
		}
	}
	dra.FreeReleasing([]*framework.PodInfo{victim}) // outside a checkpoint: nothing
	if !dra.Allocated().Has(id("n1", "gpu-0")) {
		t.Fatal("FreeReleasing outside a checkpoint freed gpu-0")
	}
	cp := c.Checkpoint()
	dra.FreeReleasing([]*framework.PodInfo{victim})
	if dra.Allocated().Has(id("n1", "gpu-0")) {
		t.Error("FreeReleasing did not free the gone victim's gpu-0")
	}
	c.Rollback(cp)
	verify(t, c)
	if !dra.Allocated().Has(id("n1", "gpu-0")) || dra.Claim("default/held").Freed {
		t.Error("rollback did not take gpu-0 again")
	}
	c.Devices().SetResourceClaim(testutil.Claim("held", "gpu", 1)) // deallocated
	if got := dra.Releasing([]*framework.PodInfo{victim}); len(got) != 0 {
		t.Errorf("releasing %v once the claim is deallocated", got)
	}
}

// A share of a device that allows multiple allocations (DRAConsumableCapacity) is held as
// a share with the capacity it consumes, not as the whole device: removing its pod in a
// simulation gives the capacity back, rolling back takes it again, and deallocation frees
// it for real.
func TestShareOfADevice(t *testing.T) {
	c := cache.New()
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", gpuDriver))
	c.Devices().SetResourceSlice(testutil.Shared(testutil.Slice("n1", gpuDriver, "gpu", 1), "memory", "40Gi"))
	held := testutil.Consumes(testutil.Claim("held", "gpu", 1), "memory", "16Gi")
	share := types.UID("share-1")
	held.Status.Allocation = allocation("n1", "gpu-0")
	held.Status.Allocation.Devices.Results[0].ShareID = &share
	held.Status.Allocation.Devices.Results[0].ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("16Gi")}
	held.Finalizers = []string{resourceapi.Finalizer}
	c.Devices().SetResourceClaim(held)
	victim := testutil.Pod("victim").Req("cpu", "1").Claims("held").Node("n1").Info()
	if err := c.Nodes().AddBoundPod(victim); err != nil {
		t.Fatal(err)
	}
	dra := c.DRA()
	consumed := func() string {
		st := dra.AllocatedState()
		q := st.AggregatedCapacity[id("n1", "gpu-0")]["memory"]
		if q == nil {
			return "none"
		}
		return q.String()
	}
	verify(t, c)
	if dra.Allocated().Len() != 0 || dra.AllocatedState().AllocatedSharedDeviceIDs.Len() != 1 || consumed() != "16Gi" {
		t.Fatalf("whole devices %v, shares %v, consumed %s; want a 16Gi share only", dra.Allocated(), dra.AllocatedState().AllocatedSharedDeviceIDs, consumed())
	}
	cp := c.Checkpoint()
	c.RemovePod(victim)
	verify(t, c)
	if dra.AllocatedState().AllocatedSharedDeviceIDs.Len() != 0 || consumed() != "none" {
		t.Errorf("removing the share's pod in a simulation left shares %v, consumed %s", dra.AllocatedState().AllocatedSharedDeviceIDs, consumed())
	}
	c.Rollback(cp)
	verify(t, c)
	if consumed() != "16Gi" {
		t.Errorf("rollback: consumed %s, want 16Gi", consumed())
	}
	c.Devices().SetResourceClaim(testutil.Claim("held", "gpu", 1))
	verify(t, c)
	if dra.AllocatedState().AllocatedSharedDeviceIDs.Len() != 0 || consumed() != "none" {
		t.Errorf("after deallocation: shares %v, consumed %s", dra.AllocatedState().AllocatedSharedDeviceIDs, consumed())
	}
}
