package podfit

import (
	"context"

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
			scores[i].Score += pack * fillWith(n, p)
		}
	}
	return pf.f.selectHost(scores), nil
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

// selectHost returns the highest-scoring node; ties are broken by reservoir sampling with
// the scheduler's seeded generator, so equal nodes share the load and a simulation with the
// same seed makes the same choices.
func (f *Finder) selectHost(scores []framework.NodeScore) string {
	best := scores[0]
	ties := 1
	for _, ns := range scores[1:] {
		switch {
		case ns.Score > best.Score:
			best, ties = ns, 1
		case ns.Score == best.Score:
			ties++
			if f.opts.Rand.IntN(ties) == 0 {
				best = ns
			}
		}
	}
	return best.Name
}
