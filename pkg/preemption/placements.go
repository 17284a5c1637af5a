package preemption

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// DefaultMaxPlacements is how many placements a group's preemption simulates by default,
// the least disruptive first by a lower bound computed on resource vectors.
const DefaultMaxPlacements = 8

// PlacementOptions tune preemption for a group with placements.
type PlacementOptions struct {
	// MaxPlacements bounds how many placements are simulated.
	MaxPlacements int
	// PreferredLevelsFirst keeps the old order: every placement that meets more Preferred
	// levels is tried before any that meets fewer, whatever the disruption. By default
	// the least disruptive outcome wins and Preferred levels only break ties (KEP-5710
	// leaves trading disruption for placement quality to a future opt-in).
	PreferredLevelsFirst bool
}

// PreemptInPlacements is workload-aware preemption for a group with placements (KEP-5732):
// each placement is a domain, victims are taken only inside it (units, search and cost as
// in Preempt), and the placement whose decision disrupts least wins, then the one meeting
// more Preferred levels, then the one that scores best with the group in it. Placements
// are simulated in the order of a lower bound of their disruption (the priorities and
// number of the lowest lower-priority pods whose removal frees enough room), and one
// whose bound cannot beat the best decision found is not simulated at all, so that the
// least disruptive placement is found among hundreds while simulating few.
func (e *GroupEvaluator) PreemptInPlacements(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, schedule framework.PodGroupSchedulingFunc, cands *framework.PlacementCandidates, opts PlacementOptions) (*GroupResult, error) {
	if g.PreemptionPolicy == v1.PreemptNever {
		return &GroupResult{Message: "preemption: " + MsgNeverPolicy}, nil
	}
	e.budget = decisionSearchBudget
	snap := e.Handle.Snapshot()
	need := framework.GroupNeed(g, len(snap.GroupMembers(g.Key)))
	rest := placeable(pending)
	if len(rest) < need || len(cands.List) == 0 {
		return &GroupResult{Eligible: true, Message: "preemption: nothing to make room for"}, nil
	}
	if p := e.nominatedPlacement(rest, cands.List); p != nil {
		wait, err := e.waitingForVictims(ctx, g, rest, need, schedule, p.Nodes)
		if err != nil || wait {
			return &GroupResult{Waiting: true, Message: "preemption: " + MsgGroupWaitingVictims}, err
		}
	}
	if !e.anyLowerPriority(g, cands.List) {
		return &GroupResult{Eligible: true, Message: "preemption: " + msgGroupNoVictims}, nil
	}
	lb := newDisruptionBound(e.Handle.Snapshot(), g, rest, need)
	type ranked struct {
		p     *framework.Placement
		bound Cost
		index int
	}
	// Bounds are independent per placement: computed in parallel, as filters are.
	bounds := make([]Cost, len(cands.List))
	feasible := make([]bool, len(cands.List))
	e.Handle.Parallelizer().Until(ctx, len(cands.List), func(i int) {
		bounds[i], feasible[i] = lb.of(cands.List[i].Nodes)
	})
	var order []ranked
	tooSmall := 0
	for i, p := range cands.List {
		if !feasible[i] {
			tooSmall++
			continue
		}
		order = append(order, ranked{p: p, bound: bounds[i], index: i})
	}
	slices.SortStableFunc(order, func(a, b ranked) int {
		if opts.PreferredLevelsFirst {
			if c := cmp.Compare(a.p.Rank, b.p.Rank); c != 0 {
				return c
			}
		}
		if c := a.bound.Compare(b.bound); c != 0 {
			return c
		}
		return cmp.Compare(a.index, b.index)
	})
	var best *placementChoice
	simulated := 0
	for _, r := range order {
		if simulated >= opts.MaxPlacements {
			break
		}
		if best != nil {
			if opts.PreferredLevelsFirst && r.p.Rank > best.rank {
				break
			}
			if r.bound.Compare(best.res.Cost) > 0 {
				if opts.PreferredLevelsFirst {
					continue
				}
				break // sorted by bound: no later placement can do better
			}
		}
		simulated++
		// Members stay inside the placement: its nodes, and what its PlacementState
		// plugins hold it to (a DRA placement's devices).
		p := r.p
		inside := func(ctx context.Context, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
			opts.Placement = p
			return schedule(ctx, members, opts)
		}
		res, err := e.preemptIn(ctx, g, rest, need, inside, r.p.Nodes)
		if err != nil {
			return nil, err
		}
		if res == nil {
			continue
		}
		c := &placementChoice{res: res, rank: r.p.Rank, p: r.p}
		if best == nil || c.better(ctx, e, best, cands) {
			best = c
		}
	}
	if best != nil {
		best.res.Eligible = true
		return best.res, nil
	}
	return &GroupResult{Eligible: true, Message: fmt.Sprintf(
		"preemption: no placement can hold the pod group even with its lower-priority pods preempted (%d simulated, %d too small with them gone).",
		simulated, tooSmall)}, nil
}

// anyLowerPriority reports whether any placement runs a pod of lower priority than the
// group (one of its own members aside).
func (e *GroupEvaluator) anyLowerPriority(g *framework.GroupInfo, list []*framework.Placement) bool {
	snap := e.Handle.Snapshot()
	for _, p := range list {
		for _, n := range p.Nodes {
			for _, q := range n.Pods {
				if !framework.InGroup(q, g) && VictimPriority(snap, q) < g.Priority {
					return true
				}
			}
		}
	}
	return false
}

// nominatedPlacement returns the first placement that holds every node the members are
// nominated to, or nil when none is nominated.
func (e *GroupEvaluator) nominatedPlacement(pending []*framework.PodInfo, list []*framework.Placement) *framework.Placement {
	nodes := map[string]bool{}
	for _, m := range pending {
		if n := e.Handle.Nominator().NominatedNode(m.Key); n != "" {
			nodes[n] = true
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	for _, p := range list {
		n := 0
		for _, node := range p.Nodes {
			if nodes[node.Name] {
				n++
			}
		}
		if n == len(nodes) {
			return p
		}
	}
	return nil
}

// placementChoice is a decided preemption inside one placement, with what it costs. Its
// score is computed only when it must break a tie.
type placementChoice struct {
	res    *GroupResult
	rank   int
	p      *framework.Placement
	score  int64
	scored bool
}

func (e *GroupEvaluator) scoreChoice(ctx context.Context, c *placementChoice, cands *framework.PlacementCandidates) int64 {
	if c.scored || cands.Score == nil {
		return c.score
	}
	c.scored = true
	// Scored as it will be: the victims gone, the members at their nominated nodes.
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, v := range c.res.Victims {
		if snap.Get(v.NodeName) != nil {
			snap.RemovePod(v)
		}
	}
	placed := &framework.GroupPlacement{}
	for m, node := range c.res.Nominations {
		if n := snap.Get(node); n != nil {
			placed.Assignments = append(placed.Assignments, framework.Assignment{Pod: m, Node: n})
		}
	}
	slices.SortFunc(placed.Assignments, func(a, b framework.Assignment) int { return cmp.Compare(a.Pod.Key, b.Pod.Key) })
	c.score = cands.Score(ctx, c.p, placed)
	return c.score
}

// better reports whether c disrupts less than o, or as little and meets more Preferred
// levels, or as many and scores higher.
func (c *placementChoice) better(ctx context.Context, e *GroupEvaluator, o *placementChoice, cands *framework.PlacementCandidates) bool {
	if r := c.res.Cost.Compare(o.res.Cost); r != 0 {
		return r < 0
	}
	if c.rank != o.rank {
		return c.rank < o.rank
	}
	return e.scoreChoice(ctx, c, cands) > e.scoreChoice(ctx, o, cands)
}

// disruptionBound bounds from below, on resource vectors, what preemption in a set of
// nodes must cost: the room the group's need smallest requests take, less the free room
// and what leaving pods free, must come from lower-priority pods there (BestEffort ones
// free nothing). The lowest priority level whose pods cover it bounds the highest victim
// priority, and the fewest of those pods that could cover it (the largest request of each
// resource) bound the number of victims.
type disruptionBound struct {
	snap framework.Snapshot
	g    *framework.GroupInfo
	idx  []int8
	want resource.Vector
}

type boundCand struct {
	prio int32
	req  boundVector
}

// sortByPriority orders candidates by priority, lowest first: by insertion for the few
// pods of a typical placement (no comparison closure, which cost as much as the rest of
// the bound), by the library beyond.
func sortByPriority(cands []boundCand) {
	if len(cands) > 64 {
		slices.SortFunc(cands, func(a, b boundCand) int { return cmp.Compare(a.prio, b.prio) })
		return
	}
	for i := 1; i < len(cands); i++ {
		c := cands[i]
		j := i
		for ; j > 0 && cands[j-1].prio > c.prio; j-- {
			cands[j] = cands[j-1]
		}
		cands[j] = c
	}
}

// boundBuffers are a bound computation's scratch; bounds run in parallel, each with its own.
type boundBuffers struct {
	cands []boundCand
}

var boundScratch = sync.Pool{New: func() any { return &boundBuffers{} }}

func newDisruptionBound(snap framework.Snapshot, g *framework.GroupInfo, rest []*framework.PodInfo, need int) *disruptionBound {
	rp := framework.NewRequestPrefixes(rest)
	b := &disruptionBound{snap: snap, g: g, idx: rp.Idx}
	for j, i := range rp.Idx {
		b.want[i] = rp.Sums[j][min(need, len(rest))]
	}
	return b
}

// latest stands for "no earlier start is known" in a bound: a later start is cheaper.
var latest = time.Unix(1<<62, 0)

// of returns the bound for the nodes, or false when even every lower-priority pod there
// would not free enough room. It only reads, so placements are bounded in parallel.
func (b *disruptionBound) of(nodes []*framework.NodeInfo) (Cost, bool) {
	scratch := boundScratch.Get().(*boundBuffers)
	defer boundScratch.Put(scratch)
	// The bound works on the first boundResources resources the members ask for: fewer
	// resources only weaken it, and a bound that never loads a pod's requests twice is
	// what makes hundreds of placements cheap to rank.
	idx := b.idx[:min(len(b.idx), boundResources)]
	var deficit boundVector
	for j, i := range idx {
		deficit[j] = b.want[i]
	}
	cands := scratch.cands[:0]
	defer func() { scratch.cands = cands[:0] }()
	for _, n := range nodes {
		for j, i := range idx {
			deficit[j] -= n.Allocatable[i] - n.Requested[i]
		}
		for _, q := range n.Pods {
			if q.Holder() || framework.InGroup(q, b.g) {
				continue
			}
			p := VictimPriority(b.snap, q)
			if p >= b.g.Priority {
				continue
			}
			switch {
			case q.Terminating:
				for j, i := range idx {
					deficit[j] -= q.Requests.Vector[i]
				}
			case !freesNoResources(q):
				c := boundCand{prio: p}
				for j, i := range idx {
					c.req[j] = q.Requests.Vector[i]
				}
				cands = append(cands, c)
			}
		}
	}
	k := len(idx)
	if deficit.covered(k) {
		return Cost{Highest: NoCost.Highest, TopQOS: -1, TopStart: latest}, true
	}
	sortByPriority(cands)
	rem := deficit
	level := -1
	for n, c := range cands {
		for j := range k {
			rem[j] -= c.req[j]
		}
		if rem.covered(k) && (n+1 == len(cands) || cands[n+1].prio != c.prio) {
			level = n
			break
		}
	}
	if level < 0 {
		return Cost{}, false
	}
	top := cands[level].prio
	usable := cands[:level+1]
	// At least as many pods as the deficit of any resource divided by the largest request
	// of it among them.
	count := 1
	for j := range k {
		if deficit[j] <= 0 {
			continue
		}
		var largest int64
		for _, c := range usable {
			largest = max(largest, c.req[j])
		}
		if largest > 0 {
			count = max(count, int((deficit[j]+largest-1)/largest))
		}
	}
	return Cost{Highest: top, Sum: shifted(top) + int64(count-1)*shifted(usable[0].prio), Count: count, TopQOS: -1, TopStart: latest}, true
}

// boundResources is how many resources a disruption bound looks at.
const boundResources = 6

// boundVector holds a bound's amounts of the resources it looks at.
type boundVector [boundResources]int64

func (v *boundVector) covered(k int) bool {
	for j := range k {
		if v[j] > 0 {
			return false
		}
	}
	return true
}
