package cache

import "github.com/phalanx-dev/phalanx/pkg/framework"

// nodeSet is a set of nodes kept as a slice (for iteration every cycle) with positions
// (for O(1) removal that Rollback can reverse exactly).
type nodeSet struct {
	items []*framework.NodeInfo
	pos   map[*framework.NodeInfo]int32
}

func newNodeSet() nodeSet { return nodeSet{pos: map[*framework.NodeInfo]int32{}} }

func (s *nodeSet) add(n *framework.NodeInfo) {
	if _, ok := s.pos[n]; ok {
		return
	}
	s.pos[n] = int32(len(s.items))
	s.items = append(s.items, n)
}

// remove returns the position the node had, or -1 when it was not in the set.
func (s *nodeSet) remove(n *framework.NodeInfo) int32 {
	i, ok := s.pos[n]
	if !ok {
		return -1
	}
	last := int32(len(s.items) - 1)
	if i != last {
		s.items[i] = s.items[last]
		s.pos[s.items[i]] = i
	}
	s.items[last] = nil
	s.items = s.items[:last]
	delete(s.pos, n)
	return i
}

// has reports whether the node is in the set.
func (s *nodeSet) has(n *framework.NodeInfo) bool {
	_, ok := s.pos[n]
	return ok
}

// pop undoes add.
func (s *nodeSet) pop(n *framework.NodeInfo) {
	if i, ok := s.pos[n]; ok && int(i) == len(s.items)-1 {
		s.items[i] = nil
		s.items = s.items[:i]
		delete(s.pos, n)
	}
}

// restore undoes remove.
func (s *nodeSet) restore(n *framework.NodeInfo, i int32) {
	end := int32(len(s.items))
	s.items = append(s.items, n)
	if i != end {
		s.items[end] = s.items[i]
		s.pos[s.items[end]] = end
		s.items[i] = n
	}
	s.pos[n] = i
}
