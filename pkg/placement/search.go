package placement

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// SearchResult is the outcome of a placement search.
type SearchResult struct {
	// Placed are the chosen placement's assignments; nil when no placement is feasible.
	Placed *framework.GroupPlacement
	// When none is feasible: every placement for preemption, best first, why none holds
	// the group, and the plugins that rejected members.
	Candidates *framework.PlacementCandidates
	Message    string
	Rejectors  sets.Set[string]
}

// Search runs KEP-5732's phases for the group's pending members, of which need must fit:
// the placements are pruned by capacity, the others evaluated rank by rank (the group
// placed inside each on the snapshot, then taken off), the feasible ones scored, and the
// best chosen. When none holds the group, the result explains why and lists every
// placement for preemption. The snapshot is left as it was.
func (gp *Group) Search(ctx context.Context, pending []*framework.PodInfo, need int, placements []*framework.Placement) (*SearchResult, error) {
	ps := &placementSearch{pl: gp.pl, g: gp.g, state: gp.state, pending: pending, need: need,
		running: map[*framework.NodeInfo]bool{}}
	ps.fill = func(ctx context.Context, p *framework.Placement) (*framework.GroupPlacement, error) {
		return ps.fillGroup(ctx, p, ps.pending)
	}
	snap := gp.pl.opts.Snapshot
	for _, m := range snap.GroupMembers(gp.g.Key) {
		if n := snap.Get(m.NodeName); n != nil {
			ps.running[n] = true
		}
	}
	return ps.run(ctx, placements)
}

// run runs the three phases over the placements.
func (ps *placementSearch) run(ctx context.Context, placements []*framework.Placement) (*SearchResult, error) {
	est, err := ps.pl.capacity(ctx, ps.pending)
	if err != nil {
		return nil, err
	}
	ps.est = est
	ps.begin(placements)
	defer ps.end()
	pending, need := ps.pending, ps.need
	m := ps.pl.opts.Metrics
	m.PodGroupPlacements.WithLabelValues("generated").Add(float64(len(placements)))
	start := time.Now()
	defer func() { m.PodGroupPlacementDuration.WithLabelValues("evaluate").Observe(time.Since(start).Seconds()) }()

	// Phase 1: prune by capacity, and order each rank's placements so that the tightest
	// ones that can hold every pending member come first.
	byRank := map[int][]*placementEval{}
	maxRank := 0
	for i := range ps.evals {
		e := &ps.evals[i]
		byRank[e.p.Rank] = append(byRank[e.p.Rank], e)
		maxRank = max(maxRank, e.p.Rank)
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
	// The counters are looked up once: a wave gang's search prunes thousands of racks.
	limit := ps.pl.opts.FeasiblePlacementsToFind
	pruned, evaluated, feasibleCount := m.PodGroupPlacements.WithLabelValues("pruned"),
		m.PodGroupPlacements.WithLabelValues("evaluated"), m.PodGroupPlacements.WithLabelValues("feasible")
	var feasible []*placementEval
	for rank := 0; rank <= maxRank && len(feasible) == 0; rank++ {
		for _, e := range byRank[rank] {
			if len(feasible) >= limit {
				break
			}
			if e.capacity < need {
				pruned.Inc()
				continue
			}
			if err := ps.evaluate(ctx, e); err != nil {
				return nil, err
			}
			evaluated.Inc()
			if len(e.placed.Assignments) >= need {
				feasible = append(feasible, e)
				feasibleCount.Inc()
			}
		}
	}
	if len(feasible) == 0 {
		return ps.failure(ctx, placements)
	}

	// Phase 3: score the feasible placements and pick the best, ties broken by the seeded
	// generator.
	scoreStart := time.Now()
	var best *placementEval
	ties := 0
	for _, e := range feasible {
		sc, st := ps.score(ctx, e.p, e.placed)
		if !st.IsSuccess() {
			return nil, st.AsError()
		}
		e.score = sc
		switch {
		case best == nil || sc > best.score:
			best, ties = e, 1
		case sc == best.score:
			ties++
			if ps.pl.opts.Rand.IntN(ties) == 0 {
				best = e
			}
		}
	}
	m.PodGroupPlacementDuration.WithLabelValues("score").Observe(time.Since(scoreStart).Seconds())
	best.placed.Placement = best.p
	return &SearchResult{Placed: best.placed}, nil
}

// placementSearch is what one Search learns about the group's placements.
type placementSearch struct {
	pl      *Placer
	g       *framework.GroupInfo
	state   *framework.CycleState
	pending []*framework.PodInfo
	need    int
	// fill places the group inside a placement (its members, or a composite's tree).
	fill func(ctx context.Context, p *framework.Placement) (*framework.GroupPlacement, error)
	est  *capacity
	// running marks the nodes of the group's running members: a fallback fills the
	// domains holding them first.
	running map[*framework.NodeInfo]bool
	// list are the placements searched, and evals theirs, by index in list (the array is
	// the Placer's, evalBuffers: a wave gang's search at 130,000 nodes has some 8,000
	// racks, and a map and an array made per search cost about as much as the rest of its
	// bookkeeping).
	list  []*framework.Placement
	evals []placementEval
	// byPlacement finds an eval by placement (fillGroup's children, listed or not), made
	// on the first such look-up.
	byPlacement map[*framework.Placement]*placementEval
}

// placementEval is what the search learned about one placement.
type placementEval struct {
	p *framework.Placement
	// capacity bounds how many pending members fit (resource vectors only).
	capacity  int
	evaluated bool
	placed    *framework.GroupPlacement
	score     int64
}

// begin takes an array of evals for the placements, and bounds each one's capacity.
func (ps *placementSearch) begin(placements []*framework.Placement) {
	ps.list, ps.evals = placements, ps.pl.evals.take(len(placements))
	for i, p := range placements {
		// Each eval is written whole: the array may be a finished search's.
		ps.evals[i] = placementEval{p: p, capacity: ps.capacityOf(p)}
	}
}

// end hands the array of evals back, once nothing of the search reads it.
func (ps *placementSearch) end() {
	ps.pl.evals.give(ps.evals)
	ps.evals, ps.byPlacement = nil, nil
}

// capacityOf bounds how many pending members fit in p, now.
func (ps *placementSearch) capacityOf(p *framework.Placement) int {
	return ps.pl.caps.of(ps.est, ps.pl.opts.Snapshot, p)
}

// evalOf returns p's eval: that of its first place in the list, or one made on its first
// look-up (and kept for the search) when it is not listed.
func (ps *placementSearch) evalOf(p *framework.Placement) *placementEval {
	if ps.byPlacement == nil {
		ps.byPlacement = make(map[*framework.Placement]*placementEval, len(ps.list))
		for i, q := range ps.list {
			if _, ok := ps.byPlacement[q]; !ok {
				ps.byPlacement[q] = &ps.evals[i]
			}
		}
	}
	e := ps.byPlacement[p]
	if e == nil {
		e = &placementEval{p: p, capacity: ps.capacityOf(p)}
		ps.byPlacement[p] = e
	}
	return e
}

// evalBuffers keeps the evals' arrays of finished searches for the next ones: a wave's
// gangs search the same thousands of racks cycle after cycle. A search nested in
// another's (a composite's group, placed inside the composite's placement) takes an array
// of its own.
type evalBuffers struct {
	mu   sync.Mutex
	free [][]placementEval
}

// maxEvalBuffers bounds the arrays kept: one a level of nested searches.
const maxEvalBuffers = 4

// take returns an array of n evals, written by no search in progress; what it holds is a
// finished search's, zeroed.
func (b *evalBuffers) take(n int) []placementEval {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k := len(b.free); k > 0 && cap(b.free[k-1]) >= n {
		buf := b.free[k-1][:n]
		b.free = b.free[:k-1]
		return buf
	}
	return make([]placementEval, n)
}

// give hands back a finished search's array, zeroed so that it keeps nothing of the
// search alive (its placements' assignments and their cycle states).
func (b *evalBuffers) give(buf []placementEval) {
	if cap(buf) == 0 {
		return
	}
	clear(buf[:cap(buf)])
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.free) < maxEvalBuffers {
		b.free = append(b.free, buf)
	}
}

// score scores a placement holding the placed members with the PlacementScore plugins.
func (ps *placementSearch) score(ctx context.Context, p *framework.Placement, placed *framework.GroupPlacement) (int64, *framework.Status) {
	return ps.pl.opts.Framework.RunPlacementScorePlugins(ctx, ps.state, ps.g, p, placed, len(ps.pending))
}

// evaluate places the group inside a placement on the snapshot and takes it off again.
func (ps *placementSearch) evaluate(ctx context.Context, e *placementEval) error {
	fwk, snap := ps.pl.opts.Framework, ps.pl.opts.Snapshot
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	e.evaluated = true
	if st := fwk.RunAssumePlacement(ctx, ps.state, ps.g, e.p); !st.IsSuccess() {
		if st.Code() == framework.Error {
			return st.AsError()
		}
		e.placed = &framework.GroupPlacement{Unplaced: ps.pending, Message: st.Message(), Reasons: st.Reasons(),
			UnschedulablePlugins: []string{st.Plugin()}}
		return nil
	}
	defer fwk.RunRevertPlacement(ctx, ps.state, ps.g, e.p)
	placed, err := ps.fill(ctx, e.p)
	if err != nil {
		return err
	}
	e.placed = placed
	return nil
}

// fillGroup places members inside p. A placement whose Preferred level was given up fills
// its children one after the other (those holding running members first, then the
// roomiest), so the group spans as few of them as it can, and then the rest of its nodes.
func (ps *placementSearch) fillGroup(ctx context.Context, p *framework.Placement, members []*framework.PodInfo) (*framework.GroupPlacement, error) {
	opts := framework.PlaceOptions{Nodes: p.Nodes, Pack: p.PackWeight, Need: ps.need}
	if len(p.Children) == 0 {
		return ps.pl.place(ctx, members, opts)
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
		return cmp.Compare(ps.evalOf(b).capacity, ps.evalOf(a).capacity)
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
		if ps.evalOf(c).capacity <= 0 {
			continue
		}
		placed, err := ps.fillGroup(ctx, c, rest)
		if err != nil {
			return nil, err
		}
		merge(placed)
		rest = placed.Unplaced
	}
	if len(rest) > 0 {
		// Nodes outside every child (without the finer label) and what the children
		// could not take one member at a time.
		placed, err := ps.pl.place(ctx, rest, opts)
		if err != nil {
			return nil, err
		}
		merge(placed)
	}
	return out, nil
}
