package placement

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// Tree is a CompositePodGroup scheduled as one unit (a gang composite, KEP-6012): its
// child groups, PodGroups and composites nested up to four levels, with the pending
// members of each PodGroup. A PodGroup is complete when minCount of its members run or are
// placed (one, for a basic group); a composite, when minGroupCount of its children are
// (one, for a basic composite). The tree is placed all or nothing: when its root cannot be
// completed, nothing of it is kept.
type Tree struct {
	Group *framework.GroupInfo
	// Pending are a PodGroup's pending members; Running counts its bound members.
	Pending []*framework.PodInfo
	Running int
	// Children are a composite's child groups.
	Children []*Tree
}

// impossible is the need of a group that cannot be completed with the members it has.
const impossible = 1 << 30

// need is how many more members must be placed for the group to be complete: 0 when it
// is, impossible when its members are too few.
func (t *Tree) need() int {
	if !t.Group.IsComposite() {
		n := max(0, t.Group.MinCount()-t.Running)
		if n > len(t.Pending) {
			return impossible
		}
		return n
	}
	needs := make([]int, len(t.Children))
	for i, c := range t.Children {
		needs[i] = c.need()
	}
	slices.Sort(needs)
	k := t.Group.MinCount()
	if k > len(needs) {
		return impossible
	}
	total := 0
	for _, n := range needs[:k] {
		total = min(impossible, total+n)
	}
	return total
}

// Need is how many members must be placed for the unit to make progress: to complete it,
// or, once it is complete, one more.
func (t *Tree) Need() int {
	if n := t.need(); n > 0 {
		return n
	}
	return 1
}

// Completable reports whether the tree can be completed with the members it has.
func (t *Tree) Completable() bool { return t.need() < impossible }

// Members are the pending members of every PodGroup of the tree.
func (t *Tree) Members() []*framework.PodInfo {
	if !t.Group.IsComposite() {
		return t.Pending
	}
	var out []*framework.PodInfo
	for _, c := range t.Children {
		out = append(out, c.Members()...)
	}
	return out
}

// Groups are the PodGroups of the tree.
func (t *Tree) Groups() []*Tree {
	if !t.Group.IsComposite() {
		return []*Tree{t}
	}
	var out []*Tree
	for _, c := range t.Children {
		out = append(out, c.Groups()...)
	}
	return out
}

// ForTree returns the placement of one composite unit in one cycle: the tree, in the
// cycle's state. It is the composite's framework.GroupPlacer.
func (pl *Placer) ForTree(t *Tree, state *framework.CycleState) *TreePlacer {
	if state == nil {
		state = framework.NewCycleState()
	}
	return &TreePlacer{pl: pl, t: t, state: state}
}

// TreePlacer places a composite unit.
type TreePlacer struct {
	pl    *Placer
	t     *Tree
	state *framework.CycleState
}

var _ framework.GroupPlacer = (*TreePlacer)(nil)

// treeRun is one placement of a tree: the members that may be placed and how, and the
// plugins that rejected members on the way (only events they registered may help).
type treeRun struct {
	tp        *TreePlacer
	allowed   map[*framework.PodInfo]bool
	firstFit  bool
	rejectors sets.Set[string]
}

// Place places the tree, with only the given members, inside opts.Nodes (or
// opts.Placement's nodes): the assignments when the unit makes progress (it is complete
// and at least one member is placed), none otherwise (framework.GroupPlacer).
func (tp *TreePlacer) Place(ctx context.Context, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	nodes := opts.Nodes
	if nodes == nil && opts.Placement != nil {
		nodes = opts.Placement.Nodes
	}
	run := &treeRun{tp: tp, allowed: make(map[*framework.PodInfo]bool, len(members)), firstFit: opts.FirstFit, rejectors: sets.New[string]()}
	for _, m := range members {
		run.allowed[m] = true
	}
	snap := tp.pl.opts.Snapshot
	cp := snap.Checkpoint()
	placed, msg, err := run.placeNode(ctx, tp.t, nodes)
	if err != nil {
		snap.Rollback(cp)
		return nil, err
	}
	if placed == nil || len(placed.Assignments) == 0 {
		snap.Rollback(cp)
		if msg == "" && placed != nil {
			msg = placed.Message // the unit is complete, and the groups left over do not fit
		}
		if msg == "" {
			msg = "no pod of the composite pod group " + tp.t.Group.Key + " fits"
		}
		return &framework.GroupPlacement{Unplaced: members, Message: msg, Reasons: []string{msg},
			UnschedulablePlugins: sets.List(run.rejectors)}, nil
	}
	in := map[*framework.PodInfo]bool{}
	for _, a := range placed.Assignments {
		in[a.Pod] = true
	}
	for _, m := range members {
		if !in[m] {
			placed.Unplaced = append(placed.Unplaced, m)
		}
	}
	return placed, nil
}

// Confirm filters each assigned member afresh on its node (framework.GroupPlacer).
func (tp *TreePlacer) Confirm(ctx context.Context, assignments []framework.Assignment) (bool, error) {
	return tp.pl.confirm(ctx, assignments)
}

// Capacity bounds how many of members a set of nodes can take (framework.GroupPlacer).
func (tp *TreePlacer) Capacity(ctx context.Context, members []*framework.PodInfo) (framework.Capacity, error) {
	return tp.pl.capacity(ctx, members)
}

// AlikeKey identifies members whose placement cannot differ (framework.GroupPlacer).
func (tp *TreePlacer) AlikeKey(m *framework.PodInfo) string { return tp.pl.alikeKey(m) }

// Search runs the placement search for a composite with topology: each placement of the
// composite's levels is filled with its child groups (only the given members), and the
// best of those that hold the unit wins, as Group.Search does for a PodGroup.
func (tp *TreePlacer) Search(ctx context.Context, members []*framework.PodInfo, need int, placements []*framework.Placement) (*SearchResult, error) {
	ps := &placementSearch{pl: tp.pl, g: tp.t.Group, state: tp.state, pending: members, need: need,
		running: map[*framework.NodeInfo]bool{}}
	ps.fill = func(ctx context.Context, p *framework.Placement) (*framework.GroupPlacement, error) {
		run := &treeRun{tp: tp, allowed: map[*framework.PodInfo]bool{}, rejectors: sets.New[string]()}
		for _, m := range members {
			run.allowed[m] = true
		}
		placed, msg, err := run.placeChildren(ctx, tp.t, p.Nodes)
		if err != nil || placed != nil {
			return placed, err
		}
		return &framework.GroupPlacement{Unplaced: members, Message: msg, Reasons: []string{msg},
			UnschedulablePlugins: sets.List(run.rejectors)}, nil
	}
	return ps.run(ctx, placements)
}

// placeNode places a group of the tree inside nodes (nil: every node): its assignments
// when it is complete (nil and why when it is not, with nothing of it left in the
// snapshot).
func (r *treeRun) placeNode(ctx context.Context, t *Tree, nodes []*framework.NodeInfo) (*framework.GroupPlacement, string, error) {
	if !t.Group.IsComposite() {
		return r.placeGroup(ctx, t, nodes)
	}
	if len(t.Group.Topology()) == 0 || t == r.tp.t && nodes != nil {
		// The root's own placement is the caller's (Search, or preemption's domain).
		return r.placeChildren(ctx, t, nodes)
	}
	placements, msg, err := r.placementsWithin(ctx, t.Group, t.Members(), nodes)
	if err != nil || (placements == nil && msg != "") {
		return nil, msg, err
	}
	if placements == nil {
		return r.placeChildren(ctx, t, nodes)
	}
	snap := r.tp.pl.opts.Snapshot
	for _, p := range placements {
		cp := snap.Checkpoint()
		placed, why, err := r.placeChildren(ctx, t, p.Nodes)
		if err != nil {
			snap.Rollback(cp)
			return nil, "", err
		}
		if placed != nil {
			return placed, "", nil
		}
		snap.Rollback(cp)
		if msg == "" {
			msg = p.Name + ": " + why
		}
	}
	return nil, msg, nil
}

// placeChildren places a composite's child groups inside nodes: the incomplete ones, each
// whole or not at all, the largest first, until enough are complete; then the extra
// members of those already complete. Nothing is kept when too few are complete.
func (r *treeRun) placeChildren(ctx context.Context, t *Tree, nodes []*framework.NodeInfo) (*framework.GroupPlacement, string, error) {
	snap := r.tp.pl.opts.Snapshot
	cp := snap.Checkpoint()
	var incomplete, complete []*Tree
	for _, c := range t.Children {
		if c.need() == 0 {
			complete = append(complete, c)
		} else if c.need() < impossible {
			incomplete = append(incomplete, c)
		}
	}
	slices.SortStableFunc(incomplete, func(a, b *Tree) int { return cmp.Compare(b.size(), a.size()) })
	out := &framework.GroupPlacement{}
	done := len(complete)
	msg := ""
	for _, c := range incomplete {
		placed, why, err := r.placeNode(ctx, c, nodes)
		if err != nil {
			snap.Rollback(cp)
			return nil, "", err
		}
		if placed == nil {
			if msg == "" {
				msg = why
			}
			continue
		}
		done++
		out.Assignments = append(out.Assignments, placed.Assignments...)
	}
	if done < t.Group.MinCount() {
		snap.Rollback(cp)
		return nil, fmt.Sprintf("%d of the %d groups the composite pod group %s needs fit: %s", done, t.Group.MinCount(), t.Group.Key, msg), nil
	}
	for _, c := range complete {
		placed, why, err := r.placeNode(ctx, c, nodes)
		if err != nil {
			snap.Rollback(cp)
			return nil, "", err
		}
		if placed != nil {
			out.Assignments = append(out.Assignments, placed.Assignments...)
		} else if msg == "" {
			msg = why
		}
	}
	// Why the groups left over did not fit, for their members.
	out.Message = msg
	return out, "", nil
}

// placeGroup places a PodGroup of the tree inside nodes, in one of its own placements when
// it has topology.
func (r *treeRun) placeGroup(ctx context.Context, t *Tree, nodes []*framework.NodeInfo) (*framework.GroupPlacement, string, error) {
	var pending []*framework.PodInfo
	for _, m := range t.Pending {
		if r.allowed[m] {
			pending = append(pending, m)
		}
	}
	need := max(0, t.Group.MinCount()-t.Running)
	if need > len(pending) {
		return nil, fmt.Sprintf("pod group %s has %d of the %d pods it needs", t.Group.Key, len(pending)+t.Running, t.Group.MinCount()), nil
	}
	if len(pending) == 0 {
		return &framework.GroupPlacement{}, "", nil
	}
	pl, snap := r.tp.pl, r.tp.pl.opts.Snapshot
	placements, msg, err := r.placementsWithin(ctx, t.Group, pending, nodes)
	if err != nil || (placements == nil && msg != "") {
		return nil, msg, err
	}
	if placements != nil {
		res, err := pl.For(t.Group, r.tp.state).Search(ctx, pending, need, placements)
		if err != nil {
			return nil, "", err
		}
		if res.Placed == nil {
			r.rejectors.Insert(sets.List(res.Rejectors)...)
			return nil, res.Message, nil
		}
		// The search leaves the snapshot as it was: the chosen members are placed again,
		// with what their plugins computed, so the next groups see them.
		fwk := pl.opts.Framework
		for _, a := range res.Placed.Assignments {
			snap.AddPod(a.Pod, a.Node.Name)
			if st := fwk.RunReservePluginsReserve(ctx, a.State, a.Pod, a.Node.Name); !st.IsSuccess() {
				return nil, st.Message(), st.AsError()
			}
		}
		return res.Placed, "", nil
	}
	cp := snap.Checkpoint()
	placed, err := pl.place(ctx, pending, framework.PlaceOptions{Nodes: nodes, Need: max(need, 1), FirstFit: r.firstFit})
	if err != nil {
		snap.Rollback(cp)
		return nil, "", err
	}
	if len(placed.Assignments) < need {
		snap.Rollback(cp)
		r.rejectors.Insert(placed.UnschedulablePlugins...)
		return nil, fmt.Sprintf("pod group %s: %d of the %d pods needed fit: %s", t.Group.Key, len(placed.Assignments), need, placed.Message), nil
	}
	return placed, "", nil
}

// placementsWithin generates a group's placements and keeps those inside nodes (all of
// them when nodes is nil): nil and why when there is none; nil and no message when the
// group has none to generate (it is placed on nodes as they are).
func (r *treeRun) placementsWithin(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, nodes []*framework.NodeInfo) ([]*framework.Placement, string, error) {
	fwk := r.tp.pl.opts.Framework
	if !fwk.HasPlacementGenerators() {
		return nil, "", nil
	}
	placements, generated, st := fwk.RunPlacementGeneratePlugins(ctx, r.tp.state, g, pending)
	if st.Code() == framework.Error {
		return nil, "", st.AsError()
	}
	if !st.IsSuccess() {
		return nil, st.Message(), nil
	}
	if !generated {
		return nil, "", nil
	}
	dom := framework.NewDomain(nodes)
	var kept []*framework.Placement
	for _, p := range placements {
		if !slices.ContainsFunc(p.Nodes, func(n *framework.NodeInfo) bool { return !dom.Contains(n) }) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil, "no placement of " + g.Key + " lies in the composite's domain", nil
	}
	return kept, "", nil
}

// size is how much a group asks for, to place the largest first: the sum of its pending
// members' cpu requests (each counting at least one millicore, so that the number of
// members breaks ties).
func (t *Tree) size() int64 {
	var total int64
	for _, m := range t.Members() {
		total += max(1, m.Requests.Vector[resource.CPU])
	}
	return total
}

// Satisfied reports whether the tree is complete with its running members alone: its
// pending members are then extras.
func (t *Tree) Satisfied() bool { return t.need() == 0 }
