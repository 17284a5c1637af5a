package framework

import "context"

// Placement is a candidate domain for a pod group (KEP-5732): the nodes every member must
// run on. Placements are valid for one group cycle, but a generator may hand out the same
// ones again in later cycles (TopologyPlacement does while its domains stand), so they are
// read-only once generated: nothing writes their fields, the slices they hold or the list
// a generator returned (a caller orders a copy).
type Placement struct {
	// Name says which domain it is, for messages: "example.com/block=b1,
	// example.com/rack=r3", or "the cluster" for the whole cluster.
	Name string
	// Level is the index, in the group's topology constraints, of the level this
	// placement is a domain of; -1 for the whole cluster.
	Level int
	// Parent is the enclosing placement (the domain of the level above), nil at the top.
	Parent *Placement
	// Nodes are the placement's nodes, in snapshot order.
	Nodes []*NodeInfo
	// Set, when not nil, is the same nodes as a NodeSet the generator gives again in every
	// cycle while its domains stand (TopologyPlacement's domains), so that what is
	// remembered about the placement is found without reading its nodes. Without it,
	// NodeSetOf finds the set by the nodes.
	Set *NodeSet
	// Rank orders placements by preference: 0 meets every Preferred level; each Preferred
	// level given up adds one. Every placement of a lower rank is tried before any of a
	// higher rank.
	Rank int
	// Children are the domains of the next, Preferred, level inside a placement that gives
	// that level up: the group fills them one after the other, the roomiest first, so that
	// it spans as few of them as it can.
	Children []*Placement
	// PackWeight, when positive, makes the members prefer nodes the group leaves fullest
	// (weighted against the profile's Score plugins), so a group does not fragment its
	// domain.
	PackWeight int64
	// Devices, when not nil, restricts the devices the members' claims may be allocated
	// from (KEP-5732's DRA placements, the devices that belong together); the
	// PlacementState plugin that made it assumes it on the snapshot's DRA state.
	Devices *DeviceDomain
}

// PlacementKey locates what a cache remembers about a placement across cycles by its nodes:
// the first and last nodes' Index and how many there are. Placements of other nodes may
// share a key (nodes differ in between), so an entry found by it must still be checked
// against the placement's nodes.
type PlacementKey struct{ first, last, n int }

// PlacementKeyOf is the key of a placement with these nodes.
func PlacementKeyOf(nodes []*NodeInfo) PlacementKey {
	if len(nodes) == 0 {
		return PlacementKey{}
	}
	return PlacementKey{first: nodes[0].Index, last: nodes[len(nodes)-1].Index, n: len(nodes)}
}

// NodeSet is a placement's nodes as what is remembered about them across cycles is keyed:
// the capacity bounds of pkg/placement and the disruption bounds of pkg/preemption/group
// key their entries on it, and validate them with the snapshot's NodeSetVersion of it
// rather than with each node's generations.
type NodeSet struct {
	// Nodes are the set's nodes, in snapshot order; they never change.
	Nodes []*NodeInfo
	// Slot and Registry are the snapshot's: where it keeps the set's version, and in which
	// registry of sets (0: none yet). Others leave them alone.
	Slot     int
	Registry int64
}

// NewNodeSet makes a set of nodes; the snapshot registers it when first asked its version.
func NewNodeSet(nodes []*NodeInfo) *NodeSet { return &NodeSet{Nodes: nodes} }

// NodeSetVersion names the state of a set's nodes: Pods changes whenever any node's
// Generation does, Leaving whenever any node's LeavingGeneration does. A value is never
// given to two states (a rollback, or a simulated add of the same pod to a node as it
// was, gives back the version that state had), so equal versions mean every node has the
// Generation (and LeavingGeneration) it had.
type NodeSetVersion struct{ Pods, Leaving int64 }

// SetOf is the placement's NodeSet: its own, or the snapshot's set of its nodes.
func SetOf(snap Snapshot, p *Placement) *NodeSet {
	if p.Set != nil {
		return p.Set
	}
	return snap.NodeSetOf(p.Nodes)
}

// PlacementGeneratePlugin proposes placements for a group (KEP-5732's
// PlacementGeneratorPlugin). Plugins run in order, each given the previous one's placements
// as parents (nil for the first); one that has nothing to say about the group returns
// Skip and the parents stand. A group for which no plugin generates placements is placed
// on the whole cluster without the placement phases.
type PlacementGeneratePlugin interface {
	Plugin
	GeneratePlacements(ctx context.Context, state *CycleState, g *GroupInfo, pending []*PodInfo, parents []*Placement) ([]*Placement, *Status)
}

// PlacementStatePlugin prepares the scheduling state for evaluating a placement
// (AssumePlacement) and undoes that afterwards (RevertPlacement): the KEP's hook for
// proposed DRA allocations. Revert is called for every placement Assume succeeded on.
type PlacementStatePlugin interface {
	Plugin
	AssumePlacement(ctx context.Context, state *CycleState, g *GroupInfo, p *Placement) *Status
	RevertPlacement(ctx context.Context, state *CycleState, g *GroupInfo, p *Placement)
}

// PlacementScorePlugin scores a feasible placement given where the group's members would
// run in it, from 0 to MaxNodeScore (higher is better). The profile weighs the scores
// like Score plugins'.
type PlacementScorePlugin interface {
	Plugin
	ScorePlacement(ctx context.Context, state *CycleState, g *GroupInfo, p *Placement, placed *GroupPlacement, pending int) (int64, *Status)
}

// PlacementCandidates are the placements of a group that fit nowhere without preemption,
// handed to PodGroupPostFilter plugins so that preemption too keeps the group inside one
// placement.
type PlacementCandidates struct {
	// List is ordered by preference: rank, then the score the placement had before
	// preemption (how much of the group it already holds, how tightly).
	List []*Placement
	// Score scores a placement for a decided preemption: the members at their nominated
	// nodes, with the victims gone.
	Score func(ctx context.Context, p *Placement, placed *GroupPlacement) int64
}
