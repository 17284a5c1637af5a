package dynamicresources

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// nodeDevices is what Filter reads of the slices a node can use: their devices' IDs, and
// whether one allows multiple allocations, for the count before a search; the counters of
// the node's DevicesVersion; and the allocations found on the node at that version. It is
// computed once per node and version of a snapshot's slices (DRA.SlicesVersion), never
// changed after (but for the count and the allocations it keeps), and read by concurrent
// Filter calls; a node without slices has no IDs, so Filter rejects it for a pod that
// needs devices without looking anything up (decisions 55 and 66).
type nodeDevices struct {
	dra     framework.DRA
	name    string
	version uint64
	// shared marks the entry of every node that can use no slice at version, while the
	// snapshot's nodes keep their layout (deviceMemo.noDevices): it has no name and keeps
	// no allocations (they name their node).
	shared bool
	// multi says whether a device of ids allows multiple allocations.
	multi bool
	// byLabels says whether a slice of the node serves it by its labels (a node selector,
	// or per-device node selection): the allocator then reads the node's labels, so an
	// allocation holds for one StaticGeneration of the node (staticOf).
	byLabels bool
	layout   uint64
	// ids are the devices of the node's slices, in SlicesFor's order (a device listed by
	// two slices twice, as the count has always counted it).
	ids []framework.DeviceID
	// versions sum to the node's DevicesVersion: read without looking the node up.
	versions framework.VersionCounters
	// counted is the number of ids free at a DevicesVersion of the node.
	counted atomic.Pointer[freeCount]
	// results are allocations computed on the node at its current DevicesVersion
	// (cachedRun); they are replaced, never changed.
	results atomic.Pointer[keptResults]
	// seenAt is framework.LastStaticGeneration when the kept allocations' static
	// generation was last found to be the node's: while it has not moved, no node's has,
	// and staticOf does not read the node's line of labels (the entry stays 128 bytes,
	// two cache lines).
	seenAt atomic.Int64
}

// keptResults are the allocations a node keeps, at most maxResultsPerNode, oldest first,
// all for one static generation of the node (staticOf).
type keptResults struct {
	static int64
	list   []cachedResult
}

// cachedResult is an allocation computed on a node for claims of one spec (the pod's
// specID), at one DevicesVersion of the node, within one placement's domain (nil: none);
// alloc is nil when the claims do not fit. It is shared by the Filter calls that find it,
// to be read only.
type cachedResult struct {
	spec    uint64
	version uint64
	domain  *framework.DeviceDomain
	alloc   *nodeAllocation
}

// staticOf is what the node's kept allocations depend on of the node beyond its name and
// devices: its StaticGeneration (which changes with its labels, and when a node of the
// same name comes back) when a slice serves it by its labels, 0 otherwise. It reads the
// node's StaticGeneration, on a cache line Filter reads nothing else of, only when some
// node's has changed since the kept allocations' was last found to be the node's. Nodes
// change between cycles, when no Filter runs, so the Filters of a cycle keep and find the
// same generation.
func (nd *nodeDevices) staticOf(n *framework.NodeInfo) int64 {
	if !nd.byLabels {
		return 0
	}
	last := framework.LastStaticGeneration()
	kept := nd.results.Load()
	if kept == nil {
		return n.StaticGeneration
	}
	if nd.seenAt.Load() == last {
		return kept.static
	}
	static := n.StaticGeneration
	if static == kept.static {
		nd.seenAt.Store(last)
	}
	return static
}

// maxResultsPerNode bounds the allocations a node keeps for its current DevicesVersion:
// one per spec of claims and placement domain tried there since a device of the node was
// last taken or freed.
const maxResultsPerNode = 8

// result returns the allocation kept for claims of the spec at the version and static
// generation within the domain, if any.
func (nd *nodeDevices) result(spec, version uint64, static int64, domain *framework.DeviceDomain) (*nodeAllocation, bool) {
	if kept := nd.results.Load(); kept != nil && kept.static == static {
		for _, r := range kept.list {
			if r.spec == spec && r.version == version && r.domain == domain {
				return r.alloc, true
			}
		}
	}
	return nil, false
}

// keep adds an allocation for the static generation, dropping those of older versions or
// static generations (both only grow, so they are never asked for again) and the oldest
// beyond the bound. Two Filter calls that keep one at once on the same node may lose one:
// it is computed again when next asked for.
func (nd *nodeDevices) keep(static int64, r cachedResult) {
	var list []cachedResult
	if old := nd.results.Load(); old != nil && old.static == static {
		list = slices.DeleteFunc(slices.Clone(old.list), func(o cachedResult) bool { return o.version != r.version })
	}
	if len(list) >= maxResultsPerNode {
		list = list[len(list)-maxResultsPerNode+1:]
	}
	list = append(list, r)
	nd.results.Store(&keptResults{static: static, list: list})
}

type freeCount struct {
	version uint64
	free    int
}

// freeAt is free(taken) at the node's DevicesVersion, counted once per version: the
// version changes whenever a device of the node's pools is taken or freed, rollbacks
// included.
func (nd *nodeDevices) freeAt(version uint64, taken sets.Set[framework.DeviceID]) int {
	if len(nd.ids) == 0 {
		return 0
	}
	if c := nd.counted.Load(); c != nil && c.version == version {
		return c.free
	}
	free := nd.free(taken)
	nd.counted.Store(&freeCount{version: version, free: free})
	return free
}

// free counts the devices of ids not in taken.
func (nd *nodeDevices) free(taken sets.Set[framework.DeviceID]) int {
	if len(taken) == 0 {
		return len(nd.ids)
	}
	n := 0
	for _, id := range nd.ids {
		if !taken.Has(id) {
			n++
		}
	}
	return n
}

// deviceMemo holds a nodeDevices per node, by NodeInfo.Index, and the device IDs of each
// slice object, so that a slice is read once however many nodes use it and however often
// other slices change: slices are replaced, never changed in place (framework.DRA).
type deviceMemo struct {
	// slots is the array of per-node entries; it is replaced (never changed in length)
	// when a node's index is beyond it, so concurrent readers never see it move.
	slots atomic.Pointer[[]atomic.Pointer[nodeDevices]]

	// none is the latest entry shared by the nodes that can use no slice (noDevices), and
	// holders the latest list of the nodes that can use any.
	none    atomic.Pointer[nodeDevices]
	holders atomic.Pointer[sliceHolders]
	// slotsOnly, for tests, looks every node up in its slot, as a node whose bit among
	// the holders' collides with a holder's is.
	slotsOnly bool

	mu      sync.Mutex
	version uint64
	// cur are the IDs of the slices read at version; prev those of the last version
	// before it that read any, reused for a slice still there.
	cur, prev map[*resourceapi.ResourceSlice][]framework.DeviceID
}

// forNode returns the node's entry for the slices' current version, computing it when the
// node has none, or one for another version or another node at the same index. A node
// that can use no slice (most of a large cluster's) gets the entry such nodes share,
// found by the node's pointer alone (sliceHolders): Filter reads nothing of the node, whose
// line of name and index nothing else reads when Filter rejects it.
func (m *deviceMemo) forNode(dra framework.DRA, snap framework.Snapshot, n *framework.NodeInfo) *nodeDevices {
	version, layout := dra.SlicesVersion(), snap.LayoutVersion()
	if !m.slotsOnly && !m.sliceHolders(dra, snap, version, layout).mayHold(n) {
		return m.noDevices(dra, version, layout, n)
	}
	slot := m.slot(n.Index)
	if nd := slot.Load(); nd != nil && nd.validFor(dra, version, layout, n) {
		return nd
	}
	var nd *nodeDevices
	if usable := dra.SlicesFor(n.Name); len(usable) == 0 {
		nd = m.noDevices(dra, version, layout, n)
	} else {
		nd = m.build(dra, version, n, usable)
	}
	slot.Store(nd)
	return nd
}

// validFor reports whether the entry is the node's at the slices' version: its own, or the
// shared one while the nodes keep the layout it was found in.
func (nd *nodeDevices) validFor(dra framework.DRA, version, layout uint64, n *framework.NodeInfo) bool {
	if nd.version != version || nd.dra != dra {
		return false
	}
	if nd.shared {
		return nd.layout == layout
	}
	return nd.name == n.Name
}

// sliceHolders are the nodes that have slices of their own, at one slices version and
// node layout, when every slice is a node's own (all otherwise: a slice for the nodes its
// selector picks, or for all, may serve any node). They are a bit per hash of a node's
// pointer, 32 bits a holder: a node whose bit is clear has no slice, without a look at
// the node; one whose bit is set (a holder, or about one node in 32 of the others) is
// looked up.
type sliceHolders struct {
	dra             framework.DRA
	version, layout uint64
	all             bool
	seed            maphash.Seed
	bits            []uint64
}

// mayHold reports whether the node may have slices of its own: false is certain.
func (h *sliceHolders) mayHold(n *framework.NodeInfo) bool {
	if h.all {
		return true
	}
	i := maphash.Comparable(h.seed, n) & uint64(len(h.bits)*64-1)
	return h.bits[i/64]&(1<<(i%64)) != 0
}

// sliceHolders returns the holders at the slices' version and the layout, found again
// when either changed.
func (m *deviceMemo) sliceHolders(dra framework.DRA, snap framework.Snapshot, version, layout uint64) *sliceHolders {
	if h := m.holders.Load(); h != nil && h.version == version && h.layout == layout && h.dra == dra {
		return h
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if h := m.holders.Load(); h != nil && h.version == version && h.layout == layout && h.dra == dra {
		return h
	}
	h := &sliceHolders{dra: dra, version: version, layout: layout, seed: maphash.MakeSeed()}
	var holders []*framework.NodeInfo
	for _, s := range dra.Slices() {
		if s.Spec.NodeName == nil || *s.Spec.NodeName == "" {
			h.all = true
			break
		}
		if n := snap.Get(*s.Spec.NodeName); n != nil {
			holders = append(holders, n)
		}
	}
	if !h.all {
		words := 1 // a power of two, for the mask
		for words < (len(holders)+1)/2 {
			words *= 2
		}
		h.bits = make([]uint64, words)
		for _, n := range holders {
			i := maphash.Comparable(h.seed, n) & uint64(words*64-1)
			h.bits[i/64] |= 1 << (i % 64)
		}
	}
	m.holders.Store(h)
	return h
}

// noDevices returns the entry shared by the nodes that can use no slice at version,
// made when the slices or the nodes' layout changed since the last one.
func (m *deviceMemo) noDevices(dra framework.DRA, version, layout uint64, n *framework.NodeInfo) *nodeDevices {
	if nd := m.none.Load(); nd != nil && nd.version == version && nd.layout == layout && nd.dra == dra {
		return nd
	}
	// Without slices, the counters are the slices' version alone, the same for all.
	nd := &nodeDevices{dra: dra, version: version, shared: true, layout: layout, versions: dra.DevicesVersionCounters(n.Name)}
	m.none.Store(nd)
	return nd
}

// own returns an entry of the node's own, to keep allocations on: nd, or, for the entry
// shared by nodes without slices, one made for the node in its place.
func (m *deviceMemo) own(dra framework.DRA, nd *nodeDevices, n *framework.NodeInfo) *nodeDevices {
	if !nd.shared {
		return nd
	}
	slot := m.slot(n.Index)
	if o := slot.Load(); o != nil && !o.shared && o.validFor(dra, nd.version, nd.layout, n) {
		return o
	}
	own := m.build(dra, nd.version, n, nil)
	slot.Store(own)
	return own
}

// build makes a node's entry of its slices at version.
func (m *deviceMemo) build(dra framework.DRA, version uint64, n *framework.NodeInfo, usable []*resourceapi.ResourceSlice) *nodeDevices {
	nd := &nodeDevices{dra: dra, name: n.Name, version: version, versions: dra.DevicesVersionCounters(n.Name)}
	for i, s := range usable {
		if ids := m.sliceIDs(version, s); i == 0 {
			nd.ids = ids[:len(ids):len(ids)] // shared with the slice's; an append copies
		} else {
			nd.ids = append(nd.ids, ids...)
		}
		nd.byLabels = nd.byLabels || servesByLabels(s)
		if !nd.multi {
			for i := range s.Spec.Devices {
				if a := s.Spec.Devices[i].AllowMultipleAllocations; a != nil && *a {
					nd.multi = true
					break
				}
			}
		}
	}
	return nd
}

// servesByLabels reports whether the slice may serve a node by its labels: one that names
// its node, or serves all nodes, does not.
func servesByLabels(s *resourceapi.ResourceSlice) bool {
	named := s.Spec.NodeName != nil && *s.Spec.NodeName != ""
	all := s.Spec.AllNodes != nil && *s.Spec.AllNodes
	return !named && !all
}

// slot returns the entry of index i, growing the array when it is too short.
func (m *deviceMemo) slot(i int) *atomic.Pointer[nodeDevices] {
	if s := m.slots.Load(); s != nil && i < len(*s) {
		return &(*s)[i]
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.slots.Load()
	if s == nil || i >= len(*s) {
		var old []atomic.Pointer[nodeDevices]
		if s != nil {
			old = *s
		}
		grown := make([]atomic.Pointer[nodeDevices], max(i+1, 2*len(old), 1024))
		for j := range old {
			grown[j].Store(old[j].Load())
		}
		s = &grown
		m.slots.Store(s)
	}
	return &(*s)[i]
}

// sliceIDs returns the IDs of a slice's devices, read once per slice object.
func (m *deviceMemo) sliceIDs(version uint64, s *resourceapi.ResourceSlice) []framework.DeviceID {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur == nil || version != m.version {
		if len(m.cur) > 0 {
			m.prev = m.cur
		}
		m.cur, m.version = map[*resourceapi.ResourceSlice][]framework.DeviceID{}, version
	}
	ids, ok := m.cur[s]
	if !ok {
		ids, ok = m.prev[s]
	}
	if !ok || !sameDevices(ids, s) {
		ids = make([]framework.DeviceID, len(s.Spec.Devices))
		for i := range s.Spec.Devices {
			ids[i] = structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, s.Spec.Devices[i].Name)
		}
	}
	m.cur[s] = ids
	return ids
}

// sameDevices checks IDs read from a slice object against it, cheaply: a slice changed in
// place (which the DRA interface rules out) is read again when its devices' number, driver
// or pool changed.
func sameDevices(ids []framework.DeviceID, s *resourceapi.ResourceSlice) bool {
	return len(ids) == len(s.Spec.Devices) &&
		(len(ids) == 0 || ids[0].Driver.String() == s.Spec.Driver && ids[0].Pool.String() == s.Spec.Pool.Name)
}
