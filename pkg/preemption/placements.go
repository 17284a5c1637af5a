package preemption

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// DefaultMaxPlacements is how many placements of a rank a group's preemption simulates by
// default, after those too small even with their lower-priority pods gone are pruned.
const DefaultMaxPlacements = 8

// PreemptInPlacements is workload-aware preemption for a group with placements (KEP-5732):
// each placement is a domain, victims are taken only inside it (units and order as in
// Preempt), and among the placements that become feasible the one that disrupts least
// wins (budgets violated, highest victim priority, number of victims, sum of their
// priorities), then the one that scores best with the group in it. Placements are tried
// rank by rank, so a Preferred level is given up only when no placement that meets it can
// be made to fit. At most max placements of a rank are simulated, the best first.
func (e *GroupEvaluator) PreemptInPlacements(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, schedule framework.PodGroupSchedulingFunc, cands *framework.PlacementCandidates, maxPlacements int) (*GroupResult, error) {
	if g.PreemptionPolicy == v1.PreemptNever {
		return &GroupResult{Message: "preemption: " + MsgNeverPolicy}, nil
	}
	snap := e.Handle.Snapshot()
	need := framework.GroupNeed(g, len(snap.GroupMembers(g.Key)))
	if need <= 0 || len(pending) == 0 || len(cands.List) == 0 {
		return &GroupResult{Eligible: true, Message: "preemption: nothing to make room for"}, nil
	}
	if p := e.nominatedPlacement(pending, cands.List); p != nil {
		wait, err := e.waitingForVictims(ctx, g, pending, need, schedule, p.Nodes)
		if err != nil || wait {
			return &GroupResult{Waiting: true, Message: "preemption: " + MsgGroupWaitingVictims}, err
		}
	}
	if !anyLowerPriority(g, cands.List) {
		return &GroupResult{Eligible: true, Message: "preemption: " + msgGroupNoVictims}, nil
	}
	bound := newRoomBound(g, pending, need)
	tooSmall, tried := 0, 0
	empty := &framework.GroupPlacement{}
	for start := 0; start < len(cands.List); {
		rank := cands.List[start].Rank
		end := start
		for end < len(cands.List) && cands.List[end].Rank == rank {
			end++
		}
		var best *placementChoice
		simulated := 0
		for _, p := range cands.List[start:end] {
			if simulated >= maxPlacements {
				break
			}
			if !bound.mayHold(p.Nodes) {
				tooSmall++
				continue
			}
			simulated++
			res, err := e.preemptIn(ctx, g, pending, need, empty, schedule, p.Nodes)
			if err != nil {
				return nil, err
			}
			if res == nil {
				continue
			}
			c := e.choice(ctx, p, res, cands)
			if best == nil || c.better(best) {
				best = c
			}
		}
		tried += simulated
		if best != nil {
			return best.res, nil
		}
		start = end
	}
	return &GroupResult{Eligible: true, Message: fmt.Sprintf(
		"preemption: no placement can hold the pod group even with its lower-priority pods preempted (%d simulated, %d too small with them gone).",
		tried, tooSmall)}, nil
}

// anyLowerPriority reports whether any placement runs a pod of lower priority than the
// group (one of its own members aside).
func anyLowerPriority(g *framework.GroupInfo, list []*framework.Placement) bool {
	for _, p := range list {
		for _, n := range p.Nodes {
			for _, q := range n.Pods {
				if q.Priority < g.Priority && !framework.InGroup(q, g) {
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

// placementChoice is a decided preemption inside one placement, with what it costs.
type placementChoice struct {
	res           *GroupResult
	violations    int
	highest       int32
	victims       int
	sumPriorities int64
	score         int64
}

func (e *GroupEvaluator) choice(ctx context.Context, p *framework.Placement, res *GroupResult, cands *framework.PlacementCandidates) *placementChoice {
	c := &placementChoice{res: res, victims: len(res.Victims)}
	bad, _ := splitByPDB(res.Victims, e.Handle.Snapshot().PDBs())
	c.violations = len(bad)
	cand := &Candidate{Victims: res.Victims}
	c.highest, c.sumPriorities = highestPriority(cand), sumPriorities(cand)
	if cands.Score != nil {
		// Scored as it will be: the victims gone, the members at their nominated nodes.
		snap := e.Handle.Snapshot()
		cp := snap.Checkpoint()
		for _, v := range res.Victims {
			if snap.Get(v.NodeName) != nil {
				snap.RemovePod(v)
			}
		}
		placed := &framework.GroupPlacement{}
		for m, node := range res.Nominations {
			if n := snap.Get(node); n != nil {
				placed.Assignments = append(placed.Assignments, framework.Assignment{Pod: m, Node: n})
			}
		}
		c.score = cands.Score(ctx, p, placed)
		snap.Rollback(cp)
	}
	return c
}

// better reports whether c disrupts less than o, or as little and scores higher.
func (c *placementChoice) better(o *placementChoice) bool {
	switch {
	case c.violations != o.violations:
		return c.violations < o.violations
	case c.highest != o.highest:
		return c.highest < o.highest
	case c.victims != o.victims:
		return c.victims < o.victims
	case c.sumPriorities != o.sumPriorities:
		return c.sumPriorities < o.sumPriorities
	}
	return c.score > o.score
}

// roomBound checks on resource vectors whether a placement could hold the group once every
// lower-priority pod in it is gone: for each resource, the free room plus what those pods
// use must cover the need smallest requests among the members.
type roomBound struct {
	g    *framework.GroupInfo
	idx  []int8
	want resource.Vector
}

func newRoomBound(g *framework.GroupInfo, pending []*framework.PodInfo, need int) *roomBound {
	rp := framework.NewRequestPrefixes(pending)
	b := &roomBound{g: g, idx: rp.Idx}
	for j, i := range rp.Idx {
		b.want[i] = rp.Sums[j][min(need, len(pending))]
	}
	return b
}

func (b *roomBound) mayHold(nodes []*framework.NodeInfo) bool {
	var room resource.Vector
	for _, n := range nodes {
		for _, i := range b.idx {
			room[i] += n.Allocatable[i] - n.Requested[i]
		}
		for _, q := range n.Pods {
			if q.Priority < b.g.Priority && !framework.InGroup(q, b.g) {
				for _, i := range b.idx {
					room[i] += q.Requests.Vector[i]
				}
			}
		}
	}
	for _, i := range b.idx {
		if room[i] < b.want[i] {
			return false
		}
	}
	return true
}
