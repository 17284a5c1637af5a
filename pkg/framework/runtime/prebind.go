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

// RunPreBindReady asks the PreBind plugins that may make a pod wait before binding
// (framework.PreBindWaitPlugin) whether it may be bound now, off the loop: Success when
// all say so; Wait from the first that waits (reason: its event's reason); else the first
// failure. waited is the time since the first ask.
func (f *Framework) RunPreBindReady(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string, waited time.Duration) (st *framework.Status, reason string) {
	for _, pl := range f.preBind {
		w, ok := pl.(framework.PreBindWaitPlugin)
		if !ok {
			continue
		}
		s := w.PreBindReady(ctx, state, p, node, waited)
		switch {
		case s.IsSuccess() || s.IsSkip():
		case s.Code() == framework.Wait:
			return s.WithPlugin(pl.Name()), w.WaitReason()
		default:
			return s.WithPlugin(pl.Name()), ""
		}
	}
	return nil, ""
}
