package cache

import (
	"slices"
	"sync"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// nodeSets keeps a version of each set of nodes that was asked about (framework.NodeSet:
// placements' nodes), changed as its nodes change, so that what is remembered about a
// placement across cycles is validated by reading one version, not every node.
//
// A version names a state of the set's nodes, never two: a set is given a fresh value
// (framework.NextGeneration) when registered and at every change of one of its nodes,
// except where the new state is known to be one the set had under another value. Every
// change under a checkpoint is a step "node i's Generation becomes g" from one named state
// to another; the store remembers it both ways (steps), as facts about states that hold
// whatever happens in between: from version v, node i becoming g gives version w; from w,
// node i becoming its old Generation again gives v. A rollback (which restores each
// node's Generation) then gives back the versions the sets had, and a simulated add of
// the same pod to a node as it was (which NodeStore.AddPod gives the Generation it gave
// before) the version it gave before. Leaving marks are never rolled back: every change
// gives a fresh Leaving version.
type nodeSets struct {
	mu sync.Mutex
	// registry names this registry of sets; a set registered in an earlier one (before the
	// layout changed, or before the registry was emptied) registers again.
	registry int64
	sets     []*framework.NodeSet
	versions []framework.NodeSetVersion
	// of are, per node Index, the slots of the sets holding the node.
	of      [][]int32
	members int
	// byNodes finds the sets NodeSetOf made, by their nodes.
	byNodes map[framework.PlacementKey][]int32
	steps   map[setStep]int64
}

// setStep is a change of one node of a set: from the set's version, the node (by Index)
// takes a Generation.
type setStep struct {
	from int64
	node int
	to   int64
}

// maxSetSteps bounds the steps remembered (forgotten together: only hits are lost).
const maxSetSteps = 1 << 18

// reset forgets every set (the node layout changed, or too many sets were registered).
func (ns *nodeSets) reset() {
	ns.registry = framework.NextGeneration()
	ns.sets, ns.versions, ns.of, ns.members = nil, nil, nil, 0
	ns.byNodes = map[framework.PlacementKey][]int32{}
	ns.steps = map[setStep]int64{}
}

// version returns the version of s, registering it first when it is not registered here.
func (ns *nodeSets) version(nodes []*framework.NodeInfo, s *framework.NodeSet) framework.NodeSetVersion {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.registry == 0 {
		ns.reset()
	}
	if s.Registry == ns.registry {
		return ns.versions[s.Slot]
	}
	if !ns.register(nodes, s) {
		// Nodes no longer in the cache: a version nothing will ever match.
		return framework.NodeSetVersion{Pods: framework.NextGeneration(), Leaving: framework.NextGeneration()}
	}
	return ns.versions[s.Slot]
}

// register gives s a slot and a fresh version, unless one of its nodes is not live.
func (ns *nodeSets) register(nodes []*framework.NodeInfo, s *framework.NodeSet) bool {
	for _, n := range s.Nodes {
		if n.Index >= len(nodes) || nodes[n.Index] != n {
			return false
		}
	}
	if ns.members+len(s.Nodes) > 8*len(nodes)+4096 {
		ns.reset() // sets of domains long rebuilt: forget them all
	}
	if ns.of == nil {
		ns.of = make([][]int32, len(nodes))
	}
	slot := len(ns.sets)
	s.Slot, s.Registry = slot, ns.registry
	ns.sets = append(ns.sets, s)
	ns.versions = append(ns.versions, framework.NodeSetVersion{Pods: framework.NextGeneration(), Leaving: framework.NextGeneration()})
	for _, n := range s.Nodes {
		ns.of[n.Index] = append(ns.of[n.Index], int32(slot))
	}
	ns.members += len(s.Nodes)
	return true
}

// setOf returns the registered set of these nodes, made and registered when there is none.
func (ns *nodeSets) setOf(live []*framework.NodeInfo, nodes []*framework.NodeInfo) *framework.NodeSet {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.registry == 0 {
		ns.reset()
	}
	key := framework.PlacementKeyOf(nodes)
	for _, slot := range ns.byNodes[key] {
		if s := ns.sets[slot]; slices.Equal(s.Nodes, nodes) {
			return s
		}
	}
	s := framework.NewNodeSet(slices.Clone(nodes))
	if ns.register(live, s) {
		ns.byNodes[key] = append(ns.byNodes[key], int32(s.Slot))
	}
	return s
}

// podsChanged is told that a live node's Generation changed from from; remember says the
// change is a simulation's (or its rollback), whose steps are remembered.
func (ns *nodeSets) podsChanged(n *framework.NodeInfo, from int64, remember bool) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if n.Index >= len(ns.of) {
		return
	}
	for _, slot := range ns.of[n.Index] {
		v := &ns.versions[slot].Pods
		step := setStep{from: *v, node: n.Index, to: n.Generation}
		if remember {
			if w, ok := ns.steps[step]; ok {
				*v = w
				continue
			}
		}
		w := framework.NextGeneration()
		if remember {
			if len(ns.steps) >= maxSetSteps {
				clear(ns.steps)
			}
			ns.steps[step] = w
			ns.steps[setStep{from: w, node: n.Index, to: from}] = *v
		}
		*v = w
	}
}

// leavingChanged is told that a live node's LeavingGeneration changed.
func (ns *nodeSets) leavingChanged(n *framework.NodeInfo) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if n.Index >= len(ns.of) {
		return
	}
	for _, slot := range ns.of[n.Index] {
		ns.versions[slot].Leaving = framework.NextGeneration()
	}
}

// NodeSetVersion returns the version of a set of live nodes (framework.Snapshot).
func (s *NodeStore) NodeSetVersion(set *framework.NodeSet) framework.NodeSetVersion {
	return s.sets.version(s.nodes, set)
}

// NodeSetOf returns the store's set of these nodes (framework.Snapshot).
func (s *NodeStore) NodeSetOf(nodes []*framework.NodeInfo) *framework.NodeSet {
	return s.sets.setOf(s.nodes, nodes)
}

// live reports whether n is one of the store's live nodes (not a ghost).
func (s *NodeStore) live(n *framework.NodeInfo) bool {
	return n.Index < len(s.nodes) && s.nodes[n.Index] == n
}
