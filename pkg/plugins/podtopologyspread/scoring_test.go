package podtopologyspread

import (
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

const hostname = v1.LabelHostname

func hostNodes(names ...string) []*v1.Node {
	out := make([]*v1.Node, len(names))
	for i, n := range names {
		out[i] = node(n, hostname, n)
	}
	return out
}

func zoneHostNodes() []*v1.Node {
	return []*v1.Node{
		node("node-a", "zone", "zone1", hostname, "node-a"),
		node("node-b", "zone", "zone1", hostname, "node-b"),
		node("node-x", "zone", "zone2", hostname, "node-x"),
		node("node-y", "zone", "zone2", hostname, "node-y"),
	}
}

// pods makes n pods labelled kv on each node, named after the node.
func podsOn(counts map[string]int, kv ...string) []*v1.Pod {
	var out []*v1.Pod
	for n, c := range counts {
		for i := range c {
			out = append(out, bound(n+"-"+string(rune('a'+i))+kv[0], n, kv...))
		}
	}
	return out
}

func ownedByReplicaSet(p *v1.Pod) *v1.Pod {
	yes := true
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: &yes}}
	return p
}

// The cases and expectations follow kube-scheduler's own score tests (System defaulting).
func TestScore(t *testing.T) {
	foo := []string{"foo", ""}
	fooBar := []string{"foo", "", "bar", ""}
	pods2103 := podsOn(map[string]int{"node-a": 2, "node-b": 1, "node-d": 3}, "foo", "")
	pods4321 := podsOn(map[string]int{"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}, "foo", "")
	pods4213 := podsOn(map[string]int{"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}, "foo", "")
	differentSelectors := []*v1.Pod{ // zone (foo) 2/2/1/1, node (bar) 0/1/0/1
		bound("p-a1", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", "", "bar", ""),
		bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "bar", ""),
	}
	inclusionNodes := func() []*v1.Node {
		return []*v1.Node{
			node("node-a", "node", "node-a", "foo", ""),
			node("node-b", "node", "node-b", "foo", ""),
			node("node-c", "node", "node-c"),
		}
	}
	inclusionPods := podsOn(map[string]int{"node-a": 2, "node-b": 1, "node-c": 1}, "foo", "")
	tests := []struct {
		name     string
		pod      *v1.Pod
		nodes    []*v1.Node
		pods     []*v1.Pod
		filtered []string // nil: all nodes passed Filter
		want     map[string]int64
	}{
		{
			name:  "hostname, no existing pods",
			pod:   incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b"),
			want:  map[string]int64{"node-a": 100, "node-b": 100},
		},
		{
			name:     "hostname, one candidate",
			pod:      incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes:    hostNodes("node-a", "node-b"),
			pods:     podsOn(map[string]int{"node-a": 2, "node-b": 1}, "foo", ""),
			filtered: []string{"node-a"},
			want:     map[string]int64{"node-a": 100},
		},
		{
			name:  "hostname, equal counts",
			pod:   incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b"),
			pods:  podsOn(map[string]int{"node-a": 1, "node-b": 1}, "foo", ""),
			want:  map[string]int64{"node-a": 100, "node-b": 100},
		},
		{
			name:  "hostname, 2/1/0/3",
			pod:   incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b", "node-c", "node-d"),
			pods:  pods2103,
			want:  map[string]int64{"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
		},
		{
			name:  "hostname, nil selector",
			pod:   incoming(foo, spread(1, hostname, soft, nil)).Obj(),
			nodes: hostNodes("node-a", "node-b", "node-c", "node-d"),
			pods:  pods2103,
			want:  map[string]int64{"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
		},
		{
			name:  "hostname, 2/1/0/3, maxSkew 2",
			pod:   incoming(foo, spread(2, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b", "node-c", "node-d"),
			pods:  pods2103,
			want:  map[string]int64{"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
		},
		{
			name:  "hostname, 4/3/2/1, maxSkew 3",
			pod:   incoming(foo, spread(3, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b", "node-c", "node-d"),
			pods:  pods4321,
			want:  map[string]int64{"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
		},
		{
			// Upstream selects through a Service here; phalanx through the owner. Nodes
			// lack the zone label, which the system defaults tolerate.
			name:  "system defaults, nodes without zone, pod owned by a ReplicaSet",
			pod:   ownedByReplicaSet(incoming(foo).Obj()),
			nodes: hostNodes("node-a", "node-b", "node-c", "node-d"),
			pods:  pods4321,
			want:  map[string]int64{"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
		},
		{
			name:  "system defaults do not apply to pods without a controller",
			pod:   incoming(foo).Obj(),
			nodes: hostNodes("node-a", "node-b"),
			pods:  pods4321,
			want:  nil, // Skip
		},
		{
			name:     "hostname, 4/2/1/~3~",
			pod:      incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes:    hostNodes("node-a", "node-b", "node-x", "node-y"),
			pods:     pods4213,
			filtered: []string{"node-a", "node-b", "node-x"},
			want:     map[string]int64{"node-a": 33, "node-b": 83, "node-x": 100},
		},
		{
			name:     "hostname, 4/?2?/1/~3~: node-b lacks the key",
			pod:      incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes:    []*v1.Node{node("node-a", hostname, "node-a"), node("node-b", "n", "node-b"), node("node-x", hostname, "node-x"), node("node-y", hostname, "node-y")},
			pods:     pods4213,
			filtered: []string{"node-a", "node-b", "node-x"},
			want:     map[string]int64{"node-a": 16, "node-b": 0, "node-x": 100},
		},
		{
			name:     "zone, 4/2/1/~3~",
			pod:      incoming(foo, spread(1, "zone", soft, fooSelector)).Obj(),
			nodes:    zoneHostNodes(),
			pods:     pods4213,
			filtered: []string{"node-a", "node-b", "node-x"},
			want:     map[string]int64{"node-a": 75, "node-b": 75, "node-x": 100},
		},
		{
			name:     "zone and hostname, 2/~1~/2/~4~",
			pod:      incoming(foo, spread(1, "zone", soft, fooSelector), spread(1, hostname, soft, fooSelector)).Obj(),
			nodes:    zoneHostNodes(),
			pods:     podsOn(map[string]int{"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}, "foo", ""),
			filtered: []string{"node-a", "node-x"},
			want:     map[string]int64{"node-a": 100, "node-x": 63},
		},
		{
			name: "two zone constraints, 2 of 4 candidates",
			pod:  incoming(fooBar, spread(1, "zone", soft, fooSelector), spread(1, "zone", soft, barSelector)).Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1"), node("node-b", "zone", "zone1"),
				node("node-x", "zone", "zone2"), node("node-y", "zone", "zone2"),
			},
			pods: []*v1.Pod{
				bound("p-a1", "node-a", "foo", "", "bar", ""), bound("p-a2", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", "", "bar", ""),
				bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "foo", "", "bar", ""), bound("p-y3", "node-y", "foo", ""),
			},
			filtered: []string{"node-a", "node-x"},
			want:     map[string]int64{"node-a": 85, "node-x": 100},
		},
		{
			name:  "zone and hostname with different selectors",
			pod:   incoming(fooBar, spread(1, "zone", soft, fooSelector), spread(1, hostname, soft, barSelector)).Obj(),
			nodes: zoneHostNodes(),
			pods:  differentSelectors,
			want:  map[string]int64{"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
		},
		{
			name:  "zone and hostname with different selectors, empty nodes",
			pod:   incoming(fooBar, spread(1, "zone", soft, fooSelector), spread(1, hostname, soft, barSelector)).Obj(),
			nodes: zoneHostNodes(),
			pods:  []*v1.Pod{bound("p-b1", "node-b", "bar", ""), bound("p-x1", "node-x", "foo", ""), bound("p-y1", "node-y", "foo", "", "bar", "")},
			want:  map[string]int64{"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
		},
		{
			name:     "zone and hostname with different selectors, 3 of 4 candidates",
			pod:      incoming(fooBar, spread(1, "zone", soft, fooSelector), spread(1, hostname, soft, barSelector)).Obj(),
			nodes:    zoneHostNodes(),
			pods:     differentSelectors,
			filtered: []string{"node-a", "node-b", "node-x"},
			want:     map[string]int64{"node-a": 50, "node-b": 25, "node-x": 100},
		},
		{
			name:  "pods in another namespace do not count",
			pod:   incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b"),
			pods: []*v1.Pod{
				func() *v1.Pod { p := bound("p-a1", "node-a", "foo", ""); p.Namespace = "ns1"; return p }(),
				bound("p-a2", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", ""), bound("p-b2", "node-b", "foo", ""),
			},
			want: map[string]int64{"node-a": 100, "node-b": 33},
		},
		{
			name:  "terminating pods do not count",
			pod:   incoming(foo, spread(1, hostname, soft, fooSelector)).Obj(),
			nodes: hostNodes("node-a", "node-b"),
			pods:  []*v1.Pod{terminating(bound("p-a", "node-a", "foo", "")), bound("p-b", "node-b", "foo", "")},
			want:  map[string]int64{"node-a": 100, "node-b": 0},
		},
		{
			name:  "minDomains has no effect on scoring",
			pod:   incoming(foo, spread(2, "node", soft, fooSelector, minDomains(10))).Obj(),
			nodes: []*v1.Node{node("node-a", "node", "node-a"), node("node-b", "node", "node-b"), node("node-c", "node", "node-c")},
			pods:  podsOn(map[string]int{"node-a": 2, "node-b": 2, "node-c": 1}, "foo", ""),
			want:  map[string]int64{"node-a": 75, "node-b": 75, "node-c": 100},
		},
		{
			name:  "nodeAffinityPolicy Honor with nodeSelector",
			pod:   incoming(foo, spread(1, "node", soft, fooSelector)).NodeSelector("foo", "").Obj(),
			nodes: inclusionNodes(),
			pods:  inclusionPods,
			want:  map[string]int64{"node-a": 0, "node-b": 33, "node-c": 100},
		},
		{
			name:  "nodeAffinityPolicy Ignore with nodeSelector",
			pod:   incoming(foo, spread(1, "node", soft, fooSelector, affinityPolicy(ignore))).NodeSelector("foo", "").Obj(),
			nodes: inclusionNodes(),
			pods:  inclusionPods,
			want:  map[string]int64{"node-a": 66, "node-b": 100, "node-c": 100},
		},
		{
			name:  "nodeAffinityPolicy Honor with node affinity",
			pod:   incoming(foo, spread(1, "node", soft, fooSelector)).Affinity(nodeAffinityIn("foo", "")).Obj(),
			nodes: inclusionNodes(),
			pods:  inclusionPods,
			want:  map[string]int64{"node-a": 0, "node-b": 33, "node-c": 100},
		},
		{
			name:  "nodeTaintsPolicy Honor",
			pod:   incoming(foo, spread(1, "node", soft, fooSelector, taintsPolicy(honor))).Obj(),
			nodes: []*v1.Node{node("node-a", "node", "node-a"), node("node-b", "node", "node-b"), tainted(node("node-c", "node", "node-c"))},
			pods:  inclusionPods,
			want:  map[string]int64{"node-a": 0, "node-b": 33, "node-c": 100},
		},
		{
			name:  "nodeTaintsPolicy Ignore",
			pod:   incoming(foo, spread(1, "node", soft, fooSelector)).Obj(),
			nodes: []*v1.Node{node("node-a", "node", "node-a"), node("node-b", "node", "node-b"), tainted(node("node-c", "node", "node-c"))},
			pods:  inclusionPods,
			want:  map[string]int64{"node-a": 66, "node-b": 100, "node-c": 100},
		},
		{
			name: "matchLabelKeys with empty selectors",
			pod:  incoming(fooBar, spread(1, "zone", soft, &metav1.LabelSelector{}, matchLabelKeys("foo")), spread(1, hostname, soft, &metav1.LabelSelector{}, matchLabelKeys("bar"))).Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", hostname, "node-a"), node("node-b", "zone", "zone1", hostname, "node-b"),
				node("node-c", "zone", "zone2", hostname, "node-c"), node("node-d", "zone", "zone2", hostname, "node-d"),
			},
			pods: []*v1.Pod{bound("p-a1", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", "", "bar", ""), bound("p-c1", "node-c", "foo", ""), bound("p-c2", "node-c", "bar", "")},
			want: map[string]int64{"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
		},
		{
			name: "matchLabelKeys ANDed with a selector",
			pod:  incoming([]string{"foo", "", "bar", "", "baz", ""}, spread(1, "zone", soft, fooSelector), spread(1, hostname, soft, barSelector, matchLabelKeys("baz"))).Obj(),
			nodes: []*v1.Node{
				node("node-a", "zone", "zone1", hostname, "node-a"), node("node-b", "zone", "zone1", hostname, "node-b"),
				node("node-c", "zone", "zone2", hostname, "node-c"), node("node-d", "zone", "zone2", hostname, "node-d"),
			},
			pods: []*v1.Pod{
				bound("p-a1", "node-a", "foo", ""), bound("p-b1", "node-b", "foo", "", "bar", "", "baz", ""),
				bound("p-c1", "node-c", "foo", ""), bound("p-c2", "node-c", "bar", ""), bound("p-c3", "node-c", "bar", "", "baz", ""),
			},
			want: map[string]int64{"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, c := setup(t, nil, tt.nodes, tt.pods)
			got := scoreAll(t, pl, c, tt.pod, tt.filtered)
			if !maps.Equal(got, tt.want) {
				t.Errorf("scores %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNormalizeScore(t *testing.T) {
	state := framework.NewCycleState()
	state.Write(preScoreStateKey, &preScoreState{ignored: map[string]struct{}{"ignored": {}}})
	pl := &PodTopologySpread{}
	for name, tt := range map[string]struct{ in, want []int64 }{
		"inverted against max+min": {in: []int64{2, 5, 8, 0}, want: []int64{100, 62, 25, 0}},
		"all zero":                 {in: []int64{0, 0, 7}, want: []int64{100, 100, 0}},
	} {
		nodes := make([]*framework.NodeInfo, len(tt.in))
		for i := range nodes {
			nodes[i] = &framework.NodeInfo{Name: string(rune('a' + i))}
		}
		nodes[len(nodes)-1].Name = "ignored"
		scores := slices.Clone(tt.in)
		if st := pl.NormalizeScore(t.Context(), state, nil, nodes, scores); !st.IsSuccess() {
			t.Fatal(st)
		}
		for i, s := range scores {
			if s != tt.want[i] {
				t.Errorf("%s: score[%d] = %d, want %d", name, i, s, tt.want[i])
			}
		}
	}
}

func TestPreScoreSkips(t *testing.T) {
	pl, _ := setup(t, nil, fourNodes(), nil)
	for name, pod := range map[string]*v1.Pod{
		"hard constraints only":         incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj(),
		"no constraints, no controller": incoming([]string{"foo", ""}).Obj(),
	} {
		if st := pl.PreScore(t.Context(), framework.NewCycleState(), framework.NewPodInfo(pod), nil); !st.IsSkip() {
			t.Errorf("%s: PreScore = %v, want Skip", name, st)
		}
	}
	empty, _ := setup(t, nil, nil, nil)
	pod := incoming([]string{"foo", ""}, spread(1, "zone", soft, fooSelector)).Obj()
	if st := empty.PreScore(t.Context(), framework.NewCycleState(), framework.NewPodInfo(pod), nil); !st.IsSkip() {
		t.Errorf("no nodes: PreScore = %v, want Skip", st)
	}
}
