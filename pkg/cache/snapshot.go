package cache

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The Cache is the framework.Snapshot plugins, placement and preemption read: each answer
// comes from the store that owns it. Checkpoint and Rollback are in cache.go.
var _ framework.Snapshot = (*Cache)(nil)

// NodeInfos returns the live nodes in the order they were added.
func (c *Cache) NodeInfos() []*framework.NodeInfo { return c.nodes.NodeInfos() }

// Get returns a live node by name, or nil.
func (c *Cache) Get(name string) *framework.NodeInfo { return c.nodes.Get(name) }

// LayoutVersion changes whenever the node list changes, so per-node arrays indexed by
// NodeInfo.Index must be rebuilt.
func (c *Cache) LayoutVersion() uint64 { return c.nodes.LayoutVersion() }

// NodeSetVersion returns the version of a set of nodes' state, kept as nodes change.
func (c *Cache) NodeSetVersion(s *framework.NodeSet) framework.NodeSetVersion {
	return c.nodes.NodeSetVersion(s)
}

// NodeSetOf returns the cache's set of these nodes.
func (c *Cache) NodeSetOf(nodes []*framework.NodeInfo) *framework.NodeSet {
	return c.nodes.NodeSetOf(nodes)
}

// AffinityChangesSince returns the live nodes that had a pod with affinity terms added or
// removed since a journal position, and the position now (false: look at every node).
func (c *Cache) AffinityChangesSince(from uint64) ([]*framework.NodeInfo, uint64, bool) {
	return c.nodes.AffinityChangesSince(from)
}

// NodesWithRequiredAntiAffinityPods returns the live nodes running a pod with a required
// anti-affinity term.
func (c *Cache) NodesWithRequiredAntiAffinityPods() []*framework.NodeInfo {
	return c.nodes.NodesWithRequiredAntiAffinityPods()
}

// NodesWithAffinityPods returns the live nodes running a pod with any affinity term.
func (c *Cache) NodesWithAffinityPods() []*framework.NodeInfo { return c.nodes.NodesWithAffinityPods() }

// ForEachPodMatching visits the pods whose labels match a selector, through the label
// index.
func (c *Cache) ForEachPodMatching(ns func(string) bool, sel labels.Selector, fn func(*framework.PodInfo) bool) {
	c.nodes.ForEachPodMatching(ns, sel, fn)
}

// LabelChangesSince returns the changes to which pods labelled key=value count since a
// position, and the position now (false: count afresh).
func (c *Cache) LabelChangesSince(key, value string, from framework.LabelPosition) ([]framework.LabelChange, framework.LabelPosition, bool) {
	return c.nodes.LabelChangesSince(key, value, from)
}

// AddPod places a pod on a node inside a simulation.
func (c *Cache) AddPod(pi *framework.PodInfo, node string) { c.nodes.AddPod(pi, node) }

// AddNominatedPods places, inside a simulation, the nominated pods include accepts on the
// nodes they are nominated to, oldest nomination first (those whose node is gone or that
// are already bound or assumed left out), as AddPod would each: a cycle's view of the
// room preemptors wait for.
func (c *Cache) AddNominatedPods(include func(*framework.PodInfo) bool) {
	c.nodes.AddNominated(c.nominations, include)
}

// RemovePod takes a pod off its node inside a simulation.
func (c *Cache) RemovePod(pi *framework.PodInfo) { c.nodes.RemovePod(pi) }

// NamespaceLabels returns a namespace's labels, nil when unknown.
func (c *Cache) NamespaceLabels(ns string) labels.Set { return c.namespaces[ns] }

// Group returns a PodGroup by namespace/name, or nil.
func (c *Cache) Group(key string) *framework.GroupInfo { return c.groups.Group(key) }

// GroupMembers returns the bound or assumed members of a group.
func (c *Cache) GroupMembers(key string) []*framework.PodInfo { return c.groups.GroupMembers(key) }

// Composite returns a CompositePodGroup by namespace/name, or nil.
func (c *Cache) Composite(key string) *framework.GroupInfo { return c.groups.Composite(key) }

// CompositeGroups returns the keys of the PodGroups in a composite's hierarchy, sorted.
func (c *Cache) CompositeGroups(key string) []string { return c.groups.CompositeGroups(key) }

// PDBs returns every PodDisruptionBudget ordered by namespace/name.
func (c *Cache) PDBs() []*framework.PDBInfo { return c.budgets.PDBs() }

// UnitsVersion changes with PDBs, groups, composites and groups' bound members.
func (c *Cache) UnitsVersion() int64 { return c.units.v }

// DRA is the Dynamic Resource Allocation state plugins read and assume allocations in:
// the Devices store.
func (c *Cache) DRA() framework.DRA { return c.devices }

// Volumes is the storage state plugins read and assume bindings in: the Storage store.
func (c *Cache) Volumes() framework.Volumes { return c.volumes }
