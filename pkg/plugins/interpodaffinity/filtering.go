package interpodaffinity

import (
	"context"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// PreFilter counts the pods that bear on the incoming pod per topology domain. It costs
// what the matching pods cost: existing anti-affinity terms come from an index of those
// on the nodes that run pods with required anti-affinity, the pods matching the incoming
// pod's own terms from the snapshot's label index. It returns Skip when nothing
// constrains the pod.
func (pl *InterPodAffinity) PreFilter(_ context.Context, state *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	nsLabels := pl.snap.NamespaceLabels(p.Pod.Namespace)
	var existing []termRef
	pl.existingAnti.forEachMatching(pl.snap.NodesWithRequiredAntiAffinityPods(), p, nsLabels, func(r termRef) {
		existing = append(existing, r)
	})
	ownTerms := len(p.RequiredAffinity) > 0 || len(p.RequiredAntiAffinity) > 0
	if len(existing) == 0 && !ownTerms {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := newPreFilterState(pl.domains.Follow(pl.snap), p, nsLabels)
	for _, r := range existing {
		s.existingAnti.add(s.doms, r.node, r.term.TopologyKey, 1)
	}
	if !ownTerms && s.existingAnti.empty() {
		// The matching terms' keys are on no node of theirs.
		return nil, framework.NewStatus(framework.Skip)
	}

	if terms := p.RequiredAffinity; len(terms) > 0 {
		s.selfMatch = matchesAll(pl.snap, terms, p)
		if sel, ok := allTermsSelector(terms); ok {
			nsOK := func(ns string) bool {
				for i := range terms {
					if !nsAccepts(pl.snap, &terms[i], ns) {
						return false
					}
				}
				return true
			}
			pl.snap.ForEachPodMatching(nsOK, sel, func(other *framework.PodInfo) bool {
				if n := pl.snap.Get(other.NodeName); n != nil {
					for _, c := range s.affinityOf {
						c.add(c.dom.DomainOf(n), 1)
					}
				}
				return true
			})
		}
	}
	for i := range p.RequiredAntiAffinity {
		t, c := &p.RequiredAntiAffinity[i], s.antiOf[i]
		nsOK := func(ns string) bool { return nsAccepts(pl.snap, t, ns) }
		pl.snap.ForEachPodMatching(nsOK, t.Selector, func(other *framework.PodInfo) bool {
			if n := pl.snap.Get(other.NodeName); n != nil {
				c.add(c.dom.DomainOf(n), 1)
			}
			return true
		})
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod accounts a pod placed on a node by a simulation.
func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, add *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return pl.updateState(state, add, n, 1)
}

// RemovePod undoes the accounting of a pod a simulation takes off a node.
func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, remove *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return pl.updateState(state, remove, n, -1)
}

func (pl *InterPodAffinity) updateState(state *framework.CycleState, other *framework.PodInfo, n *framework.NodeInfo, delta int64) *framework.Status {
	s, err := readPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if n.Node() != nil {
		s.update(pl.snap, other, n, delta)
	}
	return nil
}

func readPreFilterState(state *framework.CycleState) (*preFilterState, error) {
	s, ok := state.Read(preFilterStateKey).(*preFilterState)
	if !ok {
		return nil, fmt.Errorf("%s: no PreFilter state in the cycle (PreFilter not run?)", Name)
	}
	return s, nil
}

// Filter's rejections, built once: a pod with affinity to a few pods is rejected by
// nearly every node, and these statuses already name their plugin, so the framework does
// not write to them.
var (
	statusAffinity             = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch).WithPlugin(Name)
	statusAntiAffinity         = framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch).WithPlugin(Name)
	statusExistingAntiAffinity = framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch).WithPlugin(Name)
)

// Filter checks the node against the counts in the order upstream does, so a node that
// fails several rules reports the same reason. Affinity failures cannot be fixed by
// removing pods (UnschedulableAndUnresolvable); anti-affinity ones can (Unschedulable).
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, err := readPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !s.satisfiesAffinity(n) {
		return statusAffinity
	}
	if !s.satisfiesAntiAffinity(n) {
		return statusAntiAffinity
	}
	if !s.satisfiesExistingAntiAffinity(n) {
		return statusExistingAntiAffinity
	}
	return nil
}

// satisfiesAffinity: the node must have every term's topology key, and each of its
// domains must hold a pod matching all terms. The exception lets a group of pods with
// affinity to themselves start: when no pod matches anywhere and the pod matches its own
// terms, any node with the keys will do.
func (s *preFilterState) satisfiesAffinity(n *framework.NodeInfo) bool {
	podsExist := true
	for _, c := range s.affinityOf {
		d := c.dom.DomainOf(n)
		if d == -1 {
			return false
		}
		if !c.has(d) {
			podsExist = false
		}
	}
	return podsExist || (s.selfMatch && s.affinity.empty())
}

// satisfiesAntiAffinity: no domain of the node may hold a pod the incoming pod's required
// anti-affinity rejects. A node without the term's key is in no domain and passes.
func (s *preFilterState) satisfiesAntiAffinity(n *framework.NodeInfo) bool {
	for _, c := range s.antiOf {
		if c.has(c.dom.DomainOf(n)) {
			return false
		}
	}
	return true
}

// satisfiesExistingAntiAffinity: no domain of the node may hold a pod whose required
// anti-affinity rejects the incoming pod. Upstream looks every node label up in the
// counts; looking up only the keys that have counts gives the same answer with fewer
// lookups, nodes carrying far more labels than there are topology keys in use.
func (s *preFilterState) satisfiesExistingAntiAffinity(n *framework.NodeInfo) bool {
	for _, c := range s.existingAnti {
		if c.has(c.dom.DomainOf(n)) {
			return false
		}
	}
	return true
}
