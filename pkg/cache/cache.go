// Package cache holds the cluster state the scheduler decides on. It is owned by the
// scheduling loop and is also the snapshot a cycle reads: informer events are applied
// between cycles, never during one, so no copy is needed.
//
// The state is kept in stores, each owning its part and checking it (Verify): the nodes
// and the pods on them (NodeStore, with the label index), the PodGroups and
// CompositePodGroups (GroupStore), nominations (NominationStore), PodDisruptionBudgets
// (BudgetStore), Dynamic Resource Allocation (DeviceStore) and storage (VolumeStore). The
// event handlers reach a store through its accessor (Cache.Groups, Cache.Devices, ...) and
// write into it; plugins read the Cache as a framework.Snapshot (snapshot.go).
//
// Simulations inside a cycle (assuming gang members, removing preemption victims) change
// the stores in place; every store records its changes in the one undo log the Cache
// shares among them (undo.go), and Rollback to a Checkpoint restores every field exactly.
package cache

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Cache is the scheduler's view of the cluster: the stores, and what they share.
type Cache struct {
	// undo is the one undo log every store's changes under a checkpoint go through.
	undo *undoLog
	// units is the version of what makes preemption units, which the group and budget
	// stores change.
	units unitsVersion

	nodes       *NodeStore
	groups      *GroupStore
	nominations *NominationStore
	budgets     *BudgetStore
	devices     *DeviceStore
	volumes     *VolumeStore

	// namespaces are the namespaces' labels, for namespaceSelector in affinity terms.
	namespaces map[string]labels.Set
}

// New returns an empty cache.
func New() *Cache {
	undo := &undoLog{}
	c := &Cache{undo: undo, namespaces: map[string]labels.Set{}}
	c.nodes = newNodeStore(undo)
	c.groups = newGroupStore(undo, &c.units)
	c.nominations = newNominationStore()
	c.budgets = newBudgetStore(&c.units)
	c.devices = newDeviceStore(undo, c.groups)
	c.volumes = newVolumeStore(undo)
	c.nodes.watchers = []podWatcher{c.groups, c.devices, c.volumes}
	return c
}

// Nodes is the store of the nodes and the pods bound or assumed on them.
func (c *Cache) Nodes() *NodeStore { return c.nodes }

// Groups is the store of the PodGroups, the CompositePodGroups and groups' bound members.
func (c *Cache) Groups() *GroupStore { return c.groups }

// Nominations is the store of the nodes pending pods are nominated to.
func (c *Cache) Nominations() *NominationStore { return c.nominations }

// DisruptionBudgets is the store of the PodDisruptionBudgets.
func (c *Cache) DisruptionBudgets() *BudgetStore { return c.budgets }

// Devices is the store of DeviceClasses, ResourceSlices, ResourceClaims and the devices
// claims take.
func (c *Cache) Devices() *DeviceStore { return c.devices }

// Storage is the store of volumes, volume claims, StorageClasses and CSINodes.
func (c *Cache) Storage() *VolumeStore { return c.volumes }

// SetNamespace records a namespace's labels (for namespaceSelector in affinity terms).
func (c *Cache) SetNamespace(ns *v1.Namespace) { c.namespaces[ns.Name] = labels.Set(ns.Labels) }

// RemoveNamespace forgets a namespace.
func (c *Cache) RemoveNamespace(name string) { delete(c.namespaces, name) }

// Checkpoint starts recording changes so that Rollback can undo them (framework.Snapshot).
// Checkpoints nest like savepoints (undoLog.checkpoint).
func (c *Cache) Checkpoint() framework.Checkpoint { return c.undo.checkpoint() }

// Rollback undoes every change since the checkpoint, in every store, newest first, and
// closes it (framework.Snapshot).
func (c *Cache) Rollback(cp framework.Checkpoint) { c.undo.rollback(cp, c.nodes) }

// OpenCheckpoints is the number of checkpoints not yet rolled back; 0 between cycles.
func (c *Cache) OpenCheckpoints() int { return c.undo.open() }

// Verify checks that every index the stores keep equals one rebuilt from scratch out of
// what it indexes: per-node pod positions and usage vectors, the pod map, the label index,
// the node sets, ghost nodes; the undo log; nominations; (outside simulations) group
// membership, the composites' children; the claims, devices and volumes pods use. Tests
// and the simulator's invariant checks call it after changes and rollbacks; it is
// O(pods × labels).
func (c *Cache) Verify() error {
	for _, check := range []func() error{
		c.nodes.verify,
		c.undo.verify,
		c.nominations.verify,
		func() error { return c.groups.verify(c.nodes) },
		func() error { return c.devices.verify(c.nodes) },
		func() error { return c.volumes.verify(c.nodes) },
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// unitsVersion is the version of what makes preemption units or protects them:
// PodDisruptionBudgets, PodGroups, CompositePodGroups and groups' bound members. The
// budget and group stores change it; preemption reads it (UnitsVersion) to know when its
// per-node results are stale.
type unitsVersion struct{ v int64 }

func (u *unitsVersion) changed() { u.v = framework.NextGeneration() }
