package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// countFromScratch is the count before a search read straight from the snapshot, as it
// was before the memo: what countDevices must always agree with.
func countFromScratch(pl *DynamicResources, dra framework.DRA, node string) (free, total int, multi bool) {
	taken := dra.Allocated()
	for _, s := range pl.slicesFor(dra, node) {
		for _, d := range s.Spec.Devices {
			total++
			multi = multi || d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
			if !taken.Has(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)) {
				free++
			}
		}
	}
	return free, total, multi
}

// allocation takes devices of a node's pool (named after the node).
func allocation(node string, devices ...string) *resourceapi.AllocationResult {
	a := &resourceapi.AllocationResult{}
	for _, d := range devices {
		a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "devices", Driver: driver, Pool: node, Device: d})
	}
	return a
}

// The memo of the count before a search is right after every change of what it counts:
// devices taken and freed (assumed, rolled back, allocated by the API, deleted), slices
// added, replaced and removed, nodes removed (another node then has the index, one with
// slices that of one without: the entry nodes without slices share is the layout's) and
// added after their slice (the nodes known to have slices are the layout's),
// slices for all nodes, devices that allow multiple allocations, and a placement's domain.
func TestCountDevicesAfterChanges(t *testing.T) {
	type counts map[string][2]int // node: free, total
	type step struct {
		do   func(c *cache.Cache)
		want counts
	}
	rollback := func(steps ...step) []step {
		var cp framework.Checkpoint
		out := []step{{do: func(c *cache.Cache) { cp = c.Checkpoint() }, want: counts{"n1": {1, 1}, "n2": {2, 2}, "n3": {0, 0}}}}
		out = append(out, steps...)
		return append(out, step{do: func(c *cache.Cache) { c.Rollback(cp) }, want: counts{"n1": {1, 1}, "n2": {2, 2}, "n3": {0, 0}}})
	}
	held := func(c *cache.Cache) { c.Devices().SetResourceClaim(testutil.Claim("held", "gpu", 1)) }
	for _, tc := range []struct {
		name  string
		steps []step
		multi string // the node whose devices allow multiple allocations at the end
	}{
		{name: "allocation assumed then forgotten", steps: []step{
			{do: func(c *cache.Cache) { held(c); c.DRA().AssumeAllocation("default/held", allocation("n2", "gpu-1")) }, want: counts{"n2": {1, 2}}},
			{do: func(c *cache.Cache) { c.DRA().ForgetAllocation("default/held") }, want: counts{"n2": {2, 2}}},
		}},
		{name: "allocation assumed in a checkpoint, rolled back", steps: rollback(
			step{do: func(c *cache.Cache) {
				held(c)
				c.DRA().AssumeAllocation("default/held", allocation("n2", "gpu-0", "gpu-1"))
			}, want: counts{"n2": {0, 2}}},
		)},
		{name: "claim allocated by the API, then deleted", steps: []step{
			{do: func(c *cache.Cache) {
				cl := testutil.Claim("held", "gpu", 1)
				cl.Status.Allocation = allocation("n1", "gpu-0")
				c.Devices().SetResourceClaim(cl)
			}, want: counts{"n1": {0, 1}, "n2": {2, 2}}},
			{do: func(c *cache.Cache) { c.Devices().RemoveResourceClaim("default/held") }, want: counts{"n1": {1, 1}}},
		}},
		{name: "victim's claim freed in a simulation, taken again by the rollback", steps: rollback(
			step{do: func(c *cache.Cache) {
				cl := testutil.Claim("held", "gpu", 1)
				c.Devices().SetResourceClaim(cl)
				c.DRA().AssumeAllocation("default/held", allocation("n2", "gpu-0"))
				c.AddPod(framework.NewPodInfo(testutil.Pod("victim").Claims("held").Obj()), "n2")
			}, want: counts{"n2": {1, 2}}},
			step{do: func(c *cache.Cache) { c.RemovePod(c.Nodes().Get("n2").Pods[0]) }, want: counts{"n2": {2, 2}}},
			step{do: func(c *cache.Cache) { c.AddPod(framework.NewPodInfo(testutil.Pod("other").Obj()), "n1") }, want: counts{"n2": {2, 2}}},
		)},
		{name: "slice replaced, removed, added", steps: []step{
			{do: func(c *cache.Cache) { c.Devices().SetResourceSlice(testutil.Slice("n1", driver, "gpu", 3)) }, want: counts{"n1": {3, 3}, "n2": {2, 2}}},
			{do: func(c *cache.Cache) { c.Devices().RemoveResourceSlice("n2-" + driver) }, want: counts{"n1": {3, 3}, "n2": {0, 0}}},
			{do: func(c *cache.Cache) { c.Devices().SetResourceSlice(testutil.Slice("n3", driver, "gpu", 4)) }, want: counts{"n3": {4, 4}, "n1": {3, 3}}},
		}},
		{name: "slice replaced by one of other devices, some taken", steps: []step{
			{do: func(c *cache.Cache) {
				held(c)
				c.DRA().AssumeAllocation("default/held", allocation("n2", "tpu-1"))
				c.Devices().SetResourceSlice(testutil.Slice("n2", driver, "tpu", 2))
			}, want: counts{"n2": {1, 2}}},
		}},
		{name: "node removed, the next one takes its index", steps: []step{
			{do: func(c *cache.Cache) { c.Nodes().RemoveNode("n1") }, want: counts{"n2": {2, 2}, "n3": {0, 0}}},
		}},
		{name: "node without slices removed, a node with slices takes its index", steps: []step{
			{do: func(c *cache.Cache) { c.Devices().RemoveResourceSlice("n1-" + driver) }, want: counts{"n1": {0, 0}, "n2": {2, 2}}},
			{do: func(c *cache.Cache) { c.Nodes().RemoveNode("n1") }, want: counts{"n2": {2, 2}, "n3": {0, 0}}},
		}},
		{name: "slice for a node not there yet, then the node", steps: []step{
			{do: func(c *cache.Cache) { c.Devices().SetResourceSlice(testutil.Slice("n4", driver, "gpu", 3)) }, want: counts{"n2": {2, 2}, "n3": {0, 0}}},
			{do: func(c *cache.Cache) { c.Nodes().AddNode(testutil.Node("n4").Capacity("cpu", "8").Obj()) }, want: counts{"n3": {0, 0}, "n4": {3, 3}}},
		}},
		{name: "node removed, then added again without slices", steps: []step{
			{do: func(c *cache.Cache) {
				c.Devices().RemoveResourceSlice("n1-" + driver)
				c.Nodes().RemoveNode("n1")
				c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
			}, want: counts{"n1": {0, 0}, "n2": {2, 2}, "n3": {0, 0}}},
		}},
		{name: "slice for all nodes", steps: []step{
			{do: func(c *cache.Cache) {
				s := testutil.Slice("shared", driver, "fpga", 4)
				s.Spec.NodeName, s.Spec.AllNodes = nil, new(true)
				c.Devices().SetResourceSlice(s)
			}, want: counts{"n1": {5, 5}, "n2": {6, 6}, "n3": {4, 4}}},
			{do: func(c *cache.Cache) {
				held(c)
				c.DRA().AssumeAllocation("default/held", allocation("shared", "fpga-0", "fpga-3"))
			}, want: counts{"n1": {3, 5}, "n2": {4, 6}, "n3": {2, 4}}},
		}},
		{name: "device that allows multiple allocations", multi: "n2", steps: []step{
			{do: func(c *cache.Cache) {
				s := testutil.Slice("n2", driver, "gpu", 2)
				s.Spec.Devices[1].AllowMultipleAllocations = new(true)
				c.Devices().SetResourceSlice(s)
			}, want: counts{"n2": {2, 2}}},
		}},
		{name: "placement's domain excludes devices, then is cleared", steps: []step{
			{do: func(c *cache.Cache) {
				c.DRA().SetDomain(&framework.DeviceDomain{Name: "d", Excluded: map[string]sets.Set[framework.DeviceID]{
					"n2": sets.New(structured.MakeDeviceID(driver, "n2", "gpu-0"))}})
			}, want: counts{"n1": {1, 1}, "n2": {1, 1}}},
			{do: func(c *cache.Cache) { c.DRA().SetDomain(nil) }, want: counts{"n2": {2, 2}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, _ := cluster(t)
			c.Nodes().AddNode(testutil.Node("n3").Capacity("cpu", "8").Obj())
			check := func(when string, want counts) {
				t.Helper()
				dra := c.DRA()
				for _, n := range c.NodeInfos() {
					var memo *nodeDevices
					if !dra.Domain().ExcludesOn(n.Name) {
						memo = pl.devices.forNode(dra, c, n)
						if v := memo.versions.Sum(); v != dra.DevicesVersion(n.Name) {
							t.Errorf("%s: %s: the memo's counters sum to %d, DevicesVersion is %d", when, n.Name, v, dra.DevicesVersion(n.Name))
						}
					}
					free, total, multi := pl.countDevices(dra, n, memo, dra.DevicesVersion(n.Name))
					wf, wt, wm := countFromScratch(pl, dra, n.Name)
					if free != wf || total != wt || multi != wm {
						t.Errorf("%s: %s counts %d free of %d (multi %v), the snapshot has %d of %d (multi %v)", when, n.Name, free, total, multi, wf, wt, wm)
					}
					if w, ok := want[n.Name]; ok && (free != w[0] || total != w[1]) {
						t.Errorf("%s: %s counts %d free of %d, want %d of %d", when, n.Name, free, total, w[0], w[1])
					}
					if wantMulti := n.Name == tc.multi && when == "the end"; multi != wantMulti && when == "the end" {
						t.Errorf("%s: %s multi %v, want %v", when, n.Name, multi, wantMulti)
					}
				}
			}
			check("the start", counts{"n1": {1, 1}, "n2": {2, 2}, "n3": {0, 0}})
			for i, s := range tc.steps {
				s.do(c)
				when := fmt.Sprintf("step %d", i)
				if i == len(tc.steps)-1 {
					when = "the end"
				}
				check(when, s.want)
				if err := c.Verify(); err != nil {
					t.Fatalf("%s: %v", when, err)
				}
			}
		})
	}
}

// Filter rejects, with kube-scheduler's message, a node whose free devices are too few
// for the claims, before and after devices are taken and slices change, and a node
// without slices; it searches the others.
func TestFilterCountsFreeDevices(t *testing.T) {
	c, pl, fc := cluster(t)
	c.Nodes().AddNode(testutil.Node("n3").Capacity("cpu", "8").Obj())
	addClaim(c, fc, testutil.Claim("two", "gpu", 2))
	ctx := context.Background()
	filter := func() map[string]string {
		p := framework.NewPodInfo(testutil.Pod("p").Claims("two").Obj())
		cs := framework.NewCycleState()
		if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
			t.Fatal(st)
		}
		out := map[string]string{}
		for _, n := range c.NodeInfos() {
			out[n.Name] = pl.Filter(ctx, cs, p, n).Message()
		}
		return out
	}
	for _, tc := range []struct {
		name string
		do   func()
		want map[string]string
	}{
		{name: "start", do: func() {}, want: map[string]string{"n1": msgCannotAlloc, "n2": "", "n3": msgCannotAlloc}},
		{name: "a device of n2 taken", do: func() {
			addClaim(c, fc, testutil.Claim("held", "gpu", 1))
			c.DRA().AssumeAllocation("default/held", allocation("n2", "gpu-0"))
		}, want: map[string]string{"n1": msgCannotAlloc, "n2": msgCannotAlloc, "n3": msgCannotAlloc}},
		{name: "n3 gets two devices", do: func() { c.Devices().SetResourceSlice(testutil.Slice("n3", driver, "gpu", 2)) },
			want: map[string]string{"n1": msgCannotAlloc, "n2": msgCannotAlloc, "n3": ""}},
		{name: "n2's device freed", do: func() { c.DRA().ForgetAllocation("default/held") },
			want: map[string]string{"n1": msgCannotAlloc, "n2": "", "n3": ""}},
	} {
		tc.do()
		got := filter()
		for node, want := range tc.want {
			if got[node] != want {
				t.Errorf("%s: %s: %q, want %q", tc.name, node, got[node], want)
			}
		}
	}
}

// The result cache shares its allocations with the Filter calls that hit it; Reserve
// records a copy, so what the snapshot assumes (and PreBind writes) is never the cache's,
// and two pods of the same specs get allocations of their own.
func TestReserveCopiesCachedResult(t *testing.T) {
	c, pl, fc := cluster(t)
	ctx := context.Background()
	type pod struct {
		p  *framework.PodInfo
		cs *framework.CycleState
	}
	var pods []pod
	for _, name := range []string{"a", "b"} {
		addClaim(c, fc, testutil.Claim(name, "gpu", 1))
		p := pod{framework.NewPodInfo(testutil.Pod(name).Claims(name).Obj()), framework.NewCycleState()}
		if _, st := pl.PreFilter(ctx, p.cs, p.p); !st.IsSuccess() {
			t.Fatal(st)
		}
		if st := pl.Filter(ctx, p.cs, p.p, c.Get("n2")); !st.IsSuccess() {
			t.Fatal(st)
		}
		pods = append(pods, p)
	}
	kept := pl.devices.forNode(c.DRA(), c, c.Get("n2")).results.Load().list
	if len(kept) != 1 {
		t.Fatalf("%d kept results, want the one both pods used", len(kept))
	}
	var assumed []*resourceapi.AllocationResult
	for _, p := range pods {
		cp := c.Checkpoint()
		if st := pl.Reserve(ctx, p.cs, p.p, "n2"); !st.IsSuccess() {
			t.Fatal(st)
		}
		a := c.DRA().Claim("default/" + p.p.Pod.Name).Assumed
		for i := range kept[0].alloc.results {
			if &kept[0].alloc.results[i] == a {
				t.Errorf("pod %s: the assumed allocation is the result cache's", p.p.Pod.Name)
			}
		}
		assumed = append(assumed, a)
		c.Rollback(cp)
	}
	if assumed[0] == nil || assumed[0] == assumed[1] {
		t.Errorf("assumed %p and %p, want two allocations", assumed[0], assumed[1])
	}
}
