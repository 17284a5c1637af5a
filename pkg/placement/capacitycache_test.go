package placement_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// The placement search remembers each placement's capacity bound across cycles: a
// remembered bound is exactly the one computed again, and is computed again only when
// the placement's nodes changed (a pod bound or removed, a simulation, a node's labels),
// or for a members' shape it has not seen.
func TestCachedCapacity(t *testing.T) {
	// Placements come with the generator's NodeSet (TopologyPlacement's domains) or
	// without one (the snapshot's set of their nodes).
	for _, withSet := range []bool{false, true} {
		t.Run(fmt.Sprint("set ", withSet), func(t *testing.T) { testCachedCapacity(t, withSet) })
	}
}

func testCachedCapacity(t *testing.T, withSet bool) {
	node := func(name string) *v1.Node {
		return testutil.Node(name).Labels("pool", "a").Capacity("cpu", "4", "memory", "16Gi").Obj()
	}
	var nodes []*v1.Node
	for i := range 8 {
		nodes = append(nodes, node("n"+strconv.Itoa(i)))
	}
	pods := []*v1.Pod{
		testutil.Pod("a0").Req("cpu", "3").Node("n0").Obj(),
		testutil.Pod("b0").Req("cpu", "2").Node("n2").Obj(),
		testutil.Pod("c0").Req("cpu", "1").Node("n5").Obj(),
	}
	e := newEnv(t, nodes, pods)
	var racks []*framework.Placement
	for i := 0; i < len(nodes); i += 2 {
		p := &framework.Placement{Name: fmt.Sprintf("rack%d", i/2), Nodes: e.nodes(nodes[i].Name, nodes[i+1].Name)}
		if withSet {
			p.Set = framework.NewNodeSet(p.Nodes)
		}
		racks = append(racks, p)
	}
	members := func(prefix string, cpus ...string) []*framework.PodInfo {
		var out []*v1.Pod
		for i, c := range cpus {
			out = append(out, testutil.Pod(prefix+strconv.Itoa(i)).NodeSelector("pool", "a").Req("cpu", c).Obj())
		}
		return infos(out...)
	}
	alike := members("m", "2", "2", "2", "2", "2")
	small := members("s", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1")
	mixed := members("x", "3", "1", "2")
	var cp framework.Checkpoint
	steps := []struct {
		name    string
		change  func(t *testing.T)
		members []*framework.PodInfo
		// computed is how many racks' bounds are computed rather than remembered.
		computed int
	}{
		{name: "the first cycle computes every rack", members: alike, computed: 4},
		{name: "nothing changed", members: alike, computed: 0},
		{
			name: "a pod bound in the second rack",
			change: func(t *testing.T) {
				if err := e.c.Nodes().AddBoundPod(framework.NewPodInfo(testutil.Pod("b1").Req("cpu", "2").Node("n3").Obj())); err != nil {
					t.Fatal(err)
				}
			},
			members: alike, computed: 1,
		},
		{
			name: "a simulated pod in the third rack",
			change: func(*testing.T) {
				cp = e.c.Checkpoint()
				e.c.AddPod(framework.NewPodInfo(testutil.Pod("sim").Req("cpu", "2").Obj()), "n4")
			},
			members: alike, computed: 1,
		},
		{name: "the simulation rolled back", change: func(*testing.T) { e.c.Rollback(cp) }, members: alike, computed: 1},
		{
			name:    "a pod removed from the first rack",
			change:  func(*testing.T) { e.c.Nodes().RemoveBoundPod("default/a0") },
			members: alike, computed: 1,
		},
		{
			name: "a node of the fourth rack leaves the pool",
			change: func(*testing.T) {
				e.c.Nodes().AddNode(testutil.Node("n7").Labels("pool", "b").Capacity("cpu", "4", "memory", "16Gi").Obj())
			},
			members: alike, computed: 4,
		},
		{name: "another shape computes every rack", members: small, computed: 4},
		{name: "members that differ", members: mixed, computed: 4},
		{
			name:    "a pod removed from the third rack",
			change:  func(*testing.T) { e.c.Nodes().RemoveBoundPod("default/c0") },
			members: mixed, computed: 1,
		},
		// A few shapes are remembered at once: only the rack changed since is computed.
		{name: "back to the alike members", members: alike, computed: 1},
	}
	gp := e.placer.For(group(3), nil)
	for _, s := range steps {
		if s.change != nil {
			s.change(t)
		}
		cached, computed, fresh, err := gp.CachedCapacities(context.Background(), s.members, racks)
		if err != nil {
			t.Fatal(err)
		}
		if computed != s.computed {
			t.Errorf("%s: %d racks computed, want %d", s.name, computed, s.computed)
		}
		if !slices.Equal(cached, fresh) {
			t.Errorf("%s: remembered capacities %v, computed afresh %v", s.name, cached, fresh)
		}
	}
}
