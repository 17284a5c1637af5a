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
	s := &preFilterState{
		existingAnti: pairCounts{},
		affinity:     pairCounts{},
		anti:         pairCounts{},
		pod:          p,
		nsLabels:     pl.snap.NamespaceLabels(p.Pod.Namespace),
	}
	pl.existingAnti.forEachMatching(pl.snap.NodesWithRequiredAntiAffinityPods(), p, s.nsLabels, func(r termRef) {
		s.existingAnti.add(r.node.Node(), r.term.TopologyKey, 1)
	})
	if len(s.existingAnti) == 0 && len(p.RequiredAffinity) == 0 && len(p.RequiredAntiAffinity) == 0 {
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
					for i := range terms {
						s.affinity.add(n.Node(), terms[i].TopologyKey, 1)
					}
				}
				return true
			})
		}
	}
	for i := range p.RequiredAntiAffinity {
		t := &p.RequiredAntiAffinity[i]
		nsOK := func(ns string) bool { return nsAccepts(pl.snap, t, ns) }
		pl.snap.ForEachPodMatching(nsOK, t.Selector, func(other *framework.PodInfo) bool {
			if n := pl.snap.Get(other.NodeName); n != nil {
				s.anti.add(n.Node(), t.TopologyKey, 1)
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
		s.update(pl.snap, other, n.Node(), delta)
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
	nodeLabels := n.Node().Labels
	if !s.satisfiesAffinity(nodeLabels) {
		return statusAffinity
	}
	if !s.satisfiesAntiAffinity(nodeLabels) {
		return statusAntiAffinity
	}
	if !s.satisfiesExistingAntiAffinity(nodeLabels) {
		return statusExistingAntiAffinity
	}
	return nil
}

// satisfiesAffinity: the node must have every term's topology key, and each of its
// domains must hold a pod matching all terms. The exception lets a group of pods with
// affinity to themselves start: when no pod matches anywhere and the pod matches its own
// terms, any node with the keys will do.
func (s *preFilterState) satisfiesAffinity(nodeLabels map[string]string) bool {
	podsExist := true
	for i := range s.pod.RequiredAffinity {
		key := s.pod.RequiredAffinity[i].TopologyKey
		v, ok := nodeLabels[key]
		if !ok {
			return false
		}
		if s.affinity.get(key, v) <= 0 {
			podsExist = false
		}
	}
	return podsExist || (len(s.affinity) == 0 && s.selfMatch)
}

// satisfiesAntiAffinity: no domain of the node may hold a pod the incoming pod's required
// anti-affinity rejects. A node without the term's key is in no domain and passes.
func (s *preFilterState) satisfiesAntiAffinity(nodeLabels map[string]string) bool {
	if len(s.anti) == 0 {
		return true
	}
	for i := range s.pod.RequiredAntiAffinity {
		key := s.pod.RequiredAntiAffinity[i].TopologyKey
		if v, ok := nodeLabels[key]; ok && s.anti.get(key, v) > 0 {
			return false
		}
	}
	return true
}

// satisfiesExistingAntiAffinity: no domain of the node may hold a pod whose required
// anti-affinity rejects the incoming pod. Upstream looks every node label up in the
// counts; looking up only the keys that have counts gives the same answer with fewer
// lookups, nodes carrying far more labels than there are topology keys in use.
func (s *preFilterState) satisfiesExistingAntiAffinity(nodeLabels map[string]string) bool {
	for key, values := range s.existingAnti {
		if v, ok := nodeLabels[key]; ok && values[v] > 0 {
			return false
		}
	}
	return true
}
