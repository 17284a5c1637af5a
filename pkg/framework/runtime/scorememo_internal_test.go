package runtime

import (
	"math"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// A key keeps its slot while used; beyond maxMemoKeys the least recently used key gives
// its slot up, and its scores stop being served, also when the stamps wrap around.
func TestScoreMemoSlots(t *testing.T) {
	node := &framework.NodeInfo{Index: 3, Generation: framework.NextGeneration()}
	nodes := []*framework.NodeInfo{node}
	var m scoreMemo
	first := m.scoresOf(framework.ScoreKey{1})
	first.remember(nodes, []int64{42}, []bool{true})
	if s, ok := first.lookup(node); !ok || s != 42 {
		t.Fatalf("lookup = %d, %v; want 42 remembered", s, ok)
	}
	for k := range maxMemoKeys - 1 {
		m.scoresOf(framework.ScoreKey{2, int64(k)})
	}
	if again := m.scoresOf(framework.ScoreKey{1}); again != first {
		t.Fatal("a key held within maxMemoKeys lost its slot")
	}
	// Key 1 is the most recently used: the new key takes {2, 0}'s slot.
	evicted := m.keys[1]
	if k := m.scoresOf(framework.ScoreKey{3}); k != evicted || len(m.keys) != maxMemoKeys {
		t.Fatalf("the new key took slot %p with %d slots, want the least recently used %p", k, len(m.keys), evicted)
	}
	if _, ok := m.scoresOf(framework.ScoreKey{1}).lookup(node); !ok {
		t.Fatal("key 1's score was lost")
	}

	// A slot handed to a new key serves none of the old key's scores.
	m.lastStamp = math.MaxUint32 - 1
	old := m.scoresOf(framework.ScoreKey{4})
	old.remember(nodes, []int64{7}, []bool{true})
	for k := range maxMemoKeys {
		m.scoresOf(framework.ScoreKey{5, int64(k)}) // the stamps wrap
	}
	for _, k := range m.keys {
		if s, ok := k.lookup(node); ok {
			t.Fatalf("key %v serves %d, remembered for another key", k.key, s)
		}
	}
	// A changed node is not served its old score.
	k := m.scoresOf(framework.ScoreKey{6})
	k.remember(nodes, []int64{9}, []bool{true})
	node.Generation = framework.NextGeneration()
	if _, ok := k.lookup(node); ok {
		t.Fatal("a changed node was served its old score")
	}
}
