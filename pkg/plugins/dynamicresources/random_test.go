package dynamicresources

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// Filter with what the plugin keeps across cycles (the memo of each node's devices, its
// DevicesVersion's counters, the allocations kept per node) and the per-node results of a
// cycle agrees with a plugin made afresh for every check, after random sequences of
// devices taken and freed (assumed, forgotten, reserved, allocated by the API, deleted,
// under a checkpoint rolled back), slices replaced, removed and added to nodes without
// any, a slice for all nodes and one for the nodes its selector picks, nodes removed and
// added (back maybe in another zone), nodes relabelled, and placements' domains; for
// claims of exact counts, for all devices, without requests (which fit on a node without
// devices), beside a claim allocated on one node: the same verdicts, the same allocations
// on each node, the same scores, and Reserve records the allocation Filter found. Most
// nodes have no devices, as in a large cluster: they share one memo entry, which must give
// way as soon as a node gains a slice or another node takes the index.
func TestFilterAgainstFreshPlugin(t *testing.T) {
	for seed := range uint64(120) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomFilterRun(t, seed) })
	}
}

func randomFilterRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 31))
	c := cache.New()
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
	handle := &testutil.Handle{Cache: c}
	plugin := func() *DynamicResources { return newTestPlugin(t, handle) }
	pl := plugin()
	// Half the runs look every node up in its slot, where a node without slices has the
	// entry they share (as the few nodes whose bit collides with a holder's do).
	pl.devices.slotsOnly = seed%2 == 1
	ctx := context.Background()
	nodes := 0
	var removed []string // nodes removed, whose slices stay
	// zoned is a node in a random zone: a slice for one zone's nodes serves it by that
	// label, which a node that comes back, or is relabelled, may change.
	zoned := func(name string) *v1.Node {
		return testutil.Node(name).Labels("zone", fmt.Sprint("z", rng.IntN(2))).Capacity("cpu", "8").Obj()
	}
	addNode := func() {
		name := fmt.Sprintf("n%d", nodes)
		if len(removed) > 0 && rng.IntN(2) == 0 { // back, its slice there before it
			name, removed = removed[len(removed)-1], removed[:len(removed)-1]
		} else {
			nodes++
		}
		c.Nodes().AddNode(zoned(name))
		if rng.IntN(3) == 0 && !slices.ContainsFunc(c.DRA().Slices(), func(s *resourceapi.ResourceSlice) bool { return s.Spec.Pool.Name == name }) {
			c.Devices().SetResourceSlice(testutil.Slice(name, driver, "gpu", 1+rng.IntN(4)))
		}
	}
	for range 3 + rng.IntN(8) {
		addNode()
	}
	// freeDevices are the devices of a node's pool (or of the slice for all nodes) no
	// claim holds.
	freeDevices := func(pool string) []string {
		var out []string
		for _, s := range c.DRA().Slices() {
			if s.Spec.Pool.Name != pool {
				continue
			}
			for _, d := range s.Spec.Devices {
				if !c.DRA().Allocated().Has(structured.MakeDeviceID(driver, pool, d.Name)) {
					out = append(out, d.Name)
				}
			}
		}
		return out
	}
	pools := func() []string {
		var out []string
		for _, s := range c.DRA().Slices() {
			out = append(out, s.Spec.Pool.Name)
		}
		return out
	}
	held := 0
	// take assumes, for a new claim, one or two free devices of a pool.
	take := func() {
		ps := pools()
		if len(ps) == 0 {
			return
		}
		pool := ps[rng.IntN(len(ps))]
		free := freeDevices(pool)
		if len(free) == 0 {
			return
		}
		name := fmt.Sprintf("held-%d", held)
		held++
		c.Devices().SetResourceClaim(testutil.Claim(name, "gpu", 1))
		c.DRA().AssumeAllocation("default/"+name, allocation(pool, free[:1+rng.IntN(min(2, len(free)))]...))
	}
	// pinned is a claim allocated by the API to a device of a node's slice, which only
	// that node can use, "" when there is none.
	pinned := func() string {
		ps := pools()
		if len(ps) == 0 {
			return ""
		}
		pool := ps[rng.IntN(len(ps))]
		name := fmt.Sprintf("held-%d", held)
		held++
		cl := testutil.Claim(name, "gpu", 1)
		cl.Status.Allocation = allocation(pool, "gpu-0")
		cl.Status.Allocation.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{pool}}}}}}
		c.Devices().SetResourceClaim(cl)
		return name
	}
	heldKey := func() string { return fmt.Sprintf("default/held-%d", rng.IntN(max(held, 1))) }
	pod := 0
	// cycle filters a new pod with claims of 1 to 3 devices on every node, with pl and with
	// a fresh plugin, and compares them; it returns pl's cycle state.
	cycle := func(when string) (*framework.PodInfo, *framework.CycleState) {
		t.Helper()
		var names []string
		for range 1 + rng.IntN(2) {
			name := fmt.Sprintf("p%d-%d", pod, len(names))
			cl := testutil.Claim(name, "gpu", int64(1+rng.IntN(3)))
			switch rng.IntN(8) {
			case 0: // every device: no count rules a node out
				cl.Spec.Devices.Requests[0].Exactly.AllocationMode, cl.Spec.Devices.Requests[0].Exactly.Count = resourceapi.DeviceAllocationModeAll, 0
			case 1: // no device at all: fits everywhere
				cl.Spec.Devices.Requests = nil
			}
			c.Devices().SetResourceClaim(cl)
			names = append(names, name)
		}
		if rng.IntN(4) == 0 {
			if name := pinned(); name != "" {
				names = append(names, name)
			}
		}
		p := framework.NewPodInfo(testutil.Pod(fmt.Sprintf("p%d", pod)).Claims(names...).Obj())
		pod++
		ref := plugin()
		cs, refCS := framework.NewCycleState(), framework.NewCycleState()
		_, st := pl.PreFilter(ctx, cs, p)
		_, refSt := ref.PreFilter(ctx, refCS, p)
		if st.Code() != refSt.Code() || st.Message() != refSt.Message() {
			t.Fatalf("%s: PreFilter %v, afresh %v", when, st, refSt)
		}
		if !st.IsSuccess() {
			return p, nil
		}
		for pass := range 2 { // the second pass finds the allocations kept by the first
			for _, n := range c.NodeInfos() {
				st, refSt := pl.Filter(ctx, cs, p, n), ref.Filter(ctx, refCS, p, n)
				if st.Code() != refSt.Code() || st.Message() != refSt.Message() {
					t.Fatalf("%s, pass %d: %s: %v, afresh %v", when, pass, n.Name, st, refSt)
				}
				s, refS := readState(cs), readState(refCS)
				na, refNA := s.perNode.load(n.Index, n.Name), refS.perNode.load(n.Index, n.Name)
				if st.IsSuccess() != (na != nil) {
					t.Fatalf("%s, pass %d: %s: Filter %v, and found allocation %+v", when, pass, n.Name, st, na)
				}
				if (na == nil) != (refNA == nil) || na != nil && (!slices.Equal(na.claimKeys(s), refNA.claimKeys(refS)) ||
					!equality.Semantic.DeepEqual(na.results, refNA.results)) {
					t.Fatalf("%s, pass %d: %s: allocation %+v, afresh %+v", when, pass, n.Name, na, refNA)
				}
				score, _ := pl.Score(ctx, cs, p, n)
				refScore, _ := ref.Score(ctx, refCS, p, n)
				if score != refScore {
					t.Fatalf("%s, pass %d: %s: score %d, afresh %d", when, pass, n.Name, score, refScore)
				}
			}
		}
		return p, cs
	}
	// reserve reserves a pod on the first node where it fits and checks that the snapshot
	// assumes the allocation Filter found there.
	reserve := func(when string) {
		p, cs := cycle(when)
		if cs == nil {
			return
		}
		s := readState(cs)
		for _, n := range c.NodeInfos() {
			na := s.perNode.load(n.Index, n.Name)
			if na == nil {
				continue
			}
			want := slices.Clone(na.results)
			if st := pl.Reserve(ctx, cs, p, n.Name); !st.IsSuccess() {
				t.Fatalf("%s: Reserve on %s: %v", when, n.Name, st)
			}
			var assumed []*resourceapi.AllocationResult
			for i, key := range s.toKeys {
				got := c.DRA().Claim(key).Assumed
				if !equality.Semantic.DeepEqual(*got, want[i]) {
					t.Fatalf("%s: Reserve on %s assumed %+v for %s, Filter found %+v", when, n.Name, got, key, want[i])
				}
				assumed = append(assumed, got)
			}
			// Reserved again (a group's placement tried again), the state records the
			// same allocations, not new copies.
			if st := pl.Reserve(ctx, cs, p, n.Name); !st.IsSuccess() {
				t.Fatalf("%s: Reserve again on %s: %v", when, n.Name, st)
			}
			for i, key := range s.toKeys {
				if got := c.DRA().Claim(key).Assumed; got != assumed[i] {
					t.Fatalf("%s: Reserve again on %s assumed %p for %s, first %p", when, n.Name, got, key, assumed[i])
				}
			}
			return
		}
	}
	ops := []func(){
		take,
		take,
		func() { c.DRA().ForgetAllocation(heldKey()) },
		func() { // the API shows an allocation: its devices stay taken
			if ci := c.DRA().Claim(heldKey()); ci != nil && ci.Assumed != nil {
				cl := ci.Claim.DeepCopy()
				cl.Status.Allocation = ci.Assumed
				c.Devices().SetResourceClaim(cl)
			}
		},
		func() { c.Devices().RemoveResourceClaim(heldKey()) },
		func() { // a slice replaced by one of another size, or removed
			name := fmt.Sprintf("n%d", rng.IntN(nodes))
			if k := rng.IntN(5); k > 0 {
				c.Devices().SetResourceSlice(testutil.Slice(name, driver, "gpu", k))
			} else {
				c.Devices().RemoveResourceSlice(name + "-" + driver)
			}
		},
		func() { // the slice for all nodes set or removed
			if rng.IntN(2) == 0 {
				s := testutil.Slice("shared", driver, "fpga", 1+rng.IntN(3))
				s.Spec.NodeName, s.Spec.AllNodes = nil, new(true)
				c.Devices().SetResourceSlice(s)
			} else {
				c.Devices().RemoveResourceSlice("shared-" + driver)
			}
		},
		func() { // a slice for the nodes of a zone set or removed
			if rng.IntN(2) == 0 {
				s := testutil.Slice("zoned", driver, "tpu", 1+rng.IntN(3))
				s.Spec.NodeName, s.Spec.NodeSelector = nil, &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
					{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{fmt.Sprint("z", rng.IntN(2))}}}}}}
				c.Devices().SetResourceSlice(s)
			} else {
				c.Devices().RemoveResourceSlice("zoned-" + driver)
			}
		},
		func() { // a node relabelled, maybe into the other zone
			infos := c.NodeInfos()
			c.Nodes().AddNode(zoned(infos[rng.IntN(len(infos))].Name))
		},
		func() { // a node removed (the next ones take new indexes), or one added
			if infos := c.NodeInfos(); rng.IntN(2) == 0 && len(infos) > 1 {
				name := infos[rng.IntN(len(infos))].Name
				c.Nodes().RemoveNode(name)
				removed = append(removed, name)
				if rng.IntN(2) == 0 { // back at once, at the end of the list, its slice kept
					addNode()
				}
			} else {
				addNode()
			}
		},
	}
	// placement filters a pod, and maybe reserves one, while a placement's domain
	// excludes a free device of a node (a domain lives for one placement's evaluation).
	placement := func(when string) {
		name := fmt.Sprintf("n%d", rng.IntN(nodes))
		excluded := sets.New[framework.DeviceID]()
		if free := freeDevices(name); len(free) > 0 {
			excluded.Insert(structured.MakeDeviceID(driver, name, free[rng.IntN(len(free))]))
		}
		c.DRA().SetDomain(&framework.DeviceDomain{Name: "d", Excluded: map[string]sets.Set[framework.DeviceID]{name: excluded}})
		cycle(when + ", in a domain")
		if rng.IntN(2) == 0 {
			reserve(when + ", in a domain")
		}
		c.DRA().SetDomain(nil)
	}
	for step := range 30 {
		when := fmt.Sprintf("step %d", step)
		switch k := rng.IntN(len(ops) + 3); {
		case k < len(ops):
			ops[k]()
			cycle(when)
		case k == len(ops):
			reserve(when)
		case k == len(ops)+1:
			placement(when)
		default: // a simulation: devices taken, freed and reserved, then rolled back
			cp := c.Checkpoint()
			take()
			cycle(when + ", simulated take")
			c.DRA().ForgetAllocation(heldKey())
			reserve(when + ", simulated reserve")
			c.Rollback(cp)
			cycle(when + ", rolled back")
		}
		if err := c.Verify(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
}

// newTestPlugin is the plugin on handle, for tests that build it more than once (a fresh
// plugin is their reference).
func newTestPlugin(t *testing.T, handle *testutil.Handle) *DynamicResources {
	t.Helper()
	pl, err := New(nil, handle)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*DynamicResources)
}
