package interpodaffinity

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// domainCounts counts matches per domain of one topology key. counts holds only the
// nonzero counts, so that adding then removing a pod leaves it as it was and Clone copies
// what was counted rather than every domain (a hostname key has one per node). positive
// marks, a bit per domain, those with a count above zero: all that Filter reads of a node.
type domainCounts struct {
	dom      *labeldomain.KeyDomains
	counts   map[int32]int64
	positive []uint64
}

func newDomainCounts(dom *labeldomain.KeyDomains) *domainCounts {
	return &domainCounts{dom: dom, counts: map[int32]int64{}}
}

// add adds delta to domain d. A node without the key (d == -1) is in no domain and counts
// nowhere, as upstream; nor does a node outside the snapshot whose value no indexed node
// has (-2): a cycle's PreFilter, AddPod and RemovePod only see the snapshot's nodes.
func (c *domainCounts) add(d int32, delta int64) {
	if d < 0 {
		return
	}
	n := c.counts[d] + delta
	if n != 0 {
		c.counts[d] = n
	} else {
		delete(c.counts, d)
	}
	if c.positive == nil {
		if n <= 0 {
			return
		}
		c.positive = make([]uint64, (len(c.dom.Values)+63)/64)
	}
	if n > 0 {
		c.positive[d/64] |= 1 << (d % 64)
	} else {
		c.positive[d/64] &^= 1 << (d % 64)
	}
}

// has reports whether domain d has a count above zero.
func (c *domainCounts) has(d int32) bool {
	return d >= 0 && c.positive != nil && c.positive[d/64]&(1<<(d%64)) != 0
}

func (c *domainCounts) clone() *domainCounts {
	return &domainCounts{dom: c.dom, counts: maps.Clone(c.counts), positive: slices.Clone(c.positive)}
}

// keyedCounts are the counts of one kind, one domainCounts per topology key in use (few).
type keyedCounts []*domainCounts

// of returns the counts of key, adding them if they are new.
func (m *keyedCounts) of(doms *labeldomain.Nodes, key string) *domainCounts {
	for _, c := range *m {
		if c.dom.Key == key {
			return c
		}
	}
	c := newDomainCounts(doms.Key(key))
	*m = append(*m, c)
	return c
}

// add adds delta to the node's domain for key.
func (m *keyedCounts) add(doms *labeldomain.Nodes, n *framework.NodeInfo, key string, delta int64) {
	c := m.of(doms, key)
	c.add(c.dom.DomainOf(n), delta)
}

// empty reports whether nothing is counted.
func (m keyedCounts) empty() bool {
	for _, c := range m {
		if len(c.counts) > 0 {
			return false
		}
	}
	return true
}

func (m keyedCounts) clone() keyedCounts {
	out := make(keyedCounts, len(m))
	for i, c := range m {
		out[i] = c.clone()
	}
	return out
}

// preFilterState is what Filter reads; AddPod and RemovePod update the three counts.
type preFilterState struct {
	// doms are the domains of the snapshot's nodes the counts are by.
	doms *labeldomain.Nodes
	// existingAnti counts, per domain, the required anti-affinity terms of existing pods
	// that match the incoming pod.
	existingAnti keyedCounts
	// affinity counts, per domain of each of the incoming pod's required affinity terms,
	// the existing pods that match all of those terms.
	affinity keyedCounts
	// anti counts, per domain of each of the incoming pod's required anti-affinity terms,
	// the existing pods that match that term.
	anti keyedCounts
	// affinityOf and antiOf are, by term of the incoming pod, the counts of its key (in
	// affinity and anti), so that Filter looks no key up.
	affinityOf, antiOf []*domainCounts

	pod *framework.PodInfo
	// nsLabels are the incoming pod's namespace labels, against which the namespace
	// selectors of existing pods' terms are evaluated.
	nsLabels labels.Set
	// selfMatch is whether the incoming pod matches all its own required affinity terms,
	// which lets the first pod of a self-affine group go into an empty domain.
	selfMatch bool
}

// newPreFilterState has counts, empty, for every topology key of the pod's terms.
func newPreFilterState(doms *labeldomain.Nodes, p *framework.PodInfo, nsLabels labels.Set) *preFilterState {
	s := &preFilterState{doms: doms, pod: p, nsLabels: nsLabels}
	s.affinityOf = make([]*domainCounts, len(p.RequiredAffinity))
	for i := range p.RequiredAffinity {
		s.affinityOf[i] = s.affinity.of(doms, p.RequiredAffinity[i].TopologyKey)
	}
	s.antiOf = make([]*domainCounts, len(p.RequiredAntiAffinity))
	for i := range p.RequiredAntiAffinity {
		s.antiOf[i] = s.anti.of(doms, p.RequiredAntiAffinity[i].TopologyKey)
	}
	return s
}

// Clone deep-copies the counts that AddPod and RemovePod mutate.
func (s *preFilterState) Clone() framework.StateData {
	c := *s
	c.existingAnti = s.existingAnti.clone()
	c.affinity = s.affinity.clone()
	c.anti = s.anti.clone()
	c.affinityOf = relink(s.affinityOf, s.affinity, c.affinity)
	c.antiOf = relink(s.antiOf, s.anti, c.anti)
	return &c
}

// relink maps per-term counts of from to the same keys' counts in to, a clone of from.
func relink(byTerm []*domainCounts, from, to keyedCounts) []*domainCounts {
	out := make([]*domainCounts, len(byTerm))
	for i, c := range byTerm {
		out[i] = to[slices.Index(from, c)]
	}
	return out
}

// update accounts an existing pod on a node into the three counts with weight delta (+1
// when it is added, -1 when removed). PreFilter gets the same counts from the label index.
func (s *preFilterState) update(snap framework.Snapshot, other *framework.PodInfo, n *framework.NodeInfo, delta int64) {
	for i := range other.RequiredAntiAffinity {
		t := &other.RequiredAntiAffinity[i]
		if t.Matches(s.pod, s.nsLabels) {
			s.existingAnti.add(s.doms, n, t.TopologyKey, delta)
		}
	}
	if matchesAll(snap, s.pod.RequiredAffinity, other) {
		for _, c := range s.affinityOf {
			c.add(c.dom.DomainOf(n), delta)
		}
	}
	for i := range s.pod.RequiredAntiAffinity {
		if incomingTermMatches(snap, &s.pod.RequiredAntiAffinity[i], other) {
			c := s.antiOf[i]
			c.add(c.dom.DomainOf(n), delta)
		}
	}
}

// nsAccepts reports whether a term of the incoming pod covers a namespace. Upstream folds
// the namespace selector into the namespace list by listing namespaces at PreFilter;
// evaluating the selector against the namespace's labels gives the same answer without
// the listing. One deliberate difference: upstream clears the folded selector on a copy of
// the term only, so a selector that matches an empty label set (NotIn, DoesNotExist) goes
// on to match every namespace; here it keeps the meaning the API documents.
func nsAccepts(snap framework.Snapshot, t *framework.AffinityTerm, ns string) bool {
	return t.Namespaces.Has(ns) || t.NamespaceSelector.Matches(snap.NamespaceLabels(ns))
}

// incomingTermMatches reports whether pod p matches a term of the incoming pod.
func incomingTermMatches(snap framework.Snapshot, t *framework.AffinityTerm, p *framework.PodInfo) bool {
	return nsAccepts(snap, t, p.Pod.Namespace) && t.Selector.Matches(labels.Set(p.Pod.Labels))
}

// matchesAll reports whether p matches every term (false when there are none): required
// affinity is satisfied by a single pod matching all the terms, as upstream.
func matchesAll(snap framework.Snapshot, terms []framework.AffinityTerm, p *framework.PodInfo) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !incomingTermMatches(snap, &terms[i], p) {
			return false
		}
	}
	return true
}

// allTermsSelector is the conjunction of the terms' selectors, so that the label index can
// pick the most selective requirement of any term. ok is false when some term selects
// nothing.
func allTermsSelector(terms []framework.AffinityTerm) (sel labels.Selector, ok bool) {
	var reqs []labels.Requirement
	for i := range terms {
		r, selectable := terms[i].Selector.Requirements()
		if !selectable {
			return nil, false
		}
		reqs = append(reqs, r...)
	}
	return labels.NewSelector().Add(reqs...), true
}
