package placement_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestSearch(t *testing.T) {
	// Two-cpu nodes n1..n3, four-cpu nodes n4 and n5, and a one-cpu node n6.
	nodes := func() []*v1.Node {
		return []*v1.Node{
			testutil.Node("n1").Capacity("cpu", "2").Obj(),
			testutil.Node("n2").Capacity("cpu", "2").Obj(),
			testutil.Node("n3").Capacity("cpu", "2").Obj(),
			testutil.Node("n4").Capacity("cpu", "4").Obj(),
			testutil.Node("n5").Capacity("cpu", "4").Obj(),
			testutil.Node("n6").Capacity("cpu", "1").Obj(),
		}
	}
	twoCPU := func(names ...string) []*v1.Pod {
		var out []*v1.Pod
		for _, n := range names {
			out = append(out, testutil.Pod(n).Req("cpu", "2").Obj())
		}
		return out
	}
	// Members with a host port are not alike, and two never share a node, which the
	// capacity bound (resource vectors) cannot see.
	withPort := func(names ...string) []*v1.Pod {
		var out []*v1.Pod
		for _, n := range names {
			out = append(out, testutil.Pod(n).Req("cpu", "1").HostPort(8080).Obj())
		}
		return out
	}
	type placementSpec struct {
		name  string
		rank  int
		nodes []string
		score int64
	}
	tests := []struct {
		name               string
		members            []*v1.Pod
		need               int
		placements         []placementSpec
		feasiblePlacements int
		// want is the chosen placement and the nodes of its assignments (sorted: equal
		// nodes are chosen between at random); the evaluated placements are those the
		// probe was asked to assume.
		want          string
		wantPlaced    []string
		wantEvaluated []string
		// When none is feasible: the message, the rejecting plugins and the candidates'
		// order.
		wantMessage    string
		wantRejectors  []string
		wantCandidates []string
	}{
		{
			name:    "a placement too small in aggregate is never evaluated",
			members: twoCPU("m1", "m2"), need: 2,
			placements: []placementSpec{{name: "small", nodes: []string{"n3"}}, {name: "fits", nodes: []string{"n1", "n2"}}},
			want:       "fits", wantPlaced: []string{"n1", "n2"}, wantEvaluated: []string{"fits"},
		},
		{
			name:    "a feasible placement of a lower rank ends the search, whatever the others score",
			members: twoCPU("m1", "m2"), need: 2, feasiblePlacements: 5,
			placements: []placementSpec{{name: "preferred", nodes: []string{"n1", "n2"}}, {name: "fallback", rank: 1, nodes: []string{"n4"}, score: 100}},
			want:       "preferred", wantPlaced: []string{"n1", "n2"}, wantEvaluated: []string{"preferred"},
		},
		{
			name:    "a higher rank is evaluated when no lower one holds the group",
			members: twoCPU("m1", "m2"), need: 2,
			placements: []placementSpec{{name: "preferred", nodes: []string{"n3", "n6"}}, {name: "fallback", rank: 1, nodes: []string{"n4"}}},
			want:       "fallback", wantPlaced: []string{"n4", "n4"}, wantEvaluated: []string{"fallback"},
		},
		{
			name:    "within a rank the placements that can hold every member go first",
			members: twoCPU("m1", "m2"), need: 1,
			placements: []placementSpec{{name: "partial", nodes: []string{"n1"}}, {name: "whole", nodes: []string{"n2", "n3"}}},
			want:       "whole", wantPlaced: []string{"n2", "n3"}, wantEvaluated: []string{"whole"},
		},
		{
			name:    "among the feasible placements found, the best score wins",
			members: twoCPU("m1", "m2"), need: 2, feasiblePlacements: 2,
			placements: []placementSpec{{name: "a", nodes: []string{"n1", "n2"}, score: 10}, {name: "b", nodes: []string{"n4"}, score: 50}},
			want:       "b", wantPlaced: []string{"n4", "n4"}, wantEvaluated: []string{"a", "b"},
		},
		{
			name:    "need: a placement that holds part of the group will do",
			members: twoCPU("m1", "m2", "m3"), need: 2,
			placements: []placementSpec{{name: "two", nodes: []string{"n1", "n2"}}},
			want:       "two", wantPlaced: []string{"n1", "n2"}, wantEvaluated: []string{"two"},
		},
		{
			// Every candidate scores 0 here: they keep their order within a rank.
			name:    "none feasible: pruned and rejected counted, the one rejection explained",
			members: withPort("m1", "m2"), need: 2,
			placements:    []placementSpec{{name: "tiny", nodes: []string{"n6"}}, {name: "one-node", nodes: []string{"n4"}}},
			wantEvaluated: []string{"one-node"},
			wantMessage: "no placement can hold the 2 pods needed: of 2 placements, 1 too small in aggregate, " +
				"1 failed the pod filters (one-node: 0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports).",
			wantRejectors:  []string{"NodePorts", placement.CapacityPlugin},
			wantCandidates: []string{"tiny", "one-node"},
		},
		{
			name:    "none feasible: the most common reason among several rejections",
			members: withPort("m1", "m2"), need: 2, feasiblePlacements: 5,
			placements:    []placementSpec{{name: "first", nodes: []string{"n4"}}, {name: "second", nodes: []string{"n5"}}, {name: "tiny", nodes: []string{"n6"}}},
			wantEvaluated: []string{"first", "second"},
			wantMessage: "no placement can hold the 2 pods needed: of 3 placements, 1 too small in aggregate, " +
				"2 failed the pod filters (most common reason: node(s) didn't have free ports for the requested pod ports, in 2).",
			wantRejectors:  []string{"NodePorts", placement.CapacityPlugin},
			wantCandidates: []string{"first", "second", "tiny"},
		},
		{
			name:    "none feasible: candidates by rank, then by their score",
			members: twoCPU("m1", "m2", "m3"), need: 3,
			placements: []placementSpec{
				{name: "low", nodes: []string{"n1"}, score: 10},
				{name: "worse-rank", rank: 1, nodes: []string{"n4"}, score: 90},
				{name: "high", nodes: []string{"n2"}, score: 60},
			},
			wantMessage:    "no placement can hold the 3 pods needed: of 3 placements, 3 too small in aggregate.",
			wantRejectors:  []string{placement.CapacityPlugin},
			wantCandidates: []string{"high", "low", "worse-rank"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nodes(), nil, envOptions{feasiblePlacements: max(1, tc.feasiblePlacements)})
			var ps []*framework.Placement
			for _, s := range tc.placements {
				ps = append(ps, &framework.Placement{Name: s.name, Rank: s.rank, Nodes: e.nodes(s.nodes...)})
				e.probe.scores[s.name] = s.score
			}
			before := e.podsPerNode()
			res, err := e.placer.For(group(int32(tc.need)), framework.NewCycleState()).Search(context.Background(), infos(tc.members...), tc.need, ps)
			if err != nil {
				t.Fatal(err)
			}
			if after := e.podsPerNode(); after != before {
				t.Errorf("the search left the snapshot with %s, it had %s", after, before)
			}
			var evaluated []string
			for _, l := range e.probe.log {
				if name, ok := strings.CutPrefix(l, "assume "); ok {
					evaluated = append(evaluated, name)
				}
			}
			if !slices.Equal(evaluated, tc.wantEvaluated) {
				t.Errorf("evaluated %v, want %v", evaluated, tc.wantEvaluated)
			}
			if tc.want != "" {
				if res.Placed == nil {
					t.Fatalf("nothing placed: %s", res.Message)
				}
				var nodes []string
				for _, a := range res.Placed.Assignments {
					nodes = append(nodes, a.Node.Name)
				}
				slices.Sort(nodes)
				if res.Placed.Placement.Name != tc.want || !slices.Equal(nodes, tc.wantPlaced) {
					t.Errorf("placed on %v in %s, want %v in %s", nodes, res.Placed.Placement.Name, tc.wantPlaced, tc.want)
				}
				return
			}
			if res.Placed != nil {
				t.Fatalf("placed in %s, want no feasible placement", res.Placed.Placement.Name)
			}
			if res.Message != tc.wantMessage {
				t.Errorf("message %q\n want %q", res.Message, tc.wantMessage)
			}
			if got := sets.List(res.Rejectors); !slices.Equal(got, tc.wantRejectors) {
				t.Errorf("rejectors %v, want %v", got, tc.wantRejectors)
			}
			var cands []string
			for _, p := range res.Candidates.List {
				cands = append(cands, p.Name)
			}
			if !slices.Equal(cands, tc.wantCandidates) {
				t.Errorf("candidates %v, want %v", cands, tc.wantCandidates)
			}
		})
	}
}

// A placement that gave up a Preferred level fills its children one after the other: the
// child holding the group's running members first, else the roomiest, so that the group
// spans as few of them as it can.
func TestSearchFillsChildren(t *testing.T) {
	tests := []struct {
		name    string
		running string // the node of a running member, if any
		want    []string
	}{
		{name: "the roomiest child first", want: []string{"n3", "n3"}},
		{name: "the child of the running members first, though smaller", running: "n1", want: []string{"n1", "n3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pods []*v1.Pod
			if tc.running != "" {
				pods = append(pods, testutil.Pod("m0").Labels(v1alpha1.LabelPodGroup, "g").Node(tc.running).Obj())
			}
			e := newEnv(t, []*v1.Node{
				testutil.Node("n1").Capacity("cpu", "2").Obj(),
				testutil.Node("n2").Capacity("cpu", "2").Obj(),
				testutil.Node("n3").Capacity("cpu", "4").Obj(),
			}, pods)
			// n2 is in no child (it lacks the finer label).
			small := &framework.Placement{Name: "small", Nodes: e.nodes("n1")}
			roomy := &framework.Placement{Name: "roomy", Nodes: e.nodes("n3")}
			whole := &framework.Placement{Name: "whole", Rank: 1, Nodes: e.nodes("n1", "n2", "n3"), Children: []*framework.Placement{small, roomy}}
			members := infos(testutil.Pod("m1").Req("cpu", "2").Obj(), testutil.Pod("m2").Req("cpu", "2").Obj())
			res, err := e.placer.For(group(3), framework.NewCycleState()).Search(context.Background(), members, 2, []*framework.Placement{whole})
			if err != nil {
				t.Fatal(err)
			}
			if res.Placed == nil {
				t.Fatalf("nothing placed: %s", res.Message)
			}
			var nodes []string
			for _, a := range res.Placed.Assignments {
				nodes = append(nodes, a.Node.Name)
			}
			slices.Sort(nodes)
			if !slices.Equal(nodes, tc.want) {
				t.Errorf("placed on %v, want %v", nodes, tc.want)
			}
		})
	}
}
