package runtime

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// RunPreBindPlugins runs the PreBind plugins in order, off the loop; the first failure
// stops the binding cycle.
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string) *framework.Status {
	for _, pl := range f.preBind {
		if s := pl.PreBind(ctx, state, p, node); !s.IsSuccess() && !s.IsSkip() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}
