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
	// undo holds, for each pod move under a checkpoint, the versions its change took the
	// sets from and to (a record: stepHeader, then pairs), so that its rollback gives them
	// back without looking the step up; a stack in the undo log's order, kept across
	// resets (a record names its registry).
	undo []int64
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

// podsChanged is told that a live node's Generation changed by a real change (an event
// between cycles): every set holding it takes a fresh version.
func (ns *nodeSets) podsChanged(n *framework.NodeInfo) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if n.Index >= len(ns.of) {
		return
	}
	for _, slot := range ns.of[n.Index] {
		ns.versions[slot].Pods = framework.NextGeneration()
	}
}

// simulated is told that a live node's Generation changed from from under a checkpoint.
// Each set holding the node takes the version the step gives (a step remembered, or
// hint's), and the versions before and after are pushed on the undo stack, at the
// position its pod move took (top, before the change), for the rollback (rolledBack).
// hint is what an earlier record of the same change left (stepsOf), or nil. fresh says
// that the node's Generation was taken just now (framework.NextGeneration): no step to
// it can be remembered but those this call makes, so the others are not looked up.
func (ns *nodeSets) simulated(n *framework.NodeInfo, from int64, hint []int64, fresh bool) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if n.Index >= len(ns.of) {
		return
	}
	slots := ns.of[n.Index]
	// A hint holds while the registry, the node and the Generation it took are the same:
	// then its steps are facts about these very states.
	if len(hint) < stepHeader || hint[0] != ns.registry || hint[1] != int64(n.Index) || hint[2] != n.Generation {
		hint = nil
	}
	rec := len(ns.undo)
	ns.undo = append(ns.undo, ns.registry, int64(n.Index), n.Generation, int64(len(slots)))
	for j, slot := range slots {
		v := &ns.versions[slot].Pods
		before := *v
		switch at := stepHeader + 2*j; {
		case at+1 < len(hint) && hint[at] == before:
			*v = hint[at+1]
		case fresh && !steppedFrom(ns.undo[rec+stepHeader:], before):
			*v = ns.newStep(n.Index, before, n.Generation, from)
		default:
			*v = ns.step(n.Index, before, n.Generation, from)
		}
		ns.undo = append(ns.undo, before, *v)
	}
}

// rolledBack is told that a rollback gave a live node its Generation before the pod move
// whose record is at pos on the undo stack (pos is where the stack stood before the move;
// the moves made after it were rolled back first, so their records are above it). A set
// still at the version the move gave takes back the one it had; any other (a set
// registered since, a version a real change gave) takes the remembered step's.
func (ns *nodeSets) rolledBack(n *framework.NodeInfo, from int64, pos int) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	rec := ns.recordAt(pos, n)
	if pos < len(ns.undo) {
		ns.undo = ns.undo[:pos]
	}
	if n.Index >= len(ns.of) {
		return
	}
	for j, slot := range ns.of[n.Index] {
		v := &ns.versions[slot].Pods
		if at := stepHeader + 2*j; at+1 < len(rec) && rec[at+1] == *v {
			*v = rec[at]
			continue
		}
		*v = ns.step(n.Index, *v, n.Generation, from)
	}
}

// recordAt returns the undo stack's record at pos when it is one of this registry for n,
// else nil.
func (ns *nodeSets) recordAt(pos int, n *framework.NodeInfo) []int64 {
	if pos < 0 || pos+stepHeader > len(ns.undo) || ns.undo[pos] != ns.registry || ns.undo[pos+1] != int64(n.Index) {
		return nil
	}
	end := pos + stepHeader + 2*int(ns.undo[pos+3])
	if end > len(ns.undo) {
		return nil
	}
	return ns.undo[pos:end]
}

// stepHeader is the length of a record's header on the undo stack: the registry, the
// node's Index, the Generation the change gave it, how many sets follow (each as its
// version before and after).
const stepHeader = 4

// top is where the undo stack stands: the position a pod move about to be made records.
// Only the loop changes the stack (readers in parallel ask versions), so no lock.
func (ns *nodeSets) top() int { return len(ns.undo) }

// drop pops the records of a pod move rolled back on a node that is no longer live.
func (ns *nodeSets) drop(pos int) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if pos < len(ns.undo) {
		ns.undo = ns.undo[:pos]
	}
}

// stepsOf copies into dst the record a change pushed at pos (dst's room reused), for a
// later identical change to take as its hint; nil when there is none.
func (ns *nodeSets) stepsOf(pos int, n *framework.NodeInfo, dst []int64) []int64 {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return append(dst[:0], ns.recordAt(pos, n)...)
}

// step returns the version a set at version v takes when node i takes Generation to
// (from from): the one remembered for this step, else a fresh one, remembered both ways.
func (ns *nodeSets) step(i int, v, to, from int64) int64 {
	if w, ok := ns.steps[setStep{from: v, node: i, to: to}]; ok {
		return w
	}
	return ns.newStep(i, v, to, from)
}

// steppedFrom reports whether pairs (a record's sets, each as its version before and
// after) has a set that was at version v.
func steppedFrom(pairs []int64, v int64) bool {
	for k := 0; k+1 < len(pairs); k += 2 {
		if pairs[k] == v {
			return true
		}
	}
	return false
}

// newStep is step for a step not remembered: a fresh version, remembered both ways.
func (ns *nodeSets) newStep(i int, v, to, from int64) int64 {
	w := framework.NextGeneration()
	if len(ns.steps) >= maxSetSteps {
		clear(ns.steps)
	}
	ns.steps[setStep{from: v, node: i, to: to}] = w
	ns.steps[setStep{from: w, node: i, to: from}] = v
	return w
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
