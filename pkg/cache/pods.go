package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// podEntry is the store's bookkeeping for a pod on a node: where it sits in the label
// index, so that removing it is O(labels).
type podEntry struct {
	pi   *framework.PodInfo
	node *framework.NodeInfo
	labelPostings
	pos []int32
}

// podMove is a pod added to or removed from a node under a checkpoint, with what its exact
// inverse needs.
type podMove struct {
	removed    bool
	entry      *podEntry
	generation int64
	// sets is where the node sets' undo stack stood before the move (nodeSets.rolledBack).
	sets int
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
	s.addPod(pi, n)
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
	s.addPod(pi, n)
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
		s.simulateAdd(pi, n, true, nil)
	}
}

// AddNominated places, inside a simulation, every pod nominated in noms that include
// accepts on the node it is nominated to, oldest nomination first, as AddPod would one
// by one; pods whose node is gone or that are already bound or assumed are left out.
// Each cycle adds the nominated pods and rolls them back: this walk looks each pod and
// node up once.
func (s *NodeStore) AddNominated(noms *NominationStore, include func(*framework.PodInfo) bool) {
	for _, nom := range noms.order {
		if !include(nom.pi) {
			continue
		}
		seen := &nom.seen
		n := seen.node
		// The node found last time is the node of that name while it is still live.
		if n == nil || n.Index >= len(s.nodes) || s.nodes[n.Index] != n {
			n = s.Get(nom.node)
		}
		if n == nil || s.pods[nom.pi.Key] != nil {
			continue
		}
		seen.node = n
		pos := s.sets.top()
		// No pod of that key is in the store, so neither is this one (an entry's pod is
		// always the store's pod of its key): no need to look it up again.
		if from, leaving := n.Generation, nom.pi.Terminating; seen.to != 0 && seen.from == from && seen.leaving == leaving {
			// The add the last cycle made, to the node as it was then: the Generation
			// it took then names the state again, as simulatedAdds would say, and the
			// node sets' versions it gave them name theirs.
			e := s.add(nom.pi, n, false, &seen.labels)
			n.Generation = seen.to
			s.podsChanged(n, from, seen.steps, false)
			seen.labels.keep(e)
		} else {
			s.simulateAdd(nom.pi, n, false, seen)
			seen.from, seen.to, seen.leaving = from, n.Generation, leaving
		}
		if s.live(n) {
			seen.steps = s.sets.stepsOf(pos, n, seen.steps)
		}
	}
}

// simulateAdd is AddPod on a node found; check says whether the pod may be in the store
// already; seen, when the pod is a nomination's, is what its last add left (nil for
// others), and takes this add's label postings.
func (s *NodeStore) simulateAdd(pi *framework.PodInfo, n *framework.NodeInfo, check bool, seen *nominatedAdd) {
	key := simulatedAdd{pi: pi, state: n.Generation << 1}
	if pi.Terminating {
		key.state |= 1
	}
	before := n.Generation
	var known *labelPostings
	var hint []int64
	if seen != nil {
		known, hint = &seen.labels, seen.steps
	}
	e := s.add(pi, n, check, known)
	if e == nil {
		return // refused
	}
	if seen != nil {
		seen.labels.keep(e)
	}
	// The same pod added to the node as it was gives the node it gave before: the
	// generation it took then names it again, so what was derived from that node (static
	// verdicts, capacity and disruption bounds, preemption's per-node results) holds.
	g, remembered := s.simulatedAdds[key]
	if remembered {
		n.Generation = g
	} else {
		if len(s.simulatedAdds) >= maxSimulatedAdds {
			clear(s.simulatedAdds)
		}
		s.simulatedAdds[key] = n.Generation
	}
	s.podsChanged(n, before, hint, !remembered)
}

// podsChanged tells the node sets that a node's Generation changed from from, once the
// change is final (a simulated add may have taken a remembered Generation). Under a
// checkpoint, hint is the node sets' record of the same change made before, if known
// (nodeSets.simulated); fresh says that the node's Generation was taken just now.
func (s *NodeStore) podsChanged(n *framework.NodeInfo, from int64, hint []int64, fresh bool) {
	if !s.live(n) {
		return
	}
	if s.undo.simulating() {
		s.sets.simulated(n, from, hint, fresh)
	} else {
		s.sets.podsChanged(n)
	}
}

// simulatedAdd is a pod added to a node, in a simulation, at one of the node's
// generations; the pod's own leaving mark is part of what the node then holds. state is
// the generation shifted left by one, its low bit the leaving mark: sixteen bytes of
// plain memory, hashed and compared as such.
type simulatedAdd struct {
	pi    *framework.PodInfo
	state int64
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
	if e := s.entries[pi]; e != nil && pi.Terminating != leaving {
		// It counts for the label index's readers exactly while not leaving.
		delta := int32(1)
		if leaving {
			delta = -1
		}
		s.labels.logChange(e, delta)
	}
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
	s.labels.forEach(sel, func(e *podEntry, matched bool) bool {
		if e.node.Node() == nil || !ns(e.pi.Pod.Namespace) {
			return true
		}
		if !matched && !sel.Matches(labels.Set(e.pi.Pod.Labels)) {
			return true
		}
		return fn(e.pi)
	})
}

// addPod adds a bound or assumed pod to a node.
func (s *NodeStore) addPod(pi *framework.PodInfo, n *framework.NodeInfo) {
	gen := n.Generation
	s.add(pi, n, true, nil)
	if n.Generation != gen {
		s.podsChanged(n, gen, nil, false)
	}
}

// add is addPod without telling the node sets (its callers do, once the node's Generation
// is final); check says whether the pod may be in the store already; known are the label
// postings an earlier add of pi took, if any (labelIndex.add). It returns the pod's entry,
// nil when refused.
func (s *NodeStore) add(pi *framework.PodInfo, n *framework.NodeInfo, check bool, known *labelPostings) *podEntry {
	if check {
		if old, ok := s.entries[pi]; ok {
			// A pod already on a node: adding it again would corrupt its positions. This
			// is a scheduler bug; it is refused and reported by Verify instead of
			// spreading.
			s.faults = append(s.faults, fmt.Sprintf("pod %s added to node %s while on node %s", pi.Key, n.Name, old.node.Name))
			return nil
		}
	}
	e := s.newEntry(pi, n)
	s.entries[pi] = e
	s.pods[pi.Key] = pi
	gen := n.Generation
	n.AddPod(pi)
	s.labels.add(e, known)
	if n.Node() != nil {
		if len(n.PodsWithRequiredAntiAffinity) == 1 && len(pi.RequiredAntiAffinity) > 0 {
			s.antiNodes.add(n)
		}
		if len(n.PodsWithAffinity) == 1 && pi.HasAffinityTerms() {
			s.affinityNodes.add(n)
		}
	}
	s.recordAffinity(pi, n)
	s.undo.logMove(podMove{entry: e, generation: gen, sets: s.sets.top()})
	for _, w := range s.watchers {
		w.podAdded(pi)
	}
	return e
}

func (s *NodeStore) removePod(pi *framework.PodInfo) {
	e := s.entries[pi]
	n := e.node
	m := podMove{removed: true, entry: e, generation: n.Generation, sets: s.sets.top(), antiPos: -1, affinityPos: -1}
	m.labelPos = s.labels.remove(e, s.undo.simulating())
	m.slot = n.RemovePod(pi)
	s.recordAffinity(pi, n)
	s.podsChanged(n, m.generation, nil, false)
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
		s.recordAffinity(e.pi, n)
		delete(s.entries, e.pi)
		if s.pods[e.pi.Key] == e.pi {
			delete(s.pods, e.pi.Key)
		}
		s.restoreGeneration(n, m)
		// Nothing holds the entry of an add undone (its postings and the undo record
		// are cleared): the next add reuses it.
		s.freeEntry(e)
		return
	}
	n.RestorePod(e.pi, m.slot)
	s.recordAffinity(e.pi, n)
	s.labels.restore(e, m.labelPos)
	if m.antiPos >= 0 {
		s.antiNodes.restore(n, m.antiPos)
	}
	if m.affinityPos >= 0 {
		s.affinityNodes.restore(n, m.affinityPos)
	}
	s.entries[e.pi] = e
	s.pods[e.pi.Key] = e.pi
	s.restoreGeneration(n, m)
}

// restoreGeneration gives a node back the Generation it had before a move, and the node
// sets holding it their versions.
func (s *NodeStore) restoreGeneration(n *framework.NodeInfo, m *podMove) {
	gen := n.Generation
	n.Generation = m.generation
	if s.live(n) {
		s.sets.rolledBack(n, gen, m.sets)
	} else {
		s.sets.drop(m.sets)
	}
}

// newEntry returns an entry for a pod on a node, one that an undone add left if any.
func (s *NodeStore) newEntry(pi *framework.PodInfo, n *framework.NodeInfo) *podEntry {
	if k := len(s.freeEntries); k > 0 {
		e := s.freeEntries[k-1]
		s.freeEntries[k-1] = nil
		s.freeEntries = s.freeEntries[:k-1]
		e.pi, e.node = pi, n
		return e
	}
	return &podEntry{pi: pi, node: n}
}

// freeEntry keeps an entry no longer used for newEntry, its slices' room with it.
func (s *NodeStore) freeEntry(e *podEntry) {
	if len(s.freeEntries) >= maxFreeEntries {
		return
	}
	e.pi, e.node = nil, nil
	clear(e.postings)
	clear(e.keys)
	e.postings, e.keys, e.pos = e.postings[:0], e.keys[:0], e.pos[:0]
	s.freeEntries = append(s.freeEntries, e)
}

// maxFreeEntries bounds the entries kept for reuse: a cycle's simulated adds.
const maxFreeEntries = 1 << 16
