package group

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// boundCache remembers each placement's disruption bound for the last preemptor shape
// that asked, across cycles. A bound reads the placement's nodes, the preemptor's shape
// (the resources its smallest members need, and its priority), which pods it owns, and
// the victim priorities of the groups whose pods run there; a remembered bound is reused
// only while all of these are what they were, so it is exactly what computing it again
// would give; the placement's nodes are checked by the snapshot's version of its NodeSet
// (one value, changed with any node's Generation or LeavingGeneration). In a wave of alike
// gangs each preemption changes a rack or two: the bounds of the others are looked up, not
// computed again over every pod of the cluster.
type boundCache struct {
	key     boundKey
	layout  uint64
	entries map[*framework.NodeSet]*boundEntry
}

// maxBoundEntries bounds the entries (sets of domains long rebuilt are forgotten with the
// others).
const maxBoundEntries = 1 << 17

// boundKey is what a bound reads of its preemptor, besides the pods it owns.
type boundKey struct {
	idx  [boundResources]int8
	k    int
	want boundVector
	prio int32
}

func keyOf(b *disruptionBound) boundKey {
	k := boundKey{prio: b.pr.g.Priority, k: min(len(b.idx), boundResources)}
	for j := range k.k {
		k.idx[j] = b.idx[j]
		k.want[j] = b.want[b.idx[j]]
	}
	return k
}

// boundEntry is a placement's bound, with what it was computed from.
type boundEntry struct {
	// version is the snapshot's version of the placement's nodes then: equal versions mean
	// the same pods, requests and leaving pods.
	version framework.NodeSetVersion
	groups  []groupPriority
	cost    preemption.Cost
	ok      bool
}

// groupPriority is a group whose pods the bound looked at, and its victim priority then
// (found false when the snapshot had no such group: its pods counted at their own).
type groupPriority struct {
	key   string
	prio  int32
	found bool
}

// noteGroup adds a group to the list once.
func noteGroup(snap framework.Snapshot, groups []groupPriority, key string) []groupPriority {
	for _, g := range groups {
		if g.key == key {
			return groups
		}
	}
	prio, found := preemption.GroupVictimPriority(snap, key)
	return append(groups, groupPriority{key: key, prio: prio, found: found})
}

// lookup returns the placement's remembered bound when it still holds for b.
func (c *boundCache) lookup(b *disruptionBound, set *framework.NodeSet, version framework.NodeSetVersion) (*boundEntry, bool) {
	e := c.entries[set]
	if e == nil || e.version != version {
		return nil, false
	}
	for _, g := range e.groups {
		if b.pr.groups[g.key] {
			return nil, false
		}
		if prio, found := preemption.GroupVictimPriority(b.snap, g.key); prio != g.prio || found != g.found {
			return nil, false
		}
	}
	return e, true
}

// reset forgets every bound when the preemptor's shape or the node layout changed.
func (c *boundCache) reset(key boundKey, layout uint64) {
	if c.entries != nil && c.key == key && c.layout == layout && len(c.entries) < maxBoundEntries {
		return
	}
	c.key, c.layout = key, layout
	c.entries = map[*framework.NodeSet]*boundEntry{}
}

// bounds returns every placement's bound and whether it can hold the group at all: the
// remembered ones that still hold, the others computed in parallel (they only read) and
// remembered.
func (c *boundCache) bounds(b *disruptionBound, layout uint64, list []*framework.Placement, par func(n int, fn func(i int))) ([]preemption.Cost, []bool) {
	c.reset(keyOf(b), layout)
	costs := make([]preemption.Cost, len(list))
	feasible := make([]bool, len(list))
	sets := make([]*framework.NodeSet, len(list))
	versions := make([]framework.NodeSetVersion, len(list))
	var miss []int
	for i, p := range list {
		sets[i] = framework.SetOf(b.snap, p)
		versions[i] = b.snap.NodeSetVersion(sets[i])
		if e, ok := c.lookup(b, sets[i], versions[i]); ok {
			costs[i], feasible[i] = e.cost, e.ok
			continue
		}
		miss = append(miss, i)
	}
	groups := make([][]groupPriority, len(miss))
	reusable := make([]bool, len(miss))
	par(len(miss), func(j int) {
		i := miss[j]
		costs[i], feasible[i], groups[j], reusable[j] = b.compute(list[i].Nodes)
	})
	for j, i := range miss {
		if reusable[j] {
			c.entries[sets[i]] = &boundEntry{version: versions[i], groups: groups[j], cost: costs[i], ok: feasible[i]}
		}
	}
	return costs, feasible
}
