package group_test

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// decide searches the victims among the domain's units; with too many for an exact search,
// the binary search over priority levels first narrows them to the lowest level that lets
// the group fit, unless a budget protects a unit there.
func TestDecide(t *testing.T) {
	// One full 4-cpu node: a (priority 1), b (2), c and d (3), one cpu each. The two
	// 1-cpu members need two of them gone.
	withApp := func(p *v1.Pod, app string) *v1.Pod { p.Labels = map[string]string{"app": app}; return p }
	pods := func() []*v1.Pod {
		return []*v1.Pod{
			withApp(low("a", 1, "1", "n1"), "a"), low("b", 2, "1", "n1"), low("c", 3, "1", "n1"), low("d", 3, "1", "n1"),
		}
	}
	tests := []struct {
		name         string
		pods         []*v1.Pod
		members      []*v1.Pod
		binarySearch bool
		pdbs         []*policyv1.PodDisruptionBudget
		// want are the victims (nil: no decision), wantReprieved how many candidates the
		// search put back.
		want           []string
		wantReprieved  int
		wantViolations int
	}{
		{
			name: "binary search: only the units up to the lowest level that frees room are candidates",
			pods: pods(), members: []*v1.Pod{member("m1", "1"), member("m2", "1")}, binarySearch: true,
			want: []string{"a", "b"}, wantReprieved: 0,
		},
		{
			name: "without it, greedy reprieval over every unit",
			pods: pods(), members: []*v1.Pod{member("m1", "1"), member("m2", "1")},
			want: []string{"a", "b"}, wantReprieved: 2,
		},
		{
			// Narrowed to {a, b}, a's budget would be violated: the search widens to every
			// level, puts the protected a back first, and takes an unprotected unit of
			// higher priority instead.
			name: "binary search: a budget-protected low unit widens the search to every level",
			pods: pods(), members: []*v1.Pod{member("m1", "1"), member("m2", "1")}, binarySearch: true,
			pdbs: []*policyv1.PodDisruptionBudget{budget("a")},
			want: []string{"b", "d"}, wantReprieved: 2,
		},
		{
			name: "pods already leaving are room, and nobody's victims",
			pods: append(pods()[1:], deleting(low("a", 1, "1", "n1"))), members: []*v1.Pod{member("m1", "1"), member("m2", "1")},
			want: []string{"b"}, wantReprieved: 2,
		},
		{
			name: "no unit of lower priority: no decision",
			pods: []*v1.Pod{low("peer", groupPriority, "4", "n1")}, members: []*v1.Pod{member("m1", "1")},
		},
		{
			name: "the group does not fit even with every unit gone: no decision",
			pods: pods(), members: []*v1.Pod{member("m1", "5")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ge := newGroupEnv(t, cpuNodes("4", "n1"), tc.pods, groupEnvOptions{minCount: int32(len(tc.members)), exactMax: 2,
				binarySearch: tc.binarySearch, pdbs: tc.pdbs})
			before := ge.c.Nodes().NumPods()
			res, err := ge.part(nil, tc.members...).Decide(context.Background(), tc.binarySearch)
			if err != nil {
				t.Fatal(err)
			}
			if ge.c.Nodes().NumPods() != before || ge.c.OpenCheckpoints() != 0 {
				t.Fatalf("the simulation was not rolled back")
			}
			if tc.want == nil {
				if res != nil {
					t.Fatalf("victims %v, want no decision", sortedNames(res.Victims))
				}
				return
			}
			if res == nil {
				t.Fatalf("no decision, want victims %v", tc.want)
			}
			if got := sortedNames(res.Victims); !slices.Equal(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
			if res.Reprieved != tc.wantReprieved || res.Cost.Violations != tc.wantViolations {
				t.Errorf("%d reprieved, %d violations; want %d and %d", res.Reprieved, res.Cost.Violations, tc.wantReprieved, tc.wantViolations)
			}
			if len(res.Nominations) != len(tc.members) {
				t.Errorf("nominations %v, want every member nominated", nominations(res))
			}
		})
	}
}

// searchUnits confirms the search's placement with the victims gone before deciding; when
// it does not pass, the members are placed again from scratch, and no decision is made
// when they then fit nowhere.
func TestSearchUnitsConfirms(t *testing.T) {
	tests := []struct {
		name          string
		refuseConfirm bool
		failAfter     bool
		// want are the nominations (nil: no decision), wantPlaces the Place calls after
		// the confirmation.
		want       []string
		wantPlaces int
	}{
		{name: "confirmed: the search's placement is the decision", want: []string{"m1 n1", "m2 n2"}},
		{name: "refused: the members are placed again", refuseConfirm: true, want: []string{"m1 n1", "m2 n2"}, wantPlaces: 1},
		{name: "refused, and placed again they fit nowhere: no decision", refuseConfirm: true, failAfter: true, wantPlaces: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ge := newGroupEnv(t, cpuNodes("2", "n1", "n2"), []*v1.Pod{low("v1", 1, "2", "n1"), low("v2", 1, "2", "n2")},
				groupEnvOptions{minCount: 2})
			ge.placer.refuseConfirm, ge.placer.failAfter = tc.refuseConfirm, tc.failAfter
			res, err := ge.part(nil, member("m1", "2"), member("m2", "2")).SearchUnits(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !ge.placer.confirmed {
				t.Error("the decision was not confirmed")
			}
			if got := len(ge.placer.places) - ge.placer.placesAtConfirm; got != tc.wantPlaces {
				t.Errorf("%d Place calls after the confirmation, want %d", got, tc.wantPlaces)
			}
			if tc.want == nil {
				if res != nil {
					t.Fatalf("decision %v, want none", nominations(res))
				}
				return
			}
			if res == nil {
				t.Fatal("no decision")
			}
			if got := nominations(res); !slices.Equal(got, tc.want) {
				t.Errorf("nominations %v, want %v", got, tc.want)
			}
			if got := sortedNames(res.Victims); !slices.Equal(got, []string{"v1", "v2"}) {
				t.Errorf("victims %v, want [v1 v2]", got)
			}
		})
	}
}

func TestPlanDomain(t *testing.T) {
	full := func(node string, priority int32) []*v1.Pod {
		return []*v1.Pod{low(node+"-a", priority, "2", node), low(node+"-b", priority, "2", node)}
	}
	// n1 has room for one 2-cpu member, and a priority-1 pod; n2, n5, n6 and n7 are full
	// of priority-1 pods, n3 of priority-2 pods; n4 is tainted.
	nodes := func() []*v1.Node {
		return append(cpuNodes("4", "n1", "n2", "n3", "n5", "n6", "n7"),
			testutil.Node("n4").Capacity("cpu", "4").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj())
	}
	pods := func() []*v1.Pod {
		out := []*v1.Pod{low("n1-a", 1, "2", "n1")}
		out = append(out, full("n2", 1)...)
		out = append(out, full("n3", 2)...)
		out = append(out, full("n4", 1)...)
		for _, n := range []string{"n5", "n6", "n7"} {
			out = append(out, full(n, 1)...)
		}
		return out
	}
	members := func(n int, cpu string) []*v1.Pod {
		var out []*v1.Pod
		for i := range n {
			out = append(out, member("m"+string(rune('1'+i)), cpu))
		}
		return out
	}
	tests := []struct {
		name string
		// nodes are the cluster's (nil: the one above).
		nodes   []*v1.Node
		domain  []string
		pods    []*v1.Pod
		members []*v1.Pod
		want    []string
	}{
		{
			name:    "members not alike: no plan",
			members: []*v1.Pod{member("m1", "2"), member("m2", "1")},
			pods:    pods(),
		},
		{
			// Level 1 frees room for 2 members on each of n1, n2, n5, n6, n7: the cheapest
			// nodes (n1 has room now) with some slack (need+2 = 5: n1, n2, n5), then every
			// node with room at that level; then the same at level 2.
			name:    "the lowest level that makes room, the cheapest nodes first",
			members: members(3, "2"), pods: pods(),
			want: []string{"1: n1 n2 n5", "1: n1 n2 n5 n6 n7", "2: n1 n2 n5", "2: n1 n2 n5 n6 n7 n3"},
		},
		{
			name:    "in a domain: only its nodes",
			domain:  []string{"n1", "n3", "n4"},
			members: members(2, "2"), pods: pods(),
			want: []string{"1: n1", "2: n1 n3"},
		},
		{
			name:    "a tainted node's pods are never counted",
			domain:  []string{"n1", "n4"},
			members: members(3, "2"), pods: pods(),
			want: []string{"infeasible"},
		},
		{
			name:    "infeasible: not even every lower-priority pod makes room",
			members: members(13, "2"), pods: pods(),
			want: []string{"infeasible"},
		},
		{
			name:    "pods of the group's priority or above are never counted",
			domain:  []string{"n2"},
			members: members(2, "2"),
			pods:    []*v1.Pod{low("n2-a", groupPriority, "2", "n2"), low("n2-b", 1, "2", "n2")},
			want:    []string{"infeasible"},
		},
		{
			name:    "a BestEffort pod frees nothing, not even its slot",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "4", "pods", "1").Obj()},
			members: members(1, "1"),
			pods:    []*v1.Pod{testutil.Pod("be").Priority(1).Node("n1").Obj()},
			want:    []string{"infeasible"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := tc.nodes
			if ns == nil {
				ns = nodes()
			}
			ge := newGroupEnv(t, ns, tc.pods, groupEnvOptions{minCount: int32(len(tc.members))})
			got := ge.part(tc.domain, tc.members...).Plan(context.Background())
			if !slices.Equal(got, tc.want) {
				t.Errorf("plan %q, want %q", got, tc.want)
			}
		})
	}
}
