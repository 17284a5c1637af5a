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

// SearchEvals makes a search's room for sized placements, then looks up the eval of each
// placement of list, in order, twice over; it returns the evals found each time and their
// capacities.
func (gp *Group) SearchEvals(ctx context.Context, members []*framework.PodInfo, sized int, list []*framework.Placement) (first, second []any, capacities []int, err error) {
	ps := &placementSearch{pl: gp.pl, g: gp.g, pending: members, need: len(members)}
	if ps.est, err = gp.pl.capacity(ctx, members); err != nil {
		return nil, nil, nil, err
	}
	ps.sized(sized)
	for _, p := range list {
		first = append(first, ps.eval(p))
	}
	ps.sized(sized) // a second run of the same search keeps the evals it has
	for _, p := range list {
		e := ps.eval(p)
		second = append(second, e)
		capacities = append(capacities, e.capacity)
	}
	return first, second, capacities, nil
}
