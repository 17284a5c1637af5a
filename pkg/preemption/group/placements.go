package group

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
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

// preemptInPlacements is workload-aware preemption for a group with placements
// (KEP-5732): each placement is a domain, victims are taken only inside it (units, search
// and cost as for the cluster), and the placement whose decision disrupts least wins. The
// steps:
//
//  1. When the members are nominated inside a placement whose victims are still leaving,
//     and the group fits there once they are gone, the group waits (Waiting).
//  2. When no placement runs a pod of lower priority, there is nothing to preempt.
//  3. Each placement gets a lower bound of its disruption, on resource vectors (the
//     priorities and number of the lowest lower-priority pods whose removal frees enough
//     room); those that cannot hold the group even with every such pod gone are dropped.
//  4. Placements are simulated in the order of their bound, at most MaxPlacements of
//     them, and one whose bound cannot beat the best decision found ends the search, so
//     that the least disruptive placement is found among hundreds while simulating few.
//  5. The best decision disrupts least, then meets more Preferred levels, then scores
//     best with the group in it (placementChoice.better).
//
// The outcomes: the best decision (Eligible); Eligible with a Message saying how many
// placements were simulated and how many were too small when none holds the group; not
// Eligible when the group waits.
func (e *Evaluator) preemptInPlacements(ctx context.Context, pr *preemptor, cands *framework.PlacementCandidates) (*Result, error) {
	logger := klog.FromContext(ctx)
	opts := e.Placements
	if p := e.nominatedPlacement(pr.members, cands.List); p != nil {
		wait, err := e.waitingForVictims(ctx, pr, domain{nodes: p.Nodes})
		if err != nil || wait {
			return &Result{Waiting: true, Message: "preemption: " + MsgWaitingVictims}, err
		}
	}
	if !e.anyLowerPriority(pr, cands.List) {
		return &Result{Eligible: true, Message: "preemption: " + msgGroupNoVictims}, nil
	}
	lb := newDisruptionBound(e.Handle.Snapshot(), pr)
	type ranked struct {
		p     *framework.Placement
		bound preemption.Cost
		index int
	}
	// Bounds are independent per placement: those of placements unchanged since an alike
	// group asked are remembered, the others computed in parallel, as filters are.
	bounds, feasible := e.bounds.bounds(lb, e.Handle.Snapshot().LayoutVersion(), cands.List, func(n int, fn func(i int)) {
		e.Handle.Parallelizer().Until(ctx, n, fn)
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
			logger.V(4).Info("Placement preemption stops at its limit of simulations", "podgroup", pr.g.Key, "maxPlacements", opts.MaxPlacements)
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
		res, err := e.preemptIn(ctx, pr, domain{nodes: r.p.Nodes, placement: r.p})
		if err != nil {
			return nil, err
		}
		if res == nil {
			logger.V(5).Info("Placement cannot hold the group even with its lower-priority units gone", "podgroup", pr.g.Key, "placement", r.p.Name)
			continue
		}
		c := &placementChoice{res: res, rank: r.p.Rank, p: r.p}
		if best == nil || c.better(ctx, e, best, cands) {
			best = c
		}
	}
	if best != nil {
		logger.V(4).Info("Placement chosen for the group's preemption", "podgroup", pr.g.Key, "placement", best.p.Name,
			"victims", len(best.res.Victims), "simulated", simulated, "candidates", len(order))
		best.res.Eligible = true
		return best.res, nil
	}
	return &Result{Eligible: true, Message: fmt.Sprintf(
		"preemption: no placement can hold the pod group even with its lower-priority pods preempted (%d simulated, %d too small with them gone).",
		simulated, tooSmall)}, nil
}

// anyLowerPriority reports whether any placement runs a pod of lower priority than the
// group (one of its own members aside).
func (e *Evaluator) anyLowerPriority(pr *preemptor, list []*framework.Placement) bool {
	snap := e.Handle.Snapshot()
	for _, p := range list {
		for _, n := range p.Nodes {
			for _, q := range n.Pods {
				if !pr.owns(q) && preemption.VictimPriority(snap, q) < pr.g.Priority {
					return true
				}
			}
		}
	}
	return false
}

// nominatedPlacement returns the first placement that holds every node the members are
// nominated to, or nil when none is nominated.
func (e *Evaluator) nominatedPlacement(members []*framework.PodInfo, list []*framework.Placement) *framework.Placement {
	nodes := map[string]bool{}
	for _, m := range members {
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
	res    *Result
	rank   int
	p      *framework.Placement
	score  int64
	scored bool
}

func (e *Evaluator) scoreChoice(ctx context.Context, c *placementChoice, cands *framework.PlacementCandidates) int64 {
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
func (c *placementChoice) better(ctx context.Context, e *Evaluator, o *placementChoice, cands *framework.PlacementCandidates) bool {
	if r := c.res.Cost.Compare(o.res.Cost); r != 0 {
		return r < 0
	}
	if c.rank != o.rank {
		return c.rank < o.rank
	}
	return e.scoreChoice(ctx, c, cands) > e.scoreChoice(ctx, o, cands)
}
