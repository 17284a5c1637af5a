package podtopologyspread

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

// nodeIndexes find a node's position in the topology index: by NodeInfo for the nodes a
// cycle filters and scores (a pointer hashes faster than a name), by name for the node a
// pod runs on.
type nodeIndexes struct {
	infos  []*framework.NodeInfo
	byInfo map[*framework.NodeInfo]int32
	byName map[string]int32
}

func newNodeIndexes(infos []*framework.NodeInfo) *nodeIndexes {
	x := &nodeIndexes{infos: infos, byInfo: make(map[*framework.NodeInfo]int32, len(infos)), byName: make(map[string]int32, len(infos))}
	for i, ni := range infos {
		x.byInfo[ni] = int32(i)
		x.byName[ni.Name] = int32(i)
	}
	return x
}

// of returns a node's position, -1 for a node the index does not know (which a cycle's own
// snapshot never yields; tests may). The index follows the snapshot's order, so the
// node's own Index is the answer whenever it points back to the node.
func (x *nodeIndexes) of(n *framework.NodeInfo) int32 {
	if n.Index < len(x.infos) && x.infos[n.Index] == n {
		return int32(n.Index)
	}
	if i, ok := x.byInfo[n]; ok {
		return i
	}
	return -1
}

// forEachCounted walks, once per distinct selector among the constraints that count pods
// (except those done says are counted already), the pods of namespace ns that match it, are not terminating and run on an indexed node,
// through the snapshot's label index. fn gets the constraints sharing the selector and the
// pod's node index. Constraints of one pod usually share their selector, so they share the
// walk.
func forEachCounted(snap framework.Snapshot, ns string, cons []spreadConstraint, done []bool, idx *nodeIndexes, fn func(members []int, n int32)) {
	type group struct {
		sel     string
		members []int
	}
	var groups []group
next:
	for i := range cons {
		if !cons[i].counts() || (done != nil && done[i]) {
			continue
		}
		s := cons[i].Selector.String()
		for g := range groups {
			if groups[g].sel == s {
				groups[g].members = append(groups[g].members, i)
				continue next
			}
		}
		groups = append(groups, group{sel: s, members: []int{i}})
	}
	inNamespace := func(s string) bool { return s == ns }
	for _, g := range groups {
		members := g.members
		snap.ForEachPodMatching(inNamespace, cons[members[0]].Selector, func(q *framework.PodInfo) bool {
			if q.Terminating {
				return true
			}
			if n, ok := idx.byName[q.NodeName]; ok {
				fn(members, n)
			}
			return true
		})
	}
}

// appendKey adds k to keys unless it is there.
func appendKey(keys []*labeldomain.KeyDomains, k *labeldomain.KeyDomains) []*labeldomain.KeyDomains {
	for _, o := range keys {
		if o == k {
			return keys
		}
	}
	return append(keys, k)
}
