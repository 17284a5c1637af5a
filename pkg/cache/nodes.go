package cache

import (
	"unsafe"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// NodeStore holds the nodes and the pods bound or assumed on them (pods.go), with what
// finds those pods without scanning them all: the label index, and the nodes that run pods
// with affinity terms. Other stores keep something per pod (a group's bound members, the
// claims and volume claims pods use): it tells them of every pod it adds or removes.
type NodeStore struct {
	undo *undoLog

	nodes     []*framework.NodeInfo
	nodeIndex map[string]int
	// ghosts are nodes deleted while pods still run on them; they take no new pods.
	ghosts map[string]*framework.NodeInfo
	// layoutVersion changes whenever nodes are added or removed (their Index changes).
	layoutVersion uint64

	pods    map[string]*framework.PodInfo // bound or assumed pods by namespace/name
	entries map[*framework.PodInfo]*podEntry
	labels  labelIndex

	antiNodes     nodeSet // nodes running a pod with required anti-affinity
	affinityNodes nodeSet // nodes running a pod with any affinity term

	images imageStates // per image name, its size and how many live nodes list it (images.go)

	// watchers are told of every pod added or removed, after the move is logged.
	watchers []podWatcher
	// faults are misuses the store refused (a pod added twice); Verify reports them.
	faults []string
	// simulatedAdds are the generations simulated adds gave nodes (AddPod).
	simulatedAdds map[simulatedAdd]int64
	// sets are the versions of the sets of nodes placements asked about (nodesets.go).
	sets nodeSets
	// journal lists the nodes whose pods with affinity terms changed (journal.go).
	journal affinityJournal
	// freeEntries are the entries of undone adds, for the next adds to reuse.
	freeEntries []*podEntry
	// slab is where the next new nodes' NodeInfos are carved from (newNodeInfo).
	slab []slabNode
}

// podWatcher is a store that keeps something per pod in the cache. It hears of each pod
// added or removed, real or simulated, after the pod's move is logged, so that a rollback
// undoes the watcher's change (logged through the same undo log) before the move.
type podWatcher interface {
	podAdded(pi *framework.PodInfo)
	podRemoved(pi *framework.PodInfo)
}

func newNodeStore(undo *undoLog) *NodeStore {
	return &NodeStore{
		undo:          undo,
		nodeIndex:     map[string]int{},
		ghosts:        map[string]*framework.NodeInfo{},
		pods:          map[string]*framework.PodInfo{},
		entries:       map[*framework.PodInfo]*podEntry{},
		labels:        newLabelIndex(),
		antiNodes:     newNodeSet(),
		affinityNodes: newNodeSet(),
		images:        imageStates{},
		simulatedAdds: map[simulatedAdd]int64{},
	}
}

// NodeInfos returns the live nodes in the order they were added.
func (s *NodeStore) NodeInfos() []*framework.NodeInfo { return s.nodes }

// LayoutVersion changes whenever the node list changes, so per-node arrays indexed by
// NodeInfo.Index must be rebuilt.
func (s *NodeStore) LayoutVersion() uint64 { return s.layoutVersion }

// NumNodes is the number of live nodes.
func (s *NodeStore) NumNodes() int { return len(s.nodes) }

// Get returns a live node by name, or nil.
func (s *NodeStore) Get(name string) *framework.NodeInfo {
	if i, ok := s.nodeIndex[name]; ok {
		return s.nodes[i]
	}
	return nil
}

// nodeOrGhost returns a node that may hold pods, live or deleted.
func (s *NodeStore) nodeOrGhost(name string) *framework.NodeInfo {
	if n := s.Get(name); n != nil {
		return n
	}
	return s.ghosts[name]
}

// NodesWithRequiredAntiAffinityPods returns the live nodes running a pod with a required
// anti-affinity term.
func (s *NodeStore) NodesWithRequiredAntiAffinityPods() []*framework.NodeInfo {
	return s.antiNodes.items
}

// NodesWithAffinityPods returns the live nodes running a pod with any affinity term.
func (s *NodeStore) NodesWithAffinityPods() []*framework.NodeInfo { return s.affinityNodes.items }

// AddNode adds a node, or updates it when it exists (or returns from deletion).
func (s *NodeStore) AddNode(node *v1.Node) *framework.NodeInfo {
	if n := s.Get(node.Name); n != nil {
		s.setImages(n, n.Node(), node)
		n.SetNode(node)
		s.sets.podsChanged(n)
		return n
	}
	n := s.ghosts[node.Name]
	if n != nil {
		delete(s.ghosts, node.Name)
		n.SetNode(node)
		s.relabel(n, true)
	} else {
		n = s.newNodeInfo(node)
	}
	s.setImages(n, nil, node)
	n.Index = len(s.nodes)
	s.nodeIndex[node.Name] = n.Index
	s.nodes = append(s.nodes, n)
	s.layoutVersion++
	s.sets.reset()
	s.journal.reset()
	return n
}

// RemoveNode removes a node. Pods still on it keep their place (as on a ghost node) until
// they are deleted, as kube-scheduler does, but no pod is scheduled there.
func (s *NodeStore) RemoveNode(name string) {
	i, ok := s.nodeIndex[name]
	if !ok {
		return
	}
	n := s.nodes[i]
	// Keep the order of the remaining nodes: it decides where filtering starts, and
	// the simulator must be deterministic.
	copy(s.nodes[i:], s.nodes[i+1:])
	s.nodes[len(s.nodes)-1] = nil
	s.nodes = s.nodes[:len(s.nodes)-1]
	delete(s.nodeIndex, name)
	for j := i; j < len(s.nodes); j++ {
		s.nodeIndex[s.nodes[j].Name] = j
		s.nodes[j].Index = j
	}
	s.layoutVersion++
	s.sets.reset()
	s.journal.reset()
	s.setImages(n, n.Node(), nil)
	if len(n.Pods) > 0 {
		s.relabel(n, false)
		n.SetNode(nil)
		s.ghosts[name] = n
	}
}

// relabel takes a node's pods out of (or back into) the node-level sets when the node
// disappears or returns.
func (s *NodeStore) relabel(n *framework.NodeInfo, live bool) {
	if live {
		if len(n.PodsWithRequiredAntiAffinity) > 0 {
			s.antiNodes.add(n)
		}
		if len(n.PodsWithAffinity) > 0 {
			s.affinityNodes.add(n)
		}
		return
	}
	s.antiNodes.remove(n)
	s.affinityNodes.remove(n)
}

// slabNode is a NodeInfo padded to whole cache lines, so that every NodeInfo of a slab
// starts a line as the allocator's own 64-byte-aligned objects do (decision 56).
type slabNode struct {
	framework.NodeInfo
	_ [(64 - unsafe.Sizeof(framework.NodeInfo{})%64) % 64]byte
}

// slabNodes is how many NodeInfos a slab holds: some 110 KB, a large object, which
// the allocator places on a page boundary.
const slabNodes = 128

// newNodeInfo returns a NodeInfo for a node added to the store, carved from a slab. Nodes
// are added in index order, so the nodes a scan visits one after another lie next to one
// another in memory: the scan reads whole pages of nodes, not a page (and its address
// translation) per node, and the hardware prefetches the lines ahead (decision 58).
func (s *NodeStore) newNodeInfo(node *v1.Node) *framework.NodeInfo {
	if len(s.slab) == 0 {
		s.slab = make([]slabNode, slabNodes)
	}
	n := &s.slab[0].NodeInfo
	s.slab = s.slab[1:]
	n.SetNode(node)
	return n
}
