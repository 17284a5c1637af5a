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
// would give. In a wave of alike gangs each preemption changes a rack or two: the bounds
// of the others are looked up, not computed again over every pod of the cluster.
type boundCache struct {
	key     boundKey
	layout  uint64
	entries map[framework.PlacementKey]*boundEntry
}

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
	nodes []*framework.NodeInfo
	// gens are each node's Generation and LeavingGeneration: values only ever taken
	// once (a rollback restores a value with the state it named), so equal generations
	// mean the same pods, requests and leaving pods.
	gens   []int64
	groups []groupPriority
	cost   preemption.Cost
	ok     bool
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
func (c *boundCache) lookup(b *disruptionBound, nodes []*framework.NodeInfo) (*boundEntry, bool) {
	e := c.entries[framework.PlacementKeyOf(nodes)]
	if e == nil || len(e.nodes) != len(nodes) {
		return nil, false
	}
	for i, n := range nodes {
		if e.nodes[i] != n || e.gens[2*i] != n.Generation || e.gens[2*i+1] != n.LeavingGeneration {
			return nil, false
		}
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
	if c.entries != nil && c.key == key && c.layout == layout {
		return
	}
	c.key, c.layout = key, layout
	c.entries = map[framework.PlacementKey]*boundEntry{}
}

// store remembers a bound computed for the placement's nodes.
func (c *boundCache) store(nodes []*framework.NodeInfo, groups []groupPriority, cost preemption.Cost, ok bool) {
	e := &boundEntry{nodes: append([]*framework.NodeInfo(nil), nodes...), gens: make([]int64, 2*len(nodes)),
		groups: groups, cost: cost, ok: ok}
	for i, n := range nodes {
		e.gens[2*i], e.gens[2*i+1] = n.Generation, n.LeavingGeneration
	}
	c.entries[framework.PlacementKeyOf(nodes)] = e
}

// bounds returns every placement's bound and whether it can hold the group at all: the
// remembered ones that still hold, the others computed in parallel (they only read) and
// remembered.
func (c *boundCache) bounds(b *disruptionBound, layout uint64, list []*framework.Placement, par func(n int, fn func(i int))) ([]preemption.Cost, []bool) {
	c.reset(keyOf(b), layout)
	costs := make([]preemption.Cost, len(list))
	feasible := make([]bool, len(list))
	var miss []int
	for i, p := range list {
		if e, ok := c.lookup(b, p.Nodes); ok {
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
			c.store(list[i].Nodes, groups[j], costs[i], feasible[i])
		}
	}
	return costs, feasible
}
