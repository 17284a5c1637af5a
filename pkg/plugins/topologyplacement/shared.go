package topologyplacement

import (
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// unpinned returns the placements generated before from this tree for a group that no
// running member pins, with lastRequired its finest Required level. Such a group's
// placements depend on nothing else: the tree's domains (its keys, the nodes and their
// labels), lastRequired (which levels are candidates), the number of levels (the ranks)
// and the plugin's packing weight. So every gang of a wave gets the same list, and the
// same *framework.Placement values, in every cycle while the tree stands.
//
// Handing the same placements to many cycles is safe because nothing after the
// generator writes them (checked over the whole module with a typed scan of every
// assignment to a Placement's field and every element write, sort, copy, clear and
// append on a []*framework.Placement or []*framework.NodeInfo; decision 67):
//   - Fields: the only writes are the generators' own, to placements they are making
//     (build here; DRAPlacement, whose placements take a parent's as Parent and read its
//     fields).
//   - Slices: the search orders copies (fillGroup clones Children before sorting them,
//     failure clones the list before ordering it for preemption); composites'
//     placementsWithin and preemption build lists of their own; nothing writes into a
//     list, Children or Nodes it is given. Nodes and Set were already the tree's, shared
//     by every cycle.
//   - Identity: a Placement is now met again in later cycles. What is kept by placement
//     pointer lives for one search (placementSearch.evals, failure's scores); what lives
//     across cycles is keyed by NodeSet (the placement search's capacity cache,
//     preemption's bound cache), already the tree's.
//
// TestPlacementsNotWrittenBySearch (pkg/placement) fails if a search writes a placement
// or reorders the shared list or children; TestGangCyclesShareFreshPlacements
// (pkg/scheduler) checks that later cycles get what a fresh generation gives.
func (t *domainTree) unpinned(lastRequired int) ([]*framework.Placement, bool) {
	out, ok := t.placements[lastRequired]
	return out, ok
}

// remember keeps an unpinned group's placements with the tree and returns them clipped,
// so that a caller appending to the list gets a copy, not the shared array.
func (t *domainTree) remember(lastRequired int, out []*framework.Placement) []*framework.Placement {
	out = slices.Clip(out)
	t.placements[lastRequired] = out
	return out
}
