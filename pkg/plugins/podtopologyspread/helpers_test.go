package podtopologyspread

import (
	"context"
	"encoding/json"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

var (
	fooSelector  = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "foo", Operator: metav1.LabelSelectorOpExists}}}
	barSelector  = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "bar", Operator: metav1.LabelSelectorOpExists}}}
	honor        = v1.NodeInclusionPolicyHonor
	ignore       = v1.NodeInclusionPolicyIgnore
	noSchedule   = v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}
	hard, soft   = v1.DoNotSchedule, v1.ScheduleAnyway
	listDefaults = json.RawMessage(`{"defaultingType":"List"}`)
)

// node makes a node with exactly the given labels (no automatic hostname label).
func node(name string, kv ...string) *v1.Node {
	n := testutil.Node(name).Obj()
	n.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func tainted(n *v1.Node) *v1.Node {
	n.Spec.Taints = append(n.Spec.Taints, noSchedule)
	return n
}

// fourNodes is the usual layout: node-a and node-b in zone1, node-x and node-y in zone2,
// with a "node" label holding the name.
func fourNodes() []*v1.Node {
	return []*v1.Node{
		node("node-a", "zone", "zone1", "node", "node-a"),
		node("node-b", "zone", "zone1", "node", "node-b"),
		node("node-x", "zone", "zone2", "node", "node-x"),
		node("node-y", "zone", "zone2", "node", "node-y"),
	}
}

// bound makes a pod on a node with labels.
func bound(name, nodeName string, kv ...string) *v1.Pod {
	return testutil.Pod(name).Node(nodeName).Labels(kv...).Obj()
}

func terminating(p *v1.Pod) *v1.Pod {
	now := metav1.Now()
	p.DeletionTimestamp = &now
	return p
}

type constraintOpt func(*v1.TopologySpreadConstraint)

func minDomains(n int32) constraintOpt {
	return func(c *v1.TopologySpreadConstraint) { c.MinDomains = &n }
}

func affinityPolicy(p v1.NodeInclusionPolicy) constraintOpt {
	return func(c *v1.TopologySpreadConstraint) { c.NodeAffinityPolicy = &p }
}

func taintsPolicy(p v1.NodeInclusionPolicy) constraintOpt {
	return func(c *v1.TopologySpreadConstraint) { c.NodeTaintsPolicy = &p }
}

func matchLabelKeys(keys ...string) constraintOpt {
	return func(c *v1.TopologySpreadConstraint) { c.MatchLabelKeys = keys }
}

func spread(maxSkew int32, key string, when v1.UnsatisfiableConstraintAction, sel *metav1.LabelSelector, opts ...constraintOpt) v1.TopologySpreadConstraint {
	c := v1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: sel}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// incoming makes the pod to schedule, labelled with kv and the given constraints.
func incoming(kv []string, cs ...v1.TopologySpreadConstraint) *testutil.PodBuilder {
	b := testutil.Pod("p").Labels(kv...)
	for _, c := range cs {
		b.SpreadConstraint(c)
	}
	return b
}

func nodeAffinityIn(key string, values ...string) *v1.Affinity {
	return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}}}},
	}}}
}

// setup builds the cache and the plugin over it.
func setup(t testing.TB, args json.RawMessage, nodes []*v1.Node, pods []*v1.Pod) (*PodTopologySpread, *cache.Cache) {
	t.Helper()
	c := testutil.NewCache(nodes, pods)
	pl, err := New(args, &testutil.Handle{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*PodTopologySpread), c
}

// filterAll runs PreFilter and then Filter on every node; a Skip from PreFilter counts as
// success everywhere.
func filterAll(t *testing.T, pl *PodTopologySpread, c *cache.Cache, pod *v1.Pod) map[string]*framework.Status {
	t.Helper()
	ctx := context.Background()
	p := framework.NewPodInfo(pod)
	state := framework.NewCycleState()
	out := map[string]*framework.Status{}
	_, st := pl.PreFilter(ctx, state, p)
	if st.IsSkip() {
		for _, n := range c.NodeInfos() {
			out[n.Name] = nil
		}
		return out
	}
	if !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	for _, n := range c.NodeInfos() {
		out[n.Name] = pl.Filter(ctx, state, p, n)
	}
	return out
}

// scoreAll runs PreScore with the named nodes as the filtered ones (nil: all), then Score
// and NormalizeScore on them.
func scoreAll(t *testing.T, pl *PodTopologySpread, c *cache.Cache, pod *v1.Pod, filtered []string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	p := framework.NewPodInfo(pod)
	state := framework.NewCycleState()
	var nodes []*framework.NodeInfo
	if filtered == nil {
		nodes = c.NodeInfos()
	}
	for _, name := range filtered {
		nodes = append(nodes, c.Get(name))
	}
	st := pl.PreScore(ctx, state, p, nodes)
	if st.IsSkip() {
		return nil
	}
	if !st.IsSuccess() {
		t.Fatalf("PreScore: %v", st)
	}
	scores := make([]int64, len(nodes))
	for i, n := range nodes {
		s, st := pl.Score(ctx, state, p, n)
		if !st.IsSuccess() {
			t.Fatalf("Score(%s): %v", n.Name, st)
		}
		scores[i] = s
	}
	if st := pl.NormalizeScore(ctx, state, p, nodes, scores); !st.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", st)
	}
	out := map[string]int64{}
	for i, s := range scores {
		out[nodes[i].Name] = s
	}
	return out
}
