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
	// undo is the one undo log every store's changes under a checkpoint go through.
	undo  *undoLog
	nodes *NodeStore

	namespaces  map[string]labels.Set
	nominations *NominationStore
	budgets     *BudgetStore
	groups      *GroupStore
	units       unitsVersion
	// devices and volumes are the devices and volumes pods use (dra.go, volumes.go).
	devices *DeviceStore
	volumes *VolumeStore
}

// New returns an empty cache.
func New() *Cache {
	undo := &undoLog{}
	c := &Cache{
		undo:        undo,
		nodes:       newNodeStore(undo),
		namespaces:  map[string]labels.Set{},
		nominations: newNominationStore(),
	}
	c.budgets = newBudgetStore(&c.units)
	c.groups = newGroupStore(undo, &c.units)
	c.devices = newDeviceStore(undo, c.groups)
	c.volumes = newVolumeStore(undo)
	c.nodes.watchers = []podWatcher{c.groups, c.devices, c.volumes}
	return c
}

var _ framework.Snapshot = (*Cache)(nil)

// Nodes is the store of the nodes and the pods bound or assumed on them.
func (c *Cache) Nodes() *NodeStore { return c.nodes }

// Groups is the store of the PodGroups, the CompositePodGroups and groups' bound members.
func (c *Cache) Groups() *GroupStore { return c.groups }

// Group returns a PodGroup by namespace/name, or nil (framework.Snapshot).
func (c *Cache) Group(key string) *framework.GroupInfo { return c.groups.Group(key) }

// GroupMembers returns the bound or assumed members of a group (framework.Snapshot).
func (c *Cache) GroupMembers(key string) []*framework.PodInfo { return c.groups.GroupMembers(key) }

// Composite returns a CompositePodGroup by namespace/name, or nil (framework.Snapshot).
func (c *Cache) Composite(key string) *framework.GroupInfo { return c.groups.Composite(key) }

// CompositeGroups returns the keys of the PodGroups in a composite's hierarchy, sorted
// (framework.Snapshot).
func (c *Cache) CompositeGroups(key string) []string { return c.groups.CompositeGroups(key) }

// DisruptionBudgets is the store of the PodDisruptionBudgets.
func (c *Cache) DisruptionBudgets() *BudgetStore { return c.budgets }

// Nominations is the store of the nodes pending pods are nominated to.
func (c *Cache) Nominations() *NominationStore { return c.nominations }

// Devices is the store of DeviceClasses, ResourceSlices, ResourceClaims and the devices
// claims take.
func (c *Cache) Devices() *DeviceStore { return c.devices }

// DRA is the Dynamic Resource Allocation state plugins read and assume allocations in
// (framework.Snapshot): the Devices store.
func (c *Cache) DRA() framework.DRA { return c.devices }

// Storage is the store of volumes, volume claims, StorageClasses and CSINodes.
func (c *Cache) Storage() *VolumeStore { return c.volumes }

// Volumes is the storage state plugins read and assume bindings in (framework.Snapshot):
// the Storage store.
func (c *Cache) Volumes() framework.Volumes { return c.volumes }

// NodeInfos returns the live nodes in the order they were added.
func (c *Cache) NodeInfos() []*framework.NodeInfo { return c.nodes.nodes }

// LayoutVersion changes whenever the node list changes, so per-node arrays indexed by
// NodeInfo.Index must be rebuilt.
func (c *Cache) LayoutVersion() uint64 { return c.nodes.layoutVersion }

// Get returns a live node by name, or nil.
func (c *Cache) Get(name string) *framework.NodeInfo { return c.nodes.Get(name) }

// NodesWithRequiredAntiAffinityPods implements framework.Snapshot.
func (c *Cache) NodesWithRequiredAntiAffinityPods() []*framework.NodeInfo {
	return c.nodes.antiNodes.items
}

// NodesWithAffinityPods implements framework.Snapshot.
func (c *Cache) NodesWithAffinityPods() []*framework.NodeInfo { return c.nodes.affinityNodes.items }

// ForEachPodMatching implements framework.Snapshot through the label index.
func (c *Cache) ForEachPodMatching(ns func(string) bool, sel labels.Selector, fn func(*framework.PodInfo) bool) {
	c.nodes.ForEachPodMatching(ns, sel, fn)
}

// AddPod places a pod on a node inside a simulation (framework.Snapshot).
func (c *Cache) AddPod(pi *framework.PodInfo, node string) { c.nodes.AddPod(pi, node) }

// RemovePod takes a pod off its node inside a simulation (framework.Snapshot).
func (c *Cache) RemovePod(pi *framework.PodInfo) { c.nodes.RemovePod(pi) }

// Checkpoint starts recording changes so that Rollback can undo them (framework.Snapshot).
// Checkpoints nest like savepoints (undoLog.checkpoint).
func (c *Cache) Checkpoint() framework.Checkpoint { return c.undo.checkpoint() }

// Rollback undoes every change since the checkpoint, newest first, in every store, and
// closes it (framework.Snapshot).
func (c *Cache) Rollback(cp framework.Checkpoint) { c.undo.rollback(cp, c.nodes) }

// OpenCheckpoints is the number of checkpoints not yet rolled back; 0 between cycles.
func (c *Cache) OpenCheckpoints() int { return c.undo.open() }

// simulating reports whether a checkpoint is open.
func (c *Cache) simulating() bool { return c.undo.simulating() }

// logRevert records how to undo a change made under a checkpoint.
func (c *Cache) logRevert(revert func()) { c.undo.logRevert(revert) }

// NamespaceLabels returns a namespace's labels, nil when unknown.
func (c *Cache) NamespaceLabels(ns string) labels.Set { return c.namespaces[ns] }

// UnitsVersion changes with PDBs, groups, composites and groups' bound members
// (framework.Snapshot).
func (c *Cache) UnitsVersion() int64 { return c.units.v }

// unitsVersion is the version of what makes preemption units or protects them:
// PodDisruptionBudgets, PodGroups, CompositePodGroups and groups' bound members. The
// budget and group stores change it; preemption reads it to know its per-node results are
// stale.
type unitsVersion struct{ v int64 }

func (u *unitsVersion) changed() { u.v = framework.NextGeneration() }

// PDBs returns every PodDisruptionBudget ordered by namespace/name (framework.Snapshot).
func (c *Cache) PDBs() []*framework.PDBInfo { return c.budgets.PDBs() }

// SetNamespace records a namespace's labels (for namespaceSelector in affinity terms).
func (c *Cache) SetNamespace(ns *v1.Namespace) { c.namespaces[ns.Name] = labels.Set(ns.Labels) }

// RemoveNamespace forgets a namespace.
func (c *Cache) RemoveNamespace(name string) { delete(c.namespaces, name) }
