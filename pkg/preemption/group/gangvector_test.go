package group_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// The node-by-node plan that starts a gang's exact search on resource vectors: the least
// disruptive set where greedy reprieval is far from it, budgets kept when they can be,
// whole groups spanning nodes taken when they are cheapest, and the least important top
// victim; every plan fits the model with only its victims gone.
func TestPlanByNodes(t *testing.T) {
	web := func(name, node string) *v1.Pod {
		return testutil.Pod(name).Labels("app", "web").Priority(10).Req("cpu", "2").Node(node).Obj()
	}
	allowingOne := budget("web")
	allowingOne.Status.DisruptionsAllowed = 1
	span := podGroup("span", 5, 2, true)
	inSpan := func(name, node string) *v1.Pod {
		return testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "span").Priority(5).Req("cpu", "1").Node(node).Obj()
	}
	db := func(name, node string) *v1.Pod {
		return testutil.Pod(name).Labels("app", "db").Priority(5).Req("cpu", "1").Node(node).Obj()
	}
	dbAllowingOne := budget("db")
	dbAllowingOne.Status.DisruptionsAllowed = 1
	webAllowingNone := budget("web")
	guaranteed := testutil.Pod("guaranteed").Priority(10).Req("cpu", "2", "memory", "1Gi").Lim("cpu", "2", "memory", "1Gi").Node("n1").Obj()
	withMemory := func(names ...string) []*v1.Node {
		var out []*v1.Node
		for _, n := range names {
			out = append(out, testutil.Node(n).Capacity("cpu", "2", "memory", "4Gi").Obj())
		}
		return out
	}
	tests := []struct {
		name    string
		nodes   []*v1.Node
		pods    []*v1.Pod
		members []*v1.Pod
		pdbs    []*policyv1.PodDisruptionBudget
		groups  []*framework.GroupInfo
		// want are the victims' keys, sorted (nil: no plan).
		want []string
	}{
		{
			// 5 cpu in all: the 4-cpu pod and one 1-cpu pod; greedy reprieval, most
			// important first, keeps the big pod and takes small ones.
			name:    "two kinds of members: the fewest victims",
			nodes:   cpuNodes("4", "n1", "n2", "n3"),
			pods:    []*v1.Pod{low("big", 10, "4", "n1"), low("s1", 10, "1", "n2"), low("s2", 10, "1", "n2"), low("s3", 10, "1", "n2"), low("s4", 10, "1", "n2"), low("c1", 10, "2", "n3"), low("c2", 10, "2", "n3")},
			members: []*v1.Pod{member("m1", "3"), member("m2", "1"), member("m3", "1")},
			want:    []string{"default/big", "default/s4"},
		},
		{
			name:    "the lowest priority level before the fewest victims",
			nodes:   cpuNodes("2", "n1", "n2", "n3"),
			pods:    []*v1.Pod{low("high", 50, "2", "n1"), low("l1", 10, "1", "n2"), low("l2", 10, "1", "n2"), low("l3", 10, "1", "n3"), low("l4", 10, "1", "n3")},
			members: []*v1.Pod{member("m1", "2"), member("m2", "2")},
			want:    []string{"default/l1", "default/l2", "default/l3", "default/l4"},
		},
		{
			// Two web pods free the room with one victim less, but the budget allows
			// one disruption.
			name:    "a budget kept at the cost of a victim more",
			nodes:   cpuNodes("2", "n1", "n2", "n3"),
			pods:    []*v1.Pod{web("w1", "n1"), web("w2", "n2"), low("x1", 10, "1", "n3"), low("x2", 10, "1", "n3")},
			members: []*v1.Pod{member("m1", "2"), member("m2", "2")},
			pdbs:    []*policyv1.PodDisruptionBudget{allowingOne},
			want:    []string{"default/w2", "default/x1", "default/x2"},
		},
		{
			// No plan keeps both budgets. Left out, they would let the cheapest victims
			// go (w1, d1, d2: two pods past the budgets); weighed, one pod past them is
			// the least, and then the fewest victims (issue 31).
			name:    "budgets that cannot be kept: the fewest pods past them first",
			nodes:   cpuNodes("2", "n1", "n2", "n3"),
			pods:    []*v1.Pod{web("w1", "n1"), db("d1", "n2"), db("d2", "n2"), low("x1", 10, "1", "n3"), low("x2", 10, "1", "n3")},
			members: []*v1.Pod{member("m1", "2"), member("m2", "2")},
			pdbs:    []*policyv1.PodDisruptionBudget{webAllowingNone, dbAllowingOne},
			want:    []string{"default/w1", "default/x1", "default/x2"},
		},
		{
			name:    "a whole group spanning nodes, of the lowest priority",
			nodes:   cpuNodes("2", "n1", "n2"),
			pods:    []*v1.Pod{inSpan("g1", "n1"), inSpan("g2", "n2"), low("s1", 10, "1", "n1"), low("s2", 10, "1", "n2")},
			members: []*v1.Pod{member("m1", "1"), member("m2", "1")},
			groups:  []*framework.GroupInfo{span},
			want:    []string{"PodGroup:default/span"},
		},
		{
			name:    "of victims alike but for QoS, the Burstable one",
			nodes:   withMemory("n1", "n2"),
			pods:    []*v1.Pod{guaranteed, low("burstable", 10, "2", "n2")},
			members: []*v1.Pod{member("m1", "1"), member("m2", "1")},
			want:    []string{"default/burstable"},
		},
		{
			name:    "more than every candidate frees: no plan",
			nodes:   cpuNodes("2", "n1", "n2"),
			pods:    []*v1.Pod{low("a", 10, "2", "n1"), low("b", 10, "2", "n2")},
			members: []*v1.Pod{member("m1", "2"), member("m2", "2"), member("m3", "1")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ge := newGroupEnv(t, tc.nodes, tc.pods, groupEnvOptions{minCount: int32(len(tc.members)), pdbs: tc.pdbs, groups: tc.groups})
			victims, placement, exact, fits, model := ge.part(nil, tc.members...).PlanByNodes(context.Background())
			if !model {
				t.Fatal("the resource-vector model does not apply")
			}
			slices.Sort(victims)
			if !slices.Equal(victims, tc.want) {
				t.Fatalf("victims %v, want %v (placement %v)", victims, tc.want, placement)
			}
			if tc.want != nil && (!fits || len(placement) != len(tc.members)) {
				t.Fatalf("the plan does not hold: fits %v, placement %v", fits, placement)
			}
			// Every case here is within the program's limits, budgets kept or weighed.
			if tc.want != nil && !exact {
				t.Fatal("the plan is not said to be exact")
			}
		})
	}
}

// Past planExactSpanning groups spanning nodes, the plan decides them by local search: it
// holds, but is not said to be exact, and the exact search improves on it. Here every
// group frees half a cpu on two of three nodes; two groups on the same two nodes are the
// least (a member's room on each), where taking groups off one at a time stops at three.
func TestPlanByNodesInexactWithManySpanningGroups(t *testing.T) {
	var pods []*v1.Pod
	var groups []*framework.GroupInfo
	nodes := []string{"n0", "n1", "n2"}
	for g := range 6 {
		name := fmt.Sprintf("span%d", g)
		groups = append(groups, podGroup(name, 5, 2, true))
		for i, node := range []string{nodes[g%3], nodes[(g+1)%3]} {
			pods = append(pods, testutil.Pod(fmt.Sprintf("%s-%d", name, i)).Labels(v1alpha1.LabelPodGroup, name).
				Priority(5).Req("cpu", "500m").Node(node).Obj())
		}
	}
	members := []*v1.Pod{member("m1", "1"), member("m2", "1")}
	ge := newGroupEnv(t, cpuNodes("2", nodes...), pods, groupEnvOptions{minCount: 2, groups: groups})
	victims, placement, exact, fits, model := ge.part(nil, members...).PlanByNodes(context.Background())
	if !model || victims == nil {
		t.Fatalf("no plan (model %v)", model)
	}
	if exact {
		t.Error("a plan over six spanning groups is said to be exact")
	}
	if !fits || len(placement) != 2 {
		t.Errorf("the plan does not hold: fits %v, placement %v", fits, placement)
	}
	res, err := ge.e.Preempt(context.Background(), ge.attempt(members...))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Victims); got != 4 {
		t.Errorf("the decision preempts %d pods, want two groups (4 pods)", got)
	}
}

// A node full of alike pods: 3 classes of 20 (200m, 300m and 500m of cpu) would be 9,261
// sets to weigh, past planMaxLeaves, but no set needs more of a class than frees 2 cpu
// (all the members ask), so the plan weighs every useful set and is exact: the four
// largest pods.
func TestPlanByNodesWeighsOnlyUsefulCounts(t *testing.T) {
	var pods []*v1.Pod
	for _, cpu := range []string{"200m", "300m", "500m"} {
		for i := range 20 {
			pods = append(pods, low(fmt.Sprintf("p%s-%02d", cpu, i), 10, cpu, "n1"))
		}
	}
	ge := newGroupEnv(t, cpuNodes("20", "n1"), pods, groupEnvOptions{minCount: 2})
	victims, placement, exact, fits, _ := ge.part(nil, member("m1", "1"), member("m2", "1")).PlanByNodes(context.Background())
	if !exact || !fits || len(placement) != 2 {
		t.Fatalf("exact %v, fits %v, placement %v", exact, fits, placement)
	}
	if len(victims) != 4 || slices.ContainsFunc(victims, func(v string) bool { return !strings.HasPrefix(v, "default/p500m-") }) {
		t.Errorf("victims %v, want 4 of 500m", victims)
	}
}

// Past the exact search's 256 candidate units, an exact plan decides: 320 pods of priority
// 50 on 40 more nodes are candidates too, but the least disruptive set is still the two
// pods of priority 10 the first case of TestPlanByNodes takes.
func TestGroupPreemptPastTheSearchBoundByPlan(t *testing.T) {
	nodes := cpuNodes("4", "n1", "n2", "n3")
	pods := []*v1.Pod{low("big", 10, "4", "n1"), low("s1", 10, "1", "n2"), low("s2", 10, "1", "n2"), low("s3", 10, "1", "n2"), low("s4", 10, "1", "n2"), low("c1", 10, "2", "n3"), low("c2", 10, "2", "n3")}
	for i := range 40 {
		node := fmt.Sprintf("f%02d", i)
		nodes = append(nodes, cpuNodes("4", node)...)
		for j := range 8 {
			pods = append(pods, low(fmt.Sprintf("%s-%d", node, j), 50, "500m", node))
		}
	}
	members := []*v1.Pod{member("m1", "3"), member("m2", "1"), member("m3", "1")}
	ge := newGroupEnv(t, nodes, pods, groupEnvOptions{minCount: 3})
	res, err := ge.e.Preempt(context.Background(), ge.attempt(members...))
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedNames(res.Victims); !slices.Equal(got, []string{"big", "s4"}) || res.Approximate {
		t.Errorf("victims %v (approximate %v), want [big s4], exact", got, res.Approximate)
	}
}

// With every budget the program would have too many states (16 members: 17 counts, times
// 3 for each of five budgets allowing two: 4,131 past 4,096). The budgets b-e cover only
// pods of priority 20 no plan needs; a plan without budgets takes a's three cheap pods
// and breaks a; keeping a alone (the budget the plan broke), the plan takes two of them
// and keeps every budget, so it is the plan with all of them, and exact (issue 31).
func TestPlanByNodesKeepsTheBudgetsAPlanBreaks(t *testing.T) {
	var pods []*v1.Pod
	var pdbs []*policyv1.PodDisruptionBudget
	var nodes []*v1.Node
	for i, app := range []string{"a", "b", "c", "d", "e"} {
		prio := int32(20)
		if app == "a" {
			prio = 5
		}
		node := fmt.Sprintf("b%d", i)
		nodes = append(nodes, cpuNodes("3", node)...)
		for j := range 3 {
			pods = append(pods, testutil.Pod(fmt.Sprintf("%s%d", app, j)).Labels("app", app).Priority(prio).Req("cpu", "1").Node(node).Obj())
		}
		pdb := budget(app)
		pdb.Status.DisruptionsAllowed = 2
		pdbs = append(pdbs, pdb)
	}
	for i := range 8 {
		node := fmt.Sprintf("x%d", i)
		nodes = append(nodes, cpuNodes("2", node)...)
		pods = append(pods, low(node+"-0", 10, "1", node), low(node+"-1", 10, "1", node))
	}
	var members []*v1.Pod
	for i := range 16 {
		members = append(members, member(fmt.Sprintf("m%d", i), "1"))
	}
	ge := newGroupEnv(t, nodes, pods, groupEnvOptions{minCount: 16, pdbs: pdbs})
	victims, placement, exact, fits, model := ge.part(nil, members...).PlanByNodes(context.Background())
	if !model || victims == nil {
		t.Fatalf("no plan (model %v)", model)
	}
	if !exact || !fits || len(placement) != 16 {
		t.Fatalf("exact %v, fits %v, placement %v", exact, fits, placement)
	}
	ofA := 0
	for _, v := range victims {
		if strings.HasPrefix(v, "default/a") {
			ofA++
		}
	}
	if len(victims) != 16 || ofA != 2 {
		t.Errorf("victims %v, want 16 with 2 of budget a", victims)
	}
}

// A full node of eight classes of three alike pods (100m to 800m of cpu): 4^8 = 65,536
// counts, past planMaxLeaves, and none past what makes room for both members (2 cpu).
// Sets that already make room for every member end their branch, and branches that
// cost as much as such a set with as much budget spent are cut, so the plan weighs every
// set that matters and is exact: three victims (issue 31).
func TestPlanByNodesCutsBranchesThatCannotMatter(t *testing.T) {
	var pods []*v1.Pod
	for c := 1; c <= 8; c++ {
		for i := range 3 {
			pods = append(pods, low(fmt.Sprintf("p%d00m-%d", c, i), 10, fmt.Sprintf("%d00m", c), "n1"))
		}
	}
	pods = append(pods, low("rest", 10, "7200m", "n1"))
	ge := newGroupEnv(t, cpuNodes("18", "n1"), pods, groupEnvOptions{minCount: 2})
	victims, placement, exact, fits, _ := ge.part(nil, member("m1", "1"), member("m2", "1")).PlanByNodes(context.Background())
	if !exact || !fits || len(placement) != 2 {
		t.Fatalf("exact %v, fits %v, placement %v", exact, fits, placement)
	}
	if len(victims) != 1 || victims[0] != "default/rest" {
		t.Errorf("victims %v, want the one pod that frees 2 cpu alone", victims)
	}
}
