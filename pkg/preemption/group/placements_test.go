package group

import (
	"context"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// Placements are compared by disruption (the Cost: budgets violated, highest victim
// priority, sum of priorities, number of victims, start), then by the Preferred levels
// they meet, then by their score.
func TestPlacementChoiceOrder(t *testing.T) {
	ctx := context.Background()
	base := placementChoice{res: &Result{Cost: preemption.Cost{Violations: 1, Highest: 50, Sum: 400, Count: 4, TopQOS: 1, TopStart: time.Unix(100, 0)}}, rank: 1, score: 10, scored: true}
	tests := []struct {
		name   string
		change func(c *placementChoice)
	}{
		{"fewer budget violations", func(c *placementChoice) {
			c.res.Cost = preemption.Cost{Violations: 0, Highest: 90, Sum: 900, Count: 9}
			c.rank = 3
		}},
		{"lower highest priority", func(c *placementChoice) { c.res.Cost.Highest, c.res.Cost.Count = 40, 9 }},
		{"lower sum of priorities", func(c *placementChoice) { c.res.Cost.Sum, c.res.Cost.Count = 390, 5 }},
		{"fewer victims", func(c *placementChoice) { c.res.Cost.Count = 3; c.rank = 2 }},
		{"lower QoS of the most important victim", func(c *placementChoice) { c.res.Cost.TopQOS, c.res.Cost.TopStart = 0, time.Unix(0, 0) }},
		{"later start of the most important victim", func(c *placementChoice) { c.res.Cost.TopStart = time.Unix(200, 0) }},
		{"more Preferred levels met", func(c *placementChoice) { c.rank, c.score = 0, 0 }},
		{"higher score", func(c *placementChoice) { c.score = 11 }},
	}
	for _, tc := range tests {
		res := *base.res
		c := base
		c.res = &res
		tc.change(&c)
		if !c.better(ctx, nil, &base, nil) || base.better(ctx, nil, &c, nil) {
			t.Errorf("%s: should win against the base", tc.name)
		}
	}
	same := base
	if same.better(ctx, nil, &base, nil) {
		t.Error("a choice is not better than its equal")
	}
}
