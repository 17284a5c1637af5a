package group_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption/group"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A group with placements preempts inside one: placements are bounded on vectors, then
// simulated in the order of their bound, and the least disruptive decision wins.
func TestPreemptInPlacements(t *testing.T) {
	// Racks of two 2-cpu nodes: r1 (n1, n2) and r2 (n3, n4), each node full of
	// lower-priority pods; r3 is one 1-cpu node. The group needs two 2-cpu members.
	tainted := func(name string) *v1.Node {
		return testutil.Node(name).Capacity("cpu", "2").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj()
	}
	racks := func(r2 ...*v1.Node) []*v1.Node {
		if r2 == nil {
			r2 = cpuNodes("2", "n3", "n4")
		}
		return append(append(cpuNodes("2", "n1", "n2"), r2...), cpuNodes("1", "n5")...)
	}
	placements := map[string][]string{"r1": {"n1", "n2"}, "r2": {"n3", "n4"}, "r3": {"n5"}}
	// r1's pods are of priority 5, r2's of priority 1.
	pods := func() []*v1.Pod {
		return []*v1.Pod{low("v1", 5, "2", "n1"), low("v2", 5, "2", "n2"), low("w1", 1, "2", "n3"), low("w2", 1, "2", "n4"), low("x", 1, "1", "n5")}
	}
	tests := []struct {
		name       string
		nodes      []*v1.Node
		pods       []*v1.Pod
		placements []string // ranks: a name with a "+" suffix is of rank 1
		opts       group.PlacementOptions
		nominate   map[string]string // member -> node
		// want are the victims of the decision (nil: none), wantSimulated the placements
		// simulated, in order.
		want          []string
		wantNominated []string
		wantSimulated []string
		wantMessage   string
		wantWaiting   bool
	}{
		{
			name: "the least disruptive placement wins, by its simulated cost",
			// r1's bound is r2's (two victims of priority 1), but it takes three.
			pods: []*v1.Pod{low("v1a", 1, "1", "n1"), low("v1b", 1, "1", "n1"), low("v2", 1, "2", "n2"),
				low("w1", 1, "2", "n3"), low("w2", 1, "2", "n4")},
			placements: []string{"r1", "r2"},
			want:       []string{"w1", "w2"}, wantNominated: []string{"m1 n3", "m2 n4"}, wantSimulated: []string{"r1", "r2"},
		},
		{
			name:       "a placement whose bound cannot beat the best decision is not simulated",
			placements: []string{"r1", "r2"},
			want:       []string{"w1", "w2"}, wantNominated: []string{"m1 n3", "m2 n4"}, wantSimulated: []string{"r2"},
		},
		{
			name:       "PreferredLevelsFirst: a placement of a better rank wins, whatever it disrupts",
			placements: []string{"r1", "r2+"}, opts: group.PlacementOptions{PreferredLevelsFirst: true},
			want: []string{"v1", "v2"}, wantNominated: []string{"m1 n1", "m2 n2"}, wantSimulated: []string{"r1"},
		},
		{
			name:       "by default a worse rank that disrupts less wins",
			placements: []string{"r1", "r2+"},
			want:       []string{"w1", "w2"}, wantNominated: []string{"m1 n3", "m2 n4"}, wantSimulated: []string{"r2+"},
		},
		{
			// r2's bound is the lowest, but its nodes are tainted: its simulation fails.
			name:  "MaxPlacements: the simulations stop at the limit",
			nodes: racks(tainted("n3"), tainted("n4")), placements: []string{"r1", "r2"}, opts: group.PlacementOptions{MaxPlacements: 1},
			wantSimulated: []string{"r2"},
			wantMessage:   "preemption: no placement can hold the pod group even with its lower-priority pods preempted (1 simulated, 0 too small with them gone).",
		},
		{
			name:  "MaxPlacements: the next placement by bound once the first fails",
			nodes: racks(tainted("n3"), tainted("n4")), placements: []string{"r1", "r2"}, opts: group.PlacementOptions{MaxPlacements: 2},
			want: []string{"v1", "v2"}, wantNominated: []string{"m1 n1", "m2 n2"}, wantSimulated: []string{"r2", "r1"},
		},
		{
			name:          "a placement too small even with its lower-priority pods gone is not simulated",
			placements:    []string{"r3"},
			wantSimulated: []string{},
			wantMessage:   "preemption: no placement can hold the pod group even with its lower-priority pods preempted (0 simulated, 1 too small with them gone).",
		},
		{
			name:          "no lower-priority pod in any placement",
			pods:          []*v1.Pod{low("peer", groupPriority, "2", "n1")},
			placements:    []string{"r1"},
			wantSimulated: []string{},
			wantMessage:   "preemption: no lower-priority pods to preempt for the pod group",
		},
		{
			name:          "members nominated where the victims still leave: the group waits",
			pods:          []*v1.Pod{low("v1", 5, "2", "n1"), low("v2", 5, "2", "n2"), deleting(low("w1", 1, "2", "n3")), deleting(low("w2", 1, "2", "n4"))},
			placements:    []string{"r1", "r2"},
			nominate:      map[string]string{"m1": "n3", "m2": "n4"},
			wantSimulated: []string{},
			wantMessage:   "preemption: " + group.MsgWaitingVictims, wantWaiting: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes, ps := tc.nodes, tc.pods
			if nodes == nil {
				nodes = racks()
			}
			if ps == nil {
				ps = pods()
			}
			ge := newGroupEnv(t, nodes, ps, groupEnvOptions{minCount: 2, maxPlacements: tc.opts.MaxPlacements})
			ge.e.Placements.PreferredLevelsFirst = tc.opts.PreferredLevelsFirst
			a := ge.attempt(member("m1", "2"), member("m2", "2"))
			for _, m := range a.Pending {
				if n := tc.nominate[m.Pod.Name]; n != "" {
					ge.c.Nominations().Nominate(m, n)
				}
			}
			cands := &framework.PlacementCandidates{}
			for _, name := range tc.placements {
				p := &framework.Placement{Name: name}
				if base, worse := strings.CutSuffix(name, "+"); worse {
					p.Rank, name = 1, base
				}
				for _, n := range placements[name] {
					p.Nodes = append(p.Nodes, ge.c.Get(n))
				}
				cands.List = append(cands.List, p)
			}
			a.Placements = cands
			res, err := ge.e.Preempt(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			// A placement is simulated when members are placed in it, or a decision
			// reached on resource vectors is confirmed on its nodes.
			simulated := []string{}
			for _, call := range ge.placer.calls {
				in, ok := "", false
				if on, found := strings.CutPrefix(call, "confirm on "); found {
					first, _, _ := strings.Cut(on, " ")
					for _, p := range cands.List {
						if slices.ContainsFunc(p.Nodes, func(n *framework.NodeInfo) bool { return n.Name == first }) {
							in, ok = p.Name, true
							break
						}
					}
				} else {
					_, in, ok = strings.Cut(call, " in ")
				}
				if ok && !slices.Contains(simulated, in) {
					simulated = append(simulated, in)
				}
			}
			if !slices.Equal(simulated, tc.wantSimulated) {
				t.Errorf("simulated %v, want %v", simulated, tc.wantSimulated)
			}
			if res.Waiting != tc.wantWaiting || res.Eligible == tc.wantWaiting {
				t.Errorf("waiting %v, eligible %v; want waiting %v", res.Waiting, res.Eligible, tc.wantWaiting)
			}
			if res.Message != tc.wantMessage {
				t.Errorf("message %q\n want %q", res.Message, tc.wantMessage)
			}
			if got := sortedNames(res.Victims); tc.want != nil && !slices.Equal(got, tc.want) || tc.want == nil && len(got) > 0 {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
			if tc.want != nil {
				if got := nominations(res); !slices.Equal(got, tc.wantNominated) {
					t.Errorf("nominations %v, want %v", got, tc.wantNominated)
				}
			}
		})
	}
}
