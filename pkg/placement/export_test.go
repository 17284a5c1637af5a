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

// SearchEvals begins a search over list, then looks each of lookups up by pointer, as a
// search looks up a placement's children, twice over; it returns the evals by index, those
// found by pointer each time, and the capacities by index.
func (gp *Group) SearchEvals(ctx context.Context, members []*framework.PodInfo, list, lookups []*framework.Placement) (byIndex, first, second []any, capacities []int, err error) {
	ps := &placementSearch{pl: gp.pl, g: gp.g, pending: members, need: len(members)}
	if ps.est, err = gp.pl.capacity(ctx, members); err != nil {
		return nil, nil, nil, nil, err
	}
	ps.begin(list)
	defer ps.end()
	for i := range list {
		byIndex = append(byIndex, &ps.evals[i])
		capacities = append(capacities, ps.evals[i].capacity)
	}
	for _, p := range lookups {
		first = append(first, ps.evalOf(p))
	}
	for _, p := range lookups {
		second = append(second, ps.evalOf(p))
	}
	return byIndex, first, second, capacities, nil
}
