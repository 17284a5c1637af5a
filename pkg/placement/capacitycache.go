package placement

import (
	"fmt"
	"strings"
	"sync"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// capacityCache remembers, across cycles, the capacity bound of each placement for the
// last few member shapes that asked: what a bound reads of its members (how many they
// are, the resources counted, and either the alike members' requests and static filter
// key, with whether static filters narrowed the nodes, or the differing members' smallest
// requests). A bound reads nothing else but its nodes' free room and static verdicts; it
// is reused only while every node is the same NodeInfo with the Generation it had (a
// value taken once, restored by a rollback together with the state it named, and changed
// by any change of the node object, its labels and taints included), so it is exactly
// what computing it again would give. In a wave of alike gangs a cycle then looks up the
// racks nothing changed in, and computes only those a binding, a preemption or a node
// update touched.
type capacityCache struct {
	mu     sync.Mutex
	layout uint64
	static int64
	shapes map[string]map[framework.PlacementKey]*capacityEntry
	// computed counts the bounds computed rather than looked up (tests read it).
	computed int
}

// maxCapacityShapes bounds the shapes remembered at once (each an entry a placement):
// the gangs of a wave share one, and a few others interleave with them.
const maxCapacityShapes = 4

// capacityEntry is a placement's bound with the nodes and generations it was read from.
type capacityEntry struct {
	nodes []*framework.NodeInfo
	gens  []int64
	count int
}

// shapeOf is what a capacity bound reads of its members; static is the alike members'
// static filter key.
func shapeOf(c *capacity, static string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\x00%v\x00", c.members, c.idx)
	if c.rep != nil {
		// A nil eligible means the static filters did not narrow the nodes (PreFilter
		// rejected the member, or the profile has none).
		fmt.Fprintf(&b, "alike\x00%s\x00%s\x00%v", static, c.rep.Requests.Vector.String(), c.eligible == nil)
		return b.String()
	}
	fmt.Fprintf(&b, "sums\x00%v", c.prefix)
	return b.String()
}

// of returns the bound of nodes for c, remembered or computed (and remembered).
func (cc *capacityCache) of(c *capacity, snap framework.Snapshot, nodes []*framework.NodeInfo) int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if layout, static := snap.LayoutVersion(), framework.LastStaticGeneration(); cc.shapes == nil || cc.layout != layout || cc.static != static {
		cc.layout, cc.static = layout, static
		cc.shapes = map[string]map[framework.PlacementKey]*capacityEntry{}
	}
	entries := cc.shapes[c.shape]
	if entries == nil {
		if len(cc.shapes) >= maxCapacityShapes {
			clear(cc.shapes)
		}
		entries = map[framework.PlacementKey]*capacityEntry{}
		cc.shapes[c.shape] = entries
	}
	key := framework.PlacementKeyOf(nodes)
	e := entries[key]
	if e != nil && e.holds(nodes) {
		return e.count
	}
	cc.computed++
	count := c.Of(nodes, nil)
	if e == nil || len(e.nodes) != len(nodes) {
		e = &capacityEntry{nodes: make([]*framework.NodeInfo, len(nodes)), gens: make([]int64, len(nodes))}
		entries[key] = e
	}
	copy(e.nodes, nodes)
	for i, n := range nodes {
		e.gens[i] = n.Generation
	}
	e.count = count
	return count
}

// holds reports whether the entry was read from these very nodes as they are now.
func (e *capacityEntry) holds(nodes []*framework.NodeInfo) bool {
	if len(e.nodes) != len(nodes) {
		return false
	}
	for i, n := range nodes {
		if e.nodes[i] != n || e.gens[i] != n.Generation {
			return false
		}
	}
	return true
}
