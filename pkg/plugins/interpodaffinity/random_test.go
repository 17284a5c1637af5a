package interpodaffinity

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// randomCluster builds a small cluster that exercises every corner the plugin has: nodes
// missing topology keys or with empty values, a topology key no node has, pods in several namespaces, terms
// with namespace lists and selectors, set-based and empty label selectors, and pods on a
// deleted node.
type randomCluster struct {
	rng   *rand.Rand
	nodes []*v1.Node
	pods  []*v1.Pod
	seq   int
}

var randomNamespaces = []string{"default", "team-a1", "team-a2", "team-b1", "other"}

func newRandomCluster(seed uint64, numNodes, numPods int) *randomCluster {
	r := &randomCluster{rng: rand.New(rand.NewPCG(seed, 7))}
	for i := range numNodes {
		b := testutil.Node(fmt.Sprintf("n%d", i))
		switch r.rng.IntN(8) {
		case 0: // no zone
		case 1:
			b.Labels("zone", "") // a key with an empty value is a domain of its own
		default:
			b.Labels("zone", fmt.Sprintf("z%d", r.rng.IntN(3)))
		}
		if r.rng.IntN(6) != 0 {
			b.Labels("region", fmt.Sprintf("r%d", r.rng.IntN(2)))
		}
		r.nodes = append(r.nodes, b.Obj())
	}
	for range numPods {
		node := r.nodes[r.rng.IntN(len(r.nodes))].Name
		if r.rng.IntN(20) == 0 {
			node = "gone"
		}
		r.pods = append(r.pods, r.pod(node, 4))
	}
	return r
}

func (r *randomCluster) cache() *cache.Cache {
	c := testutil.NewCache(r.nodes, r.pods)
	for name, lbls := range stdNamespaces {
		c.SetNamespace(&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}})
	}
	return c
}

// pod makes a pod bound to node ("" for pending); each kind of term appears with
// probability 1/termOdds.
func (r *randomCluster) pod(node string, termOdds int) *v1.Pod {
	r.seq++
	var kv []string
	if r.rng.IntN(5) != 0 {
		kv = append(kv, "app", []string{"a", "b", "c", "d"}[r.rng.IntN(4)])
	}
	if r.rng.IntN(2) == 0 {
		kv = append(kv, "tier", []string{"x", "y"}[r.rng.IntN(2)])
	}
	var a aff
	terms := func() []v1.PodAffinityTerm {
		out := make([]v1.PodAffinityTerm, 1+r.rng.IntN(2))
		for i := range out {
			out[i] = r.term()
		}
		return out
	}
	weightedTerms := func() []v1.WeightedPodAffinityTerm {
		var out []v1.WeightedPodAffinityTerm
		for _, t := range terms() {
			out = append(out, weighted(int32(1+r.rng.IntN(100)), t))
		}
		return out
	}
	if r.rng.IntN(termOdds) == 0 {
		a.req = terms()
	}
	if r.rng.IntN(termOdds) == 0 {
		a.anti = terms()
	}
	if r.rng.IntN(termOdds) == 0 {
		a.prefAff = weightedTerms()
	}
	if r.rng.IntN(termOdds) == 0 {
		a.prefAnti = weightedTerms()
	}
	ns := randomNamespaces[r.rng.IntN(len(randomNamespaces))]
	return pod(fmt.Sprintf("p%d", r.seq), ns, node, a, kv...)
}

func (r *randomCluster) term() v1.PodAffinityTerm {
	key := []string{v1.LabelHostname, "zone", "region", "rack"}[r.rng.IntN(4)]
	var t v1.PodAffinityTerm
	switch r.rng.IntN(8) {
	case 0:
		t = v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{}, TopologyKey: key}
	case 1:
		t = v1.PodAffinityTerm{TopologyKey: key} // nil selector: matches nothing
	case 2, 3:
		ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
		req := metav1.LabelSelectorRequirement{Key: "app", Operator: ops[r.rng.IntN(len(ops))]}
		if req.Operator == metav1.LabelSelectorOpIn || req.Operator == metav1.LabelSelectorOpNotIn {
			req.Values = []string{"a", "c"}[:1+r.rng.IntN(2)]
		}
		t = v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req}}, TopologyKey: key}
	case 4:
		t = term(key, "app", "a", "tier", "x")
	default:
		t = term(key, "app", []string{"a", "b", "c", "d"}[r.rng.IntN(4)])
	}
	switch r.rng.IntN(6) {
	case 0:
		t = inNS(t, randomNamespaces[r.rng.IntN(len(randomNamespaces))], "team-b1")
	case 1:
		t = nsSel(t, "team", "a")
	case 2:
		t = nsSel(t)
	}
	return t
}

// The reference below follows upstream's code literally: the incoming pod's namespace
// selectors are folded into namespace lists by listing the namespaces, and every pod of
// every live node is scanned. The plugin must agree with it exactly.

func foldNamespaces(terms []framework.AffinityTerm) []framework.AffinityTerm {
	out := make([]framework.AffinityTerm, len(terms))
	for i, t := range terms {
		out[i] = t
		if t.NamespaceSelector.Empty() {
			continue
		}
		out[i].Namespaces = t.Namespaces.Clone()
		for name, lbls := range stdNamespaces {
			if t.NamespaceSelector.Matches(labels.Set(lbls)) {
				out[i].Namespaces.Insert(name)
			}
		}
		out[i].NamespaceSelector = labels.Nothing()
	}
	return out
}

func refMatchesAll(terms []framework.AffinityTerm, p *framework.PodInfo) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(p, nil) {
			return false
		}
	}
	return true
}

// pairCounts are the reference's counts: by topology key, then value, as upstream keeps
// them. Entries that drop to zero are deleted.
type pairCounts map[string]map[string]int64

func (m pairCounts) add(node *v1.Node, key string, delta int64) {
	v, ok := node.Labels[key]
	if !ok {
		return
	}
	if m[key] == nil {
		m[key] = map[string]int64{}
	}
	if c := m[key][v] + delta; c != 0 {
		m[key][v] = c
	} else {
		delete(m[key], v)
		if len(m[key]) == 0 {
			delete(m, key)
		}
	}
}

func (m pairCounts) get(key, value string) int64 { return m[key][value] }

// pairs converts the plugin's counts to the reference's form. It fails the test when the
// bits Filter reads disagree with the counts.
func (m keyedCounts) pairs(t testing.TB) pairCounts {
	t.Helper()
	out := pairCounts{}
	for _, c := range m {
		for d, n := range c.counts {
			if n == 0 {
				t.Fatalf("key %s: a zero count kept for domain %d", c.dom.Key, d)
			}
			if out[c.dom.Key] == nil {
				out[c.dom.Key] = map[string]int64{}
			}
			out[c.dom.Key][c.dom.Values[d]] = n
		}
		for d := range c.dom.Values {
			if c.has(int32(d)) != (c.counts[int32(d)] > 0) {
				t.Fatalf("key %s domain %s: positive bit %v, count %d", c.dom.Key, c.dom.Values[d], c.has(int32(d)), c.counts[int32(d)])
			}
		}
	}
	return out
}

// countsOf returns a state's three counts in the reference's form (empty for nil, a
// skipped PreFilter).
func countsOf(t testing.TB, s *preFilterState) [3]pairCounts {
	t.Helper()
	if s == nil {
		return [3]pairCounts{{}, {}, {}}
	}
	return [3]pairCounts{s.existingAnti.pairs(t), s.affinity.pairs(t), s.anti.pairs(t)}
}

func refPreFilter(c *cache.Cache, p *framework.PodInfo) (existingAnti, affinity, anti pairCounts) {
	existingAnti, affinity, anti = pairCounts{}, pairCounts{}, pairCounts{}
	nsLabels := labels.Set(stdNamespaces[p.Pod.Namespace])
	req, antiTerms := foldNamespaces(p.RequiredAffinity), foldNamespaces(p.RequiredAntiAffinity)
	for _, n := range c.NodeInfos() {
		for _, other := range n.Pods {
			for i := range other.RequiredAntiAffinity {
				if other.RequiredAntiAffinity[i].Matches(p, nsLabels) {
					existingAnti.add(n.Node(), other.RequiredAntiAffinity[i].TopologyKey, 1)
				}
			}
			if refMatchesAll(req, other) {
				for i := range req {
					affinity.add(n.Node(), req[i].TopologyKey, 1)
				}
			}
			for i := range antiTerms {
				if antiTerms[i].Matches(other, nil) {
					anti.add(n.Node(), antiTerms[i].TopologyKey, 1)
				}
			}
		}
	}
	return
}

func refPreScore(c *cache.Cache, p *framework.PodInfo, hardWeight int64) (map[string]map[string]int64, bool) {
	out := map[string]map[string]int64{}
	matched := false
	add := func(n *v1.Node, key string, w int64) {
		if v, ok := n.Labels[key]; ok {
			if out[key] == nil {
				out[key] = map[string]int64{}
			}
			out[key][v] += w
			matched = true
		}
	}
	nsLabels := labels.Set(stdNamespaces[p.Pod.Namespace])
	pref, prefAnti := p.PreferredAffinity, p.PreferredAntiAffinity
	for _, n := range c.NodeInfos() {
		for _, other := range n.Pods {
			for _, t := range pref {
				ft := foldNamespaces([]framework.AffinityTerm{t.AffinityTerm})[0]
				if ft.Matches(other, nil) {
					add(n.Node(), t.TopologyKey, int64(t.Weight))
				}
			}
			for _, t := range prefAnti {
				ft := foldNamespaces([]framework.AffinityTerm{t.AffinityTerm})[0]
				if ft.Matches(other, nil) {
					add(n.Node(), t.TopologyKey, -int64(t.Weight))
				}
			}
			if hardWeight > 0 {
				for _, t := range other.RequiredAffinity {
					if t.Matches(p, nsLabels) {
						add(n.Node(), t.TopologyKey, hardWeight)
					}
				}
			}
			for _, t := range other.PreferredAffinity {
				if t.Matches(p, nsLabels) {
					add(n.Node(), t.TopologyKey, int64(t.Weight))
				}
			}
			for _, t := range other.PreferredAntiAffinity {
				if t.Matches(p, nsLabels) {
					add(n.Node(), t.TopologyKey, -int64(t.Weight))
				}
			}
		}
	}
	return out, matched
}
