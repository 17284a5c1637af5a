package cache

import "github.com/phalanx-dev/phalanx/pkg/framework"

// affinityJournal lists, in order, the live nodes on which a pod with an affinity term was
// added or removed: bound, assumed, forgotten, deleted, simulated, or put back or taken
// off again by a rollback (decision 54). Whoever keeps something derived from those pods
// (InterPodAffinity's term indexes) remembers a position and catches up from it by
// looking at the nodes listed since, instead of at every node of the cluster.
//
// Positions are base for the first node kept, base+1 for the next, and so on. The node
// list changing (a node added or removed: NodeInfo.Index changes, ghosts come and go)
// empties the journal and moves base past every position given out, so a reader from
// before learns it must look at every node; so does a reader too far behind, once the
// journal has dropped its oldest half to stay within maxJournal.
type affinityJournal struct {
	base  uint64
	nodes []*framework.NodeInfo
}

// maxJournal bounds the nodes the journal keeps (a few hundred KB): between two cycles,
// those their simulations and the pods bound or deleted meanwhile touch.
const maxJournal = 1 << 15

// now is the position after the newest node listed.
func (j *affinityJournal) now() uint64 {
	if j.base == 0 {
		j.base = 1 // position 0 is "never caught up": always before base
	}
	return j.base + uint64(len(j.nodes))
}

// record lists a node whose pods with affinity terms changed.
func (j *affinityJournal) record(n *framework.NodeInfo) {
	if j.base == 0 {
		j.base = 1
	}
	if len(j.nodes) >= maxJournal {
		half := len(j.nodes) / 2
		kept := copy(j.nodes, j.nodes[half:])
		clear(j.nodes[kept:])
		j.nodes = j.nodes[:kept]
		j.base += uint64(half)
	}
	j.nodes = append(j.nodes, n)
}

// reset forgets every node listed: the node list changed.
func (j *affinityJournal) reset() {
	next := j.now() + 1
	clear(j.nodes)
	j.nodes = j.nodes[:0]
	j.base = next
}

// since returns the nodes listed from position from on, and the position now; ok is false
// when the journal no longer (or never) covered from.
func (j *affinityJournal) since(from uint64) (nodes []*framework.NodeInfo, now uint64, ok bool) {
	now = j.now()
	if from < j.base || from > now {
		return nil, now, false
	}
	return j.nodes[from-j.base:], now, true
}

// recordAffinity journals n when pi, added to or removed from it, has affinity terms and n
// is live (a ghost's pods are in no index: NodesWithAffinityPods leaves it out).
func (s *NodeStore) recordAffinity(pi *framework.PodInfo, n *framework.NodeInfo) {
	if pi.HasAffinityTerms() && s.live(n) {
		s.journal.record(n)
	}
}

// AffinityChangesSince tells which live nodes had a pod with affinity terms added or
// removed since position from (framework.Snapshot).
func (s *NodeStore) AffinityChangesSince(from uint64) ([]*framework.NodeInfo, uint64, bool) {
	return s.journal.since(from)
}
