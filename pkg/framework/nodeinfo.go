package framework

import (
	"maps"
	"slices"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// NodeInfo is a node and what runs on it, as the scheduler accounts it.
//
// The cache mutates NodeInfos in place, with exact inverses (RemovePod undoes AddPod and
// RestorePod undoes RemovePod, down to the order of the pod slices), so that a snapshot can
// be checkpointed and rolled back without copying nodes. Plugins only read them.
type NodeInfo struct {
	// free is Allocatable minus Requested of the first resources (cpu, memory, pods,
	// ephemeral storage and the first extended ones), kept as they change. It comes first
	// so that it fills the struct's first cache line (the allocator aligns objects of this
	// size to 64 bytes): the check for room that filtering makes on every node it visits
	// reads one line of the node, not a line of Allocatable and one of Requested.
	free [hotResources]int64

	// The second cache line: what scoring reads of every node it scores (with free).
	Name string
	// Index is the node's position in the cache's node list, for per-node arrays.
	Index int
	// Generation changes on every mutation, so derived data can tell it is stale. Values
	// are unique across nodes and time (a rollback restores an earlier one, with the state
	// it named, and the cache gives a simulated add of the same pod to the node as it was
	// the value that add gave before), so equal generations mean an equal node. The
	// framework serves the resource scores it remembers by it, on every node it scores.
	Generation int64
	// NonZeroCPU and NonZeroMemory sum the pods' requests with scoring defaults filled in.
	NonZeroCPU, NonZeroMemory int64
	// PreferNoSchedule says whether a taint of the node has that effect: TaintToleration
	// scores the other nodes without reading their taints.
	PreferNoSchedule bool
	// hasImages says whether Images holds any name: ImageLocality scores the other nodes
	// without reading the map (which sits beyond these two lines).
	hasImages bool

	node *v1.Node
	// alloc copies Allocatable of cpu and memory, the resources scored by default. It
	// starts the third line: the resource scores read it only for a node whose score the
	// framework does not remember (changed since, or a new request shape).
	alloc [2]int64
	// StaticGeneration changes when what static filters read (labels, taints,
	// unschedulable, allocatable, declared features) changes; cached static verdicts of older generations are
	// stale.
	StaticGeneration int64
	// Unschedulable and Taints copy the node's spec so filters read them from this small,
	// hot struct rather than from the large Node object.
	Unschedulable bool
	Taints        []v1.Taint
	// DeclaredFeatures are the node's status.declaredFeatures that the node declared
	// features library knows, as its feature set (NodeDeclaredFeatures reads them).
	DeclaredFeatures ndf.FeatureSet
	// Images are the image names the node lists in status.images, each with the state the
	// live nodes listing it share (ImageLocality reads them); the cache sets them with
	// SetImages (nil for a node it does not hold, and for a ghost).
	Images map[string]*ImageState

	Allocatable resource.Vector
	Requested   resource.Vector

	Pods                         []*PodInfo
	PodsWithAffinity             []*PodInfo
	PodsWithRequiredAntiAffinity []*PodInfo
	UsedPorts                    HostPortSet

	// LeavingGeneration changes, likewise, when a pod on the node starts or stops leaving
	// (SetLeaving): preemption counts leaving pods as room, and caches what it found per
	// node by both generations.
	LeavingGeneration int64
}

// hotResources is how many resources, from the first, NodeInfo keeps the free amount of.
const hotResources = 8

// generations hands out Generation and LeavingGeneration values.
var generations atomic.Int64

// NextGeneration returns a new, unique generation.
func NextGeneration() int64 { return generations.Add(1) }

// SetLeaving marks a pod of the node as leaving (or no longer): it is terminating, its
// room as good as free.
func (n *NodeInfo) SetLeaving(p *PodInfo, leaving bool) {
	if p.Terminating != leaving {
		p.Terminating = leaving
		n.LeavingGeneration = NextGeneration()
	}
}

// staticGenerations hands out StaticGeneration values; they are unique across nodes so a
// node that is removed and re-added never matches a verdict cached for its old self. Only
// the scheduling loop sets nodes, but tests run several caches at once.
var staticGenerations atomic.Int64

// LastStaticGeneration is the newest StaticGeneration handed out: when it has not moved, no
// node's labels, taints or cordon changed.
func LastStaticGeneration() int64 { return staticGenerations.Load() }

// NewNodeInfo returns an empty NodeInfo for a node.
func NewNodeInfo(node *v1.Node) *NodeInfo {
	n := &NodeInfo{}
	n.SetNode(node)
	return n
}

// Node returns the node object; nil for a node deleted while pods still ran on it.
func (n *NodeInfo) Node() *v1.Node { return n.node }

// AllocatableOf is a node's allocatable as a vector (capacity when allocatable is unset,
// as the simulator's input allows). Resource kinds beyond resource.Max are ignored: no pod
// can ask for them either.
func AllocatableOf(node *v1.Node) resource.Vector {
	list := node.Status.Allocatable
	if len(list) == 0 {
		list = node.Status.Capacity
	}
	var alloc resource.Vector
	for name, q := range list {
		i, err := resource.Index(name)
		if err != nil {
			continue
		}
		alloc[i], _ = resource.Amount(i, q) // beyond MaxAmount: as much as phalanx counts
	}
	return alloc
}

// SetNode replaces the node object and its allocatable (see AllocatableOf).
func (n *NodeInfo) SetNode(node *v1.Node) {
	old := n.node
	n.node = node
	if node == nil {
		return
	}
	n.Name = node.Name
	alloc := AllocatableOf(node)
	features := old == nil || !slices.Equal(old.Status.DeclaredFeatures, node.Status.DeclaredFeatures)
	if features {
		// The API server keeps the list sorted, as TryMap needs; features the library
		// does not know are left out, as kube-scheduler leaves them out.
		n.DeclaredFeatures = ndf.DefaultFramework.TryMap(node.Status.DeclaredFeatures)
	}
	if features || alloc != n.Allocatable || !maps.Equal(old.Labels, node.Labels) || old.Spec.Unschedulable != node.Spec.Unschedulable ||
		!slices.EqualFunc(old.Spec.Taints, node.Spec.Taints, func(a, b v1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
		n.StaticGeneration = staticGenerations.Add(1)
	}
	n.Allocatable = alloc
	for i := range n.free {
		n.free[i] = alloc[i] - n.Requested[i]
	}
	for i := range n.alloc {
		n.alloc[i] = alloc[i]
	}
	n.Unschedulable = node.Spec.Unschedulable
	n.Taints = node.Spec.Taints
	n.PreferNoSchedule = slices.ContainsFunc(node.Spec.Taints, func(t v1.Taint) bool { return t.Effect == v1.TaintEffectPreferNoSchedule })
	n.Generation = NextGeneration()
}

// SetImages gives the node its image names (see Images).
func (n *NodeInfo) SetImages(images map[string]*ImageState) {
	n.Images = images
	n.hasImages = len(images) > 0
}

// HasImages reports whether the node lists any image; it reads the node's second cache
// line, not the map.
func (n *NodeInfo) HasImages() bool { return n.hasImages }

// Free returns allocatable minus requested at position i. Free, AllocatableAt and
// RequestedAt read the node's first two cache lines for the first resources, where the
// Allocatable and Requested vectors take two more.
func (n *NodeInfo) Free(i int) int64 {
	if i < hotResources {
		return n.free[i]
	}
	return n.Allocatable[i] - n.Requested[i]
}

// AllocatableAt returns Allocatable[i].
func (n *NodeInfo) AllocatableAt(i int) int64 {
	if i < len(n.alloc) {
		return n.alloc[i]
	}
	return n.Allocatable[i]
}

// RequestedAt returns Requested[i].
func (n *NodeInfo) RequestedAt(i int) int64 {
	if i < len(n.alloc) {
		return n.alloc[i] - n.free[i]
	}
	return n.Requested[i]
}

// AddPod accounts a pod on the node (appending it to the pod slices).
func (n *NodeInfo) AddPod(p *PodInfo) {
	p.nodePos = int32(len(n.Pods))
	n.Pods = append(n.Pods, p)
	if p.HasAffinityTerms() {
		p.affinityPos = int32(len(n.PodsWithAffinity))
		n.PodsWithAffinity = append(n.PodsWithAffinity, p)
	}
	if len(p.RequiredAntiAffinity) > 0 {
		p.antiAffinityPos = int32(len(n.PodsWithRequiredAntiAffinity))
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, p)
	}
	n.account(p, 1)
	p.NodeName = n.Name
}

// PodSlot records where a removed pod sat, so RestorePod can put it back exactly.
type PodSlot struct{ pod, affinity, antiAffinity int32 }

// RemovePod removes a pod from the node, moving the last pod into its place, and returns
// where it sat. The caller must know the pod is on this node.
func (n *NodeInfo) RemovePod(p *PodInfo) PodSlot {
	slot := PodSlot{pod: p.nodePos, affinity: p.affinityPos, antiAffinity: p.antiAffinityPos}
	n.Pods = swapRemove(n.Pods, p.nodePos, func(q *PodInfo, i int32) { q.nodePos = i })
	if p.affinityPos >= 0 {
		n.PodsWithAffinity = swapRemove(n.PodsWithAffinity, p.affinityPos, func(q *PodInfo, i int32) { q.affinityPos = i })
	}
	if p.antiAffinityPos >= 0 {
		n.PodsWithRequiredAntiAffinity = swapRemove(n.PodsWithRequiredAntiAffinity, p.antiAffinityPos, func(q *PodInfo, i int32) { q.antiAffinityPos = i })
	}
	p.nodePos, p.affinityPos, p.antiAffinityPos = -1, -1, -1
	n.account(p, -1)
	p.NodeName = ""
	return slot
}

// RestorePod undoes RemovePod: the pod goes back to exactly the positions it had.
func (n *NodeInfo) RestorePod(p *PodInfo, s PodSlot) {
	n.Pods = swapInsert(n.Pods, p, s.pod, func(q *PodInfo, i int32) { q.nodePos = i })
	if s.affinity >= 0 {
		n.PodsWithAffinity = swapInsert(n.PodsWithAffinity, p, s.affinity, func(q *PodInfo, i int32) { q.affinityPos = i })
	}
	if s.antiAffinity >= 0 {
		n.PodsWithRequiredAntiAffinity = swapInsert(n.PodsWithRequiredAntiAffinity, p, s.antiAffinity, func(q *PodInfo, i int32) { q.antiAffinityPos = i })
	}
	n.account(p, 1)
	p.NodeName = n.Name
}

// UndoAdd removes the pod that the last AddPod appended. Only valid when nothing else was
// appended since, which a LIFO undo log guarantees.
func (n *NodeInfo) UndoAdd(p *PodInfo) {
	n.Pods[len(n.Pods)-1] = nil
	n.Pods = n.Pods[:len(n.Pods)-1]
	if p.affinityPos >= 0 {
		n.PodsWithAffinity[len(n.PodsWithAffinity)-1] = nil
		n.PodsWithAffinity = n.PodsWithAffinity[:len(n.PodsWithAffinity)-1]
	}
	if p.antiAffinityPos >= 0 {
		n.PodsWithRequiredAntiAffinity[len(n.PodsWithRequiredAntiAffinity)-1] = nil
		n.PodsWithRequiredAntiAffinity = n.PodsWithRequiredAntiAffinity[:len(n.PodsWithRequiredAntiAffinity)-1]
	}
	p.nodePos, p.affinityPos, p.antiAffinityPos = -1, -1, -1
	n.account(p, -1)
	p.NodeName = ""
}

func (n *NodeInfo) account(p *PodInfo, sign int64) {
	for _, i := range p.RequestIdx {
		n.Requested[i] += sign * p.Requests.Vector[i]
		if i < hotResources {
			n.free[i] = n.Allocatable[i] - n.Requested[i]
		}
	}
	n.NonZeroCPU += sign * p.Requests.NonZeroCPU
	n.NonZeroMemory += sign * p.Requests.NonZeroMemory
	for _, hp := range p.HostPorts {
		n.UsedPorts.add(hp, int32(sign))
	}
	n.Generation = NextGeneration()
}

// swapRemove removes s[i] by moving the last element into its place.
func swapRemove(s []*PodInfo, i int32, setPos func(*PodInfo, int32)) []*PodInfo {
	last := int32(len(s) - 1)
	if i != last {
		s[i] = s[last]
		setPos(s[i], i)
	}
	s[last] = nil
	return s[:last]
}

// swapInsert is the inverse of swapRemove: the element now at i goes back to the end.
func swapInsert(s []*PodInfo, p *PodInfo, i int32, setPos func(*PodInfo, int32)) []*PodInfo {
	end := int32(len(s))
	s = append(s, p)
	if i != end {
		s[end] = s[i]
		setPos(s[end], end)
		s[i] = p
	}
	setPos(p, i)
	return s
}

// HostPortSet counts the host ports in use on a node. Nodes use few host ports, so a slice
// beats a map.
type HostPortSet struct {
	entries []hostPortCount
}

type hostPortCount struct {
	HostPort
	count int32
}

func (s *HostPortSet) add(hp HostPort, delta int32) {
	for i := range s.entries {
		if s.entries[i].HostPort == hp {
			s.entries[i].count += delta
			if s.entries[i].count == 0 {
				s.entries = append(s.entries[:i], s.entries[i+1:]...)
			}
			return
		}
	}
	s.entries = append(s.entries, hostPortCount{HostPort: hp, count: delta})
}

// Conflicts reports whether a port conflicts with one in use: same protocol and port, and
// the same IP or either on 0.0.0.0.
func (s *HostPortSet) Conflicts(hp HostPort) bool {
	for _, e := range s.entries {
		if e.Port != hp.Port || e.Protocol != hp.Protocol {
			continue
		}
		if e.IP == hp.IP || e.IP == "0.0.0.0" || hp.IP == "0.0.0.0" {
			return true
		}
	}
	return false
}

// Len is the number of distinct ports in use.
func (s *HostPortSet) Len() int { return len(s.entries) }
