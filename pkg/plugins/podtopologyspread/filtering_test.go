package podtopologyspread

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const (
	ok  = framework.Success
	un  = framework.Unschedulable
	unr = framework.UnschedulableAndUnresolvable
)

// The cases and expectations follow kube-scheduler's own filter tests.
func TestFilter(t *testing.T) {
	foo := []string{"foo", ""}
	fooBar := []string{"foo", "", "bar", ""}
	spread231 := []*v1.Pod{ // 2/1/0/3 on node-a/b/x/y
		bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", ""),
		bound("p-b1", "node-b", "foo", ""),
		bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "foo", ""), bound("p-y3", "node-y", "foo", ""),
	}
	inclusionNodes := func(taintY bool) []*v1.Node {
		ns := []*v1.Node{
			node("node-a", "node", "node-a", "foo", ""),
			node("node-b", "node", "node-b", "foo", ""),
			node("node-x", "node", "node-x", "foo", ""),
			node("node-y", "node", "node-y"),
		}
		if taintY {
			tainted(ns[3])
		}
		return ns
	}
	inclusionPods := []*v1.Pod{bound("p-a", "node-a", "foo", ""), bound("p-b", "node-b", "foo", ""), bound("p-y", "node-y", "foo", "")}
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		pods  []*v1.Pod
		want  map[string]framework.Code
	}{
		{
			name:  "no existing pods",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "existing pods in another namespace do not count",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				func() *v1.Pod { p := bound("p-a1", "node-a", "foo", ""); p.Namespace = "ns1"; return p }(),
				func() *v1.Pod { p := bound("p-b1", "node-a", "foo", ""); p.Namespace = "ns2"; return p }(),
				bound("p-x1", "node-x", "foo", ""), bound("p-y1", "node-y", "foo", ""),
			},
			want: map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": un, "node-y": un},
		},
		{
			name:  "nil selector matches no pod, not even the incoming one",
			pod:   incoming(foo, spread(1, "zone", hard, nil)).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-x1", "node-x", "foo", ""), bound("p-y1", "node-y", "foo", "")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			// Upstream counts nothing for {}, yet the pod matches itself: skew 1 everywhere.
			name:  "empty selector counts no pod but the incoming one matches it",
			pod:   incoming(foo, spread(1, "zone", hard, &metav1.LabelSelector{})).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "zones 3/3, all nodes fit",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name: "node-b lacks the zone label: its pods do not count, and it is unresolvable",
			pod:  incoming(foo, spread(1, "zone", hard, fooSelector)).Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", "node", "node-a"),
				node("node-b", "zon", "zone1", "node", "node-b"),
				node("node-x", "zone", "zone2", "node", "node-x"),
				node("node-y", "zone", "zone2", "node", "node-y"),
			},
			pods: []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", ""), bound("p-x1", "node-x", "foo", ""), bound("p-y1", "node-y", "foo", "")},
			want: map[string]framework.Code{"node-a": ok, "node-b": unr, "node-x": un, "node-y": un},
		},
		{
			name:  "no node has the key",
			pod:   incoming(foo, spread(1, "rack", hard, fooSelector)).Obj(),
			nodes: []*v1.Node{node("node-a", "zone", "zone1"), node("node-x", "zone", "zone2")},
			want:  map[string]framework.Code{"node-a": unr, "node-x": unr},
		},
		{
			name:  "nodes 2/1/0/3, maxSkew 1: only the empty node",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "nodes 2/1/0/3, maxSkew 2",
			pod:   incoming(foo, spread(2, "node", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": un, "node-b": ok, "node-x": ok, "node-y": un},
		},
		{
			name:  "nodes 2/1/0/3, incoming pod does not match itself",
			pod:   incoming([]string{"bar", ""}, spread(1, "node", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": un, "node-b": ok, "node-x": ok, "node-y": un},
		},
		{
			name:  "node affinity restricts the domains to node-a and node-y (2/3)",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector)).Affinity(nodeAffinityIn("node", "node-a", "node-y")).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": un},
		},
		{
			name:  "node affinity excludes node-b: its pods do not count in zone1",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector)).Affinity(&v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "node", Operator: v1.NodeSelectorOpNotIn, Values: []string{"node-b"}}}}}}}}).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-b1", "node-b", "foo", ""), bound("p-b2", "node-b", "foo", ""), bound("p-y1", "node-y", "foo", "")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": un, "node-y": un},
		},
		{
			name:  "terminating pods do not count",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector)).Obj(),
			nodes: []*v1.Node{node("node-a", "node", "node-a"), node("node-b", "node", "node-b")},
			pods:  []*v1.Pod{terminating(bound("p-a", "node-a", "foo", "")), bound("p-b", "node-b", "foo", "")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": un},
		},
		{
			name:  "nodes 2/2/1, fewer domains than minDomains: the global minimum is 0",
			pod:   incoming(foo, spread(2, "node", hard, fooSelector, minDomains(4))).Obj(),
			nodes: []*v1.Node{node("node-a", "node", "node-a"), node("node-b", "node", "node-b"), node("node-c", "node", "node-c")},
			pods:  []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", ""), bound("p-b2", "node-b", "foo", ""), bound("p-c1", "node-c", "foo", "")},
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-c": ok},
		},
		{
			name:  "nodes 2/2/1, enough domains for minDomains",
			pod:   incoming(foo, spread(2, "node", hard, fooSelector, minDomains(2))).Obj(),
			nodes: []*v1.Node{node("node-a", "node", "node-a"), node("node-b", "node", "node-b"), node("node-c", "node", "node-c")},
			pods:  []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", ""), bound("p-b2", "node-b", "foo", ""), bound("p-c1", "node-c", "foo", "")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-c": ok},
		},
		{
			name:  "zones 2/1, fewer domains than minDomains",
			pod:   incoming(foo, spread(2, "zone", hard, fooSelector, minDomains(3))).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-1", "node-a", "foo", ""), bound("p-2", "node-b", "foo", ""), bound("p-3", "node-y", "foo", "")},
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name:  "nodeAffinityPolicy Honor with nodeSelector: node-y is not a domain (1/1/0/~1~)",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector)).NodeSelector("foo", "").Obj(),
			nodes: inclusionNodes(false),
			pods:  inclusionPods,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name:  "nodeAffinityPolicy Ignore with nodeSelector",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector, affinityPolicy(ignore))).NodeSelector("foo", "").Obj(),
			nodes: inclusionNodes(false),
			pods:  inclusionPods,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "nodeAffinityPolicy Honor with required node affinity",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector)).Affinity(nodeAffinityIn("foo", "")).Obj(),
			nodes: inclusionNodes(false),
			pods:  inclusionPods,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name:  "nodeTaintsPolicy Honor: the tainted node is not a domain",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector, taintsPolicy(honor))).Obj(),
			nodes: inclusionNodes(true),
			pods:  inclusionPods,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name:  "nodeTaintsPolicy Honor with a tolerated taint",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector, taintsPolicy(honor))).Toleration(v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists}).Obj(),
			nodes: inclusionNodes(true),
			pods:  inclusionPods,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "nodeTaintsPolicy Ignore (default)",
			pod:   incoming(foo, spread(1, "node", hard, fooSelector)).Obj(),
			nodes: inclusionNodes(true),
			pods:  inclusionPods,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "zone and node, spreads 3/3 and 2/1/0/3",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "zone and node, spreads 3/4 and 2/1/0/4",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  append(append([]*v1.Pod{}, spread231...), bound("p-y4", "node-y", "foo", "")),
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": un, "node-y": un},
		},
		{
			name:  "different selectors, spreads 1/0 and 1/0/0/1",
			pod:   incoming(fooBar, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, barSelector)).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-y1", "node-y", "bar", "")},
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "different selectors, spreads 2/3 and 1/0/0/1",
			pod:   incoming(fooBar, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, barSelector)).Obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", "", "bar", ""),
				bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "foo", "", "bar", ""), bound("p-y3", "node-y", "foo", ""),
			},
			want: map[string]framework.Code{"node-a": un, "node-b": ok, "node-x": un, "node-y": un},
		},
		{
			name:  "different selectors, the pod does not match the zone one",
			pod:   incoming([]string{"bar", ""}, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, barSelector)).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-x1", "node-x", "bar", ""), bound("p-y1", "node-y", "bar", "")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": un, "node-y": un},
		},
		{
			// node-x lacks "node", so it is no domain of either constraint and its pods do
			// not count; Filter rejects it as unresolvable.
			name: "zone and node, node-x lacks the node label",
			pod:  incoming(foo, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector)).Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", "node", "node-a"),
				node("node-b", "zone", "zone1", "node", "node-b"),
				node("node-x", "zone", "zone2"),
				node("node-y", "zone", "zone2", "node", "node-y"),
			},
			pods: []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-y3", "node-y", "foo", "")},
			want: map[string]framework.Code{"node-a": un, "node-b": ok, "node-x": unr, "node-y": un},
		},
		{
			// node-x lacks "rack" but fails the zone constraint first: Unschedulable.
			name:  "constraints are checked in order",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector), spread(1, "rack", hard, fooSelector)).Obj(),
			nodes: []*v1.Node{node("node-a", "zone", "zone1", "rack", "r1"), node("node-x", "zone", "zone2"), node("node-y", "zone", "zone2", "rack", "r2"), node("node-z", "zone", "zone1")},
			pods:  []*v1.Pod{bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "foo", "")},
			want:  map[string]framework.Code{"node-a": ok, "node-x": un, "node-y": un, "node-z": unr},
		},
		{
			name: "zone honor/ignore, node ignore/ignore",
			pod: incoming(foo, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector, affinityPolicy(ignore))).
				NodeSelector("foo", "").Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", "node", "node-a", "foo", ""),
				node("node-b", "zone", "zone1", "node", "node-b", "foo", ""),
				node("node-x", "zone", "zone2", "node", "node-x", "foo", ""),
				node("node-y", "zone", "zone2", "node", "node-y"),
			},
			pods: inclusionPods,
			want: map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name: "zone honor/honor, node honor/ignore",
			pod:  incoming(foo, spread(1, "zone", hard, fooSelector, taintsPolicy(honor)), spread(1, "node", hard, fooSelector)).Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", "node", "node-a", "foo", ""),
				node("node-b", "zone", "zone1", "node", "node-b", "foo", ""),
				node("node-x", "zone", "zone2", "node", "node-x", "foo", ""),
				tainted(node("node-y", "zone", "zone2", "node", "node-y")),
			},
			pods: inclusionPods,
			want: map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name: "zone honor/ignore, node honor/ignore",
			pod: incoming(foo, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector)).
				NodeSelector("foo", "").Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", "node", "node-a", "foo", ""),
				node("node-b", "zone", "zone1", "node", "node-b"),
				node("node-x", "zone", "zone2", "node", "node-x", "foo", ""),
				tainted(node("node-y", "zone", "zone2", "node", "node-y", "foo", "")),
			},
			pods: inclusionPods,
			want: map[string]framework.Code{"node-a": un, "node-b": ok, "node-x": ok, "node-y": un},
		},
		{
			name: "zone honor/honor, node ignore/ignore",
			pod: incoming(foo, spread(1, "zone", hard, fooSelector, taintsPolicy(honor)), spread(1, "node", hard, fooSelector, affinityPolicy(ignore))).
				NodeSelector("foo", "").Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", "node", "node-a", "foo", ""),
				node("node-b", "zone", "zone1", "node", "node-b"),
				node("node-x", "zone", "zone2", "node", "node-x", "foo", ""),
				tainted(node("node-y", "zone", "zone2", "node", "node-y", "foo", "")),
			},
			pods: inclusionPods,
			want: map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": un},
		},
		{
			name:  "two constraints on zone, spreads 3/3 and 2/1",
			pod:   incoming(fooBar, spread(1, "zone", hard, barSelector), spread(1, "zone", hard, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				bound("p-a1", "node-a", "foo", "", "bar", ""), bound("p-a2", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", "", "bar", ""),
				bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "foo", "", "bar", ""), bound("p-y3", "node-y", "foo", ""),
			},
			want: map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			// bar=a is ANDed in: only p-a2 and p-y1 count, 1/1 per zone.
			name:  "matchLabelKeys ANDed with the selector",
			pod:   incoming([]string{"foo", "", "bar", "a"}, spread(1, "zone", hard, fooSelector, matchLabelKeys("bar"))).Obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", "", "bar", "a"), bound("p-b1", "node-b", "foo", ""),
				bound("p-y1", "node-y", "foo", "", "bar", "a"), bound("p-y2", "node-y", "bar", ""),
			},
			want: map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			// {} with matchLabelKeys becomes foo=a and counts 3/2.
			name:  "matchLabelKeys with an empty selector",
			pod:   incoming([]string{"foo", "a"}, spread(1, "zone", hard, &metav1.LabelSelector{}, matchLabelKeys("foo"))).Obj(),
			nodes: fourNodes(),
			pods: []*v1.Pod{
				bound("p-a1", "node-a", "foo", "a"), bound("p-a2", "node-a", "foo", "a"), bound("p-b1", "node-b", "foo", "a"),
				bound("p-y1", "node-y", "foo", "a"), bound("p-y2", "node-y", "foo", "a"),
			},
			want: map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name:  "matchLabelKeys with a nil selector still matches nothing",
			pod:   incoming([]string{"foo", "a"}, spread(1, "zone", hard, nil, matchLabelKeys("foo"))).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-a1", "node-a", "foo", "a"), bound("p-a2", "node-a", "foo", "a")},
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name:  "matchLabelKeys naming a label the pod lacks is ignored",
			pod:   incoming(foo, spread(1, "zone", hard, fooSelector, matchLabelKeys("bar"))).Obj(),
			nodes: fourNodes(),
			pods:  []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", "", "bar", "x")},
			want:  map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name:  "soft constraints do not filter",
			pod:   incoming(foo, spread(1, "node", soft, fooSelector)).Obj(),
			nodes: fourNodes(),
			pods:  spread231,
			want:  map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, c := setup(t, listDefaults, tt.nodes, tt.pods)
			got := filterAll(t, pl, c, tt.pod)
			for name, want := range tt.want {
				st := got[name]
				if st.Code() != want {
					t.Errorf("%s: got %v, want %v", name, st, want)
					continue
				}
				switch want {
				case un:
					if st.Message() != ErrReasonConstraintsNotMatch || !IsSkewRejection(st) {
						t.Errorf("%s: reason %q", name, st.Message())
					}
				case unr:
					if st.Message() != ErrReasonNodeLabelNotMatch || IsSkewRejection(st) {
						t.Errorf("%s: reason %q", name, st.Message())
					}
				}
			}
		})
	}
}

func TestPreFilterSkipsPodsWithoutHardConstraints(t *testing.T) {
	pl, _ := setup(t, nil, fourNodes(), nil)
	for name, pod := range map[string]*v1.Pod{
		"no constraints":   incoming([]string{"foo", ""}).Obj(),
		"soft constraints": incoming([]string{"foo", ""}, spread(1, "zone", soft, fooSelector)).Obj(),
	} {
		state := framework.NewCycleState()
		if _, st := pl.PreFilter(t.Context(), state, framework.NewPodInfo(pod)); !st.IsSkip() {
			t.Errorf("%s: PreFilter = %v, want Skip", name, st)
		}
	}
}

func TestPreFilterBadSelectorIsAnError(t *testing.T) {
	pl, _ := setup(t, nil, fourNodes(), nil)
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "foo", Operator: "Bogus"}}}
	pod := incoming([]string{"foo", ""}, spread(1, "zone", hard, bad)).Obj()
	if _, st := pl.PreFilter(t.Context(), framework.NewCycleState(), framework.NewPodInfo(pod)); st.Code() != framework.Error {
		t.Errorf("PreFilter = %v, want Error", st)
	}
}

func TestPreFilterOnEmptyCluster(t *testing.T) {
	pl, c := setup(t, nil, nil, nil)
	pod := incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj()
	if got := filterAll(t, pl, c, pod); len(got) != 0 {
		t.Errorf("statuses for nodes of an empty cluster: %v", got)
	}
}

func TestFilterWithoutPreFilterIsAnError(t *testing.T) {
	pl, c := setup(t, nil, fourNodes(), nil)
	pod := framework.NewPodInfo(incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj())
	if st := pl.Filter(t.Context(), framework.NewCycleState(), pod, c.Get("node-a")); st.Code() != framework.Error {
		t.Errorf("Filter = %v, want Error", st)
	}
}

// The index must follow node changes between cycles: a relabelled node moves domains, a
// new node adds one.
func TestFilterFollowsNodeChanges(t *testing.T) {
	pods := []*v1.Pod{bound("p-a1", "node-a", "foo", "")}
	pl, c := setup(t, nil, []*v1.Node{node("node-a", "zone", "zone1"), node("node-b", "zone", "zone2")}, pods)
	pod := incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj()
	check := func(want map[string]framework.Code) {
		t.Helper()
		got := filterAll(t, pl, c, pod)
		for n, w := range want {
			if got[n].Code() != w {
				t.Errorf("%s: got %v, want %v", n, got[n], w)
			}
		}
	}
	check(map[string]framework.Code{"node-a": un, "node-b": ok})
	c.Nodes().AddNode(node("node-b", "zone", "zone1")) // same name, new object, moved zone
	check(map[string]framework.Code{"node-a": ok, "node-b": ok})
	c.Nodes().AddNode(node("node-c", "zone", "zone3"))
	check(map[string]framework.Code{"node-a": un, "node-b": un, "node-c": ok})
	n := node("node-c", "zone", "zone3")
	n.Spec.Unschedulable = true // a change that keeps the labels
	c.Nodes().AddNode(n)
	check(map[string]framework.Code{"node-a": un, "node-b": un, "node-c": ok})
}

// A node the cycle's index does not know is judged from its labels.
func TestFilterUnknownNode(t *testing.T) {
	pl, _ := setup(t, nil, fourNodes(), []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", "")})
	p := framework.NewPodInfo(incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj())
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(t.Context(), state, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	for _, tt := range []struct {
		node *v1.Node
		want framework.Code
	}{
		{node("stranger-1", "zone", "zone1"), un}, // zone1 holds 2, zone2 0
		{node("stranger-2", "zone", "zone2"), ok}, // 0+1-0
		{node("stranger-3", "zone", "zone9"), ok}, // no such domain: counts 0
		{node("stranger-4", "rack", "r1"), unr},   // no zone label
	} {
		if st := pl.Filter(t.Context(), state, p, framework.NewNodeInfo(tt.node)); st.Code() != tt.want {
			t.Errorf("%s: %v, want %v", tt.node.Name, st, tt.want)
		}
	}
}

// Filter on many nodes and preemption-style updates of cloned states run concurrently;
// with -race this checks that they only read what they share.
func TestConcurrentFilterAndClones(t *testing.T) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 64 {
		name := fmt.Sprintf("n-%02d", i)
		nodes = append(nodes, node(name, "zone", fmt.Sprintf("z%d", i%4), "node", name))
		pods = append(pods, bound("p-"+name, name, "foo", ""))
	}
	pl, c := setup(t, nil, nodes, pods)
	p := framework.NewPodInfo(incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector)).Obj())
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(t.Context(), state, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	infos := c.NodeInfos()
	framework.NewParallelizer(4).Until(t.Context(), 2*len(infos), func(i int) {
		n := infos[i%len(infos)]
		if i < len(infos) {
			pl.Filter(t.Context(), state, p, n)
			return
		}
		clone := state.Clone()
		q := c.Nodes().Pod("default/p-" + n.Name)
		pl.RemovePod(t.Context(), clone, p, q, n)
		pl.Filter(t.Context(), clone, p, n)
		pl.AddPod(t.Context(), clone, p, q, n)
	})
}

// Pods of several node selections interleaved, with a node relabelled in between, get the
// same verdicts from a plugin that keeps their nodeAffinityPolicy masks as from a fresh one.
func TestAffinityMasksOfInterleavedSelections(t *testing.T) {
	pods := []*v1.Pod{
		bound("p-a1", "node-a", "foo", ""), bound("p-a2", "node-a", "foo", ""),
		bound("p-x1", "node-x", "foo", ""),
	}
	pl, c := setup(t, nil, fourNodes(), pods)
	inZone := func(zone string) *v1.Pod {
		return incoming([]string{"foo", ""}, spread(1, "node", hard, fooSelector)).NodeSelector("zone", zone).Obj()
	}
	withAffinity := func(names ...string) *v1.Pod {
		p := incoming([]string{"foo", ""}, spread(1, "node", hard, fooSelector)).Obj()
		p.Spec.Affinity = nodeAffinityIn("node", names...)
		return p
	}
	steps := []struct {
		name    string
		relabel *v1.Node // applied before the pod is filtered
		pod     *v1.Pod
	}{
		{name: "zone1", pod: inZone("zone1")},
		{name: "zone2", pod: inZone("zone2")},
		{name: "affinity a, x", pod: withAffinity("node-a", "node-x")},
		{name: "zone1 again", pod: inZone("zone1")},
		{name: "node-y moves to zone1", relabel: node("node-y", "zone", "zone1", "node", "node-y"), pod: inZone("zone1")},
		{name: "zone2 after the move", pod: inZone("zone2")},
		{name: "affinity a, x again", pod: withAffinity("node-a", "node-x")},
	}
	for _, s := range steps {
		if s.relabel != nil {
			c.Nodes().AddNode(s.relabel)
		}
		got := filterAll(t, pl, c, s.pod)
		fresh, err := New(nil, &testutil.Handle{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		want := filterAll(t, fresh.(*PodTopologySpread), c, s.pod)
		for n, w := range want {
			if got[n].Code() != w.Code() {
				t.Errorf("%s: %s: got %v, want %v", s.name, n, got[n], w)
			}
		}
	}
}
