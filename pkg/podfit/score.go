package podfit

import (
	"container/heap"
	"context"
	"math"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// SelectNode scores the feasible nodes and returns the best. pack, when positive, weighs
// how full each node would be with the pod (see framework.PlaceOptions.Pack).
func (pf Profile) SelectNode(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, feasible []*framework.NodeInfo, pack int64) (string, error) {
	if len(feasible) == 1 {
		return feasible[0].Name, nil
	}
	if st := pf.fwk.RunPreScorePlugins(ctx, state, p, feasible); !st.IsSuccess() {
		return "", st.AsError()
	}
	scores, st := pf.fwk.RunScorePlugins(ctx, state, p, feasible)
	if !st.IsSuccess() {
		return "", st.AsError()
	}
	if pack > 0 {
		for i, n := range feasible {
			scores[i] += pack * fillWith(n, p)
		}
	}
	return feasible[pf.f.selectHost(scores)].Name, nil
}

// SelectNodeBatched is SelectNode for a pod cycle with OpportunisticBatching (q.Batch of
// FindNodes): the nodes scored and not chosen are stored, with their raw scores, for the
// next pod of the same signature (kube-scheduler's StoreScheduleResults).
func (pf Profile) SelectNodeBatched(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, feasible []*framework.NodeInfo, bc *BatchCycle) (string, error) {
	if len(feasible) == 1 {
		pf.storeResults(bc, feasible[0].Name, nil, 0)
		return feasible[0].Name, nil
	}
	if bc.Signature == nil {
		// Nothing of this cycle can be stored: score as without batching.
		host, err := pf.SelectNode(ctx, state, p, feasible, 0)
		if err == nil {
			pf.storeResults(bc, host, nil, len(feasible)-1)
		}
		return host, err
	}
	if st := pf.fwk.RunPreScorePlugins(ctx, state, p, feasible); !st.IsSuccess() {
		return "", st.AsError()
	}
	scores, raw, st := pf.fwk.RunScorePluginsRaw(ctx, state, p, feasible)
	if !st.IsSuccess() {
		return "", st.AsError()
	}
	chosen := pf.f.selectHost(scores)
	all := make([]framework.NodePluginScores, len(scores))
	for i, n := range feasible {
		all[i] = framework.NodePluginScores{Name: n.Name, Raw: raw[i], Total: scores[i], Randomizer: TieBreak(bc.Cycle, n.Name)}
	}
	all[chosen].Randomizer = chosenTieBreak
	host := feasible[chosen].Name
	others := storedScores(all)
	pf.storeResults(bc, host, others, len(others))
	return host, nil
}

// chosenTieBreak is the chosen node's tie-breaker in storedScores: above every other's
// (TieBreak's are below 2^63), so that the chosen node is the heap's top.
const chosenTieBreak = math.MaxUint64

// storedScores lays the scores of a cycle that scored every feasible node out as kube-
// scheduler's schedulePod leaves them for the next pod: a heap of all of them, in the
// order they were found, with the chosen node (which has the highest tie-breaker) on top,
// then popped. The layout matters: a node scored again for a batch has no tie-breaker of
// its own, and between two such nodes of equal total the heap's layout decides which one
// is hinted first (a heap of the unchosen nodes alone is laid out otherwise).
func storedScores(all []framework.NodePluginScores) []framework.NodePluginScores {
	h := newScoreHeap(all)
	heap.Pop(&h)
	return h
}

// fillWith is how full node n would be with pod p on it, from 0 to MaxNodeScore: the mean,
// over the resources p requests (the pod count aside), of requested over allocatable.
func fillWith(n *framework.NodeInfo, p *framework.PodInfo) int64 {
	var sum float64
	count := 0
	for _, i := range p.RequestIdx {
		if i == resource.Pods || n.Allocatable[i] <= 0 {
			continue
		}
		sum += min(1, float64(n.Requested[i]+p.Requests.Vector[i])/float64(n.Allocatable[i]))
		count++
	}
	if count == 0 {
		return 0
	}
	return int64(sum / float64(count) * float64(framework.MaxNodeScore))
}

// selectHost returns the index of the highest total; ties are broken by reservoir sampling
// with the scheduler's seeded generator, so equal nodes share the load and a simulation with
// the same seed makes the same choices.
func (f *Finder) selectHost(totals []int64) int {
	best := 0
	ties := 1
	for i := 1; i < len(totals); i++ {
		switch {
		case totals[i] > totals[best]:
			best, ties = i, 1
		case totals[i] == totals[best]:
			ties++
			if f.opts.Rand.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}
