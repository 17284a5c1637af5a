// Package cache holds the cluster state the scheduler decides on: nodes, the pods bound or
// assumed on them, namespaces, nominations. It is owned by the scheduling loop and is also
// the snapshot a cycle reads: informer events are applied between cycles, never during one,
// so no copy is needed. Simulations inside a cycle (assuming gang members, removing
// preemption victims) mutate it in place and are undone through an undo log (Checkpoint,
// Rollback) that restores every field exactly.
package cache

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Cache is the scheduler's view of the cluster.
type Cache struct {
	nodes     []*framework.NodeInfo
	nodeIndex map[string]int
	// ghosts are nodes deleted while pods still run on them; they take no new pods.
	ghosts map[string]*framework.NodeInfo

	pods    map[string]*framework.PodInfo // bound or assumed pods by namespace/name
	entries map[*framework.PodInfo]*podEntry
	labels  labelIndex

	antiNodes     nodeSet // nodes running a pod with required anti-affinity
	affinityNodes nodeSet // nodes running a pod with any affinity term

	namespaces map[string]labels.Set
	nominator  nominator
	pdbs       map[string]*framework.PDBInfo
	pdbList    []*framework.PDBInfo
	groups     map[string]*framework.GroupInfo
	// unitsVersion: see UnitsVersion.
	unitsVersion int64
	// composites are the CompositePodGroups; children indexes, by composite, the groups
	// and composites that name it as their parent.
	composites map[string]*framework.GroupInfo
	children   map[string]*childSet
	// members are the bound or assumed members of each group, outside simulations.
	members map[string][]*framework.PodInfo
	// dra and vols are the devices and volumes pods use (dra.go, volumes.go).
	dra  *draState
	vols *volumeState

	undo  []undoOp
	marks []mark
	// faults are misuses the cache refused (a pod added twice); Verify reports them.
	faults   []string
	nextMark framework.Checkpoint
	// layoutVersion changes whenever nodes are added or removed (their Index changes).
	layoutVersion uint64
}

// New returns an empty cache.
func New() *Cache {
	c := &Cache{
		nodeIndex:     map[string]int{},
		ghosts:        map[string]*framework.NodeInfo{},
		pods:          map[string]*framework.PodInfo{},
		entries:       map[*framework.PodInfo]*podEntry{},
		labels:        newLabelIndex(),
		antiNodes:     newNodeSet(),
		affinityNodes: newNodeSet(),
		namespaces:    map[string]labels.Set{},
		nominator:     newNominator(),
		pdbs:          map[string]*framework.PDBInfo{},
		groups:        map[string]*framework.GroupInfo{},
		composites:    map[string]*framework.GroupInfo{},
		children:      map[string]*childSet{},
		members:       map[string][]*framework.PodInfo{},
	}
	c.dra = newDRAState(c)
	c.vols = newVolumeState(c)
	return c
}

var _ framework.Snapshot = (*Cache)(nil)

// NodeInfos returns the live nodes in the order they were added.
func (c *Cache) NodeInfos() []*framework.NodeInfo { return c.nodes }

// LayoutVersion changes whenever the node list changes, so per-node arrays indexed by
// NodeInfo.Index must be rebuilt.
func (c *Cache) LayoutVersion() uint64 { return c.layoutVersion }

// NumNodes is the number of live nodes.
func (c *Cache) NumNodes() int { return len(c.nodes) }

// Get returns a live node by name, or nil.
func (c *Cache) Get(name string) *framework.NodeInfo {
	if i, ok := c.nodeIndex[name]; ok {
		return c.nodes[i]
	}
	return nil
}

// nodeOrGhost returns a node that may hold pods, live or deleted.
func (c *Cache) nodeOrGhost(name string) *framework.NodeInfo {
	if n := c.Get(name); n != nil {
		return n
	}
	return c.ghosts[name]
}

// NodesWithRequiredAntiAffinityPods implements framework.Snapshot.
func (c *Cache) NodesWithRequiredAntiAffinityPods() []*framework.NodeInfo { return c.antiNodes.items }

// NodesWithAffinityPods implements framework.Snapshot.
func (c *Cache) NodesWithAffinityPods() []*framework.NodeInfo { return c.affinityNodes.items }

// NamespaceLabels returns a namespace's labels, nil when unknown.
func (c *Cache) NamespaceLabels(ns string) labels.Set { return c.namespaces[ns] }

// ForEachPodMatching implements framework.Snapshot through the label index.
func (c *Cache) ForEachPodMatching(ns func(string) bool, sel labels.Selector, fn func(*framework.PodInfo) bool) {
	c.labels.forEach(sel, func(e *podEntry) bool {
		if e.node.Node() == nil || !ns(e.pi.Pod.Namespace) {
			return true
		}
		if !sel.Matches(labels.Set(e.pi.Pod.Labels)) {
			return true
		}
		return fn(e.pi)
	})
}

// UnitsVersion changes with PDBs, groups, composites and groups' bound members
// (framework.Snapshot).
func (c *Cache) UnitsVersion() int64 { return c.unitsVersion }

// unitsChanged notes a change of what makes preemption units.
func (c *Cache) unitsChanged() { c.unitsVersion = framework.NextGeneration() }

// Pod returns a bound or assumed pod by namespace/name.
func (c *Cache) Pod(key string) *framework.PodInfo { return c.pods[key] }

// NumPods is the number of bound or assumed pods.
func (c *Cache) NumPods() int { return len(c.pods) }

// AddNode adds a node, or updates it when it exists (or returns from deletion).
func (c *Cache) AddNode(node *v1.Node) *framework.NodeInfo {
	if n := c.Get(node.Name); n != nil {
		n.SetNode(node)
		return n
	}
	n := c.ghosts[node.Name]
	if n != nil {
		delete(c.ghosts, node.Name)
		n.SetNode(node)
		c.relabel(n, true)
	} else {
		n = framework.NewNodeInfo(node)
	}
	n.Index = len(c.nodes)
	c.nodeIndex[node.Name] = n.Index
	c.nodes = append(c.nodes, n)
	c.layoutVersion++
	return n
}

// RemoveNode removes a node. Pods still on it keep their place (as on a ghost node) until
// they are deleted, as kube-scheduler does, but no pod is scheduled there.
func (c *Cache) RemoveNode(name string) {
	i, ok := c.nodeIndex[name]
	if !ok {
		return
	}
	n := c.nodes[i]
	// Keep the order of the remaining nodes: it decides where filtering starts, and
	// the simulator must be deterministic.
	copy(c.nodes[i:], c.nodes[i+1:])
	c.nodes[len(c.nodes)-1] = nil
	c.nodes = c.nodes[:len(c.nodes)-1]
	delete(c.nodeIndex, name)
	for j := i; j < len(c.nodes); j++ {
		c.nodeIndex[c.nodes[j].Name] = j
		c.nodes[j].Index = j
	}
	c.layoutVersion++
	if len(n.Pods) > 0 {
		c.relabel(n, false)
		n.SetNode(nil)
		c.ghosts[name] = n
	}
}

// relabel takes a node's pods out of (or back into) the node-level sets when the node
// disappears or returns.
func (c *Cache) relabel(n *framework.NodeInfo, live bool) {
	if live {
		if len(n.PodsWithRequiredAntiAffinity) > 0 {
			c.antiNodes.add(n)
		}
		if len(n.PodsWithAffinity) > 0 {
			c.affinityNodes.add(n)
		}
		return
	}
	c.antiNodes.remove(n)
	c.affinityNodes.remove(n)
}

// SetNamespace records a namespace's labels (for namespaceSelector in affinity terms).
func (c *Cache) SetNamespace(ns *v1.Namespace) { c.namespaces[ns.Name] = labels.Set(ns.Labels) }

// RemoveNamespace forgets a namespace.
func (c *Cache) RemoveNamespace(name string) { delete(c.namespaces, name) }
