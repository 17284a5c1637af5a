package interpodaffinity

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// pairCounts counts matches per topology domain: topology key, then value. Keyed by the
// key first so that Filter looks up only the keys that have counts, not every label of
// the node. Entries that drop to zero are deleted, so that adding then removing a pod
// leaves the maps exactly as they were.
type pairCounts map[string]map[string]int64

// add adds delta to the domain the node is in for key; a node without the key is in no
// domain and counts nowhere, as upstream.
func (m pairCounts) add(node *v1.Node, key string, delta int64) {
	v, ok := node.Labels[key]
	if !ok {
		return
	}
	values := m[key]
	if values == nil {
		values = map[string]int64{}
		m[key] = values
	}
	if c := values[v] + delta; c != 0 {
		values[v] = c
	} else {
		delete(values, v)
		if len(values) == 0 {
			delete(m, key)
		}
	}
}

// get returns the count of a domain.
func (m pairCounts) get(key, value string) int64 { return m[key][value] }

func (m pairCounts) clone() pairCounts {
	out := make(pairCounts, len(m))
	for k, values := range m {
		out[k] = maps.Clone(values)
	}
	return out
}

// preFilterState is what Filter reads; AddPod and RemovePod update the three maps.
type preFilterState struct {
	// existingAnti counts, per domain, the required anti-affinity terms of existing pods
	// that match the incoming pod.
	existingAnti pairCounts
	// affinity counts, per domain of each of the incoming pod's required affinity terms,
	// the existing pods that match all of those terms.
	affinity pairCounts
	// anti counts, per domain of each of the incoming pod's required anti-affinity terms,
	// the existing pods that match that term.
	anti pairCounts

	pod *framework.PodInfo
	// nsLabels are the incoming pod's namespace labels, against which the namespace
	// selectors of existing pods' terms are evaluated.
	nsLabels labels.Set
	// selfMatch is whether the incoming pod matches all its own required affinity terms,
	// which lets the first pod of a self-affine group go into an empty domain.
	selfMatch bool
}

// Clone deep-copies the maps that AddPod and RemovePod mutate.
func (s *preFilterState) Clone() framework.StateData {
	c := *s
	c.existingAnti = s.existingAnti.clone()
	c.affinity = s.affinity.clone()
	c.anti = s.anti.clone()
	return &c
}

// update accounts an existing pod on a node into the three maps with weight delta (+1 when
// it is added, -1 when removed). PreFilter gets the same counts from the label index.
func (s *preFilterState) update(snap framework.Snapshot, other *framework.PodInfo, node *v1.Node, delta int64) {
	for i := range other.RequiredAntiAffinity {
		t := &other.RequiredAntiAffinity[i]
		if t.Matches(s.pod, s.nsLabels) {
			s.existingAnti.add(node, t.TopologyKey, delta)
		}
	}
	if matchesAll(snap, s.pod.RequiredAffinity, other) {
		for i := range s.pod.RequiredAffinity {
			s.affinity.add(node, s.pod.RequiredAffinity[i].TopologyKey, delta)
		}
	}
	for i := range s.pod.RequiredAntiAffinity {
		t := &s.pod.RequiredAntiAffinity[i]
		if incomingTermMatches(snap, t, other) {
			s.anti.add(node, t.TopologyKey, delta)
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
