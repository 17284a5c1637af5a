package preemption

import (
	"context"
	"strconv"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// nodeResults remember what the resource path found on each node for the last preemptor
// shape that asked, valid while neither the node (its Generation and LeavingGeneration,
// which only take new values) nor what makes units (the snapshot's UnitsVersion) changed.
// In a wave of alike preemptors, most candidate nodes are the same as a moment ago: their
// victims are looked up, not searched again. A cached result is exactly what the search
// would find again (the resource path's search has no shared budget), so decisions do not
// depend on the cache.
type nodeResults struct {
	byIndex []nodeResult
}

type nodeResult struct {
	gen, leaving, units int64
	shape               string
	// candidate is the result (nil: the node has none for the shape).
	candidate *Candidate
	valid     bool
}

// shapeOf identifies what of a preemptor the resource path reads: its requests and its
// priority.
func shapeOf(p *framework.PodInfo) string {
	return p.Requests.Vector.String() + "@" + strconv.Itoa(int(p.Priority))
}

// byResources is selectVictimsByResources, answered from the node's last result when it
// still holds. The candidate returned is the caller's to change.
func (e *Evaluator) byResources(ctx context.Context, p *framework.PodInfo, shape string, n *framework.NodeInfo) *Candidate {
	units := e.Handle.Snapshot().UnitsVersion()
	r := &e.results
	if n.Index >= len(r.byIndex) {
		r.byIndex = append(r.byIndex, make([]nodeResult, n.Index+1-len(r.byIndex))...)
	}
	slot := &r.byIndex[n.Index]
	if !slot.valid || slot.gen != n.Generation || slot.leaving != n.LeavingGeneration || slot.units != units || slot.shape != shape {
		*slot = nodeResult{gen: n.Generation, leaving: n.LeavingGeneration, units: units, shape: shape,
			candidate: e.selectVictimsByResources(ctx, p, n), valid: true}
	}
	if slot.candidate == nil {
		return nil
	}
	c := *slot.candidate
	return &c
}
