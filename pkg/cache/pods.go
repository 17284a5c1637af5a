package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// podEntry is the store's bookkeeping for a pod on a node: where it sits in the label
// index, so that removing it is O(labels).
type podEntry struct {
	pi       *framework.PodInfo
	node     *framework.NodeInfo
	postings []*posting
	pos      []int32
}

// podMove is a pod added to or removed from a node under a checkpoint, with what its exact
// inverse needs.
type podMove struct {
	removed    bool
	entry      *podEntry
	generation int64
	// for a removal: where the pod sat, so it goes back to the same positions
	slot                 framework.PodSlot
	labelPos             []int32
	antiPos, affinityPos int32
}

// Pod returns a bound or assumed pod by namespace/name.
func (s *NodeStore) Pod(key string) *framework.PodInfo { return s.pods[key] }

// NumPods is the number of bound or assumed pods.
func (s *NodeStore) NumPods() int { return len(s.pods) }

// AddBoundPod records a pod the API says is bound. When the scheduler had assumed it, the
// assumption is confirmed (and moved, should the pod have landed elsewhere).
func (s *NodeStore) AddBoundPod(pi *framework.PodInfo) error {
	node := pi.Pod.Spec.NodeName
	if node == "" {
		return fmt.Errorf("pod %s is not bound", pi.Key)
	}
	if old := s.pods[pi.Key]; old != nil {
		s.removePod(old)
	}
	n := s.nodeOrGhost(node)
	if n == nil {
		// A pod on a node we have not seen yet: keep it on a ghost until the node arrives.
		n = framework.NewNodeInfo(nil)
		n.Name = node
		s.ghosts[node] = n
	}
	pi.Assumed = false
	s.addPod(pi, n, false)
	return nil
}

// AssumePod places a pending pod on a node before its binding is confirmed, so the next
// cycles see the room as taken.
func (s *NodeStore) AssumePod(pi *framework.PodInfo, node string) error {
	n := s.Get(node)
	if n == nil {
		return fmt.Errorf("assume pod %s: node %q not found", pi.Key, node)
	}
	if _, ok := s.pods[pi.Key]; ok {
		return fmt.Errorf("assume pod %s: already in the cache", pi.Key)
	}
	pi.Assumed = true
	s.addPod(pi, n, false)
	return nil
}

// ForgetPod drops an assumed pod whose binding failed.
func (s *NodeStore) ForgetPod(key string) {
	if pi := s.pods[key]; pi != nil && pi.Assumed {
		s.removePod(pi)
		pi.Assumed = false
	}
}

// RemoveBoundPod drops a pod that was deleted or finished.
func (s *NodeStore) RemoveBoundPod(key string) *framework.PodInfo {
	pi := s.pods[key]
	if pi != nil {
		s.removePod(pi)
	}
	return pi
}

// AddPod places a pod on a node inside a simulation, where it is undone by Rollback.
func (s *NodeStore) AddPod(pi *framework.PodInfo, node string) {
	if n := s.Get(node); n != nil {
		s.addPod(pi, n, true)
	}
}

// remember gives a node the generation the same simulated add gave it before (the add
// took the node from generation from to its current one), or remembers this one. The same
// pod added to the node as it was gives the node it gave before: the generation it took
// then names it again, so what was derived from that node (static verdicts, capacity and
// disruption bounds, preemption's per-node results) holds.
func (s *NodeStore) remember(pi *framework.PodInfo, n *framework.NodeInfo, from int64) {
	key := simulatedAdd{generation: from, pi: pi, leaving: pi.Terminating}
	if g, ok := s.simulatedAdds[key]; ok {
		n.Generation = g
		return
	}
	if len(s.simulatedAdds) >= maxSimulatedAdds {
		clear(s.simulatedAdds)
	}
	s.simulatedAdds[key] = n.Generation
}

// simulatedAdd is a pod added to a node, in a simulation, at one of the node's
// generations; the pod's own leaving mark is part of what the node then holds.
type simulatedAdd struct {
	generation int64
	pi         *framework.PodInfo
	leaving    bool
}

// maxSimulatedAdds bounds the generations remembered for simulated adds (a few MB): the
// group cycles of a wave add the same nominated pods to the same nodes every time, some
// thousands of them.
const maxSimulatedAdds = 1 << 16

// RemovePod takes a pod off its node inside a simulation, where it is undone by Rollback.
func (s *NodeStore) RemovePod(pi *framework.PodInfo) {
	if _, ok := s.entries[pi]; ok {
		s.removePod(pi)
	}
}

// SetLeaving marks a pod as leaving its node (terminating, or taken by a preemption being
// carried out) or no longer; the node's LeavingGeneration changes, so what preemption
// cached about the node is stale.
func (s *NodeStore) SetLeaving(pi *framework.PodInfo, leaving bool) {
	if n := s.Get(pi.NodeName); n != nil && s.pods[pi.Key] == pi {
		gen := n.LeavingGeneration
		n.SetLeaving(pi, leaving)
		if n.LeavingGeneration != gen {
			s.sets.leavingChanged(n)
		}
		return
	}
	pi.Terminating = leaving
}

// ForEachPodMatching calls fn for every pod on a live node whose labels match sel and
// whose namespace ns accepts, until fn returns false, through the label index.
func (s *NodeStore) ForEachPodMatching(ns func(string) bool, sel labels.Selector, fn func(*framework.PodInfo) bool) {
	s.labels.forEach(sel, func(e *podEntry) bool {
		if e.node.Node() == nil || !ns(e.pi.Pod.Namespace) {
			return true
		}
		if !sel.Matches(labels.Set(e.pi.Pod.Labels)) {
			return true
		}
		return fn(e.pi)
	})
}

// addPod adds a pod to a node; simulated says it is AddPod's, whose generations are
// remembered.
func (s *NodeStore) addPod(pi *framework.PodInfo, n *framework.NodeInfo, simulated bool) {
	if old, ok := s.entries[pi]; ok {
		// A pod already on a node: adding it again would corrupt its positions. This is a
		// scheduler bug; it is refused and reported by Verify instead of spreading.
		s.faults = append(s.faults, fmt.Sprintf("pod %s added to node %s while on node %s", pi.Key, n.Name, old.node.Name))
		return
	}
	e := &podEntry{pi: pi, node: n}
	s.entries[pi] = e
	s.pods[pi.Key] = pi
	gen := n.Generation
	n.AddPod(pi)
	if simulated {
		s.remember(pi, n, gen)
	}
	if s.live(n) {
		s.sets.podsChanged(n, gen, s.undo.simulating())
	}
	s.labels.add(e)
	if n.Node() != nil {
		if len(n.PodsWithRequiredAntiAffinity) == 1 && len(pi.RequiredAntiAffinity) > 0 {
			s.antiNodes.add(n)
		}
		if len(n.PodsWithAffinity) == 1 && pi.HasAffinityTerms() {
			s.affinityNodes.add(n)
		}
	}
	s.undo.logMove(podMove{entry: e, generation: gen})
	for _, w := range s.watchers {
		w.podAdded(pi)
	}
}

func (s *NodeStore) removePod(pi *framework.PodInfo) {
	e := s.entries[pi]
	n := e.node
	m := podMove{removed: true, entry: e, generation: n.Generation, antiPos: -1, affinityPos: -1}
	m.labelPos = s.labels.remove(e, s.undo.simulating())
	m.slot = n.RemovePod(pi)
	if s.live(n) {
		s.sets.podsChanged(n, m.generation, s.undo.simulating())
	}
	if n.Node() != nil {
		if len(pi.RequiredAntiAffinity) > 0 && len(n.PodsWithRequiredAntiAffinity) == 0 {
			m.antiPos = s.antiNodes.remove(n)
		}
		if pi.HasAffinityTerms() && len(n.PodsWithAffinity) == 0 {
			m.affinityPos = s.affinityNodes.remove(n)
		}
	}
	delete(s.entries, pi)
	if s.pods[pi.Key] == pi {
		delete(s.pods, pi.Key)
	}
	if n.Node() == nil && len(n.Pods) == 0 && !s.undo.simulating() {
		delete(s.ghosts, n.Name)
	}
	s.undo.logMove(m)
	for _, w := range s.watchers {
		w.podRemoved(pi)
	}
}

// undoMove reverses a logged pod move, restoring every field of the node, the label index
// and the node sets as they were.
func (s *NodeStore) undoMove(m *podMove) {
	e := m.entry
	n := e.node
	if !m.removed {
		if len(e.pi.RequiredAntiAffinity) > 0 && len(n.PodsWithRequiredAntiAffinity) == 1 && n.Node() != nil {
			s.antiNodes.pop(n)
		}
		if e.pi.HasAffinityTerms() && len(n.PodsWithAffinity) == 1 && n.Node() != nil {
			s.affinityNodes.pop(n)
		}
		s.labels.undoAdd(e)
		n.UndoAdd(e.pi)
		delete(s.entries, e.pi)
		if s.pods[e.pi.Key] == e.pi {
			delete(s.pods, e.pi.Key)
		}
	} else {
		n.RestorePod(e.pi, m.slot)
		s.labels.restore(e, m.labelPos)
		if m.antiPos >= 0 {
			s.antiNodes.restore(n, m.antiPos)
		}
		if m.affinityPos >= 0 {
			s.affinityNodes.restore(n, m.affinityPos)
		}
		s.entries[e.pi] = e
		s.pods[e.pi.Key] = e.pi
	}
	gen := n.Generation
	n.Generation = m.generation
	if s.live(n) {
		s.sets.podsChanged(n, gen, true)
	}
}
