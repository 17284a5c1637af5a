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
// is kept with the placement's NodeSet and reused only while the snapshot's version of
// that set's pods is the one it was computed at (a version names one state of the set's
// nodes, every node with the Generation it had: a value restored by a rollback together
// with the state it named, and changed by any change of a node object, its labels and
// taints included), so it is exactly what computing it again would give. In a wave of
// alike gangs a cycle then looks up the racks nothing changed in, reading one version a
// rack, and computes only those a binding, a preemption or a node update touched.
type capacityCache struct {
	mu     sync.Mutex
	layout uint64
	static int64
	// The entries are values in the map, not pointers: a search looks up thousands of
	// racks, and each pointer followed was a cache miss of its own.
	shapes map[string]map[*framework.NodeSet]capacityEntry
	// computed counts the bounds computed rather than looked up (tests read it).
	computed int
}

// maxCapacityShapes bounds the shapes remembered at once (each an entry a placement):
// the gangs of a wave share one, and a few others interleave with them.
const maxCapacityShapes = 4

// maxCapacityEntries bounds the entries of one shape (sets of domains long rebuilt are
// forgotten with the others).
const maxCapacityEntries = 1 << 17

// capacityEntry is a placement's bound with the version of its nodes it was read from.
type capacityEntry struct {
	version int64
	count   int
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

// of returns the bound of the placement's nodes for c, remembered or computed (and
// remembered).
func (cc *capacityCache) of(c *capacity, snap framework.Snapshot, p *framework.Placement) int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if layout, static := snap.LayoutVersion(), framework.LastStaticGeneration(); cc.shapes == nil || cc.layout != layout || cc.static != static {
		cc.layout, cc.static = layout, static
		cc.shapes = map[string]map[*framework.NodeSet]capacityEntry{}
	}
	entries := cc.shapes[c.shape]
	if entries == nil || len(entries) >= maxCapacityEntries {
		if len(cc.shapes) >= maxCapacityShapes {
			clear(cc.shapes)
		}
		entries = map[*framework.NodeSet]capacityEntry{}
		cc.shapes[c.shape] = entries
	}
	set := framework.SetOf(snap, p)
	version := snap.NodeSetVersion(set).Pods
	if e, ok := entries[set]; ok && e.version == version {
		return e.count
	}
	cc.computed++
	count := c.Of(p.Nodes, nil)
	entries[set] = capacityEntry{version: version, count: count}
	return count
}
