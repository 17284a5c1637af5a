package placement

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// CachedCapacities returns each placement's capacity bound for members as a search looks
// it up, how many of them were computed rather than remembered, and the bounds computed
// afresh.
func (gp *Group) CachedCapacities(ctx context.Context, members []*framework.PodInfo, list []*framework.Placement) (cached []int, computed int, fresh []int, err error) {
	c, err := gp.pl.capacity(ctx, members)
	if err != nil {
		return nil, 0, nil, err
	}
	before := gp.pl.caps.computed
	for _, p := range list {
		cached = append(cached, gp.pl.caps.of(c, gp.pl.opts.Snapshot, p))
		fresh = append(fresh, c.Of(p.Nodes, nil))
	}
	return cached, gp.pl.caps.computed - before, fresh, nil
}
