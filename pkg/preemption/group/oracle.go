package group

import (
	"context"
	"maps"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// oracle simulates a group's preemption in a domain (a preemption.RoomOracle, on the
// domain's room in aggregate). Units come back to where they
// ran, and the group must still fit: first its current placement is checked locally (the
// members on the nodes the unit returns to, and those whose constraints involve other
// pods, filtered afresh); when that fails, the members are placed again (those that no
// longer fit alone, else all of them) by the group cycle's placement, so no member is
// pinned to where it happened to go first. Each successful Keep is a snapshot
// checkpoint, so Drop returns exactly to the state before it, placement included.
type oracle struct {
	e   *Evaluator
	ctx context.Context
	pr  *preemptor
	// dom restricts the members and the room; with no nodes (the whole cluster), the
	// members elsewhere of a victim group free room too.
	dom      domain
	inDomain map[*framework.NodeInfo]bool

	// removed are the pods of each unit taken off (those in the domain); home is where
	// each ran.
	removed map[*preemption.Unit][]*framework.PodInfo
	home    map[*framework.PodInfo]*framework.NodeInfo
	holders preemption.SlotHolders

	// assign is the members' current placement, present in the snapshot.
	assign []framework.Assignment
	stack  []groupFrame

	// room bounds, on resource vectors, how many members the domain can take; a unit
	// whose return leaves too little room is a victim without placing anything. nodes
	// are the domain's.
	room  framework.Capacity
	nodes []*framework.NodeInfo

	// agg is the domain's room in aggregate, for the exact search's bound (RoomOracle).
	agg aggregateRoom
}

// aggregateRoom is a domain's room summed over its nodes, on the resources the members ask
// for that nodes count (not those devices serve): the members fitting needs at least the
// need smallest requests of each there.
type aggregateRoom struct {
	idx []int8
	// want is what the members need; free the room with every candidate off and no
	// member placed; kept what the units put back take again.
	want, free, kept []int64
	units            map[*preemption.Unit][]int64
	scratch          []int64
}

// groupFrame undoes one Keep: the checkpoint taken before it and the placement then.
type groupFrame struct {
	cp     framework.Checkpoint
	assign []framework.Assignment
}

func (e *Evaluator) newOracle(ctx context.Context, pr *preemptor, dom domain) *oracle {
	o := &oracle{e: e, ctx: ctx, pr: pr, dom: dom,
		removed: map[*preemption.Unit][]*framework.PodInfo{}, home: map[*framework.PodInfo]*framework.NodeInfo{}, holders: preemption.SlotHolders{}}
	o.nodes = dom.nodesOr(e.Handle.Snapshot().NodeInfos())
	if dom.nodes != nil {
		o.inDomain = make(map[*framework.NodeInfo]bool, len(dom.nodes))
		for _, n := range dom.nodes {
			o.inDomain[n] = true
		}
	}
	return o
}

// node is where q runs, when that is in the domain.
func (o *oracle) node(q *framework.PodInfo) *framework.NodeInfo {
	n := o.e.Handle.Snapshot().Get(q.NodeName)
	if n == nil || (o.inDomain != nil && !o.inDomain[n]) {
		return nil
	}
	return n
}

// start takes off the leaving pods and every unit, and places the members; it reports
// whether enough of them fit. The caller owns a checkpoint around the oracle's life.
func (o *oracle) start(cs candidateSet) (bool, error) {
	room, err := o.pr.placer.Capacity(o.ctx, o.pr.members)
	if err != nil {
		return false, err
	}
	o.room = room
	snap := o.e.Handle.Snapshot()
	for _, q := range cs.leaving {
		if o.node(q) != nil {
			snap.RemovePod(q)
		}
	}
	for _, u := range cs.units {
		for _, q := range u.Pods {
			n := o.node(q)
			if n == nil {
				continue
			}
			o.removed[u] = append(o.removed[u], q)
			o.home[q] = n
			o.holders.Track(u)
			o.remove(q)
		}
	}
	o.measure(cs.units)
	return o.place()
}

// measure takes the domain's aggregate room, every candidate off, and what each unit
// frees in it.
func (o *oracle) measure(units []*preemption.Unit) {
	a := &o.agg
	rp := framework.NewRequestPrefixes(o.pr.members)
	dra := o.e.Handle.Snapshot().DRA()
	for j, i := range rp.Idx {
		if resource.IsScalar(int(i)) && dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil {
			continue
		}
		a.idx = append(a.idx, i)
		a.want = append(a.want, rp.Sums[j][min(o.pr.need, len(o.pr.members))])
	}
	a.free, a.kept, a.scratch = make([]int64, len(a.idx)), make([]int64, len(a.idx)), make([]int64, len(a.idx))
	// Each node's room with every unit back, to see that none is past its room.
	back := make(map[*framework.NodeInfo][]int64, len(o.nodes))
	for _, n := range o.nodes {
		r := make([]int64, len(a.idx))
		for j, i := range a.idx {
			r[j] = n.Allocatable[i] - n.Requested[i]
			a.free[j] += r[j]
		}
		back[n] = r
	}
	a.units = make(map[*preemption.Unit][]int64, len(units))
	for _, u := range units {
		v := make([]int64, len(a.idx))
		for _, q := range o.removed[u] {
			if !o.holders.Has(q) {
				r := back[o.home[q]]
				for j, i := range a.idx {
					v[j] += q.Requests.Vector[i]
					if r != nil {
						r[j] -= q.Requests.Vector[i]
					}
				}
			}
		}
		a.units[u] = v
	}
	for _, r := range back {
		if slices.ContainsFunc(r, func(v int64) bool { return v < 0 }) {
			// A node past its room even as the cluster stands: the room summed no
			// longer bounds what members can use there, so there is no bound.
			*a = aggregateRoom{}
			return
		}
	}
}

func (o *oracle) Freed(u *preemption.Unit) []int64 { return o.agg.units[u] }

func (o *oracle) Slack() []int64 {
	a := &o.agg
	for j := range a.idx {
		a.scratch[j] = a.free[j] - a.kept[j] - a.want[j]
	}
	return a.scratch
}

func (o *oracle) remove(q *framework.PodInfo) {
	o.holders.TakeOff(o.e.Handle.Snapshot(), q, o.home[q].Name)
}

func (o *oracle) restore(q *framework.PodInfo) {
	o.holders.PutBack(o.e.Handle.Snapshot(), q, o.home[q].Name)
}

// place places the members from scratch; on success the placement becomes current.
func (o *oracle) place() (bool, error) {
	placed, err := o.pr.place(o.ctx, o.dom)
	if err != nil || len(placed.Assignments) < o.pr.need {
		return false, err
	}
	o.assign = placed.Assignments
	return true, nil
}

func (o *oracle) Keep(u *preemption.Unit) (bool, error) {
	snap := o.e.Handle.Snapshot()
	cp := snap.Checkpoint()
	old := o.assign
	for _, q := range o.removed[u] {
		o.restore(q)
	}
	ok, err := o.fitAfterReturn(u)
	if err != nil || !ok {
		snap.Rollback(cp)
		o.assign = old
		return false, err
	}
	o.stack = append(o.stack, groupFrame{cp: cp, assign: old})
	o.account(u, 1)
	return true, nil
}

// account adds (sign 1) or takes off (-1) the room a unit put back takes again.
func (o *oracle) account(u *preemption.Unit, sign int64) {
	for j, v := range o.agg.units[u] {
		o.agg.kept[j] += sign * v
	}
}

// fitAfterReturn makes the members fit again after unit u came back: as they are, when
// the local checks pass; else by moving only the members that no longer fit (those whose
// constraints involve other pods never move alone); else by placing them all again. Both
// moves are tried only when the domain's room, the members taken off, may hold them.
func (o *oracle) fitAfterReturn(u *preemption.Unit) (bool, error) {
	failed, err := o.stillFits(u)
	if err != nil || len(failed) == 0 {
		return err == nil, err
	}
	if o.room.Of(o.nodes, o.assign) < o.pr.need {
		return false, nil
	}
	snap := o.e.Handle.Snapshot()
	alone := true
	for _, i := range failed {
		if o.assign[i].Pod.HasInterPodConstraints() {
			alone = false
		}
	}
	if alone && len(failed) < len(o.assign) {
		cp := snap.Checkpoint()
		moved := make([]*framework.PodInfo, len(failed))
		gone := map[int]bool{}
		for k, i := range failed {
			moved[k] = o.assign[i].Pod
			gone[i] = true
			o.takeOff(o.assign[i])
		}
		opts := o.dom.placeOptions(len(moved))
		placed, err := o.pr.placer.Place(o.ctx, moved, opts)
		if err != nil {
			return false, err
		}
		if len(placed.Assignments) == len(moved) {
			next := make([]framework.Assignment, 0, len(o.assign))
			for i, a := range o.assign {
				if !gone[i] {
					next = append(next, a)
				}
			}
			o.assign = append(next, placed.Assignments...)
			return true, nil
		}
		snap.Rollback(cp)
	}
	for i := len(o.assign) - 1; i >= 0; i-- {
		o.takeOff(o.assign[i])
	}
	return o.place()
}

// takeOff takes a placed member off its node, with what Reserve recorded for it (its
// claims' devices, its volumes), so that it can be placed elsewhere.
func (o *oracle) takeOff(a framework.Assignment) {
	o.e.Handle.RunReservePluginsUnreserve(o.ctx, a.State, a.Pod, a.Node.Name)
	o.e.Handle.Snapshot().RemovePod(a.Pod)
}

func (o *oracle) Drop(u *preemption.Unit) error {
	o.account(u, -1)
	f := o.stack[len(o.stack)-1]
	o.stack = o.stack[:len(o.stack)-1]
	o.e.Handle.Snapshot().Rollback(f.cp)
	o.assign = f.assign
	return nil
}

func (o *oracle) Witness() any { return slices.Clone(o.assign) }

// stillFits re-filters the members the unit's return can affect: those on the nodes it
// returns to, and, since any pod may count for them, those whose constraints involve
// other pods; every member when a returning pod has affinity terms of its own. It returns
// the indexes of the members that no longer fit.
func (o *oracle) stillFits(u *preemption.Unit) ([]int, error) {
	back := o.removed[u]
	if len(back) == 0 {
		return nil, nil
	}
	nodes := map[*framework.NodeInfo]bool{}
	all := false
	for _, q := range back {
		nodes[o.home[q]] = true
		if len(q.RequiredAntiAffinity) > 0 || q.HasAffinityTerms() {
			all = true
		}
	}
	// Pods that bring no ports, no affinity terms and no claims back can only take room: a
	// member without constraints on other pods, claims or volumes then still fits exactly
	// when its node is not over-committed, which needs no filter run. Pods that bring
	// claims back may take devices or volumes from members on any node.
	roomOnly, shared := !all, false
	for _, q := range back {
		if len(q.HostPorts) > 0 {
			roomOnly = false
		}
		if q.UsesClaims() {
			roomOnly, shared = false, true
		}
	}
	var failed []int
	if shared {
		// The claims coming back may hold devices or volumes the members' own claims were
		// given: only placing the members again, with those taken, can tell.
		for i := range o.assign {
			failed = append(failed, i)
		}
		return failed, nil
	}
	check := map[int]bool{}
	for i, a := range o.assign {
		switch {
		case roomOnly && nodes[a.Node] && !a.Pod.HasInterPodConstraints() && !a.Pod.UsesClaims():
			if overCommitted(a.Node, a.Pod) {
				failed = append(failed, i)
			}
		case all || nodes[a.Node] || a.Pod.HasInterPodConstraints():
			check[i] = true
		}
	}
	h := o.e.Handle
	snap := h.Snapshot()
	for _, i := range slices.Sorted(maps.Keys(check)) {
		a := o.assign[i]
		// A member is checked as the scheduler places it: without itself on the node;
		// one whose constraints involve other pods with a state computed afresh.
		snap.RemovePod(a.Pod)
		state := a.State
		var st *framework.Status
		if state == nil || a.Pod.HasInterPodConstraints() {
			state = framework.NewCycleState()
			_, st = h.RunPreFilterPlugins(o.ctx, state, a.Pod)
		}
		if st.IsSuccess() {
			st = h.RunFilterPlugins(o.ctx, state, a.Pod, a.Node)
		}
		snap.AddPod(a.Pod, a.Node.Name)
		if st.Code() == framework.Error {
			return nil, st.AsError()
		}
		if !st.IsSuccess() {
			failed = append(failed, i)
		}
	}
	slices.Sort(failed)
	return failed, nil
}

// overCommitted reports whether a node holding p asks for more than it has of anything p
// asks for.
func overCommitted(n *framework.NodeInfo, p *framework.PodInfo) bool {
	for _, i := range p.RequestIdx {
		if n.Requested[i] > n.Allocatable[i] {
			return true
		}
	}
	return false
}
