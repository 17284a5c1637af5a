package cache

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// volumeState is the cache's storage state (framework.Volumes): volumes, claims, classes
// and CSINodes as the API reports them, the pods using each claim, and the bindings the
// scheduler assumed and has not written yet.
type volumeState struct {
	c        *Cache
	pvs      map[string]*v1.PersistentVolume
	pvcs     map[string]*v1.PersistentVolumeClaim
	classes  map[string]*storagev1.StorageClass
	csiNodes map[string]*storagev1.CSINode
	// byClass lists the volumes of each StorageClass, by name; rebuilt after a change.
	byClass map[string][]*v1.PersistentVolume

	users   map[string]int
	podPVCs map[*framework.PodInfo][]string

	// Assumed: volume -> claim and claim -> volume for matched volumes, claim -> node for
	// claims to provision.
	claimOf  map[string]string
	volumeOf map[string]string
	nodeOf   map[string]string
}

func newVolumeState(c *Cache) *volumeState {
	return &volumeState{
		c:        c,
		pvs:      map[string]*v1.PersistentVolume{},
		pvcs:     map[string]*v1.PersistentVolumeClaim{},
		classes:  map[string]*storagev1.StorageClass{},
		csiNodes: map[string]*storagev1.CSINode{},
		users:    map[string]int{},
		podPVCs:  map[*framework.PodInfo][]string{},
		claimOf:  map[string]string{},
		volumeOf: map[string]string{},
		nodeOf:   map[string]string{},
	}
}

var _ framework.Volumes = (*volumeState)(nil)

// Volumes implements framework.Snapshot.
func (c *Cache) Volumes() framework.Volumes { return c.vols }

func (v *volumeState) PVC(key string) *v1.PersistentVolumeClaim      { return v.pvcs[key] }
func (v *volumeState) PV(name string) *v1.PersistentVolume           { return v.pvs[name] }
func (v *volumeState) StorageClass(n string) *storagev1.StorageClass { return v.classes[n] }
func (v *volumeState) CSINode(node string) *storagev1.CSINode        { return v.csiNodes[node] }
func (v *volumeState) PVCUsers(key string) int                       { return v.users[key] }
func (v *volumeState) AssumedClaimOf(pv string) string               { return v.claimOf[pv] }
func (v *volumeState) AssumedVolumeOf(pvc string) string             { return v.volumeOf[pvc] }
func (v *volumeState) AssumedNodeOf(pvc string) string               { return v.nodeOf[pvc] }
func (v *volumeState) Empty() bool                                   { return len(v.pvcs) == 0 }
func (v *volumeState) PVsOfClass(class string) []*v1.PersistentVolume {
	if v.byClass == nil {
		v.byClass = map[string][]*v1.PersistentVolume{}
		for _, pv := range sortedValues(v.pvs) {
			v.byClass[pv.Spec.StorageClassName] = append(v.byClass[pv.Spec.StorageClassName], pv)
		}
	}
	return v.byClass[class]
}

// AssumeBinding implements framework.Volumes.
func (v *volumeState) AssumeBinding(pvc, pv string) {
	v.ForgetClaim(pvc)
	v.claimOf[pv], v.volumeOf[pvc] = pvc, pv
	v.c.logRevert(func() { delete(v.claimOf, pv); delete(v.volumeOf, pvc) })
}

// AssumeProvisioning implements framework.Volumes.
func (v *volumeState) AssumeProvisioning(pvc, node string) {
	v.ForgetClaim(pvc)
	v.nodeOf[pvc] = node
	v.c.logRevert(func() { delete(v.nodeOf, pvc) })
}

// ForgetClaim implements framework.Volumes.
func (v *volumeState) ForgetClaim(pvc string) {
	if pv, ok := v.volumeOf[pvc]; ok {
		delete(v.volumeOf, pvc)
		delete(v.claimOf, pv)
		v.c.logRevert(func() { v.claimOf[pv], v.volumeOf[pvc] = pvc, pv })
	}
	if node, ok := v.nodeOf[pvc]; ok {
		delete(v.nodeOf, pvc)
		v.c.logRevert(func() { v.nodeOf[pvc] = node })
	}
}

func (v *volumeState) podAdded(pi *framework.PodInfo) {
	if len(pi.Pod.Spec.Volumes) == 0 {
		return
	}
	keys := framework.PodPVCs(pi.Pod)
	if len(keys) == 0 {
		return
	}
	v.podPVCs[pi] = keys
	for _, k := range keys {
		v.users[k]++
	}
	v.c.logRevert(func() {
		delete(v.podPVCs, pi)
		v.dropUsers(keys)
	})
}

func (v *volumeState) podRemoved(pi *framework.PodInfo) {
	keys, ok := v.podPVCs[pi]
	if !ok {
		return
	}
	delete(v.podPVCs, pi)
	v.dropUsers(keys)
	v.c.logRevert(func() {
		v.podPVCs[pi] = keys
		for _, k := range keys {
			v.users[k]++
		}
	})
}

func (v *volumeState) dropUsers(keys []string) {
	for _, k := range keys {
		if v.users[k]--; v.users[k] <= 0 {
			delete(v.users, k)
		}
	}
}

// SetPV records or replaces a PersistentVolume. A volume the API shows bound drops the
// binding the scheduler assumed for it.
func (c *Cache) SetPV(pv *v1.PersistentVolume) {
	v := c.vols
	v.pvs[pv.Name] = pv
	v.byClass = nil
	if pvc, ok := v.claimOf[pv.Name]; ok && pv.Spec.ClaimRef != nil {
		delete(v.claimOf, pv.Name)
		delete(v.volumeOf, pvc)
	}
}

// RemovePV forgets a PersistentVolume.
func (c *Cache) RemovePV(name string) {
	v := c.vols
	delete(v.pvs, name)
	v.byClass = nil
	if pvc, ok := v.claimOf[name]; ok {
		delete(v.claimOf, name)
		delete(v.volumeOf, pvc)
	}
}

// SetPVC records or replaces a PersistentVolumeClaim; once the API shows it bound, the
// scheduler's assumption about it is dropped.
func (c *Cache) SetPVC(pvc *v1.PersistentVolumeClaim) {
	v := c.vols
	key := framework.PVCKey(pvc.Namespace, pvc.Name)
	v.pvcs[key] = pvc
	if pvc.Spec.VolumeName != "" {
		if pv, ok := v.volumeOf[key]; ok {
			delete(v.claimOf, pv)
			delete(v.volumeOf, key)
		}
		delete(v.nodeOf, key)
	}
}

// RemovePVC forgets a PersistentVolumeClaim.
func (c *Cache) RemovePVC(key string) {
	v := c.vols
	delete(v.pvcs, key)
	if pv, ok := v.volumeOf[key]; ok {
		delete(v.claimOf, pv)
		delete(v.volumeOf, key)
	}
	delete(v.nodeOf, key)
}

// SetStorageClass records or replaces a StorageClass.
func (c *Cache) SetStorageClass(sc *storagev1.StorageClass) { c.vols.classes[sc.Name] = sc }

// RemoveStorageClass forgets a StorageClass.
func (c *Cache) RemoveStorageClass(name string) { delete(c.vols.classes, name) }

// SetCSINode records or replaces a CSINode.
func (c *Cache) SetCSINode(n *storagev1.CSINode) { c.vols.csiNodes[n.Name] = n }

// RemoveCSINode forgets a CSINode.
func (c *Cache) RemoveCSINode(name string) { delete(c.vols.csiNodes, name) }
