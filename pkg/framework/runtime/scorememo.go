package runtime

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// maxMemoKeys bounds the pod keys a plugin's memo holds at once. Pods come in a handful of
// request shapes; a workload of more shapes than this still gets the newest ones, and each
// key costs 16 bytes a node.
const maxMemoKeys = 16

// scoreMemo remembers one ScoreKeyPlugin's scores: for each pod key it has seen lately,
// each node's score by node Index, with the node's Generation when scored. A score is served
// only for the same key and the same Generation, which names the node's allocatable and
// pods exactly (framework.NodeInfo.Generation), so it is the score Score would return.
//
// Only the scheduling loop scores with a framework, one cycle at a time: the memo needs
// no lock. Within a cycle's parallel loop it is only read; remember writes afterwards.
type scoreMemo struct {
	keys []*keyScores
	// lastStamp hands out keyScores stamps; uses counts lookups of keys, for eviction.
	lastStamp uint32
	uses      uint64
}

// keyScores are the remembered scores of one pod key.
type keyScores struct {
	key framework.ScoreKey
	// stamp marks this key's entries in scores: a slot handed to a new key gets a new
	// stamp, so the entries of the key it held before stop matching without being cleared
	// (clearing them on every new key would cost a pass over the nodes).
	stamp    uint32
	lastUsed uint64
	scores   []memoScore
}

type memoScore struct {
	generation int64
	stamp      uint32
	score      int32
}

// scoresOf returns the remembered scores of key, making room for it (the least recently
// used key gives up its slot) when it is new.
func (m *scoreMemo) scoresOf(key framework.ScoreKey) *keyScores {
	m.uses++
	var oldest *keyScores
	for _, k := range m.keys {
		if k.key == key {
			k.lastUsed = m.uses
			return k
		}
		if oldest == nil || k.lastUsed < oldest.lastUsed {
			oldest = k
		}
	}
	k := oldest
	if len(m.keys) < maxMemoKeys {
		k = &keyScores{}
		m.keys = append(m.keys, k)
	}
	m.lastStamp++
	if m.lastStamp == 0 {
		// The stamps wrapped: an old entry could carry the new stamp, so none may stay.
		for _, other := range m.keys {
			clear(other.scores)
			other.stamp = 0
		}
		m.lastStamp = 1
	}
	k.key, k.stamp, k.lastUsed = key, m.lastStamp, m.uses
	return k
}

// lookup returns the score remembered of node n, if n has not changed since.
func (k *keyScores) lookup(n *framework.NodeInfo) (int64, bool) {
	// Generation 0 is a node that no cache ever set up (a test's literal): it names no
	// state.
	if uint(n.Index) >= uint(len(k.scores)) || n.Generation == 0 {
		return 0, false
	}
	e := &k.scores[n.Index]
	if e.generation != n.Generation || e.stamp != k.stamp {
		return 0, false
	}
	return int64(e.score), true
}

// remember records scores[i] as nodes[i]'s where missed[i]. Scores out of range are left
// out: the cycle fails on them and must fail again.
func (k *keyScores) remember(nodes []*framework.NodeInfo, scores []int64, missed []bool) {
	for i, n := range nodes {
		if !missed[i] {
			continue
		}
		s := scores[i]
		if n.Generation == 0 || n.Index < 0 || s < framework.MinNodeScore || s > framework.MaxNodeScore {
			continue
		}
		if n.Index >= len(k.scores) {
			// Room for the largest index with headroom: the cache's node list grows.
			grown := make([]memoScore, n.Index+1, max(n.Index+1, 2*len(k.scores)))
			copy(grown, k.scores)
			k.scores = grown[:cap(grown)]
		}
		k.scores[n.Index] = memoScore{generation: n.Generation, stamp: k.stamp, score: int32(s)}
	}
}

// scoresOf returns what pl remembers of pod p's key, or nil when pl does not remember.
func (pl weightedScore) scoresOf(p *framework.PodInfo) *keyScores {
	if pl.memo == nil {
		return nil
	}
	key, ok := pl.ScorePlugin.(framework.ScoreKeyPlugin).ScoreKey(p)
	if !ok {
		return nil
	}
	return pl.memo.scoresOf(key)
}
