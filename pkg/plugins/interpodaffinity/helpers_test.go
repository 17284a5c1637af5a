package interpodaffinity

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

// term is a required term on matchLabels (key, value pairs) and a topology key.
func term(topologyKey string, kv ...string) v1.PodAffinityTerm {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: m}, TopologyKey: topologyKey}
}

// inNS lists namespaces on a term.
func inNS(t v1.PodAffinityTerm, ns ...string) v1.PodAffinityTerm {
	t.Namespaces = ns
	return t
}

// nsSel puts a namespace selector on matchLabels (none: the empty selector, all
// namespaces) on a term.
func nsSel(t v1.PodAffinityTerm, kv ...string) v1.PodAffinityTerm {
	sel := &metav1.LabelSelector{}
	for i := 0; i+1 < len(kv); i += 2 {
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]string{}
		}
		sel.MatchLabels[kv[i]] = kv[i+1]
	}
	t.NamespaceSelector = sel
	return t
}

func weighted(w int32, t v1.PodAffinityTerm) v1.WeightedPodAffinityTerm {
	return v1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t}
}

// aff collects a pod's inter-pod terms.
type aff struct {
	req, anti         []v1.PodAffinityTerm
	prefAff, prefAnti []v1.WeightedPodAffinityTerm
}

func (a aff) obj() *v1.Affinity {
	out := &v1.Affinity{}
	if len(a.req)+len(a.prefAff) > 0 {
		out.PodAffinity = &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  a.req,
			PreferredDuringSchedulingIgnoredDuringExecution: a.prefAff,
		}
	}
	if len(a.anti)+len(a.prefAnti) > 0 {
		out.PodAntiAffinity = &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  a.anti,
			PreferredDuringSchedulingIgnoredDuringExecution: a.prefAnti,
		}
	}
	return out
}

// pod builds a pod in namespace ns with labels and affinity; bound to node unless "".
func pod(name, ns, node string, a aff, kv ...string) *v1.Pod {
	return testutil.Pod(name).Namespace(ns).Labels(kv...).Node(node).Affinity(a.obj()).Obj()
}

// stdNodes: n1 and n2 in zone z1, n3 in z2 (all region r1), n4 in region r2 with no zone.
func stdNodes() []*v1.Node {
	return []*v1.Node{
		testutil.Node("n1").Labels("zone", "z1", "region", "r1").Obj(),
		testutil.Node("n2").Labels("zone", "z1", "region", "r1").Obj(),
		testutil.Node("n3").Labels("zone", "z2", "region", "r1").Obj(),
		testutil.Node("n4").Labels("region", "r2").Obj(),
	}
}

// stdNamespaces: team-a1 and team-a2 belong to team a, team-b1 to team b.
var stdNamespaces = map[string]map[string]string{
	"default": {"kubernetes.io/metadata.name": "default"},
	"team-a1": {"team": "a"},
	"team-a2": {"team": "a"},
	"team-b1": {"team": "b"},
	"other":   nil,
}

func newCache(t testing.TB, nodes []*v1.Node, pods []*v1.Pod, namespaces map[string]map[string]string) *cache.Cache {
	t.Helper()
	c := testutil.NewCache(nodes, pods)
	for name, lbls := range namespaces {
		c.SetNamespace(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}})
	}
	return c
}

func newPlugin(t testing.TB, c *cache.Cache, args string) *InterPodAffinity {
	t.Helper()
	pl, err := New(json.RawMessage(args), &testutil.Handle{Cache: c})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return pl.(*InterPodAffinity)
}

// preFilter runs PreFilter and returns the state (nil on Skip).
func preFilter(t testing.TB, pl *InterPodAffinity, p *framework.PodInfo) (*framework.CycleState, *preFilterState) {
	t.Helper()
	state := framework.NewCycleState()
	_, st := pl.PreFilter(context.Background(), state, p)
	if st.IsSkip() {
		return state, nil
	}
	if !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	s, err := readPreFilterState(state)
	if err != nil {
		t.Fatal(err)
	}
	return state, s
}
