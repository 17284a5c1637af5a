package group

import (
	"context"
	"slices"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// domain is where a group's preemption is simulated: the whole cluster (no nodes), a
// planned part of it, or one of the group's placements, whose PlacementState plugins then
// hold the members to it as well as its nodes.
type domain struct {
	nodes     []*framework.NodeInfo
	placement *framework.Placement
}

// placeOptions places need members in the domain, each on the first node that fits.
func (d domain) placeOptions(need int) framework.PlaceOptions {
	return framework.PlaceOptions{Nodes: d.nodes, Placement: d.placement, FirstFit: true, Need: need}
}

// nodesOr returns the domain's nodes, or all when it is the whole cluster.
func (d domain) nodesOr(all []*framework.NodeInfo) []*framework.NodeInfo {
	if d.nodes == nil {
		return all
	}
	return d.nodes
}

// preemptIn decides which units to preempt so that enough members fit in dom; nil when
// they cannot. With too many units to search exactly, members that are alike can be
// reasoned about on resource vectors first (planDomain): the lowest priority level that
// frees enough room, and the nodes where it is cheapest. Those parts of the domain come
// cheapest first (lowest level, then fewest nodes), so the first that holds the group is
// the decision; otherwise the whole domain is searched.
func (e *Evaluator) preemptIn(ctx context.Context, pr *preemptor, dom domain) (*Result, error) {
	if res, err := e.preemptByResources(ctx, pr, dom); err != nil || res != nil {
		return res, err
	}
	nodes := dom.nodesOr(e.Handle.Snapshot().NodeInfos())
	if e.manyUnits(pr, nodes) {
		if plan := e.planDomain(ctx, pr, nodes); plan != nil {
			if plan.infeasible {
				return nil, nil
			}
			for _, try := range plan.domains {
				// The plan's level is already the lowest that frees enough room.
				part := domain{nodes: try.nodes, placement: dom.placement}
				res, err := e.decide(ctx, pr, part, try.level, false)
				if err != nil {
					return nil, err
				}
				if res != nil {
					klog.FromContext(ctx).V(4).Info("Group preemption decided in a planned part of its domain", "podgroup", pr.g.Key,
						"nodes", len(try.nodes), "level", try.level, "victims", len(res.Victims))
					return res, nil
				}
			}
		}
	}
	return e.decide(ctx, pr, dom, maxLevel, e.BinarySearch)
}

// manyUnits reports whether the nodes hold more candidate units than an exact search
// takes; the count stops there, so a full cluster costs little.
func (e *Evaluator) manyUnits(pr *preemptor, nodes []*framework.NodeInfo) bool {
	limit := e.Pod.ExactMax()
	return len(e.candidates(pr, nodes, limit).units) > limit
}

// maxLevel admits every unit of lower priority than the group.
const maxLevel = int32(1<<31 - 1)

// domainUnits are the candidates of a domain: units of lower priority with a pod there
// that is not leaving, most important first, and the lower-priority pods already leaving
// (room, and nobody's victims).
type domainUnits struct {
	units   []*preemption.Unit
	leaving []*framework.PodInfo
}

// candidates lists the candidates on the nodes. With a positive limit it stops as soon as
// it has more units than that (and then holds only those, unsorted).
func (e *Evaluator) candidates(pr *preemptor, nodes []*framework.NodeInfo, limit int) domainUnits {
	snap := e.Handle.Snapshot()
	idx := preemption.NewUnitIndex(snap)
	var d domainUnits
	seen := map[string]bool{}
	for _, n := range nodes {
		for _, q := range n.Pods {
			if q.Holder() || pr.owns(q) || preemption.VictimPriority(snap, q) >= pr.g.Priority {
				continue
			}
			if q.Terminating {
				d.leaving = append(d.leaving, q)
				continue
			}
			if u := idx.Of(q); u.Priority < pr.g.Priority && !seen[u.Key] && u.MayHelp(pr.members) {
				seen[u.Key] = true
				d.units = append(d.units, u)
				if limit > 0 && len(d.units) > limit {
					return d
				}
			}
		}
	}
	preemption.SortUnits(d.units)
	return d
}

// decide searches the victims among the units up to level in dom (the whole cluster,
// where the members elsewhere of a victim group free room too, or a part of it); nil when
// the group does not fit even with all of them gone. With too many units for an exact
// search, the binary search over priority levels (when enabled) first lowers the level as
// far as the group still fits, and the units a budget protects widen it again to every
// level, so that a protected low-priority unit is never preempted while an unprotected one
// of higher priority would do.
func (e *Evaluator) decide(ctx context.Context, pr *preemptor, dom domain, level int32, binarySearch bool) (*Result, error) {
	snap := e.Handle.Snapshot()
	all := e.candidates(pr, dom.nodesOr(snap.NodeInfos()), 0)
	if len(all.units) == 0 && len(all.leaving) == 0 {
		return nil, nil
	}
	upTo := func(l int32) []*preemption.Unit {
		var out []*preemption.Unit
		for _, u := range all.units {
			if u.Priority <= l {
				out = append(out, u)
			}
		}
		return out
	}
	units := upTo(level)
	if binarySearch && len(units) > e.Pod.ExactMax() {
		levels := preemption.PriorityLevels(units)
		lo, hi := 0, len(levels)-1
		for lo < hi {
			mid := (lo + hi) / 2
			ok, err := e.probe(ctx, pr, dom, candidateSet{leaving: all.leaving, units: upTo(levels[mid])})
			if err != nil {
				return nil, err
			}
			if ok {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if len(levels) > 0 {
			narrowed := upTo(levels[lo])
			if violating, _ := preemption.SplitUnitsByPDB(narrowed, snap.PDBs()); len(violating) == 0 {
				units = narrowed
				klog.FromContext(ctx).V(5).Info("Binary search narrowed the victims' priority", "podgroup", pr.g.Key, "level", levels[lo], "units", len(units))
			}
		}
	}
	res, err := e.searchUnits(ctx, pr, dom, candidateSet{leaving: all.leaving, units: units})
	if err != nil || res != nil || len(units) == len(all.units) {
		return res, err
	}
	// The narrowed search assumed monotony; should it fail, try every level.
	klog.FromContext(ctx).V(4).Info("Narrowed victim search failed; searching every priority level", "podgroup", pr.g.Key)
	return e.searchUnits(ctx, pr, dom, candidateSet{leaving: all.leaving, units: all.units})
}

// candidateSet is what a simulation takes off: the pods already leaving, and the candidate
// units (most important first).
type candidateSet struct {
	leaving []*framework.PodInfo
	units   []*preemption.Unit
}

// probe reports whether the group fits with the candidates removed.
func (e *Evaluator) probe(ctx context.Context, pr *preemptor, dom domain, cs candidateSet) (bool, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	o := e.newOracle(ctx, pr, dom)
	return o.start(cs)
}

// searchUnits runs the victim search over the candidate units and returns the decision,
// its members' nodes confirmed with the victims gone; nil when the group does not fit
// even with every unit removed.
func (e *Evaluator) searchUnits(ctx context.Context, pr *preemptor, dom domain, cs candidateSet) (*Result, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	o := e.newOracle(ctx, pr, dom)
	ok, err := o.start(cs)
	if err != nil || !ok {
		return nil, err
	}
	search := &preemption.VictimSearch{Units: cs.units, PDBs: snap.PDBs(), Oracle: o, ExactMax: e.Pod.ExactMax(), Shared: &e.budget, Logger: klog.FromContext(ctx)}
	victims, witness, err := search.RunWithWitness()
	if err != nil {
		return nil, err
	}
	snap.Rollback(cp)
	gone := slices.Clone(cs.leaving)
	for _, u := range victims {
		gone = append(gone, u.Pods...) // members elsewhere of a victim group leave too
	}
	assignment, err := e.confirm(ctx, pr, dom, gone, witness.([]framework.Assignment))
	if err != nil || assignment == nil {
		return nil, err
	}
	res := &Result{Nominations: map[*framework.PodInfo]string{}, Victims: preemption.PodsOf(victims),
		Cost: preemption.CostOfUnits(victims, snap.PDBs()), Reprieved: len(cs.units) - len(victims), Approximate: search.Approximate()}
	for _, a := range assignment {
		res.Nominations[a.Pod] = a.Node.Name
	}
	return res, nil
}

// confirm checks a decision on the snapshot before anything is carried out: with the gone
// pods off (the victims, and the pods already leaving), the placer confirms every member
// on its node afresh, in order, each seeing those before it. When the search's placement
// does not pass (a member whose constraints the oracle's local checks saw too leniently),
// the members are placed again from scratch; nil when they cannot be.
func (e *Evaluator) confirm(ctx context.Context, pr *preemptor, dom domain, gone []*framework.PodInfo, assignment []framework.Assignment) ([]framework.Assignment, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, q := range gone {
		if snap.Get(q.NodeName) != nil {
			snap.RemovePod(q)
		}
	}
	inner := snap.Checkpoint()
	if len(assignment) >= pr.need {
		ok, err := pr.placer.Confirm(ctx, assignment)
		if err != nil {
			return nil, err
		}
		if ok {
			return slices.Clone(assignment), nil
		}
	}
	snap.Rollback(inner)
	logger := klog.FromContext(ctx)
	logger.V(4).Info("The search's placement failed confirmation; placing the members again", "podgroup", pr.g.Key)
	placed, err := pr.place(ctx, dom)
	if err != nil || len(placed.Assignments) < pr.need {
		if err == nil {
			logger.V(4).Info("Members do not fit once the victims are gone: no preemption", "podgroup", pr.g.Key)
		}
		return nil, err
	}
	return placed.Assignments, nil
}
