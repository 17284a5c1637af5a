package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// sharedCluster is one node with one device that allows multiple allocations, 40Gi of
// memory.
func sharedCluster(t *testing.T) (*cache.Cache, *DynamicResources, *fakeClient) {
	t.Helper()
	c := cache.New()
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
	c.Devices().SetResourceSlice(testutil.Shared(testutil.Slice("n1", driver, "gpu", 1), "memory", "40Gi"))
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
	fc := &fakeClient{claims: map[string]*resourceapi.ResourceClaim{}}
	pl, err := New(nil, &testutil.Handle{Cache: c, Client: fc})
	if err != nil {
		t.Fatal(err)
	}
	return c, pl.(*DynamicResources), fc
}

// Claims share a device that allows multiple allocations up to its capacity
// (DRAConsumableCapacity): each share is counted, a claim beyond the capacity does not
// fit, and the capacity comes back when a share is released, whether assumed by the
// scheduler or allocated in the API.
func TestConsumableCapacity(t *testing.T) {
	for _, tc := range []struct {
		name    string
		asks    []string // memory each claim asks, in order
		fits    []bool
		release int // index of a claim whose release lets the last one fit, -1: none
	}{
		{name: "two shares fit", asks: []string{"16Gi", "24Gi"}, fits: []bool{true, true}, release: -1},
		{name: "third share over capacity", asks: []string{"16Gi", "16Gi", "16Gi"}, fits: []bool{true, true, false}, release: 0},
		{name: "one share over capacity", asks: []string{"48Gi"}, fits: []bool{false}, release: -1},
		{name: "whole capacity", asks: []string{"40Gi", "1"}, fits: []bool{true, false}, release: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := sharedCluster(t)
			ctx := context.Background()
			var states []*framework.CycleState
			var pods []*framework.PodInfo
			for i, ask := range tc.asks {
				name := fmt.Sprintf("c%d", i)
				addClaim(c, fc, testutil.Consumes(testutil.Claim(name, "gpu", 1), "memory", ask))
				p := framework.NewPodInfo(testutil.Pod("p" + name).Claims(name).Obj())
				cs := framework.NewCycleState()
				if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
					t.Fatal(st)
				}
				st := pl.Filter(ctx, cs, p, c.Get("n1"))
				if st.IsSuccess() != tc.fits[i] {
					t.Fatalf("claim %d (%s): %v, want fits=%v", i, ask, st, tc.fits[i])
				}
				if !st.IsSuccess() {
					if st.Code() != framework.Unschedulable || st.Message() != msgCannotAlloc {
						t.Errorf("claim %d: %v %q, want Unschedulable %q", i, st.Code(), st.Message(), msgCannotAlloc)
					}
					break
				}
				if st := pl.Reserve(ctx, cs, p, "n1"); !st.IsSuccess() {
					t.Fatal(st)
				}
				res := c.DRA().Claim("default/" + name).Assumed.Devices.Results[0]
				got := res.ConsumedCapacity["memory"]
				if res.ShareID == nil || got.String() != ask {
					t.Fatalf("claim %d: result %+v, want a share consuming %s", i, res, ask)
				}
				states, pods = append(states, cs), append(pods, p)
			}
			if c.DRA().Allocated().Len() != 0 {
				t.Errorf("%d devices taken whole, want 0: shares do not take a device", c.DRA().Allocated().Len())
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
			if tc.release < 0 {
				return
			}
			// The first share, written by the API, then deallocated: the last claim fits.
			first := fmt.Sprintf("default/c%d", tc.release)
			cl := c.DRA().Claim(first).Claim.DeepCopy()
			cl.Status.Allocation = c.DRA().Claim(first).Assumed
			c.Devices().SetResourceClaim(cl)
			last := len(tc.asks) - 1
			p := framework.NewPodInfo(testutil.Pod(fmt.Sprintf("pc%d", last)).Claims(fmt.Sprintf("c%d", last)).Obj())
			cs := framework.NewCycleState()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			if st := pl.Filter(ctx, cs, p, c.Get("n1")); st.IsSuccess() {
				t.Fatal("fits while the first share is allocated in the API")
			}
			cl = cl.DeepCopy()
			cl.Status.Allocation = nil
			c.Devices().SetResourceClaim(cl)
			if st := pl.Filter(ctx, cs, p, c.Get("n1")); !st.IsSuccess() {
				t.Fatalf("after the release: %v", st)
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
			pl.Unreserve(ctx, states[len(states)-1], pods[len(pods)-1], "n1")
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A device that allows multiple allocations serves several requests, so the count of free
// devices does not reject claims for more devices than the node has.
func TestConsumableCapacityCount(t *testing.T) {
	c, pl, fc := sharedCluster(t)
	ctx := context.Background()
	cl := testutil.Consumes(testutil.Claim("c", "gpu", 1), "memory", "8Gi")
	r := cl.Spec.Devices.Requests[0]
	r2 := *r.DeepCopy()
	r2.Name = "second"
	cl.Spec.Devices.Requests = append(cl.Spec.Devices.Requests, r2)
	addClaim(c, fc, cl)
	p := framework.NewPodInfo(testutil.Pod("p").Claims("c").Obj())
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Filter(ctx, cs, p, c.Get("n1")); !st.IsSuccess() {
		t.Fatalf("two requests on one shared device: %v", st)
	}
}
