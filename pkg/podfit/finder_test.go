package podfit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// profileOver builds a profile over the cache (the default plugins, or the profile given)
// and the finder working with it.
func profileOver(t *testing.T, c *cache.Cache, prof config.Profile) podfit.Profile {
	t.Helper()
	if prof.SchedulerName == "" {
		prof.SchedulerName = "phalanx"
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	fwk, err := fwkruntime.New(prof, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd, Metrics: metrics.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd}).For(fwk)
}

// onlyNodes makes a pod's required node affinity name its nodes (a metadata.name term per
// node), which NodeAffinity's PreFilter turns into a narrowed node set.
func onlyNodes(names ...string) *v1.Affinity {
	var terms []v1.NodeSelectorTerm
	for _, n := range names {
		terms = append(terms, v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIs(n)}})
	}
	return nodeAffinity(terms...)
}

// conflicting pins metadata.name to two nodes at once: PreFilter rejects the pod.
func conflicting() *v1.Affinity {
	return nodeAffinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIs("n1"), nameIs("n2")}})
}

func nameIs(n string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{n}}
}

func nodeAffinity(terms ...v1.NodeSelectorTerm) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
}

func names(nodes []*framework.NodeInfo) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	slices.Sort(out)
	return out
}

func nodesNamed(c *cache.Cache, names ...string) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, n := range names {
		out = append(out, c.Get(n))
	}
	return out
}

// recorded lists the nodes the diagnosis holds a status for.
func recorded(d *framework.Diagnosis) []string {
	var out []string
	d.NodeToStatus.ForEach(func(n string, _ *framework.Status) { out = append(out, n) })
	slices.Sort(out)
	return out
}

func TestFindNodes(t *testing.T) {
	// n1..n4 have 4 cpu each; n2 runs a 3-cpu pod; n4 is tainted.
	cluster := func() *cache.Cache {
		return testutil.NewCache([]*v1.Node{
			testutil.Node("n1").Capacity("cpu", "4").Obj(),
			testutil.Node("n2").Capacity("cpu", "4").Obj(),
			testutil.Node("n3").Capacity("cpu", "4").Obj(),
			testutil.Node("n4").Capacity("cpu", "4").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj(),
		}, []*v1.Pod{testutil.Pod("busy").Req("cpu", "3").Node("n2").Obj()})
	}
	tests := []struct {
		name string
		pod  *testutil.PodBuilder
		// nominated, when set, nominates the pod there first.
		nominated string
		domain    []string
		query     podfit.Query
		want      []string
		// When nothing fits: the diagnosis's node count, the nodes it records, and its
		// message.
		wantNumNodes int
		wantRecorded []string
		wantMessage  string
	}{
		{
			name: "every node that fits",
			pod:  testutil.Pod("p").Req("cpu", "2"),
			want: []string{"n1", "n3"},
		},
		{
			name:   "a domain: only its nodes are chosen",
			pod:    testutil.Pod("p").Req("cpu", "2"),
			domain: []string{"n2", "n3", "n4"},
			want:   []string{"n3"},
		},
		{
			name:         "a domain: the diagnosis counts only its nodes",
			pod:          testutil.Pod("p").Req("cpu", "2"),
			domain:       []string{"n2", "n4"},
			wantNumNodes: 2, wantRecorded: []string{"n2", "n4"},
			wantMessage: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).",
		},
		{
			name:      "a nominated pod that still fits takes its node without looking further",
			pod:       testutil.Pod("p").Req("cpu", "2"),
			nominated: "n3",
			want:      []string{"n3"},
		},
		{
			name:      "IgnoreNomination: a nominated pod looks at every node",
			pod:       testutil.Pod("p").Req("cpu", "2"),
			nominated: "n3",
			query:     podfit.Query{IgnoreNomination: true},
			want:      []string{"n1", "n3"},
		},
		{
			name:      "a nominated node that no longer fits: every node is looked at",
			pod:       testutil.Pod("p").Req("cpu", "2"),
			nominated: "n2",
			want:      []string{"n1", "n3"},
		},
		{
			name:      "a nominated node outside the domain is not taken",
			pod:       testutil.Pod("p").Req("cpu", "2"),
			nominated: "n1",
			domain:    []string{"n3"},
			want:      []string{"n3"},
		},
		{
			name:      "a nominated node PreFilter rules out is not taken",
			pod:       testutil.Pod("p").Req("cpu", "2").Affinity(onlyNodes("n3")),
			nominated: "n1",
			want:      []string{"n3"},
		},
		{
			name:  "Limit stops the scan",
			pod:   testutil.Pod("p").Req("cpu", "1"),
			query: podfit.Query{Limit: 1},
			want:  []string{"n1"},
		},
		{
			name: "PreFilter narrows the nodes",
			pod:  testutil.Pod("p").Req("cpu", "2").Affinity(onlyNodes("n2", "n3")),
			want: []string{"n3"},
		},
		{
			name: "PreFilter narrows the nodes: those left out are counted absent",
			pod:  testutil.Pod("p").Req("cpu", "2").Affinity(onlyNodes("n2")),
			// Four nodes in all, one filtered, three never looked at.
			wantNumNodes: 4, wantRecorded: []string{"n2"},
			wantMessage: "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity].",
		},
		{
			name:         "PreFilter narrows the nodes inside a domain",
			pod:          testutil.Pod("p").Req("cpu", "2").Affinity(onlyNodes("n1", "n2")),
			domain:       []string{"n2", "n3"},
			wantNumNodes: 2, wantRecorded: []string{"n2"},
			wantMessage: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity].",
		},
		{
			name:         "a PreFilter rejection is said once for every node",
			pod:          testutil.Pod("p").Req("cpu", "1").Affinity(conflicting()),
			wantNumNodes: 4,
			wantMessage:  "0/4 nodes are available: pod affinity terms conflict.",
		},
		{
			name: "static verdicts: the node they rule out is not a candidate",
			pod: testutil.Pod("p").Req("cpu", "1").Toleration(v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpEqual,
				Value: "y", Effect: v1.TaintEffectNoSchedule}),
			want: []string{"n1", "n2", "n3"},
		},
		{
			name: "static verdicts: nodes they rule out are in the diagnosis when nothing fits",
			pod:  testutil.Pod("p").Req("cpu", "5"),
			// n4 was never filtered dynamically: its static verdict stands for it.
			wantNumNodes: 4, wantRecorded: []string{"n1", "n2", "n3", "n4"},
			wantMessage: "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu.",
		},
		{
			name:         "static verdicts rule out every node: nothing is scanned, all are in the diagnosis",
			pod:          testutil.Pod("p").Req("cpu", "1").Req("example.com/gpu", "1"),
			wantNumNodes: 4, wantRecorded: []string{"n1", "n2", "n3", "n4"},
			wantMessage: "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient example.com/gpu.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster()
			pf := profileOver(t, c, config.Profile{})
			p := tc.pod.Info()
			if tc.nominated != "" {
				c.Nominations().Nominate(p, tc.nominated)
			}
			q := tc.query
			if tc.domain != nil {
				q.Domain = framework.NewDomain(nodesNamed(c, tc.domain...))
			}
			feasible, diag, err := pf.FindNodes(context.Background(), framework.NewCycleState(), p, q)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(feasible); !slices.Equal(got, tc.want) {
				t.Errorf("feasible %v, want %v", got, tc.want)
			}
			if len(feasible) > 0 {
				return
			}
			if diag.NumNodes != tc.wantNumNodes {
				t.Errorf("the diagnosis counts %d nodes, want %d", diag.NumNodes, tc.wantNumNodes)
			}
			if got := recorded(diag); !slices.Equal(got, tc.wantRecorded) {
				t.Errorf("the diagnosis records %v, want %v", got, tc.wantRecorded)
			}
			if got := (&framework.FitError{NumAllNodes: diag.NumNodes, Diagnosis: diag}).Error(); got != tc.wantMessage {
				t.Errorf("message %q\n want %q", got, tc.wantMessage)
			}
		})
	}
}

// TestFindNodesRotates: each scan starts where the last one stopped (after the batch of 16
// it filtered), counting among the nodes the static verdicts leave: n05's taint rules it
// out, so the 20 others are the ring.
func TestFindNodesRotates(t *testing.T) {
	var nodes []*v1.Node
	for i := range 21 {
		b := testutil.Node(fmt.Sprintf("n%02d", i)).Capacity("cpu", "4")
		if i == 5 {
			b = b.Taint("dedicated", "x", v1.TaintEffectNoSchedule)
		}
		nodes = append(nodes, b.Obj())
	}
	pf := profileOver(t, testutil.NewCache(nodes, nil), config.Profile{})
	var got []string
	for range 5 {
		feasible, _, err := pf.FindNodes(context.Background(), framework.NewCycleState(), testutil.Pod("p").Req("cpu", "1").Info(), podfit.Query{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, names(feasible)...)
	}
	// Starts 0, 16, 12, 8, 4 of the 20 eligible nodes (n00-n04, n06-n20).
	if want := []string{"n00", "n17", "n13", "n09", "n04"}; !slices.Equal(got, want) {
		t.Errorf("nodes found %v, want %v", got, want)
	}
}

// Static verdicts are cached per spec key and node, and a node whose object changes is
// judged again: the taint gone, the node is a candidate.
func TestFindNodesStaticVerdictRefreshed(t *testing.T) {
	tainted := testutil.Node("n1").Capacity("cpu", "4").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj()
	c := testutil.NewCache([]*v1.Node{tainted, testutil.Node("n2").Capacity("cpu", "4").Obj()}, nil)
	pf := profileOver(t, c, config.Profile{})
	find := func(name string) []string {
		feasible, _, err := pf.FindNodes(context.Background(), framework.NewCycleState(), testutil.Pod(name).Req("cpu", "1").Info(), podfit.Query{})
		if err != nil {
			t.Fatal(err)
		}
		return names(feasible)
	}
	if got := find("before"); !slices.Equal(got, []string{"n2"}) {
		t.Fatalf("tainted: feasible %v, want [n2]", got)
	}
	c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "4").Obj())
	if got := find("after"); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Errorf("taint removed: feasible %v, want [n1 n2]", got)
	}
}

func TestFitsOn(t *testing.T) {
	c := testutil.NewCache([]*v1.Node{
		testutil.Node("n1").Capacity("cpu", "4").Obj(),
		testutil.Node("n2").Capacity("cpu", "1").Obj(),
	}, nil)
	pf := profileOver(t, c, config.Profile{})
	tests := []struct {
		name     string
		pod      *testutil.PodBuilder
		node     string
		wantCode framework.Code
		wantMsg  string
	}{
		{"fits", testutil.Pod("p").Req("cpu", "2"), "n1", framework.Success, ""},
		{"a filter rejects", testutil.Pod("p").Req("cpu", "2"), "n2", framework.UnschedulableAndUnresolvable, "Insufficient cpu"},
		{"a node PreFilter leaves out fails, though it has room", testutil.Pod("p").Req("cpu", "2").Affinity(onlyNodes("n2")), "n1",
			framework.UnschedulableAndUnresolvable, "node excluded by PreFilter"},
		{"a PreFilter rejection fails", testutil.Pod("p").Affinity(conflicting()), "n1",
			framework.UnschedulableAndUnresolvable, "pod affinity terms conflict"},
	}
	for _, tc := range tests {
		st := pf.FitsOn(context.Background(), framework.NewCycleState(), tc.pod.Info(), c.Get(tc.node))
		if st.Code() != tc.wantCode || st.Message() != tc.wantMsg {
			t.Errorf("%s: %v %q, want %v %q", tc.name, st.Code(), st.Message(), tc.wantCode, tc.wantMsg)
		}
	}
}

func TestStaticEligible(t *testing.T) {
	c := testutil.NewCache([]*v1.Node{
		testutil.Node("plain").Capacity("cpu", "1").Obj(),
		testutil.Node("gpu").Labels("pool", "gpu").Capacity("cpu", "1").Obj(),
		testutil.Node("tainted").Capacity("cpu", "1").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj(),
		testutil.Node("cordoned").Capacity("cpu", "1").Unschedulable().Obj(),
	}, []*v1.Pod{testutil.Pod("busy").Req("cpu", "1").Node("plain").Obj()})
	withoutStatic := config.Profile{Plugins: config.Plugins{Disabled: []config.Plugin{{Name: "*"}}, Enabled: []config.Plugin{{Name: "NodePorts"}}}}
	tests := []struct {
		name    string
		profile config.Profile
		pod     *testutil.PodBuilder
		want    []string
	}{
		// Room is no static matter: the full node is eligible.
		{"taints and cordons rule nodes out", config.Profile{}, testutil.Pod("p").Req("cpu", "1"), []string{"gpu", "plain"}},
		{"a node selector", config.Profile{}, testutil.Pod("p").NodeSelector("pool", "gpu"), []string{"gpu"}},
		{"an extended resource no node has", config.Profile{}, testutil.Pod("p").Req("example.com/fpga", "1"), nil},
		{"a PreFilter rejection says nothing on static grounds", config.Profile{}, testutil.Pod("p").Affinity(conflicting()),
			[]string{"cordoned", "gpu", "plain", "tainted"}},
		{"a profile without static filters accepts every node", withoutStatic, testutil.Pod("p").NodeSelector("pool", "gpu"),
			[]string{"cordoned", "gpu", "plain", "tainted"}},
	}
	for _, tc := range tests {
		eligible, err := profileOver(t, c, tc.profile).StaticEligible(context.Background(), tc.pod.Info())
		if err != nil {
			t.Fatal(err)
		}
		var got []*framework.NodeInfo
		for _, n := range c.NodeInfos() {
			if eligible == nil || eligible(n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(names(got), tc.want) {
			t.Errorf("%s: eligible %v, want %v", tc.name, names(got), tc.want)
		}
	}
}

// SelectNode scores the feasible nodes; pack weighs how full each would be, so a group's
// members gather on few nodes instead of spreading to the emptiest.
func TestSelectNode(t *testing.T) {
	c := testutil.NewCache([]*v1.Node{
		testutil.Node("empty").Capacity("cpu", "8", "memory", "8Gi").Obj(),
		testutil.Node("half").Capacity("cpu", "8", "memory", "8Gi").Obj(),
	}, []*v1.Pod{testutil.Pod("busy").Req("cpu", "4", "memory", "4Gi").Node("half").Obj()})
	tests := []struct {
		name     string
		feasible []string
		pack     int64
		want     string
	}{
		{"the scores alone: the least allocated", []string{"empty", "half"}, 0, "empty"},
		{"pack: the fullest with the pod", []string{"empty", "half"}, 10, "half"},
		{"one feasible node needs no scoring", []string{"half"}, 0, "half"},
	}
	for _, tc := range tests {
		pf := profileOver(t, c, config.Profile{})
		p := testutil.Pod("p").Req("cpu", "2", "memory", "2Gi").Info()
		state := framework.NewCycleState()
		if st := pf.FitsOn(context.Background(), state, p, c.Get("empty")); !st.IsSuccess() {
			t.Fatal(st)
		}
		got, err := pf.SelectNode(context.Background(), state, p, nodesNamed(c, tc.feasible...), tc.pack)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: chose %s, want %s", tc.name, got, tc.want)
		}
	}
}
