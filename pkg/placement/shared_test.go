package placement_test

import (
	"context"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/topologyplacement"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// TestPlacementsNotWrittenBySearch checks what lets TopologyPlacement hand the same
// placements to every cycle (decision 67): searches that fill a placement's children
// (which they order by room) and that fail (ordering every placement for preemption)
// leave the shared placements, their children and their list as generated, and the next
// generation is still what a fresh one gives.
func TestPlacementsNotWrittenBySearch(t *testing.T) {
	const block, rack = "example.com/block", "example.com/rack"
	// Block b1: rack r1, one node of 2 cpu, first in node order; rack r2, two of 4 cpu.
	e := newEnv(t, []*v1.Node{
		testutil.Node("n1").Labels(block, "b1", rack, "r1").Capacity("cpu", "2").Obj(),
		testutil.Node("n2").Labels(block, "b1", rack, "r2").Capacity("cpu", "4").Obj(),
		testutil.Node("n3").Labels(block, "b1", rack, "r2").Capacity("cpu", "4").Obj(),
	}, nil)
	// The failing search orders rank 0 by these scores: r2 before r1, unlike the list.
	e.probe.scores["example.com/block=b1, example.com/rack=r2"] = 10
	g := group(1)
	g.PodGroup.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{
		{Key: block}, {Key: rack, Mode: v1alpha1.TopologyModePreferred}}}
	generate := func(h framework.Handle) []*framework.Placement {
		t.Helper()
		pl, err := topologyplacement.New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		out, st := pl.(framework.PlacementGeneratePlugin).GeneratePlacements(context.Background(), framework.NewCycleState(), g, nil, nil)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		return out
	}
	shared := func() []*framework.Placement {
		t.Helper()
		out, _, st := e.fwk.RunPlacementGeneratePlugins(context.Background(), framework.NewCycleState(), g, nil)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		return out
	}
	first := shared()
	generated := testutil.DescribePlacements(first)
	for _, tc := range []struct {
		name     string
		members  int
		feasible bool
	}{
		// 9 members fit in no rack (2 and 8 cpu): the block, r2 filled first.
		{name: "the block's racks filled, the roomiest first", members: 9, feasible: true},
		// 11 fit nowhere: every placement is ordered for preemption.
		{name: "no placement holds the group", members: 11},
	} {
		var members []*framework.PodInfo
		for i := range tc.members {
			members = append(members, testutil.Pod("m"+strconv.Itoa(i)).Req("cpu", "1").Info())
		}
		list := shared()
		res, err := e.placer.For(g, framework.NewCycleState()).Search(context.Background(), members, tc.members, list)
		if err != nil {
			t.Fatal(err)
		}
		if feasible := res.Placed != nil; feasible != tc.feasible {
			t.Fatalf("%s: feasible %v, want %v", tc.name, feasible, tc.feasible)
		}
		again := shared()
		if again[0] != first[0] {
			t.Fatalf("%s: the placements were generated anew, not shared", tc.name)
		}
		if got := testutil.DescribePlacements(again); got != generated {
			t.Errorf("%s: the search changed the shared placements:\n%s\nwant\n%s", tc.name, got, generated)
		}
		if got, fresh := testutil.DescribePlacements(again), testutil.DescribePlacements(generate(&testutil.Handle{Cache: e.c})); got != fresh {
			t.Errorf("%s: the shared placements\n%s\ndiffer from a fresh generation\n%s", tc.name, got, fresh)
		}
	}
}
