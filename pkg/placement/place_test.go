package placement_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestPlace(t *testing.T) {
	pod := testutil.Pod
	tests := []struct {
		name    string
		nodes   []*v1.Node
		pods    []*v1.Pod
		members []*v1.Pod
		// domain, when set, is opts.Nodes.
		domain []string
		need   int
		// want are the assignments in the order made ("member node"), then the members
		// left out and the message.
		want         []string
		wantUnplaced []string
		wantMessage  string
		// wantPreFilters counts, when set, each member's filtering scans.
		wantPreFilters map[string]int
	}{
		{
			name:    "largest first: the largest share of a node goes first",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "8", "memory", "8Gi").Obj()},
			members: []*v1.Pod{pod("cpu2").Req("cpu", "2", "memory", "1Gi").Obj(), pod("mem4").Req("cpu", "1", "memory", "4Gi").Obj()},
			want:    []string{"mem4 n1", "cpu2 n1"},
		},
		{
			name:    "largest first: the sum of shares breaks ties",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "8", "memory", "8Gi").Obj()},
			members: []*v1.Pod{pod("small").Req("cpu", "2", "memory", "1Gi").Obj(), pod("large").Req("cpu", "2", "memory", "2Gi").Obj()},
			want:    []string{"large n1", "small n1"},
		},
		{
			name:    "largest first: equal members keep their order",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "8").Obj()},
			members: []*v1.Pod{pod("b").Req("cpu", "1").Obj(), pod("a").Req("cpu", "1").Obj()},
			want:    []string{"b n1", "a n1"},
		},
		{
			// In arrival order the small member would take the big node (least allocated).
			name:    "largest first: the big member gets the big node",
			nodes:   []*v1.Node{testutil.Node("big").Capacity("cpu", "3").Obj(), testutil.Node("small").Capacity("cpu", "1").Obj()},
			members: []*v1.Pod{pod("s").Req("cpu", "1").Obj(), pod("l").Req("cpu", "3").Obj()},
			want:    []string{"l big", "s small"},
		},
		{
			// The greedy pass puts x on roomy "a" (one pod slot), where only y may go;
			// backtracking moves x to "b".
			name: "backtracking: an assignment the greedy pass misses",
			nodes: []*v1.Node{
				testutil.Node("a").Labels("pool", "a").Capacity("cpu", "8", "pods", "1").Obj(),
				testutil.Node("b").Capacity("cpu", "2").Obj(),
			},
			members: []*v1.Pod{pod("x").Req("cpu", "2").Obj(), pod("y").Req("cpu", "2").NodeSelector("pool", "a").Obj()},
			want:    []string{"x b", "y a"},
		},
		{
			name: "Need: the greedy pass places enough, no search",
			nodes: []*v1.Node{
				testutil.Node("a").Labels("pool", "a").Capacity("cpu", "8", "pods", "1").Obj(),
				testutil.Node("b").Capacity("cpu", "2").Obj(),
			},
			members:      []*v1.Pod{pod("x").Req("cpu", "2").Obj(), pod("y").Req("cpu", "2").NodeSelector("pool", "a").Obj()},
			need:         1,
			want:         []string{"x a"},
			wantUnplaced: []string{"y"},
			wantMessage:  "0/2 nodes are available: 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector.",
		},
		{
			name:    "alike members: after one fits nowhere the others are not tried",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "1").Obj()},
			members: []*v1.Pod{pod("m1").Req("cpu", "1").Obj(), pod("m2").Req("cpu", "1").Obj(), pod("m3").Req("cpu", "1").Obj()},
			want:    []string{"m1 n1"}, wantUnplaced: []string{"m2", "m3"},
			wantMessage:    "0/1 nodes are available: 1 Insufficient cpu.",
			wantPreFilters: map[string]int{"m1": 1, "m2": 1},
		},
		{
			name:  "members not alike are each tried",
			nodes: []*v1.Node{testutil.Node("n1").Capacity("cpu", "1").Obj()},
			members: []*v1.Pod{pod("m1").Req("cpu", "1").Obj(), pod("m2").Req("cpu", "1").Obj(),
				pod("m3").Req("cpu", "1").Toleration(v1.Toleration{Operator: v1.TolerationOpExists}).Obj()},
			want: []string{"m1 n1"}, wantUnplaced: []string{"m2", "m3"},
			wantMessage:    "0/1 nodes are available: 1 Insufficient cpu.",
			wantPreFilters: map[string]int{"m1": 1, "m2": 1, "m3": 1},
		},
		{
			// The members differ only in their labels, which the guard's anti-affinity
			// reads: the leader fitting nowhere says nothing of the worker.
			name:  "a running pod's anti-affinity refuses a member for its labels: the others are still tried",
			nodes: []*v1.Node{testutil.Node("n1").Capacity("cpu", "4").Obj()},
			pods:  []*v1.Pod{pod("guard").PodAntiAffinity(v1.LabelHostname, map[string]string{"role": "leader"}).Node("n1").Obj()},
			members: []*v1.Pod{pod("leader").Labels("role", "leader").Req("cpu", "1").Obj(),
				pod("worker").Labels("role", "worker").Req("cpu", "1").Obj()},
			need: 1,
			want: []string{"worker n1"}, wantUnplaced: []string{"leader"},
			wantMessage: "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.",
		},
		{
			name:    "opts.Nodes: only the domain's nodes are used",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "4").Obj(), testutil.Node("n2").Capacity("cpu", "4").Obj()},
			members: []*v1.Pod{pod("m1").Req("cpu", "1").Obj(), pod("m2").Req("cpu", "1").Obj()},
			domain:  []string{"n2"},
			want:    []string{"m1 n2", "m2 n2"},
		},
		{
			name:    "opts.Nodes: the message counts the domain's nodes",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "4").Obj(), testutil.Node("n2").Capacity("cpu", "1").Obj()},
			members: []*v1.Pod{pod("m1").Req("cpu", "1").Obj(), pod("m2").Req("cpu", "1").Obj()},
			domain:  []string{"n2"},
			want:    []string{"m1 n2"}, wantUnplaced: []string{"m2"},
			wantMessage: "0/1 nodes are available: 1 Insufficient cpu.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.nodes, tc.pods)
			var opts framework.PlaceOptions
			opts.Need = tc.need
			if tc.domain != nil {
				opts.Nodes = e.nodes(tc.domain...)
			}
			before := e.podsPerNode()
			cp := e.c.Checkpoint()
			got, err := e.placer.For(group(1), nil).Place(context.Background(), infos(tc.members...), opts)
			if err != nil {
				t.Fatal(err)
			}
			// The placed members are in the snapshot: the caller rolls them back.
			for _, a := range got.Assignments {
				if a.Pod.NodeName != a.Node.Name {
					t.Errorf("%s is on %q in the snapshot, want %s", a.Pod.Key, a.Pod.NodeName, a.Node.Name)
				}
			}
			e.c.Rollback(cp)
			if after := e.podsPerNode(); after != before {
				t.Errorf("after the rollback the snapshot holds %s, it held %s", after, before)
			}
			if p := placed(got.Assignments); !slices.Equal(p, tc.want) {
				t.Errorf("placed %v, want %v", p, tc.want)
			}
			if u := podNames(got.Unplaced); !slices.Equal(u, tc.wantUnplaced) {
				t.Errorf("unplaced %v, want %v", u, tc.wantUnplaced)
			}
			if got.Message != tc.wantMessage {
				t.Errorf("message %q\n want %q", got.Message, tc.wantMessage)
			}
			if tc.wantPreFilters != nil && !maps.Equal(e.probe.preFilters, tc.wantPreFilters) {
				t.Errorf("filtering scans %v, want %v", e.probe.preFilters, tc.wantPreFilters)
			}
		})
	}
}

// With opts.Placement, the PlacementState plugins assume the placement while the members
// are placed (here the probe then holds them to its nodes), and revert it after; a
// placement they refuse leaves every member unplaced, with their reason.
func TestPlaceInPlacement(t *testing.T) {
	tests := []struct {
		name         string
		state        bool // the group cycle's state (nil for a group without placements)
		placement    string
		want         []string
		wantUnplaced []string
		wantMessage  string
		wantPlugins  []string
		wantLog      []string
	}{
		{name: "assumed while placing, then reverted", state: true, placement: "right",
			want: []string{"m1 n2", "m2 n2"}, wantLog: []string{"assume right", "revert right"}},
		{name: "refused: nothing is placed", state: true, placement: "refused",
			wantUnplaced: []string{"m1", "m2"}, wantMessage: "no devices", wantPlugins: []string{probeName},
			wantLog: []string{"assume refused"}},
		{name: "no cycle state: nothing to assume", placement: "right",
			want: []string{"m1 n1", "m2 n1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*v1.Node{testutil.Node("n1").Capacity("cpu", "4").Obj(), testutil.Node("n2").Capacity("cpu", "4").Obj()}, nil)
			e.probe.refuse = "refused"
			var state *framework.CycleState
			if tc.state {
				state = framework.NewCycleState()
			}
			members := infos(testutil.Pod("m1").Req("cpu", "1").Obj(), testutil.Pod("m2").Req("cpu", "1").Obj())
			p := &framework.Placement{Name: tc.placement, Nodes: e.nodes("n2")}
			got, err := e.placer.For(group(2), state).Place(context.Background(), members, framework.PlaceOptions{Placement: p, FirstFit: true})
			if err != nil {
				t.Fatal(err)
			}
			if p := placed(got.Assignments); !slices.Equal(p, tc.want) {
				t.Errorf("placed %v, want %v", p, tc.want)
			}
			if u := podNames(got.Unplaced); !slices.Equal(u, tc.wantUnplaced) {
				t.Errorf("unplaced %v, want %v", u, tc.wantUnplaced)
			}
			if got.Message != tc.wantMessage || !slices.Equal(got.UnschedulablePlugins, tc.wantPlugins) {
				t.Errorf("message %q from %v, want %q from %v", got.Message, got.UnschedulablePlugins, tc.wantMessage, tc.wantPlugins)
			}
			if !slices.Equal(e.probe.log, tc.wantLog) || e.probe.assumed != nil {
				t.Errorf("placement log %v (still assumed: %v), want %v", e.probe.log, e.probe.assumed != nil, tc.wantLog)
			}
		})
	}
}

// Confirm checks assigned members in order, each on its node afresh, each seeing those
// confirmed before it (added to the snapshot, reserved).
func TestConfirm(t *testing.T) {
	pod := testutil.Pod
	tests := []struct {
		name        string
		members     []*v1.Pod
		assignments []string // the members' nodes, in order
		want        bool
	}{
		{"members on their own nodes", []*v1.Pod{pod("m1").Req("cpu", "2").Obj(), pod("m2").Req("cpu", "2").Obj()}, []string{"n1", "n2"}, true},
		{"a member sees the room an earlier one took", []*v1.Pod{pod("m1").Req("cpu", "2").Obj(), pod("m2").Req("cpu", "1").Obj()}, []string{"n1", "n1"}, false},
		{"a member sees an earlier one's host port", []*v1.Pod{pod("m1").HostPort(80).Obj(), pod("m2").HostPort(80).Obj()}, []string{"n1", "n1"}, false},
		{"a node the member's PreFilter leaves out", []*v1.Pod{pod("m1").Req("cpu", "1").Affinity(&v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n2"}}},
			}}}}}).Obj()}, []string{"n1"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*v1.Node{testutil.Node("n1").Capacity("cpu", "2").Obj(), testutil.Node("n2").Capacity("cpu", "2").Obj()}, nil)
			var as []framework.Assignment
			for i, m := range infos(tc.members...) {
				as = append(as, framework.Assignment{Pod: m, Node: e.c.Get(tc.assignments[i])})
			}
			cp := e.c.Checkpoint()
			ok, err := e.placer.For(group(2), nil).Confirm(context.Background(), as)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.want {
				t.Errorf("confirmed %v, want %v", ok, tc.want)
			}
			if ok {
				// Confirmed members stay in the snapshot, for the caller to roll back.
				for _, a := range as {
					if a.Pod.NodeName != a.Node.Name {
						t.Errorf("%s is on %q after confirmation, want %s", a.Pod.Key, a.Pod.NodeName, a.Node.Name)
					}
				}
			}
			e.c.Rollback(cp)
		})
	}
}
