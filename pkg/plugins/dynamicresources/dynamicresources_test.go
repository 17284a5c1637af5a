package dynamicresources

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const driver = "gpu.example.com"

// cluster is two nodes: n1 with one GPU, n2 with two, and a class for them.
func cluster(t *testing.T) (*cache.Cache, *DynamicResources, *fakeClient) {
	t.Helper()
	c := cache.New()
	for _, n := range []struct {
		name string
		gpus int
	}{{"n1", 1}, {"n2", 2}} {
		c.Nodes().AddNode(testutil.Node(n.name).Capacity("cpu", "8").Obj())
		c.Devices().SetResourceSlice(testutil.Slice(n.name, driver, "gpu", n.gpus))
	}
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
	fc := &fakeClient{claims: map[string]*resourceapi.ResourceClaim{}}
	pl, err := New(nil, &testutil.Handle{Cache: c, Client: fc})
	if err != nil {
		t.Fatal(err)
	}
	return c, pl.(*DynamicResources), fc
}

func addClaim(c *cache.Cache, fc *fakeClient, cl *resourceapi.ResourceClaim) {
	c.Devices().SetResourceClaim(cl)
	fc.claims[cl.Namespace+"/"+cl.Name] = cl.DeepCopy()
}

func TestPreFilter(t *testing.T) {
	tmpl := "tmpl"
	for _, tc := range []struct {
		name   string
		pod    *v1.Pod
		claims []*resourceapi.ResourceClaim
		code   framework.Code
		msg    string
	}{
		{name: "no claims", pod: testutil.Pod("p").Obj(), code: framework.Skip},
		{name: "claim missing", pod: testutil.Pod("p").Claims("gpus").Obj(),
			code: framework.UnschedulableAndUnresolvable, msg: `resourceclaim "gpus" not found`},
		{name: "template claim not made yet", pod: func() *v1.Pod {
			p := testutil.Pod("p").Obj()
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: &tmpl}}
			return p
		}(), code: framework.UnschedulableAndUnresolvable, msg: `waiting for the ResourceClaim of "gpus" to be created from template "tmpl"`},
		{name: "class missing", pod: testutil.Pod("p").Claims("gpus").Obj(),
			claims: []*resourceapi.ResourceClaim{testutil.Claim("gpus", "tpu", 1)},
			code:   framework.UnschedulableAndUnresolvable, msg: "request devices: device class tpu does not exist"},
		{name: "claim being deleted", pod: testutil.Pod("p").Claims("gpus").Obj(),
			claims: []*resourceapi.ResourceClaim{func() *resourceapi.ResourceClaim {
				cl := testutil.Claim("gpus", "gpu", 1)
				cl.DeletionTimestamp = &metav1.Time{}
				return cl
			}()},
			code: framework.UnschedulableAndUnresolvable, msg: `resourceclaim "gpus" is being deleted`},
		{name: "template claim of another pod", pod: func() *v1.Pod {
			p := testutil.Pod("p").Obj()
			p.UID = "pod-uid"
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: &tmpl}}
			name := "p-gpus"
			p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpus", ResourceClaimName: &name}}
			return p
		}(), claims: []*resourceapi.ResourceClaim{testutil.Claim("p-gpus", "gpu", 1)},
			code: framework.UnschedulableAndUnresolvable, msg: "was not created for Pod default/p (Pod is not owner)"},
		{name: "claim to allocate", pod: testutil.Pod("p").Claims("gpus").Obj(),
			claims: []*resourceapi.ResourceClaim{testutil.Claim("gpus", "gpu", 1)}, code: framework.Success},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := cluster(t)
			for _, cl := range tc.claims {
				addClaim(c, fc, cl)
			}
			_, st := pl.PreFilter(context.Background(), framework.NewCycleState(), framework.NewPodInfo(tc.pod))
			if st.Code() != tc.code || !strings.Contains(st.Message(), tc.msg) {
				t.Errorf("status %v %q, want %v containing %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
		})
	}
}

// Filter allocates per node; Reserve assumes the allocation and Unreserve drops it.
func TestFilterReserve(t *testing.T) {
	c, pl, fc := cluster(t)
	addClaim(c, fc, testutil.Claim("gpus", "gpu", 2))
	p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n1")); st.Code() != framework.Unschedulable || st.Message() != msgCannotAlloc {
		t.Errorf("n1 (one GPU): %v %q, want Unschedulable %q", st.Code(), st.Message(), msgCannotAlloc)
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n2")); !st.IsSuccess() {
		t.Fatalf("n2 (two GPUs): %v", st)
	}
	if st := pl.Reserve(ctx, cs, p, "n2"); !st.IsSuccess() {
		t.Fatal(st)
	}
	if ci := c.DRA().Claim("default/gpus"); ci.Assumed == nil || len(ci.Assumed.Devices.Results) != 2 {
		t.Fatalf("assumed %v", ci.Assumed)
	}
	if c.DRA().Allocated().Len() != 2 {
		t.Errorf("%d devices taken, want 2", c.DRA().Allocated().Len())
	}
	pl.Unreserve(ctx, cs, p, "n2")
	if c.DRA().Claim("default/gpus").Assumed != nil || c.DRA().Allocated().Len() != 0 {
		t.Error("Unreserve kept the allocation")
	}
}

// An allocated claim restricts the pod to the nodes its allocation names. A node it does
// not name is reported as such, unless the pod's other claims cannot be allocated there:
// kube-scheduler searches those first and reports their failure.
func TestFilterAllocatedClaim(t *testing.T) {
	for _, tc := range []struct {
		name string
		// other is the count of GPUs of a second claim to allocate (0: none).
		other int64
		want  map[string]string
	}{
		{name: "alone", want: map[string]string{"n1": "UnschedulableAndUnresolvable: " + msgNotAvailable, "n2": "Success"}},
		{name: "with a claim that fits", other: 1, want: map[string]string{"n1": "UnschedulableAndUnresolvable: " + msgNotAvailable, "n2": "Success"}},
		{name: "with a claim that fits nowhere", other: 3, want: map[string]string{"n1": "Unschedulable: " + msgCannotAlloc, "n2": "Unschedulable: " + msgCannotAlloc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := cluster(t)
			cl := testutil.Claim("gpus", "gpu", 1)
			cl.Status.Allocation = &resourceapi.AllocationResult{
				Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "devices", Driver: driver, Pool: "n2", Device: "gpu-0"}}},
				NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n2"}}},
				}}},
			}
			addClaim(c, fc, cl)
			names := []string{"gpus"}
			if tc.other > 0 {
				addClaim(c, fc, testutil.Claim("more", "gpu", tc.other))
				names = append(names, "more")
			}
			p := framework.NewPodInfo(testutil.Pod("p").Claims(names...).Obj())
			cs := framework.NewCycleState()
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			for node, want := range tc.want {
				st := pl.Filter(ctx, cs, p, c.Get(node))
				got := st.Code().String()
				if msg := st.Message(); msg != "" {
					got += ": " + msg
				}
				if got != want {
					t.Errorf("%s: %s, want %s", node, got, want)
				}
			}
		})
	}
}

// PreBind writes the finalizer, then the allocation with the reservation, re-reading the
// claim after a conflict; a claim already written is only reserved.
func TestPreBind(t *testing.T) {
	c, pl, fc := cluster(t)
	addClaim(c, fc, testutil.Claim("gpus", "gpu", 1))
	pod := testutil.Pod("p").Claims("gpus").Obj()
	pod.UID = "pod-uid"
	p := framework.NewPodInfo(pod)
	cs := framework.NewCycleState()
	ctx := context.Background()
	pl.PreFilter(ctx, cs, p)
	if st := pl.Filter(ctx, cs, p, c.Get("n2")); !st.IsSuccess() {
		t.Fatal(st)
	}
	pl.Reserve(ctx, cs, p, "n2")
	fc.conflicts = 1
	if st := pl.PreBind(ctx, cs, p, "n2"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	got := fc.claims["default/gpus"]
	if got.Status.Allocation == nil || !slices.Contains(got.Finalizers, resourceapi.Finalizer) ||
		len(got.Status.ReservedFor) != 1 || got.Status.ReservedFor[0].UID != "pod-uid" {
		t.Fatalf("claim written as %+v", got)
	}
	if fc.writes != 3 { // a conflict, the finalizer, the status
		t.Errorf("%d writes, want 3", fc.writes)
	}
	// Binding again (a retry) finds it done.
	fc.writes = 0
	if st := pl.PreBind(ctx, cs, p, "n2"); !st.IsSuccess() || fc.writes != 0 {
		t.Errorf("second PreBind: %v, %d writes", st, fc.writes)
	}
	// Another pod sharing it is only added to the reservation.
	other := testutil.Pod("q").Claims("gpus").Obj()
	other.UID = "q-uid"
	c.Devices().SetResourceClaim(got)
	q := framework.NewPodInfo(other)
	qs := framework.NewCycleState()
	pl.PreFilter(ctx, qs, q)
	pl.Reserve(ctx, qs, q, "n2")
	if st := pl.PreBind(ctx, qs, q, "n2"); !st.IsSuccess() {
		t.Fatal(st)
	}
	if r := fc.claims["default/gpus"].Status.ReservedFor; len(r) != 2 {
		t.Errorf("reserved for %v, want both pods", r)
	}
}

// Extended resources backed by a DeviceClass: on a node without them in its allocatable,
// the pod's claim asks for them, one request per container (init containers reusing
// those of the containers that run after them).
func TestExtendedResources(t *testing.T) {
	c, pl, _ := cluster(t)
	name := "example.com/gpu"
	dc := testutil.DeviceClass("gpu", driver)
	dc.Spec.ExtendedResourceName = &name
	c.Devices().SetDeviceClass(dc)
	pod := testutil.Pod("p").Obj()
	req := func(n string) v1.ResourceRequirements {
		return v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceName(name): resource.MustParse(n)}}
	}
	pod.Spec.InitContainers = []v1.Container{{Name: "init", Resources: req("1")}}
	pod.Spec.Containers = []v1.Container{{Name: "main", Resources: req("2")}}
	p := framework.NewPodInfo(pod)
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n1")); st.IsSuccess() {
		t.Error("n1 (one GPU) accepted a pod needing two")
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n2")); !st.IsSuccess() {
		t.Fatalf("n2: %v", st)
	}
	if st := pl.Reserve(ctx, cs, p, "n2"); !st.IsSuccess() {
		t.Fatal(st)
	}
	e := readState(cs).extended
	if e.allocation == nil || len(e.allocation.Devices.Results) != 2 {
		t.Fatalf("allocation %v", e.allocation)
	}
	reqs := e.claim.claim.Spec.Devices.Requests
	if len(reqs) != 1 || reqs[0].Name != "container-1-request-0" || reqs[0].Exactly.Count != 2 {
		t.Errorf("requests %+v, want one for the main container's 2", reqs)
	}
	want := []v1.ContainerExtendedResourceRequest{
		{ContainerName: "main", ResourceName: name, RequestName: "container-1-request-0"},
		{ContainerName: "init", ResourceName: name, RequestName: "container-1-request-0"},
	}
	if !slices.Equal(e.claim.mappings, want) {
		t.Errorf("mappings %v, want %v", e.claim.mappings, want)
	}
}

// fakeClient is an in-memory API of claims that can refuse writes with conflicts.
type fakeClient struct {
	framework.ResourceClient
	claims    map[string]*resourceapi.ResourceClaim
	conflicts int
	writes    int
	rv        int
}

func (f *fakeClient) GetResourceClaim(_ context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	if c := f.claims[ns+"/"+name]; c != nil {
		return c.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("resourceclaims"), name)
}

func (f *fakeClient) write(c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	f.writes++
	if f.conflicts > 0 {
		f.conflicts--
		return nil, apierrors.NewConflict(resourceapi.Resource("resourceclaims"), c.Name, nil)
	}
	f.rv++
	c = c.DeepCopy()
	f.claims[c.Namespace+"/"+c.Name] = c
	return c, nil
}

func (f *fakeClient) UpdateResourceClaim(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return f.write(c)
}

func (f *fakeClient) UpdateResourceClaimStatus(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return f.write(c)
}

// The record of which pod's Reserve chose a claim's allocation is pruned of claims the API
// shows allocated, once it has grown.
func TestPruneOwners(t *testing.T) {
	c, pl, _ := cluster(t)
	for i := range 1100 {
		cl := testutil.Claim(fmt.Sprintf("c%d", i), "gpu", 1)
		if i%2 == 0 {
			cl.Status.Allocation = &resourceapi.AllocationResult{}
		}
		c.Devices().SetResourceClaim(cl)
		pl.owners["default/"+cl.Name] = &stateData{}
	}
	pl.pruneOwners(c.DRA())
	if len(pl.owners) != 550 {
		t.Errorf("%d left, want the 550 not yet written", len(pl.owners))
	}
	pl.pruneOwners(c.DRA())
	if len(pl.owners) != 550 {
		t.Errorf("pruned again below the new limit")
	}
}

// TestFilterTimeout: filterTimeout bounds a node's allocation search, as kube-scheduler's
// does: a search that runs out of time fails the node with an error (retried with
// backoff), not as unschedulable; a negative timeout is refused, and 0 means none.
func TestFilterTimeout(t *testing.T) {
	for _, tc := range []struct {
		args, err string
	}{
		{args: `{"filterTimeout":"-1s"}`, err: "filterTimeout: Invalid value"},
		{args: `{"filterTimeout":"0s"}`},
		{args: `{}`},
	} {
		if _, err := New([]byte(tc.args), &testutil.Handle{}); (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error with %q", tc.args, err, tc.err)
		}
	}
	c, pl, fc := cluster(t)
	if pl.filterTimeout != DefaultFilterTimeout {
		t.Errorf("default filterTimeout %v, want %v", pl.filterTimeout, DefaultFilterTimeout)
	}
	pl.filterTimeout = 1 // a nanosecond: over before the search starts
	addClaim(c, fc, testutil.Claim("gpus", "gpu", 2))
	p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	st := pl.Filter(ctx, cs, p, c.Get("n2"))
	if st.Code() != framework.Error || st.Message() != "node n2: timed out trying to allocate devices" {
		t.Errorf("n2: %v %q, want Error %q", st.Code(), st.Message(), "node n2: timed out trying to allocate devices")
	}
}

// A request with admin access may take a device another claim holds, so the node's free
// devices do not bound what the claims ask for: the allocator decides (n2 has two GPUs).
func TestFilterAdminAccessCount(t *testing.T) {
	for _, tc := range []struct {
		name  string
		admin bool
		want  string
	}{
		{name: "two GPUs and a third", want: "Unschedulable: " + msgCannotAlloc},
		{name: "two GPUs and admin access to one", admin: true, want: "Success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := cluster(t)
			addClaim(c, fc, testutil.Claim("two", "gpu", 2))
			one := testutil.Claim("one", "gpu", 1)
			if tc.admin {
				one.Spec.Devices.Requests[0].Exactly.AdminAccess = &tc.admin
			}
			addClaim(c, fc, one)
			p := framework.NewPodInfo(testutil.Pod("p").Claims("two", "one").Obj())
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
			if got != tc.want {
				t.Errorf("n2: %s, want %s", got, tc.want)
			}
		})
	}
}

// A pod that asks for an extended resource backed by DRA does not fit a node that does
// not list one of its other extended resources, as kube-scheduler's Filter says; a node
// that lists it, even at 0, is NodeResourcesFit's to judge. A pod without resources
// backed by DRA is not this plugin's concern.
func TestExtendedResourcesOthers(t *testing.T) {
	backed, other := "example.com/dra-gpu", v1.ResourceName("example.com/fpga")
	for _, tc := range []struct {
		name   string
		backed bool
		// listed is the node's allocatable of the other resource (nil: not listed).
		listed *resource.Quantity
		want   string
	}{
		{name: "not listed", backed: true, want: "UnschedulableAndUnresolvable: " + msgCannotFit},
		{name: "listed at 0", backed: true, listed: resource.NewQuantity(0, resource.DecimalSI), want: "Success"},
		{name: "listed", backed: true, listed: resource.NewQuantity(2, resource.DecimalSI), want: "Success"},
		{name: "no resource backed by DRA", want: "Skip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, _ := cluster(t)
			dc := testutil.DeviceClass("gpu-ext", driver)
			dc.Spec.ExtendedResourceName = &backed
			c.Devices().SetDeviceClass(dc)
			node := testutil.Node("n3").Capacity("cpu", "8").Obj()
			if tc.listed != nil {
				node.Status.Allocatable[other] = *tc.listed
			}
			c.Nodes().AddNode(node)
			c.Devices().SetResourceSlice(testutil.Slice("n3", driver, "gpu", 1))
			reqs := v1.ResourceList{other: resource.MustParse("1")}
			if tc.backed {
				reqs[v1.ResourceName(backed)] = resource.MustParse("1")
			}
			pod := testutil.Pod("p").Obj()
			pod.Spec.Containers = []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: reqs, Limits: reqs}}}
			p := framework.NewPodInfo(pod)
			cs := framework.NewCycleState()
			ctx := context.Background()
			_, st := pl.PreFilter(ctx, cs, p)
			if st.IsSuccess() {
				st = pl.Filter(ctx, cs, p, c.Get("n3"))
			}
			got := st.Code().String()
			if msg := st.Message(); msg != "" {
				got += ": " + msg
			}
			if got != tc.want {
				t.Errorf("n3: %s, want %s", got, tc.want)
			}
		})
	}
}

// A node that has a pod's extended resource from a device plugin needs no claim for it:
// Reserve there succeeds and PreBind writes nothing, as kube-scheduler's plugin (found by
// kube-scheduler's TestPlugin case extended-resource-name-with-node-resource, decision 38).
func TestExtendedResourcesFromDevicePlugin(t *testing.T) {
	c, pl, fc := cluster(t)
	name := "example.com/gpu"
	dc := testutil.DeviceClass("gpu", driver)
	dc.Spec.ExtendedResourceName = &name
	c.Devices().SetDeviceClass(dc)
	c.Nodes().AddNode(testutil.Node("n3").Capacity("cpu", "8").Capacity(name, "2").Obj())
	pod := testutil.Pod("p").Obj()
	pod.Spec.Containers = []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceName(name): resource.MustParse("1")}}}}
	p := framework.NewPodInfo(pod)
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n3")); !st.IsSuccess() {
		t.Fatalf("Filter on n3: %v", st)
	}
	if st := pl.Reserve(ctx, cs, p, "n3"); !st.IsSuccess() {
		t.Fatalf("Reserve on n3: %v", st)
	}
	if st := pl.PreBind(ctx, cs, p, "n3"); !st.IsSuccess() {
		t.Fatalf("PreBind on n3: %v", st)
	}
	if fc.writes != 0 || len(fc.claims) != 0 {
		t.Errorf("PreBind wrote %d claims (%v), want none", fc.writes, fc.claims)
	}
	pl.Unreserve(ctx, cs, p, "n3")
}

// When the binding fails after PreBind reserved the pod's claims, Unreserve drops the
// pod's reservation (the allocation stays), as kube-scheduler's Unreserve does (found by
// kube-scheduler's TestPlugin case bind-failure, decision 38). Another pod's stays.
func TestUnreserveAfterPreBind(t *testing.T) {
	c, pl, fc := cluster(t)
	addClaim(c, fc, testutil.Claim("gpus", "gpu", 1))
	pod := testutil.Pod("p").Claims("gpus").Obj()
	pod.UID = "pod-uid"
	p := framework.NewPodInfo(pod)
	ctx := context.Background()
	cs := framework.NewCycleState()
	pl.PreFilter(ctx, cs, p)
	if st := pl.Filter(ctx, cs, p, c.Get("n2")); !st.IsSuccess() {
		t.Fatal(st)
	}
	pl.Reserve(ctx, cs, p, "n2")
	// Unreserve before PreBind writes nothing.
	pl.Unreserve(ctx, cs, p, "n2")
	if fc.writes != 0 {
		t.Fatalf("Unreserve before PreBind: %d writes, want none", fc.writes)
	}
	pl.PreFilter(ctx, cs, p)
	pl.Filter(ctx, cs, p, c.Get("n2"))
	pl.Reserve(ctx, cs, p, "n2")
	if st := pl.PreBind(ctx, cs, p, "n2"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	got := fc.claims["default/gpus"]
	got.Status.ReservedFor = append(got.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: "q", UID: "q-uid"})
	pl.Unreserve(ctx, cs, p, "n2")
	got = fc.claims["default/gpus"]
	if got.Status.Allocation == nil {
		t.Error("Unreserve deallocated the claim")
	}
	if r := got.Status.ReservedFor; len(r) != 1 || r[0].UID != "q-uid" {
		t.Errorf("reserved for %v after Unreserve, want the other pod only", r)
	}
}
