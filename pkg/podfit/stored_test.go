package podfit

import (
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// TestStoredScoresLayout holds the stored scores of a cycle that scored every feasible node
// to kube-scheduler's layout: its schedulePod builds a heap of all scored nodes (in the order
// its filter found them), pops the chosen one and stores the rest as they lie. The layouts
// below are worked out by hand with container/heap's algorithm on all the nodes; a heap of
// the unchosen nodes alone lies otherwise (the first case: n0, n3, n6), and since a node
// scored again for a batch has no tie-breaker of its own, between two such nodes of equal
// total the layout decides which is hinted first (schedulerdiff's batched sequence of seed
// 8610 hinted node-0 where kube-scheduler hinted node-1).
func TestStoredScoresLayout(t *testing.T) {
	s := func(name string, total int64, rnd uint64) framework.NodePluginScores {
		return framework.NodePluginScores{Name: name, Total: total, Randomizer: rnd}
	}
	for _, tc := range []struct {
		name string
		all  []framework.NodePluginScores
		want []string
	}{{
		name: "the chosen node second of four",
		all:  []framework.NodePluginScores{s("n0", 446, 5), s("n1", 450, chosenTieBreak), s("n3", 429, 7), s("n6", 426, 9)},
		// Init: n1 sifts up over n0 (n1 n0 n3 n6); Pop swaps n6 to the top, which sinks below
		// n0: n0 n6 n3.
		want: []string{"n0", "n6", "n3"},
	}, {
		name: "the chosen node first",
		all:  []framework.NodePluginScores{s("a", 90, chosenTieBreak), s("b", 10, 1), s("c", 50, 1), s("d", 40, 1), s("e", 30, 1)},
		// Init: b sinks below d (a d c b e); Pop swaps e to the top, where it sinks below
		// c, the larger child: c d e b.
		want: []string{"c", "d", "e", "b"},
	}, {
		name: "the chosen node last, tied with the first on total",
		all:  []framework.NodePluginScores{s("a", 70, 3), s("b", 20, 1), s("c", 70, chosenTieBreak)},
		// Init: c beats a on the tie-breaker (c b a); Pop swaps a to the top, b is below it.
		want: []string{"a", "b"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := storedScores(slices.Clone(tc.all))
			var names []string
			for _, ns := range got {
				names = append(names, ns.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("stored %v, want %v", names, tc.want)
			}
		})
	}
}
