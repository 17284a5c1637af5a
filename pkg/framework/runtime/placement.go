package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

type weightedPlacementScore struct {
	framework.PlacementScorePlugin
	weight int64
}

// HasPlacementGenerators reports whether any PlacementGenerate plugin is enabled.
func (f *Framework) HasPlacementGenerators() bool { return len(f.placementGenerate) > 0 }

// RunPlacementGeneratePlugins chains the generators: each gets the previous one's
// placements as parents. generated is false when every plugin skipped the group: it is
// then placed on the whole cluster, without placements.
func (f *Framework) RunPlacementGeneratePlugins(ctx context.Context, state *framework.CycleState, g *framework.GroupInfo, pending []*framework.PodInfo) (placements []*framework.Placement, generated bool, st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.PlacementGenerate, st, start) }(f.pointStart())
	for _, pl := range f.placementGenerate {
		out, st := pl.GeneratePlacements(ctx, state, g, pending, placements)
		switch {
		case st.Code() == framework.Skip:
			continue
		case !st.IsSuccess():
			return nil, true, st.WithPlugin(pl.Name())
		}
		placements, generated = out, true
	}
	return placements, generated, nil
}

// RunAssumePlacement runs every PlacementState plugin's AssumePlacement; when one fails,
// those that succeeded are reverted.
func (f *Framework) RunAssumePlacement(ctx context.Context, state *framework.CycleState, g *framework.GroupInfo, p *framework.Placement) *framework.Status {
	for i, pl := range f.placementState {
		if st := pl.AssumePlacement(ctx, state, g, p); !st.IsSuccess() {
			for j := i - 1; j >= 0; j-- {
				f.placementState[j].RevertPlacement(ctx, state, g, p)
			}
			return st.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunRevertPlacement undoes RunAssumePlacement, in reverse order.
func (f *Framework) RunRevertPlacement(ctx context.Context, state *framework.CycleState, g *framework.GroupInfo, p *framework.Placement) {
	for i := len(f.placementState) - 1; i >= 0; i-- {
		f.placementState[i].RevertPlacement(ctx, state, g, p)
	}
}

// RunPlacementScorePlugins returns the weighted sum of the placement's scores.
func (f *Framework) RunPlacementScorePlugins(ctx context.Context, state *framework.CycleState, g *framework.GroupInfo, p *framework.Placement, placed *framework.GroupPlacement, pending int) (_ int64, st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.PlacementScore, st, start) }(f.pointStart())
	var total int64
	for _, pl := range f.placementScore {
		s, st := pl.ScorePlacement(ctx, state, g, p, placed, pending)
		if !st.IsSuccess() {
			return 0, st.WithPlugin(pl.Name())
		}
		if s < 0 || s > framework.MaxNodeScore {
			return 0, framework.NewStatus(framework.Error, fmt.Sprintf("placement score %d is outside [0, %d]", s, framework.MaxNodeScore)).WithPlugin(pl.Name())
		}
		total += s * pl.weight
	}
	return total, nil
}
