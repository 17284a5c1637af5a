package placement_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A search has an eval per place in its list, with the capacity bound of the placement's
// nodes; looked up by pointer (a placement's children), a listed placement finds the eval
// of its first place, one not listed an eval of its own, the same each time.
func TestSearchEvals(t *testing.T) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 8 {
		n := "n" + strconv.Itoa(i)
		nodes = append(nodes, testutil.Node(n).Capacity("cpu", "4").Obj())
		if i%3 == 0 {
			pods = append(pods, testutil.Pod("p"+n).Req("cpu", "3").Node(n).Obj())
		}
	}
	e := newEnv(t, nodes, pods)
	var racks, blocks []*framework.Placement
	for i := 0; i < len(nodes); i += 2 {
		racks = append(racks, &framework.Placement{Name: fmt.Sprintf("rack%d", i/2), Nodes: e.nodes(nodes[i].Name, nodes[i+1].Name)})
	}
	for i := 0; i < len(racks); i += 2 {
		b := &framework.Placement{Name: fmt.Sprintf("block%d", i/2), Rank: 1, Children: racks[i : i+2]}
		b.Nodes = append(append(b.Nodes, racks[i].Nodes...), racks[i+1].Nodes...)
		blocks = append(blocks, b)
	}
	// rack0 listed twice, the racks of block1 listed, those of block0 not.
	list := append(append([]*framework.Placement{racks[0]}, racks[2:]...), blocks...)
	list = append(list, racks[0])
	lookups := append(slices.Clone(list), racks...)
	members := infos(testutil.Pod("m0").Req("cpu", "2").Obj(), testutil.Pod("m1").Req("cpu", "2").Obj())
	gp := e.placer.For(group(2), nil)
	for round := range 2 { // the second on the array the first handed back
		byIndex, first, second, capacities, err := gp.SearchEvals(context.Background(), members, list, lookups)
		if err != nil {
			t.Fatal(err)
		}
		_, _, fresh, err := gp.CachedCapacities(context.Background(), members, list)
		if err != nil {
			t.Fatal(err)
		}
		firstPlace := map[*framework.Placement]any{}
		for i, p := range list {
			if capacities[i] != fresh[i] {
				t.Errorf("round %d: %s at %d holds %d members, its nodes %d", round, p.Name, i, capacities[i], fresh[i])
			}
			if slices.Contains(byIndex[:i], byIndex[i]) {
				t.Errorf("round %d: %s at %d shares an eval with an earlier place", round, p.Name, i)
			}
			if _, ok := firstPlace[p]; !ok {
				firstPlace[p] = byIndex[i]
			}
		}
		for i, p := range lookups {
			if want, listed := firstPlace[p]; listed && first[i] != want {
				t.Errorf("round %d: %s found by pointer is not the eval of its first place", round, p.Name)
			}
			if _, listed := firstPlace[p]; !listed && slices.Contains(byIndex, first[i]) {
				t.Errorf("round %d: %s, not listed, found a listed placement's eval", round, p.Name)
			}
			if second[i] != first[i] {
				t.Errorf("round %d: %s found again is another eval", round, p.Name)
			}
		}
	}
}

// A Placer reuses its searches' arrays of evals: a search finds nothing of the one before
// it. Each search on one Placer, after others of other lists and outcomes, has the result
// of the same search on a Placer of its own: placements the last search evaluated are
// pruned by this one's capacity bound, and placements it pruned are evaluated.
func TestSearchForgetsPreviousSearch(t *testing.T) {
	nodes := func() []*v1.Node {
		var out []*v1.Node
		for i := range 6 {
			out = append(out, testutil.Node("n"+strconv.Itoa(i)).Capacity("cpu", "4").Obj())
		}
		return out
	}
	pods := func(cpu string, names ...string) []*framework.PodInfo {
		var out []*v1.Pod
		for _, n := range names {
			out = append(out, testutil.Pod(n).Req("cpu", cpu).HostPort(8080).Obj())
		}
		return infos(out...)
	}
	type search struct {
		members []*framework.PodInfo
		need    int
		nodes   [][]string // the placements' nodes, one a placement
	}
	searches := []search{
		// Two members with a host port on one node each: evaluated, rejected by NodePorts.
		{members: pods("1", "a1", "a2"), need: 2, nodes: [][]string{{"n0"}, {"n1"}, {"n2"}, {"n3"}}},
		// Members of 3 cpus: one node holds one, so the same places are pruned.
		{members: pods("3", "b1", "b2"), need: 2, nodes: [][]string{{"n0"}, {"n1"}, {"n2"}}},
		// A feasible one among rejected ones, a longer list.
		{members: pods("1", "c1", "c2"), need: 2, nodes: [][]string{{"n0"}, {"n1"}, {"n2", "n3"}, {"n4"}, {"n5"}}},
		// Pruned at the places evaluated before, evaluated at those pruned.
		{members: pods("3", "d1", "d2"), need: 2, nodes: [][]string{{"n0"}, {"n1", "n2"}, {"n3"}}},
		{members: pods("1", "e1", "e2"), need: 2, nodes: [][]string{{"n0"}, {"n1"}}},
	}
	run := func(e *env, s search) string {
		t.Helper()
		var list []*framework.Placement
		for i, ns := range s.nodes {
			list = append(list, &framework.Placement{Name: fmt.Sprint("p", i), Nodes: e.nodes(ns...)})
		}
		res, err := e.placer.For(group(int32(s.need)), framework.NewCycleState()).Search(context.Background(), s.members, s.need, list)
		if err != nil {
			t.Fatal(err)
		}
		if res.Placed != nil {
			// Which member goes where among equal nodes is the seeded generator's draw,
			// which the searches before this one moved on.
			var on []string
			for _, a := range res.Placed.Assignments {
				on = append(on, a.Node.Name)
			}
			slices.Sort(on)
			return fmt.Sprintf("placed in %s on %v", res.Placed.Placement.Name, on)
		}
		var candidates []string
		for _, p := range res.Candidates.List {
			candidates = append(candidates, p.Name)
		}
		return fmt.Sprintf("%s rejected by %v, candidates %v", res.Message, sets.List(res.Rejectors), candidates)
	}
	shared := newEnv(t, nodes(), nil)
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 3, 1, 4}} {
		for _, i := range order {
			got, want := run(shared, searches[i]), run(newEnv(t, nodes(), nil), searches[i])
			if got != want {
				t.Errorf("search %d after others: %s\nalone: %s", i, got, want)
			}
		}
	}
}
