package preemption

import "testing"

// Placements are compared by disruption (budgets violated, highest victim priority,
// number of victims, sum of priorities), then by their score.
func TestPlacementChoiceOrder(t *testing.T) {
	base := placementChoice{violations: 1, highest: 50, victims: 4, sumPriorities: 100, score: 10}
	tests := []struct {
		name   string
		change func(c *placementChoice)
	}{
		{"fewer budget violations", func(c *placementChoice) { c.violations, c.highest, c.victims = 0, 90, 9 }},
		{"lower highest priority", func(c *placementChoice) { c.highest, c.victims = 40, 9 }},
		{"fewer victims", func(c *placementChoice) { c.victims, c.sumPriorities = 3, 150 }},
		{"lower sum of priorities", func(c *placementChoice) { c.sumPriorities, c.score = 90, 0 }},
		{"higher score", func(c *placementChoice) { c.score = 11 }},
	}
	for _, tc := range tests {
		c := base
		tc.change(&c)
		if !c.better(&base) || base.better(&c) {
			t.Errorf("%s: should win against the base", tc.name)
		}
	}
	same := base
	if same.better(&base) {
		t.Error("a choice is not better than its equal")
	}
}
