package nodeaffinity

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func newPlugin(t testing.TB, args string) *NodeAffinity {
	t.Helper()
	pl, err := New(json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("New(%s): %v", args, err)
	}
	return pl.(*NodeAffinity)
}

func required(terms ...v1.NodeSelectorTerm) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms}}}
}

func preferred(terms ...v1.PreferredSchedulingTerm) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
}

func labelTerm(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: reqs}
}

func nameTerm(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchFields: reqs}
}

func nodeNamed(name string, kv ...string) *framework.NodeInfo {
	return framework.NewNodeInfo(testutil.Node(name).Labels(kv...).Obj())
}

// runFilter runs PreFilter then Filter the way the framework does (no Filter after Skip).
func runFilter(t *testing.T, pl *NodeAffinity, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	t.Helper()
	ctx, state := context.Background(), framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, p); st.IsSkip() {
		return nil
	} else if !st.IsSuccess() {
		return st
	}
	return pl.Filter(ctx, state, p, n)
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name   string
		args   string
		pod    *testutil.PodBuilder
		node   *framework.NodeInfo
		want   framework.Code
		reason string
	}{
		{name: "no constraints", pod: testutil.Pod("p"), node: nodeNamed("n1"), want: framework.Success},
		{name: "nodeSelector matches", pod: testutil.Pod("p").NodeSelector("zone", "a"), node: nodeNamed("n1", "zone", "a", "x", "y"), want: framework.Success},
		{
			name: "nodeSelector value differs", pod: testutil.Pod("p").NodeSelector("zone", "a"), node: nodeNamed("n1", "zone", "b"),
			want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "nodeSelector label missing", pod: testutil.Pod("p").NodeSelector("zone", "a"), node: nodeNamed("n1"),
			want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "required In matches",
			pod:  testutil.Pod("p").Affinity(required(labelTerm(expr("zone", v1.NodeSelectorOpIn, "a", "b")))),
			node: nodeNamed("n1", "zone", "b"), want: framework.Success,
		},
		{
			name: "required Gt fails",
			pod:  testutil.Pod("p").Affinity(required(labelTerm(expr("cores", v1.NodeSelectorOpGt, "8")))),
			node: nodeNamed("n1", "cores", "4"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "required terms are ORed",
			pod: testutil.Pod("p").Affinity(required(
				labelTerm(expr("zone", v1.NodeSelectorOpIn, "a")),
				labelTerm(expr("gpu", v1.NodeSelectorOpExists)))),
			node: nodeNamed("n1", "zone", "c", "gpu", "1"), want: framework.Success,
		},
		{
			name: "nodeSelector and affinity are ANDed",
			pod:  testutil.Pod("p").NodeSelector("zone", "a").Affinity(required(labelTerm(expr("gpu", v1.NodeSelectorOpExists)))),
			node: nodeNamed("n1", "zone", "a"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "required affinity with no terms matches no node",
			pod:  testutil.Pod("p").Affinity(required()),
			node: nodeNamed("n1"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "a term that does not parse matches no node",
			pod:  testutil.Pod("p").Affinity(required(labelTerm(expr("zone", "Like", "a")))),
			node: nodeNamed("n1", "zone", "a"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "metadata.name field",
			pod:  testutil.Pod("p").Affinity(required(nameTerm(expr(metav1.ObjectNameField, v1.NodeSelectorOpIn, "n2")))),
			node: nodeNamed("n1"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonPod,
		},
		{
			name: "added affinity rejects first",
			args: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["batch"]}]}]}}}`,
			pod:  testutil.Pod("p").NodeSelector("zone", "a"),
			node: nodeNamed("n1", "zone", "b"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonEnforced,
		},
		{
			name: "added affinity applies to pods without constraints",
			args: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["batch"]}]}]}}}`,
			pod:  testutil.Pod("p"),
			node: nodeNamed("n1"), want: framework.UnschedulableAndUnresolvable, reason: ErrReasonEnforced,
		},
		{
			name: "added affinity and the pod's both match",
			args: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["batch"]}]}]}}}`,
			pod:  testutil.Pod("p").NodeSelector("zone", "a"),
			node: nodeNamed("n1", "zone", "a", "pool", "batch"), want: framework.Success,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, tc.args)
			p := tc.pod.Info()
			st := runFilter(t, pl, p, tc.node)
			if st.Code() != tc.want || st.Message() != tc.reason {
				t.Fatalf("Filter = %v, want %v %q", st, tc.want, tc.reason)
			}
			// Without PreFilter's state, Filter falls back to PodInfo.RequiredNodeAffinity and
			// must agree.
			if st := pl.Filter(context.Background(), framework.NewCycleState(), p, tc.node); st.Code() != tc.want || st.Message() != tc.reason {
				t.Fatalf("Filter without PreFilter = %v, want %v %q", st, tc.want, tc.reason)
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	name := func(op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
		return expr(metav1.ObjectNameField, op, values...)
	}
	tests := []struct {
		name      string
		args      string
		pod       *testutil.PodBuilder
		wantCode  framework.Code
		wantNodes []string // nil: no narrowing
	}{
		{name: "nothing to check", pod: testutil.Pod("p"), wantCode: framework.Skip},
		{name: "preferred terms only", pod: testutil.Pod("p").Affinity(preferred(v1.PreferredSchedulingTerm{Weight: 1, Preference: labelTerm(expr("zone", v1.NodeSelectorOpExists))})), wantCode: framework.Skip},
		{name: "nodeSelector", pod: testutil.Pod("p").NodeSelector("zone", "a")},
		{name: "added affinity", args: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}`, pod: testutil.Pod("p")},
		{name: "label terms do not narrow", pod: testutil.Pod("p").Affinity(required(labelTerm(expr("zone", v1.NodeSelectorOpExists))))},
		{name: "one name term", pod: testutil.Pod("p").Affinity(required(nameTerm(name(v1.NodeSelectorOpIn, "n1", "n2")))), wantNodes: []string{"n1", "n2"}},
		{
			name:      "requirements of a term intersect",
			pod:       testutil.Pod("p").Affinity(required(nameTerm(name(v1.NodeSelectorOpIn, "n1", "n2"), name(v1.NodeSelectorOpIn, "n2", "n3")))),
			wantNodes: []string{"n2"},
		},
		{
			name:      "terms unite",
			pod:       testutil.Pod("p").Affinity(required(nameTerm(name(v1.NodeSelectorOpIn, "n1")), nameTerm(name(v1.NodeSelectorOpIn, "n3")))),
			wantNodes: []string{"n1", "n3"},
		},
		{
			name: "a term without a name allows every node",
			pod:  testutil.Pod("p").Affinity(required(nameTerm(name(v1.NodeSelectorOpIn, "n1")), labelTerm(expr("zone", v1.NodeSelectorOpExists)))),
		},
		{name: "NotIn does not narrow", pod: testutil.Pod("p").Affinity(required(nameTerm(name(v1.NodeSelectorOpNotIn, "n1"))))},
		{
			name:     "disjoint names conflict",
			pod:      testutil.Pod("p").Affinity(required(nameTerm(name(v1.NodeSelectorOpIn, "n1"), name(v1.NodeSelectorOpIn, "n2")))),
			wantCode: framework.UnschedulableAndUnresolvable,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, tc.args)
			res, st := pl.PreFilter(context.Background(), framework.NewCycleState(), tc.pod.Info())
			if st.Code() != tc.wantCode {
				t.Fatalf("PreFilter status = %v, want %v", st, tc.wantCode)
			}
			if tc.wantCode == framework.UnschedulableAndUnresolvable && st.Message() != ErrReasonConflict {
				t.Errorf("reason = %q, want %q", st.Message(), ErrReasonConflict)
			}
			var got []string
			if res != nil {
				for n := range res.NodeNames {
					got = append(got, n)
				}
				sort.Strings(got)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.wantNodes) || (res != nil) != (tc.wantNodes != nil) {
				t.Errorf("PreFilter nodes = %v (result %v), want %v", got, res, tc.wantNodes)
			}
		})
	}
}

func TestScore(t *testing.T) {
	pref := func(w int32, key, value string) v1.PreferredSchedulingTerm {
		return v1.PreferredSchedulingTerm{Weight: w, Preference: labelTerm(expr(key, v1.NodeSelectorOpIn, value))}
	}
	nodes := []*framework.NodeInfo{
		nodeNamed("n1"),
		nodeNamed("n2", "zone", "a"),
		nodeNamed("n3", "zone", "a", "disk", "ssd"),
		nodeNamed("n4", "disk", "ssd", "pool", "batch"),
	}
	addedPool := `{"addedAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"preference":{"matchExpressions":[{"key":"pool","operator":"In","values":["batch"]}]}}]}}`
	tests := []struct {
		name     string
		args     string
		pod      *testutil.PodBuilder
		wantSkip bool
		raw      []int64
		want     []int64
	}{
		{name: "no preferences", pod: testutil.Pod("p"), wantSkip: true},
		{
			name: "weights add up and are normalised to the best node",
			pod:  testutil.Pod("p").Affinity(preferred(pref(2, "zone", "a"), pref(6, "disk", "ssd"))),
			raw:  []int64{0, 2, 8, 6},
			want: []int64{0, 25, 100, 75},
		},
		{
			name: "no node matches",
			pod:  testutil.Pod("p").Affinity(preferred(pref(5, "zone", "z"))),
			raw:  []int64{0, 0, 0, 0},
			want: []int64{0, 0, 0, 0},
		},
		{
			name: "added preferences count for every pod",
			args: addedPool,
			pod:  testutil.Pod("p"),
			raw:  []int64{0, 0, 0, 10},
			want: []int64{0, 0, 0, 100},
		},
		{
			name: "added and the pod's preferences add up",
			args: addedPool,
			pod:  testutil.Pod("p").Affinity(preferred(pref(30, "zone", "a"))),
			raw:  []int64{0, 30, 30, 10},
			want: []int64{0, 100, 100, 33},
		},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, tc.args)
			p := tc.pod.Info()
			state := framework.NewCycleState()
			st := pl.PreScore(ctx, state, p, nodes)
			if st.IsSkip() != tc.wantSkip || (!st.IsSkip() && !st.IsSuccess()) {
				t.Fatalf("PreScore = %v, want skip=%v", st, tc.wantSkip)
			}
			if tc.wantSkip {
				return
			}
			for _, s := range []*framework.CycleState{state, framework.NewCycleState()} {
				scores := make([]int64, len(nodes))
				for i, n := range nodes {
					v, st := pl.Score(ctx, s, p, n)
					if !st.IsSuccess() {
						t.Fatalf("Score: %v", st)
					}
					if v != tc.raw[i] {
						t.Errorf("raw score of %s = %d, want %d", n.Name, v, tc.raw[i])
					}
					scores[i] = v
				}
				pl.ScoreExtensions().NormalizeScore(ctx, s, p, nodes, scores)
				for i := range scores {
					if scores[i] != tc.want[i] {
						t.Errorf("normalised score of %s = %d, want %d", nodes[i].Name, scores[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestPreScoreRejectsBadPreferredTerm(t *testing.T) {
	pl := newPlugin(t, "")
	p := testutil.Pod("p").Affinity(preferred(v1.PreferredSchedulingTerm{Weight: 1, Preference: labelTerm(expr("zone", "Like", "a"))})).Info()
	st := pl.PreScore(context.Background(), framework.NewCycleState(), p, nil)
	if st.Code() != framework.Error || !strings.Contains(st.Message(), "Like") {
		t.Fatalf("PreScore = %v, want an Error naming the operator", st)
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string
	}{
		{name: "empty"},
		{name: "null", args: "null"},
		{name: "empty object", args: "{}"},
		{name: "unknown field", args: `{"addedAffinty":{}}`, wantErr: "unknown field"},
		{name: "unknown nested field", args: `{"addedAffinity":{"required":{}}}`, wantErr: "unknown field"},
		{
			name:    "bad required operator",
			args:    `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"Like","values":["x"]}]}]}}}`,
			wantErr: "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		},
		{
			name:    "bad field selector",
			args:    `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["a","b"]}]}]}}}`,
			wantErr: "must have one element",
		},
		{
			name:    "bad preferred term",
			args:    `{"addedAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"n","operator":"Gt","values":["x"]}]}}]}}`,
			wantErr: "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(json.RawMessage(tc.args), nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestEventsToRegister(t *testing.T) {
	evs := newPlugin(t, "").EventsToRegister()
	matches := func(e framework.ClusterEvent) bool {
		for _, r := range evs {
			if r.Matches(e) {
				return true
			}
		}
		return false
	}
	for _, e := range []framework.ClusterEvent{framework.EventNodeAdd, {Resource: framework.Node, Action: framework.UpdateNodeLabel}} {
		if !matches(e) {
			t.Errorf("%v should retry the pod", e)
		}
	}
	for _, e := range []framework.ClusterEvent{framework.EventAssignedPodDelete, {Resource: framework.Node, Action: framework.UpdateNodeTaint | framework.UpdateNodeAllocatable}} {
		if matches(e) {
			t.Errorf("%v should not retry the pod", e)
		}
	}
}

// BenchmarkPreFilterFilter checks a pod with a nodeSelector and a two-term required
// affinity against 5,000 nodes running 20,000 pods (the pods do not matter to this plugin,
// but the NodeInfos are the real ones).
func BenchmarkPreFilterFilter(b *testing.B) {
	nodes := make([]*v1.Node, 5000)
	pods := make([]*v1.Pod, 0, 20000)
	for i := range nodes {
		nodes[i] = testutil.Node(fmt.Sprintf("n%d", i)).Labels(
			"topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3),
			"pool", []string{"batch", "web", "db", "infra"}[i%4],
			"cores", fmt.Sprint(8*(1+i%4)),
		).Obj()
		for k := range 4 {
			pods = append(pods, testutil.Pod(fmt.Sprintf("p%d-%d", i, k)).Node(nodes[i].Name).Obj())
		}
	}
	c := testutil.NewCache(nodes, pods)
	infos := c.NodeInfos()
	p := testutil.Pod("incoming").NodeSelector("topology.kubernetes.io/zone", "zone-1").Affinity(required(
		labelTerm(expr("pool", v1.NodeSelectorOpIn, "batch", "web"), expr("cores", v1.NodeSelectorOpGt, "8")),
		labelTerm(expr("pool", v1.NodeSelectorOpIn, "db")),
	)).Info()
	pl := newPlugin(b, "")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		pl.PreFilter(ctx, state, p)
		for _, n := range infos {
			pl.Filter(ctx, state, p, n)
		}
	}
}

func matchBenchSetup() ([]*framework.NodeInfo, *framework.PodInfo) {
	infos := make([]*framework.NodeInfo, 5000)
	for i := range infos {
		infos[i] = nodeNamed(fmt.Sprintf("n%d", i), "topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3),
			"pool", []string{"batch", "web", "db", "infra"}[i%4], "cores", fmt.Sprint(8*(1+i%4)))
	}
	p := testutil.Pod("incoming").NodeSelector("topology.kubernetes.io/zone", "zone-1").Affinity(required(
		labelTerm(expr("pool", v1.NodeSelectorOpIn, "batch", "web"), expr("cores", v1.NodeSelectorOpGt, "8")),
		labelTerm(expr("pool", v1.NodeSelectorOpIn, "db")),
	)).Info()
	return infos, p
}

// BenchmarkMatchCompiled matches the pod's required affinity on 5,000 nodes with the
// compiled matcher Filter uses.
func BenchmarkMatchCompiled(b *testing.B) {
	infos, p := matchBenchSetup()
	r := compileRequired(p.Pod)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range infos {
			r.matches(n.Node())
		}
	}
}

// BenchmarkMatchHelpers is the same through PodInfo.RequiredNodeAffinity (component-helpers),
// which allocates a fields.Set per node.
func BenchmarkMatchHelpers(b *testing.B) {
	infos, p := matchBenchSetup()
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range infos {
			p.RequiredNodeAffinity.Match(n.Node())
		}
	}
}

// TestThroughFramework runs the plugin inside a profile, with its arguments coming from
// the profile's pluginConfig, as the scheduler does.
func TestThroughFramework(t *testing.T) {
	c := testutil.NewCache([]*v1.Node{
		testutil.Node("n1").Labels("pool", "batch").Obj(),
		testutil.Node("n2").Labels("pool", "batch", "disk", "ssd").Obj(),
		testutil.Node("n3").Obj(),
	}, nil)
	prof := config.Profile{
		SchedulerName: "test",
		Plugins:       config.Plugins{Disabled: []config.Plugin{{Name: "*"}}, Enabled: []config.Plugin{{Name: Name, Weight: 2}}},
		PluginConfig: []config.PluginConfig{{Name: Name, Args: json.RawMessage(
			`{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["batch"]}]}]}}}`)}},
	}
	fwk, err := fwkruntime.New(prof, field.NewPath("profiles").Index(0), fwkruntime.Registry{Name: New}, fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(2),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, state := context.Background(), framework.NewCycleState()
	p := testutil.Pod("p").Affinity(&v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
			// A matchFields In takes exactly one value, hence a term per node.
			nameTerm(expr(metav1.ObjectNameField, v1.NodeSelectorOpIn, "n2")),
			nameTerm(expr(metav1.ObjectNameField, v1.NodeSelectorOpIn, "n3")),
		}},
		PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{
			{Weight: 4, Preference: labelTerm(expr("disk", v1.NodeSelectorOpIn, "ssd"))},
		},
	}}).Info()
	res, st := fwk.RunPreFilterPlugins(ctx, state, p)
	if !st.IsSuccess() || res == nil || len(res.NodeNames) != 2 {
		t.Fatalf("RunPreFilterPlugins = %v, %v; want n2 and n3", res, st)
	}
	want := map[string]string{"n1": ErrReasonPod, "n2": "", "n3": ErrReasonEnforced}
	for name, reason := range want {
		wantPlugin := Name
		if reason == "" {
			wantPlugin = ""
		}
		if st := fwk.RunFilterPlugins(ctx, state, p, c.Get(name)); st.Message() != reason || st.Plugin() != wantPlugin {
			t.Errorf("%s: RunFilterPlugins = %v (plugin %q), want %q", name, st, st.Plugin(), reason)
		}
	}
	nodes := c.NodeInfos()
	if st := fwk.RunPreScorePlugins(ctx, state, p, nodes); !st.IsSuccess() {
		t.Fatalf("RunPreScorePlugins: %v", st)
	}
	scores, st := fwk.RunScorePlugins(ctx, state, p, nodes)
	if !st.IsSuccess() {
		t.Fatalf("RunScorePlugins: %v", st)
	}
	for i, s := range scores {
		want := int64(0)
		if nodes[i].Name == "n2" {
			want = 200 // normalised 100, weight 2
		}
		if s != want {
			t.Errorf("total score of %s = %d, want %d", nodes[i].Name, s, want)
		}
	}
}
