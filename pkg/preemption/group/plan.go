package group

import (
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// domainPlan is where a group's preemption is simulated, cheapest first.
type domainPlan struct {
	// infeasible: not even every lower-priority pod frees room for the group.
	infeasible bool
	domains    []domainTry
}

type domainTry struct {
	level int32
	nodes []*framework.NodeInfo
}

// maxDomainTries bounds how many domains are simulated before the whole cluster is.
const maxDomainTries = 4

// planDomain reasons on resource vectors for a group whose members are alike (one template:
// equal requests and static constraints, nothing involving other pods): how many members each node can take once the lower-priority pods up to each
// priority level are gone, the lowest level that makes room for enough of them, and the
// nodes where that room is cheapest (free room first, then room from the lowest levels).
// It returns nil when the members are not alike, so that the caller simulates everything.
func (e *Evaluator) planDomain(ctx context.Context, pr *preemptor, nodes []*framework.NodeInfo) *domainPlan {
	if !alike(pr.placer, pr.members) {
		return nil
	}
	g, need, rep := pr.g, pr.need, pr.members[0]
	h := e.Handle
	snap := h.Snapshot()
	state := framework.NewCycleState()
	if _, st := h.RunPreFilterPlugins(ctx, state, rep); !st.IsSuccess() {
		return nil
	}
	idx := preemption.WithPodSlot(rep.RequestIdx)

	// The priority levels of the pods that could be victims.
	var levels []int32
	for _, n := range nodes {
		for _, q := range n.Pods {
			if p := preemption.VictimPriority(snap, q); p < g.Priority && !q.Terminating && !q.Holder() && !pr.owns(q) {
				levels = append(levels, p)
			}
		}
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	nl := len(levels)

	// fits[l] per node: members that fit with every level up to l gone (fits[0]: none).
	type room struct {
		n    *framework.NodeInfo
		fits []int
	}
	var rooms []room
	byLevel := make([]resource.Vector, nl+1)
	for _, n := range nodes {
		if !h.RunStaticFilterPlugins(ctx, state, rep, n).IsSuccess() {
			continue
		}
		clear(byLevel)
		for _, i := range idx {
			byLevel[0][i] = n.Allocatable[i] - n.Requested[i]
		}
		for _, q := range n.Pods {
			p := preemption.VictimPriority(snap, q)
			if p >= g.Priority || q.Holder() || pr.owns(q) || (preemption.FreesNoResources(q) && !q.Terminating) {
				// A BestEffort pod frees no room as a victim (only its slot, which it keeps).
				continue
			}
			l := 0
			if !q.Terminating {
				k, _ := slices.BinarySearch(levels, p)
				l = k + 1
			}
			for _, i := range idx {
				byLevel[l][i] += q.Requests.Vector[i]
			}
		}
		r := room{n: n, fits: make([]int, nl+1)}
		var cum resource.Vector
		for l := 0; l <= nl; l++ {
			for _, i := range idx {
				cum[i] += byLevel[l][i]
			}
			r.fits[l] = max(0, cum.FitCount(&rep.Requests.Vector, idx))
		}
		if r.fits[nl] > 0 {
			rooms = append(rooms, r)
		}
	}
	capacity := func(l int) int {
		total := 0
		for _, r := range rooms {
			total += r.fits[l]
		}
		return total
	}
	if capacity(nl) < need {
		return &domainPlan{infeasible: true}
	}
	lo, hi := 0, nl
	for lo < hi {
		if mid := (lo + hi) / 2; capacity(mid) >= need {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	plan := &domainPlan{}
	for l := max(lo, 1); l <= nl && len(plan.domains) < maxDomainTries; l++ {
		// Rank nodes by the lowest level that gives them any room (0: free room).
		type ranked struct {
			n          *framework.NodeInfo
			cost, fits int
		}
		var rs []ranked
		for _, r := range rooms {
			if r.fits[l] == 0 {
				continue
			}
			cost := 0
			for r.fits[cost] == 0 {
				cost++
			}
			rs = append(rs, ranked{r.n, cost, r.fits[l]})
		}
		slices.SortStableFunc(rs, func(a, b ranked) int {
			if a.cost != b.cost {
				return a.cost - b.cost
			}
			return b.fits - a.fits
		})
		// Enough nodes for the group with some slack for what vectors cannot see; then
		// every candidate at this level, should that fall short.
		slack := need + max(2, need/8)
		var dom []*framework.NodeInfo
		got := 0
		for _, x := range rs {
			if got >= slack {
				break
			}
			dom = append(dom, x.n)
			got += x.fits
		}
		plan.domains = append(plan.domains, domainTry{level: levels[l-1], nodes: dom})
		if len(dom) < len(rs) {
			all := make([]*framework.NodeInfo, len(rs))
			for i, x := range rs {
				all[i] = x.n
			}
			plan.domains = append(plan.domains, domainTry{level: levels[l-1], nodes: all})
		}
	}
	return plan
}

// alike reports whether members all share one AlikeKey: reasoning about one on resource
// vectors then holds for all.
func alike(placer framework.GroupPlacer, members []*framework.PodInfo) bool {
	key := placer.AlikeKey(members[0])
	if key == "" {
		return false
	}
	for _, m := range members[1:] {
		if placer.AlikeKey(m) != key {
			return false
		}
	}
	return true
}
