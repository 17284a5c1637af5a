package podfit

import "testing"

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		percentage, nodes, want int
	}{
		{0, 10, 10},
		{0, 99, 99},
		{0, 100, 100},     // 50-0 = 50% of 100 = 50, but never fewer than 100
		{0, 1000, 420},    // 50-8 = 42%
		{0, 5000, 500},    // 50-40 = 10%
		{0, 6000, 300},    // 50-48 = 2% -> 5%
		{0, 15000, 750},   // 5%
		{30, 1000, 300},   // configured
		{100, 5000, 5000}, // all
		{1, 5000, 100},    // floor of 100
	}
	for _, tc := range tests {
		if got := numFeasibleNodesToFind(tc.percentage, tc.nodes); got != tc.want {
			t.Errorf("numFeasibleNodesToFind(%d%%, %d) = %d, want %d", tc.percentage, tc.nodes, got, tc.want)
		}
	}
}
