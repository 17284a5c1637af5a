package scheduler

import (
	"cmp"
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// placementSearch runs KEP-5732's phases for one group cycle: the placements are pruned
// by capacity, the others evaluated (the group placed inside each on the checkpointed
// snapshot, then reverted), the feasible ones scored, and the best chosen.
type placementSearch struct {
	s       *Scheduler
	fwk     *fwkruntime.Framework
	state   *framework.CycleState
	g       *framework.GroupInfo
	pending []*framework.PodInfo
	need    int
	est     *capacityEstimator
	// running marks the nodes of the group's running members: a fallback fills the
	// domains holding them first.
	running map[*framework.NodeInfo]bool
	evals   map[*framework.Placement]*placementEval
}

// placementEval is what the search learned about one placement.
type placementEval struct {
	p     *framework.Placement
	index int
	// capacity bounds how many pending members fit (resource vectors only).
	capacity  int
	evaluated bool
	placed    *framework.GroupPlacement
	score     int64
}

// placementOutcome is the result of the search.
type placementOutcome struct {
	// placed are the chosen placement's assignments; nil when no placement is feasible.
	placed *framework.GroupPlacement
	// When none is feasible: every placement for preemption, best first, why none fits,
	// and the plugins that rejected members.
	candidates *framework.PlacementCandidates
	message    string
	rejectors  sets.Set[string]
}

func (s *Scheduler) searchPlacements(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, g *framework.GroupInfo, pending []*framework.PodInfo, need int, placements []*framework.Placement) (*placementOutcome, error) {
	est, err := s.newCapacityEstimator(ctx, fwk, pending, need)
	if err != nil {
		return nil, err
	}
	ps := &placementSearch{s: s, fwk: fwk, state: state, g: g, pending: pending, need: need, est: est,
		running: map[*framework.NodeInfo]bool{}, evals: map[*framework.Placement]*placementEval{}}
	for _, m := range s.cache.GroupMembers(g.Key) {
		if n := s.cache.Get(m.NodeName); n != nil {
			ps.running[n] = true
		}
	}
	m := s.metrics
	m.PodGroupPlacements.WithLabelValues("generated").Add(float64(len(placements)))
	start := time.Now()
	defer func() { m.PodGroupPlacementDuration.WithLabelValues("evaluate").Observe(time.Since(start).Seconds()) }()

	// Phase 1: prune by capacity, and order each rank's placements so that the tightest
	// ones that can hold every pending member come first.
	byRank := map[int][]*placementEval{}
	maxRank := 0
	for i, p := range placements {
		e := ps.eval(p)
		e.index = i
		byRank[p.Rank] = append(byRank[p.Rank], e)
		maxRank = max(maxRank, p.Rank)
	}
	for _, es := range byRank {
		slices.SortStableFunc(es, func(a, b *placementEval) int {
			if c := cmp.Compare(min(b.capacity, len(pending)), min(a.capacity, len(pending))); c != 0 {
				return c
			}
			return cmp.Compare(a.capacity, b.capacity)
		})
	}

	// Phase 2: evaluate, rank by rank, until enough feasible placements are found.
	limit := s.cfg.FeasiblePlacementsToFind
	var feasible []*placementEval
	for rank := 0; rank <= maxRank && len(feasible) == 0; rank++ {
		for _, e := range byRank[rank] {
			if len(feasible) >= limit {
				break
			}
			if e.capacity < need {
				m.PodGroupPlacements.WithLabelValues("pruned").Inc()
				continue
			}
			if err := ps.evaluate(ctx, e); err != nil {
				return nil, err
			}
			m.PodGroupPlacements.WithLabelValues("evaluated").Inc()
			if len(e.placed.Assignments) >= need {
				feasible = append(feasible, e)
				m.PodGroupPlacements.WithLabelValues("feasible").Inc()
			}
		}
	}

	// Phase 3: score the feasible placements and pick the best, ties broken by the seeded
	// generator.
	if len(feasible) > 0 {
		scoreStart := time.Now()
		var best *placementEval
		ties := 0
		for _, e := range feasible {
			sc, st := fwk.RunPlacementScorePlugins(ctx, state, g, e.p, e.placed, len(pending))
			if !st.IsSuccess() {
				return nil, st.AsError()
			}
			e.score = sc
			switch {
			case best == nil || sc > best.score:
				best, ties = e, 1
			case sc == best.score:
				ties++
				if s.rand.IntN(ties) == 0 {
					best = e
				}
			}
		}
		m.PodGroupPlacementDuration.WithLabelValues("score").Observe(time.Since(scoreStart).Seconds())
		best.placed.Placement = best.p
		return &placementOutcome{placed: best.placed}, nil
	}
	return ps.failure(ctx, placements)
}

func (ps *placementSearch) eval(p *framework.Placement) *placementEval {
	e := ps.evals[p]
	if e == nil {
		e = &placementEval{p: p, capacity: ps.est.capacity(p.Nodes)}
		ps.evals[p] = e
	}
	return e
}

// evaluate places the group inside a placement on the snapshot and takes it off again.
func (ps *placementSearch) evaluate(ctx context.Context, e *placementEval) error {
	s := ps.s
	cp := s.cache.Checkpoint()
	defer s.cache.Rollback(cp)
	e.evaluated = true
	if st := ps.fwk.RunAssumePlacement(ctx, ps.state, ps.g, e.p); !st.IsSuccess() {
		if st.Code() == framework.Error {
			return st.AsError()
		}
		e.placed = &framework.GroupPlacement{Unplaced: ps.pending, Message: st.Message(), Reasons: st.Reasons(),
			UnschedulablePlugins: []string{st.Plugin()}}
		return nil
	}
	defer ps.fwk.RunRevertPlacement(ctx, ps.state, ps.g, e.p)
	pl, err := ps.fill(ctx, e.p, ps.pending, false)
	if err != nil {
		return err
	}
	e.placed = pl
	return nil
}

// fill places members inside p. A placement whose Preferred level was given up fills its
// children one after the other (those holding running members first, then the roomiest),
// so the group spans as few of them as it can, and then the rest of its nodes.
func (ps *placementSearch) fill(ctx context.Context, p *framework.Placement, members []*framework.PodInfo, firstFit bool) (*framework.GroupPlacement, error) {
	opts := framework.PlaceOptions{Nodes: p.Nodes, Pack: p.PackWeight, FirstFit: firstFit, Need: ps.need}
	if len(p.Children) == 0 {
		return ps.s.placeMembers(ctx, ps.fwk, members, opts)
	}
	children := slices.Clone(p.Children)
	holds := func(c *framework.Placement) bool {
		return slices.ContainsFunc(c.Nodes, func(n *framework.NodeInfo) bool { return ps.running[n] })
	}
	slices.SortStableFunc(children, func(a, b *framework.Placement) int {
		if ha, hb := holds(a), holds(b); ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		return cmp.Compare(ps.eval(b).capacity, ps.eval(a).capacity)
	})
	out := &framework.GroupPlacement{}
	rest := members
	merge := func(pl *framework.GroupPlacement) {
		out.Assignments = append(out.Assignments, pl.Assignments...)
		out.Unplaced = pl.Unplaced
		if len(pl.Unplaced) > 0 {
			out.Message, out.Reasons = pl.Message, pl.Reasons
		}
		out.UnschedulablePlugins = sets.List(sets.New(out.UnschedulablePlugins...).Insert(pl.UnschedulablePlugins...))
	}
	for _, c := range children {
		if len(rest) == 0 {
			break
		}
		if ps.eval(c).capacity <= 0 {
			continue
		}
		pl, err := ps.fill(ctx, c, rest, firstFit)
		if err != nil {
			return nil, err
		}
		merge(pl)
		rest = pl.Unplaced
	}
	if len(rest) > 0 {
		// Nodes outside every child (without the finer label) and what the children
		// could not take one member at a time.
		pl, err := ps.s.placeMembers(ctx, ps.fwk, rest, opts)
		if err != nil {
			return nil, err
		}
		merge(pl)
	}
	return out, nil
}

// scheduleInPlacements is the group cycle of a group with placements (KEP-5732): the
// search picks a placement and the members are assumed there; when none is feasible,
// PodGroupPostFilter gets the placements so that preemption keeps the group inside one.
// cp is the cycle's checkpoint, rolled back here.
func (s *Scheduler) scheduleInPlacements(ctx context.Context, fwk *fwkruntime.Framework, e *queue.Entry, gs *groupState, cp framework.Checkpoint, state *framework.CycleState, pending []*framework.PodInfo, need int, placements []*framework.Placement, generated *framework.Status, start time.Time) {
	g := gs.info
	fail := func(isError bool, msg string, rejectors []string, res *framework.PodGroupPostFilterResult) {
		s.handleGroupFailure(fwk, e, gs, &framework.GroupPlacement{UnschedulablePlugins: rejectors}, isError, msg, res, start)
	}
	switch {
	case !generated.IsSuccess():
		s.cache.Rollback(cp)
		fail(generated.Code() == framework.Error, generated.Message(), []string{generated.Plugin()}, nil)
		return
	case len(placements) == 0:
		s.cache.Rollback(cp)
		fail(false, "no placement was generated for the pod group", nil, nil)
		return
	}
	out, err := s.searchPlacements(ctx, fwk, state, g, pending, need, placements)
	if err != nil {
		s.cache.Rollback(cp)
		fail(true, err.Error(), nil, nil)
		return
	}
	if out.placed != nil {
		s.cache.Rollback(cp)
		s.assumeGroup(ctx, fwk, e, gs, out.placed, start)
		return
	}
	res, st := fwk.RunPodGroupPostFilterPlugins(ctx, g, pending, &framework.GroupPlacement{}, s.groupSchedulingFunc(fwk, state, g), out.candidates)
	s.cache.Rollback(cp)
	if st.Code() == framework.Error {
		fail(true, st.Message(), nil, nil)
		return
	}
	msg := out.message
	if !st.IsSuccess() && st.Message() != "" {
		msg += " " + st.Message()
	}
	fail(false, msg, sets.List(out.rejectors), res)
}
