package scheduler

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// prioritizeNodes scores the feasible nodes and picks the best.
func (s *Scheduler) prioritizeNodes(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, feasible []*framework.NodeInfo) (string, error) {
	if len(feasible) == 1 {
		return feasible[0].Name, nil
	}
	if st := fwk.RunPreScorePlugins(ctx, state, p, feasible); !st.IsSuccess() {
		return "", st.AsError()
	}
	scores, st := fwk.RunScorePlugins(ctx, state, p, feasible)
	if !st.IsSuccess() {
		return "", st.AsError()
	}
	return s.selectHost(scores), nil
}

// selectHost returns the highest-scoring node; ties are broken by reservoir sampling with
// the scheduler's seeded generator, so equal nodes share the load and a simulation with the
// same seed makes the same choices.
func (s *Scheduler) selectHost(scores []framework.NodeScore) string {
	best := scores[0]
	ties := 1
	for _, ns := range scores[1:] {
		switch {
		case ns.Score > best.Score:
			best, ties = ns, 1
		case ns.Score == best.Score:
			ties++
			if s.rand.IntN(ties) == 0 {
				best = ns
			}
		}
	}
	return best.Name
}
