package preemption

import (
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// preemptIn decides which units to preempt so that need of the members in rest fit,
// within domain (nil: the whole cluster); nil when they cannot.
func (e *GroupEvaluator) preemptIn(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo) (*GroupResult, error) {
	snap := e.Handle.Snapshot()
	nodes := domain
	if nodes == nil {
		nodes = snap.NodeInfos()
	}
	// With too many units to search exactly, replicas can be reasoned about on resource
	// vectors: the lowest priority level that frees enough room, and the nodes where it is
	// cheapest. Those domains come cheapest first (lowest level, then fewest nodes), so
	// the first that holds the group is the decision.
	if e.manyUnits(g, rest, nodes) {
		if plan := e.planDomain(ctx, g, rest, need, nodes); plan != nil {
			if plan.infeasible {
				return nil, nil
			}
			for _, dom := range plan.domains {
				// The plan's level is already the lowest that frees enough room.
				res, err := e.decide(ctx, g, rest, need, schedule, dom.nodes, dom.level, false)
				if err != nil || res != nil {
					return res, err
				}
			}
		}
	}
	return e.decide(ctx, g, rest, need, schedule, domain, maxLevel, e.BinarySearch)
}

// manyUnits reports whether the nodes hold more candidate units than an exact search
// takes; the count stops there, so a full cluster costs little.
func (e *GroupEvaluator) manyUnits(g *framework.GroupInfo, rest []*framework.PodInfo, nodes []*framework.NodeInfo) bool {
	limit := e.exactMax()
	return len(e.candidates(g, rest, nodes, limit).units) > limit
}

// maxLevel admits every unit of lower priority than the group.
const maxLevel = int32(1<<31 - 1)

// domainUnits are the candidates of a domain: units of lower priority with a pod there
// that is not leaving, most important first, and the lower-priority pods already leaving
// (room, and nobody's victims).
type domainUnits struct {
	units   []*unit
	leaving []*framework.PodInfo
}

// With a positive limit it stops as soon as it has more units than that (and then holds
// only those, unsorted).
func (e *GroupEvaluator) candidates(g *framework.GroupInfo, rest []*framework.PodInfo, nodes []*framework.NodeInfo, limit int) domainUnits {
	snap := e.Handle.Snapshot()
	idx := newUnitIndex(snap)
	var d domainUnits
	seen := map[string]bool{}
	for _, n := range nodes {
		for _, q := range n.Pods {
			if q.Holder() || framework.InGroup(q, g) || VictimPriority(snap, q) >= g.Priority {
				continue
			}
			if q.Terminating {
				d.leaving = append(d.leaving, q)
				continue
			}
			if u := idx.of(q); u.priority < g.Priority && !seen[u.key] && u.mayHelp(rest) {
				seen[u.key] = true
				d.units = append(d.units, u)
				if limit > 0 && len(d.units) > limit {
					return d
				}
			}
		}
	}
	sortUnits(d.units)
	return d
}

// decide searches the victims among the units up to level in domain (nil: the whole
// cluster, where the members elsewhere of a victim group free room too); nil when the group does not fit
// even with all of them gone. With too many units for an exact search, the binary search
// over priority levels (when enabled) first lowers the level as far as the group still
// fits, and the units a budget protects widen it again to every level, so that a
// protected low-priority unit is never preempted while an unprotected one of higher
// priority would do.
func (e *GroupEvaluator) decide(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo, level int32, binarySearch bool) (*GroupResult, error) {
	snap := e.Handle.Snapshot()
	nodes := domain
	if nodes == nil {
		nodes = snap.NodeInfos()
	}
	all := e.candidates(g, rest, nodes, 0)
	if len(all.units) == 0 && len(all.leaving) == 0 {
		return nil, nil
	}
	upTo := func(l int32) []*unit {
		var out []*unit
		for _, u := range all.units {
			if u.priority <= l {
				out = append(out, u)
			}
		}
		return out
	}
	units := upTo(level)
	if binarySearch && len(units) > e.exactMax() {
		levels := priorityLevels(units)
		lo, hi := 0, len(levels)-1
		for lo < hi {
			mid := (lo + hi) / 2
			ok, err := e.probe(ctx, g, rest, need, schedule, domain, all.leaving, upTo(levels[mid]))
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
			if violating, _ := splitUnitsByPDB(narrowed, snap.PDBs()); len(violating) == 0 {
				units = narrowed
			}
		}
	}
	res, err := e.searchUnits(ctx, g, rest, need, schedule, domain, all.leaving, units)
	if err != nil || res != nil || len(units) == len(all.units) {
		return res, err
	}
	// The narrowed search assumed monotony; should it fail, try every level.
	return e.searchUnits(ctx, g, rest, need, schedule, domain, all.leaving, all.units)
}

// probe reports whether the group fits with the units and the leaving pods removed.
func (e *GroupEvaluator) probe(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo, leaving []*framework.PodInfo, units []*unit) (bool, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	o := e.newOracle(ctx, g, rest, need, schedule, domain)
	return o.start(leaving, units)
}

// searchUnits runs the victim search over units (most important first) and returns the
// decision, its members' nodes checked once more with the victims gone; nil when the
// group does not fit even with every unit removed.
func (e *GroupEvaluator) searchUnits(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo, leaving []*framework.PodInfo, units []*unit) (*GroupResult, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	o := e.newOracle(ctx, g, rest, need, schedule, domain)
	ok, err := o.start(leaving, units)
	if err != nil || !ok {
		return nil, err
	}
	search := &victimSearch{units: units, pdbs: snap.PDBs(), o: o, exactMax: e.exactMax(), shared: &e.budget}
	victims, witness, err := search.runWithWitness()
	if err != nil {
		return nil, err
	}
	snap.Rollback(cp)
	assignment, err := e.confirm(ctx, rest, need, schedule, domain, leaving, victims, witness.([]framework.Assignment))
	if err != nil || assignment == nil {
		return nil, err
	}
	res := &GroupResult{Nominations: map[*framework.PodInfo]string{}, Victims: podsOf(victims),
		Cost: costOfUnits(victims, snap.PDBs()), Reprieved: len(units) - len(victims)}
	for _, a := range assignment {
		res.Nominations[a.Pod] = a.Node.Name
	}
	return res, nil
}

// confirm checks a decision on the snapshot before anything is carried out: with the
// victims' pods (all of them: members elsewhere of a victim group leave too) and the
// leaving pods gone, every member is filtered afresh on its node, in order, each seeing
// those before it. When the search's placement does not pass (a member whose constraints
// the local checks saw too leniently), the members are placed again from scratch; nil
// when they cannot be.
func (e *GroupEvaluator) confirm(ctx context.Context, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo, leaving []*framework.PodInfo, victims []*unit, assignment []framework.Assignment) ([]framework.Assignment, error) {
	h := e.Handle
	snap := h.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, q := range leaving {
		snap.RemovePod(q)
	}
	for _, u := range victims {
		for _, q := range u.pods {
			if snap.Get(q.NodeName) != nil {
				snap.RemovePod(q)
			}
		}
	}
	inner := snap.Checkpoint()
	ok := len(assignment) >= need
	for _, a := range assignment {
		if !ok {
			break
		}
		state := framework.NewCycleState()
		if _, st := h.RunPreFilterPlugins(ctx, state, a.Pod); !st.IsSuccess() {
			ok = false
			break
		}
		st := h.RunFilterPlugins(ctx, state, a.Pod, a.Node)
		if st.Code() == framework.Error {
			return nil, st.AsError()
		}
		if ok = st.IsSuccess(); !ok {
			break
		}
		// As the group cycle does: each member's claims and volumes are recorded before
		// the next member is checked.
		snap.AddPod(a.Pod, a.Node.Name)
		if st := h.RunReservePluginsReserve(ctx, state, a.Pod, a.Node.Name); !st.IsSuccess() {
			if st.Code() == framework.Error {
				return nil, st.AsError()
			}
			ok = false
		}
	}
	if ok {
		return slices.Clone(assignment), nil
	}
	snap.Rollback(inner)
	pl, err := schedule(ctx, rest, framework.PlaceOptions{Nodes: domain, FirstFit: true, Need: need})
	if err != nil || len(pl.Assignments) < need {
		return nil, err
	}
	return pl.Assignments, nil
}

// priorityLevels are the distinct priorities of units, ascending.
func priorityLevels(us []*unit) []int32 {
	var out []int32
	for _, u := range us {
		out = append(out, u.priority)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
