package preemption

import (
	"context"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Messages of workload-aware preemption.
const (
	MsgGroupWaitingVictims = "not eligible due to terminating pods on the nominated nodes of the pod group."
	msgGroupNoVictims      = "no lower-priority pods to preempt for the pod group"
	msgGroupDoesNotFit     = "the pod group does not fit even with every lower-priority pod preempted"
)

// GroupEvaluator is workload-aware preemption for a pod group (KEP-5710): the domain is the
// whole cluster; victims are units (pods, or whole groups of disruption mode All) of lower
// priority; every one of them is removed, the group is placed with its own algorithm, and
// units are put back, most important first (those that would violate a budget first), as
// long as the group still fits. A group preempts only when enough of its members fit to
// start it: never a useless preemption.
type GroupEvaluator struct {
	Handle framework.Handle
	// BinarySearch first finds the lowest priority level below which removing every unit
	// lets the group fit (the KEP draft's binary search), so that units of higher priority
	// are never even removed.
	BinarySearch bool
}

// GroupResult is the outcome of a group preemption.
type GroupResult struct {
	// Nominations place every member the decision placed: those that fit without
	// preemption and those that fit in the room it makes.
	Nominations map[*framework.PodInfo]string
	Victims     []*framework.PodInfo
	// Reprieved counts the potential victim units put back.
	Reprieved int
	// Message explains a failure.
	Message string
	// Eligible is false when the group may not preempt now (policy, or victims of its
	// last preemption still terminating).
	Eligible bool
	// Waiting is true when the victims of its last preemption are still leaving.
	Waiting bool
}

// Preempt decides a preemption for group g, whose members placed fit without preemption
// and whose other pending members do not. It changes nothing: the caller carries it out.
func (e *GroupEvaluator) Preempt(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, placed *framework.GroupPlacement, schedule framework.PodGroupSchedulingFunc) (*GroupResult, error) {
	if g.PreemptionPolicy == v1.PreemptNever {
		return &GroupResult{Message: "preemption: " + MsgNeverPolicy}, nil
	}
	snap := e.Handle.Snapshot()
	need := framework.GroupNeed(g, len(snap.GroupMembers(g.Key))) - len(placed.Assignments)
	rest := unplacedMembers(pending, placed)
	if need <= 0 || len(rest) == 0 {
		return &GroupResult{Eligible: true, Message: "preemption: nothing to make room for"}, nil
	}
	wait, err := e.waitingForVictims(ctx, g, rest, need, schedule, nil)
	if err != nil || wait {
		return &GroupResult{Waiting: true, Message: "preemption: " + MsgGroupWaitingVictims}, err
	}
	res, err := e.preemptIn(ctx, g, rest, need, placed, schedule, nil)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return &GroupResult{Eligible: true, Message: "preemption: " + msgGroupDoesNotFit}, nil
	}
	return res, nil
}

// preemptIn decides which units to preempt so that need of the members in rest fit,
// within domain (nil: the whole cluster). nil when they cannot.
func (e *GroupEvaluator) preemptIn(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, placed *framework.GroupPlacement, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo) (*GroupResult, error) {
	snap := e.Handle.Snapshot()
	units := newUnitIndex(snap)
	sim := &groupSim{e: e, ctx: ctx, g: g, rest: rest, need: need, schedule: schedule, units: units}
	nodes := domain
	if nodes == nil {
		nodes = snap.NodeInfos()
	}
	// Replicas of one template can be reasoned about on resource vectors: find the lowest
	// level that frees enough room, and the few nodes where it is cheapest, and simulate
	// only those.
	if plan := e.planDomain(ctx, g, rest, need, nodes); plan != nil {
		if plan.infeasible {
			return nil, nil
		}
		for _, dom := range plan.domains {
			sim.domain = dom.nodes
			res, err := sim.decide(dom.level, placed)
			if err != nil || res != nil {
				return res, err
			}
		}
	}

	// Otherwise the whole domain is simulated: every lower-priority unit with a pod there
	// is a potential victim; lower-priority pods already leaving are room.
	sim.domain = domain
	seen := map[*unit]bool{}
	for _, n := range nodes {
		for _, q := range n.Pods {
			if q.Priority >= g.Priority || framework.InGroup(q, g) {
				continue
			}
			if q.Terminating {
				sim.leaving = append(sim.leaving, q)
				continue
			}
			if u := units.of(q); u.priority < g.Priority && !seen[u] {
				seen[u] = true
				sim.potential = append(sim.potential, u)
			}
		}
	}
	if len(sim.potential) == 0 && len(sim.leaving) == 0 {
		return nil, nil
	}
	levels := priorityLevels(sim.potential)
	if len(levels) == 0 {
		levels = []int32{g.Priority - 1}
	}
	top := len(levels) - 1
	k := top
	if e.BinarySearch && top > 0 {
		// The lowest level whose removal (with every level below) lets the group fit.
		lo, hi := 0, top
		for lo < hi {
			mid := (lo + hi) / 2
			ok, err := sim.probe(levels[mid])
			if err != nil {
				return nil, err
			}
			if ok {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		k = lo
	}
	res, err := sim.decide(levels[k], placed)
	if err != nil {
		return nil, err
	}
	if res == nil && k < top {
		// The search assumed monotony; should a lower level fail in the full run, try all.
		if res, err = sim.decide(levels[top], placed); err != nil {
			return nil, err
		}
	}
	if res != nil {
		res.Eligible = true
	}
	return res, nil
}

// unplacedMembers are the pending members without an assignment, in order.
func unplacedMembers(pending []*framework.PodInfo, placed *framework.GroupPlacement) []*framework.PodInfo {
	done := map[*framework.PodInfo]bool{}
	for _, a := range placed.Assignments {
		done[a.Pod] = true
	}
	var out []*framework.PodInfo
	for _, p := range pending {
		if !done[p] {
			out = append(out, p)
		}
	}
	return out
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

// waitingForVictims reports whether the group should wait for the victims of its last
// preemption instead of preempting again: its members are nominated, lower-priority pods
// are still leaving those nodes, and with them gone enough members fit.
func (e *GroupEvaluator) waitingForVictims(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo) (bool, error) {
	snap := e.Handle.Snapshot()
	nodes := map[string]bool{}
	for _, m := range rest {
		if n := e.Handle.Nominator().NominatedNode(m.Key); n != "" {
			nodes[n] = true
		}
	}
	var leaving []*framework.PodInfo
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		if n := snap.Get(name); n != nil {
			for _, q := range n.Pods {
				if q.Terminating && q.Priority < g.Priority {
					leaving = append(leaving, q)
				}
			}
		}
	}
	if len(leaving) == 0 {
		return false, nil
	}
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, q := range leaving {
		snap.RemovePod(q)
	}
	pl, err := schedule(ctx, rest, framework.PlaceOptions{Nodes: domain})
	if err != nil {
		return false, err
	}
	return len(pl.Assignments) >= need, nil
}

// groupSim runs the simulations of one group preemption.
type groupSim struct {
	e         *GroupEvaluator
	ctx       context.Context
	g         *framework.GroupInfo
	rest      []*framework.PodInfo
	need      int
	schedule  framework.PodGroupSchedulingFunc
	units     *unitIndex
	leaving   []*framework.PodInfo
	potential []*unit
	// domain, when not nil, is the set of nodes the group is placed in: only victims there
	// are removed; members of a victim group elsewhere count as victims but not as room.
	domain []*framework.NodeInfo
}

// removeUpTo takes off the leaving pods and the units of priority up to level, returning
// the units removed and the node each removed pod came from. With a domain, only pods on
// its nodes are taken off.
func (s *groupSim) removeUpTo(level int32) ([]*unit, map[*framework.PodInfo]*framework.NodeInfo) {
	snap := s.e.Handle.Snapshot()
	home := map[*framework.PodInfo]*framework.NodeInfo{}
	var removed []*unit
	seen := map[*unit]bool{}
	take := func(q *framework.PodInfo, n *framework.NodeInfo) {
		if _, done := home[q]; !done {
			home[q] = n
			snap.RemovePod(q)
		}
	}
	if s.domain != nil {
		for _, n := range s.domain {
			for _, q := range slices.Clone(n.Pods) {
				if q.Priority >= s.g.Priority || framework.InGroup(q, s.g) {
					continue
				}
				if q.Terminating {
					take(q, n)
					continue
				}
				if q.Priority > level {
					continue
				}
				u := s.units.of(q)
				if u.priority > level {
					continue
				}
				if !seen[u] {
					seen[u] = true
					removed = append(removed, u)
				}
				take(q, n)
			}
		}
		return removed, home
	}
	for _, q := range s.leaving {
		if n := snap.Get(q.NodeName); n != nil {
			take(q, n)
		}
	}
	for _, u := range s.potential {
		if u.priority > level {
			continue
		}
		removed = append(removed, u)
		for _, q := range u.pods {
			if n := snap.Get(q.NodeName); n != nil {
				take(q, n)
			}
		}
	}
	return removed, home
}

// probe reports whether the group fits with every unit up to level removed.
func (s *groupSim) probe(level int32) (bool, error) {
	snap := s.e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	s.removeUpTo(level)
	pl, err := s.schedule(s.ctx, s.rest, framework.PlaceOptions{FirstFit: true, Nodes: s.domain})
	if err != nil {
		return false, err
	}
	return len(pl.Assignments) >= s.need, nil
}

// decide removes the units up to level, places the rest of the group, and reprieves units
// while the group still fits; nil when it does not fit.
func (s *groupSim) decide(level int32, placed *framework.GroupPlacement) (*GroupResult, error) {
	h := s.e.Handle
	snap := h.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	removed, home := s.removeUpTo(level)
	pl, err := s.schedule(s.ctx, s.rest, framework.PlaceOptions{FirstFit: true, Nodes: s.domain})
	if err != nil {
		return nil, err
	}
	if len(pl.Assignments) < s.need {
		return nil, nil
	}
	sortUnits(removed)
	violating, ok := splitUnitsByPDB(removed, snap.PDBs())
	if len(violating) > 0 && level < s.g.Priority-1 {
		// Units a budget protects are put back before any other, whatever their priority
		// (the preemption design's PDB rule): higher levels must be candidates too, or a
		// protected low-priority unit would be preempted while an unprotected one of
		// higher priority survives.
		snap.Rollback(cp)
		return s.decide(s.g.Priority-1, placed)
	}
	members := append(slices.Clone(placed.Assignments), pl.Assignments...)
	r := &reprieval{h: h, ctx: s.ctx, members: members, home: home}
	r.index()
	res := &GroupResult{Nominations: map[*framework.PodInfo]string{}}
	var victims []*unit
	for _, group := range [][]*unit{violating, ok} {
		for _, u := range group {
			kept, err := r.reprieve(u)
			if err != nil {
				return nil, err
			}
			if kept {
				res.Reprieved++
			} else {
				victims = append(victims, u)
			}
		}
	}
	for _, a := range members {
		res.Nominations[a.Pod] = a.Node.Name
	}
	res.Victims = podsOf(victims)
	sortByImportance(res.Victims)
	return res, nil
}

// reprieval puts units back and checks, locally, that the group still fits: only the
// members on the nodes the unit returns to are re-filtered, plus the members whose
// constraints depend on other pods when the unit's pods could touch them.
type reprieval struct {
	h       framework.Handle
	ctx     context.Context
	members []framework.Assignment
	home    map[*framework.PodInfo]*framework.NodeInfo
	// byNode lists the members on each node; interPod the members with inter-pod
	// constraints or plugin state that other pods change.
	byNode   map[*framework.NodeInfo][]int
	interPod []int
	stateful []int
}

func (r *reprieval) index() {
	r.byNode = map[*framework.NodeInfo][]int{}
	for i, a := range r.members {
		r.byNode[a.Node] = append(r.byNode[a.Node], i)
		if a.Pod.HasInterPodConstraints() {
			r.interPod = append(r.interPod, i)
		}
		if r.h.HasActivePreFilterExtensions(a.State) {
			r.stateful = append(r.stateful, i)
		}
	}
}

// reprieve puts a unit back and keeps it there if every affected member still fits.
func (r *reprieval) reprieve(u *unit) (bool, error) {
	snap := r.h.Snapshot()
	var back []*framework.PodInfo
	for _, q := range u.pods {
		if n, ok := r.home[q]; ok {
			snap.AddPod(q, n.Name)
			back = append(back, q)
			if err := r.notify(q, n, true); err != nil {
				return false, err
			}
		}
	}
	ok, err := r.stillFits(back)
	if err != nil || ok {
		return ok, err
	}
	for _, q := range back {
		snap.RemovePod(q)
		if err := r.notify(q, r.home[q], false); err != nil {
			return false, err
		}
	}
	return false, nil
}

// notify tells the members' plugin state that a pod was added to or removed from a node.
func (r *reprieval) notify(q *framework.PodInfo, n *framework.NodeInfo, added bool) error {
	for _, i := range r.stateful {
		a := r.members[i]
		var st *framework.Status
		if added {
			st = r.h.RunPreFilterExtensionAddPod(r.ctx, a.State, a.Pod, q, n)
		} else {
			st = r.h.RunPreFilterExtensionRemovePod(r.ctx, a.State, a.Pod, q, n)
		}
		if !st.IsSuccess() {
			return fmt.Errorf("updating the state of %s: %w", a.Pod.Key, st.AsError())
		}
	}
	return nil
}

// stillFits re-filters the members the returned pods can affect.
func (r *reprieval) stillFits(back []*framework.PodInfo) (bool, error) {
	check := map[int]bool{}
	touchesOthers := false
	for _, q := range back {
		for _, i := range r.byNode[r.home[q]] {
			check[i] = true
		}
		if len(q.RequiredAntiAffinity) > 0 || q.HasAffinityTerms() {
			touchesOthers = true
		}
	}
	if touchesOthers || len(back) > 0 {
		for _, i := range r.interPod {
			check[i] = true
		}
	}
	if touchesOthers {
		for i := range r.members {
			check[i] = true
		}
	}
	snap := r.h.Snapshot()
	for _, i := range slices.Sorted(maps.Keys(check)) {
		a := r.members[i]
		// A member is checked as the scheduler placed it: without itself on the node.
		snap.RemovePod(a.Pod)
		st := r.h.RunFilterPlugins(r.ctx, a.State, a.Pod, a.Node)
		snap.AddPod(a.Pod, a.Node.Name)
		if st.Code() == framework.Error {
			return false, st.AsError()
		}
		if !st.IsSuccess() {
			return false, nil
		}
	}
	return true, nil
}
