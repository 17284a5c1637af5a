package runtime

import (
	"context"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// RunPreBindPlugins runs the PreBind plugins in order, off the loop; the first failure
// stops the binding cycle.
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string) (st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.PreBind, st, start) }(f.pointStart())
	for _, pl := range f.preBind {
		start := pluginStart(state)
		s := pl.PreBind(ctx, state, p, node)
		observePlugin(state, metrics.PreBind, pl.Name(), s, start)
		if !s.IsSuccess() && !s.IsSkip() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}
