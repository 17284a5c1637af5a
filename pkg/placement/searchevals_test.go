package placement_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A search learns one eval per placement, however its evals are allocated (in the room
// made for the placements searched, or one by one beyond it): a placement listed twice,
// or both listed and a child of another, has one eval, which a second run of the search
// keeps, with the capacity bound first computed.
func TestSearchEvalsOnePerPlacement(t *testing.T) {
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
	list := append(append([]*framework.Placement{racks[0]}, racks...), blocks...)
	list = append(list, blocks[1].Children...)
	members := infos(testutil.Pod("m0").Req("cpu", "2").Obj(), testutil.Pod("m1").Req("cpu", "2").Obj())
	gp := e.placer.For(group(2), nil)
	_, _, fresh, err := gp.CachedCapacities(context.Background(), members, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, sized := range []int{0, 3, len(racks), len(list)} {
		first, second, capacities, err := gp.SearchEvals(context.Background(), members, sized, list)
		if err != nil {
			t.Fatal(err)
		}
		evalOf := map[*framework.Placement]any{}
		for i, p := range list {
			if seen, ok := evalOf[p]; ok && seen != first[i] {
				t.Errorf("room for %d: %s has two evals", sized, p.Name)
			}
			evalOf[p] = first[i]
			if second[i] != first[i] {
				t.Errorf("room for %d: the second run found another eval of %s", sized, p.Name)
			}
			if capacities[i] != fresh[i] {
				t.Errorf("room for %d: %s holds %d members, its nodes %d", sized, p.Name, capacities[i], fresh[i])
			}
		}
	}
}
