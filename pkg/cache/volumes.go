package cache

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// VolumeStore is the cache's storage state: volumes, claims, classes, CSINodes, CSIDrivers,
// CSIStorageCapacities and VolumeAttachments as the API reports them (the write side, for the event handlers), the pods using each claim,
// and the bindings the scheduler assumed and has not written yet. framework.Volumes is
// its face for plugins; the assumptions they make go through the undo log.
type VolumeStore struct {
	undo     *undoLog
	pvs      map[string]*v1.PersistentVolume
	pvcs     map[string]*v1.PersistentVolumeClaim
	classes  map[string]*storagev1.StorageClass
	csiNodes map[string]*storagev1.CSINode
	drivers  map[string]*storagev1.CSIDriver
	// capacities are the CSIStorageCapacity objects by namespace/name; capByClass lists
	// them per StorageClass, rebuilt after a change.
	capacities map[string]*storagev1.CSIStorageCapacity
	capByClass map[string][]*storagev1.CSIStorageCapacity
	// attachments are the VolumeAttachments by name; attByNode lists them per node,
	// rebuilt after a change.
	attachments map[string]*storagev1.VolumeAttachment
	attByNode   map[string][]framework.Attachment
	// byClass lists the volumes of each StorageClass, by name; rebuilt after a change.
	byClass map[string][]*v1.PersistentVolume
	// indexMu guards the lazily rebuilt lists (byClass, capByClass, attByNode): filters
	// read them from parallel goroutines.
	indexMu sync.Mutex

	users   map[string]int
	podPVCs map[*framework.PodInfo][]string

	// Assumed: volume -> claim and claim -> volume for matched volumes, claim -> node for
	// claims to provision.
	claimOf  map[string]string
	volumeOf map[string]string
	nodeOf   map[string]string
}

func newVolumeStore(undo *undoLog) *VolumeStore {
	return &VolumeStore{
		undo:     undo,
		pvs:      map[string]*v1.PersistentVolume{},
		pvcs:     map[string]*v1.PersistentVolumeClaim{},
		classes:  map[string]*storagev1.StorageClass{},
		csiNodes: map[string]*storagev1.CSINode{},
		drivers:  map[string]*storagev1.CSIDriver{},

		capacities:  map[string]*storagev1.CSIStorageCapacity{},
		attachments: map[string]*storagev1.VolumeAttachment{},
		users:       map[string]int{},
		podPVCs:     map[*framework.PodInfo][]string{},
		claimOf:     map[string]string{},
		volumeOf:    map[string]string{},
		nodeOf:      map[string]string{},
	}
}

var _ framework.Volumes = (*VolumeStore)(nil)

func (v *VolumeStore) PVC(key string) *v1.PersistentVolumeClaim      { return v.pvcs[key] }
func (v *VolumeStore) PV(name string) *v1.PersistentVolume           { return v.pvs[name] }
func (v *VolumeStore) StorageClass(n string) *storagev1.StorageClass { return v.classes[n] }
func (v *VolumeStore) CSINode(node string) *storagev1.CSINode        { return v.csiNodes[node] }
func (v *VolumeStore) CSIDriver(name string) *storagev1.CSIDriver    { return v.drivers[name] }
func (v *VolumeStore) PVCUsers(key string) int                       { return v.users[key] }
func (v *VolumeStore) AssumedClaimOf(pv string) string               { return v.claimOf[pv] }
func (v *VolumeStore) AssumedVolumeOf(pvc string) string             { return v.volumeOf[pvc] }
func (v *VolumeStore) AssumedNodeOf(pvc string) string               { return v.nodeOf[pvc] }
func (v *VolumeStore) Empty() bool                                   { return len(v.pvcs) == 0 }
func (v *VolumeStore) PVsOfClass(class string) []*v1.PersistentVolume {
	v.indexMu.Lock()
	defer v.indexMu.Unlock()
	if v.byClass == nil {
		v.byClass = map[string][]*v1.PersistentVolume{}
		for _, pv := range sortedValues(v.pvs) {
			v.byClass[pv.Spec.StorageClassName] = append(v.byClass[pv.Spec.StorageClassName], pv)
		}
	}
	return v.byClass[class]
}

// StorageCapacities implements framework.Volumes.
func (v *VolumeStore) StorageCapacities(class string) []*storagev1.CSIStorageCapacity {
	v.indexMu.Lock()
	defer v.indexMu.Unlock()
	if v.capByClass == nil {
		v.capByClass = map[string][]*storagev1.CSIStorageCapacity{}
		for _, c := range sortedValues(v.capacities) {
			v.capByClass[c.StorageClassName] = append(v.capByClass[c.StorageClassName], c)
		}
	}
	return v.capByClass[class]
}

// AttachedVolumes implements framework.Volumes.
func (v *VolumeStore) AttachedVolumes(node string) []framework.Attachment {
	v.indexMu.Lock()
	defer v.indexMu.Unlock()
	if v.attByNode == nil {
		v.attByNode = map[string][]framework.Attachment{}
		for _, a := range sortedValues(v.attachments) {
			pv := ""
			if a.Spec.Source.PersistentVolumeName != nil {
				pv = *a.Spec.Source.PersistentVolumeName
			}
			v.attByNode[a.Spec.NodeName] = append(v.attByNode[a.Spec.NodeName], framework.Attachment{Name: a.Name, Attacher: a.Spec.Attacher, Volume: pv})
		}
	}
	return v.attByNode[node]
}

// AssumeBinding implements framework.Volumes.
func (v *VolumeStore) AssumeBinding(pvc, pv string) {
	v.ForgetClaim(pvc)
	v.claimOf[pv], v.volumeOf[pvc] = pvc, pv
	v.undo.logRevert(func() { delete(v.claimOf, pv); delete(v.volumeOf, pvc) })
}

// AssumeProvisioning implements framework.Volumes.
func (v *VolumeStore) AssumeProvisioning(pvc, node string) {
	v.ForgetClaim(pvc)
	v.nodeOf[pvc] = node
	v.undo.logRevert(func() { delete(v.nodeOf, pvc) })
}

// ForgetClaim implements framework.Volumes.
func (v *VolumeStore) ForgetClaim(pvc string) {
	if pv, ok := v.volumeOf[pvc]; ok {
		delete(v.volumeOf, pvc)
		delete(v.claimOf, pv)
		v.undo.logRevert(func() { v.claimOf[pv], v.volumeOf[pvc] = pvc, pv })
	}
	if node, ok := v.nodeOf[pvc]; ok {
		delete(v.nodeOf, pvc)
		v.undo.logRevert(func() { v.nodeOf[pvc] = node })
	}
}

func (v *VolumeStore) podAdded(pi *framework.PodInfo) {
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
	v.undo.logRevert(func() {
		delete(v.podPVCs, pi)
		v.dropUsers(keys)
	})
}

func (v *VolumeStore) podRemoved(pi *framework.PodInfo) {
	keys, ok := v.podPVCs[pi]
	if !ok {
		return
	}
	delete(v.podPVCs, pi)
	v.dropUsers(keys)
	v.undo.logRevert(func() {
		v.podPVCs[pi] = keys
		for _, k := range keys {
			v.users[k]++
		}
	})
}

func (v *VolumeStore) dropUsers(keys []string) {
	for _, k := range keys {
		if v.users[k]--; v.users[k] <= 0 {
			delete(v.users, k)
		}
	}
}

// SetPV records or replaces a PersistentVolume. A volume the API shows bound drops the
// binding the scheduler assumed for it.
func (v *VolumeStore) SetPV(pv *v1.PersistentVolume) {
	v.pvs[pv.Name] = pv
	v.byClass = nil
	if pvc, ok := v.claimOf[pv.Name]; ok && pv.Spec.ClaimRef != nil {
		delete(v.claimOf, pv.Name)
		delete(v.volumeOf, pvc)
	}
}

// RemovePV forgets a PersistentVolume.
func (v *VolumeStore) RemovePV(name string) {
	delete(v.pvs, name)
	v.byClass = nil
	if pvc, ok := v.claimOf[name]; ok {
		delete(v.claimOf, name)
		delete(v.volumeOf, pvc)
	}
}

// SetPVC records or replaces a PersistentVolumeClaim; once the API shows it bound, the
// scheduler's assumption about it is dropped.
func (v *VolumeStore) SetPVC(pvc *v1.PersistentVolumeClaim) {
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
func (v *VolumeStore) RemovePVC(key string) {
	delete(v.pvcs, key)
	if pv, ok := v.volumeOf[key]; ok {
		delete(v.claimOf, pv)
		delete(v.volumeOf, key)
	}
	delete(v.nodeOf, key)
}

// SetStorageClass records or replaces a StorageClass.
func (v *VolumeStore) SetStorageClass(sc *storagev1.StorageClass) { v.classes[sc.Name] = sc }

// RemoveStorageClass forgets a StorageClass.
func (v *VolumeStore) RemoveStorageClass(name string) { delete(v.classes, name) }

// SetCSINode records or replaces a CSINode.
func (v *VolumeStore) SetCSINode(n *storagev1.CSINode) { v.csiNodes[n.Name] = n }

// RemoveCSINode forgets a CSINode.
func (v *VolumeStore) RemoveCSINode(name string) { delete(v.csiNodes, name) }

// SetCSIDriver records or replaces a CSIDriver.
func (v *VolumeStore) SetCSIDriver(d *storagev1.CSIDriver) { v.drivers[d.Name] = d }

// RemoveCSIDriver forgets a CSIDriver.
func (v *VolumeStore) RemoveCSIDriver(name string) { delete(v.drivers, name) }

// SetStorageCapacity records or replaces a CSIStorageCapacity.
func (v *VolumeStore) SetStorageCapacity(c *storagev1.CSIStorageCapacity) {
	v.capacities[framework.PVCKey(c.Namespace, c.Name)] = c
	v.capByClass = nil
}

// RemoveStorageCapacity forgets a CSIStorageCapacity (namespace/name).
func (v *VolumeStore) RemoveStorageCapacity(key string) {
	delete(v.capacities, key)
	v.capByClass = nil
}

// SetVolumeAttachment records or replaces a VolumeAttachment.
func (v *VolumeStore) SetVolumeAttachment(a *storagev1.VolumeAttachment) {
	v.attachments[a.Name] = a
	v.attByNode = nil
}

// RemoveVolumeAttachment forgets a VolumeAttachment.
func (v *VolumeStore) RemoveVolumeAttachment(name string) {
	delete(v.attachments, name)
	v.attByNode = nil
}

// verify: the pods recorded as using volume claims are pods in the cache, every claim's
// user count matches them, and volume assumptions pair up.
func (v *VolumeStore) verify(pods *NodeStore) error {
	pvcUsers, err := pods.countUsers(v.podPVCs, "volumes")
	if err != nil {
		return err
	}
	if len(pvcUsers) != len(v.users) {
		return fmt.Errorf("%d claims counted as used, %d used", len(v.users), len(pvcUsers))
	}
	for k, n := range pvcUsers {
		if v.users[k] != n {
			return fmt.Errorf("volume claim %s counts %d users, %d pods use it", k, v.users[k], n)
		}
	}
	for pv, pvc := range v.claimOf {
		if v.volumeOf[pvc] != pv {
			return fmt.Errorf("volume %s assumed for %s, which is assumed to get %q", pv, pvc, v.volumeOf[pvc])
		}
	}
	if len(v.claimOf) != len(v.volumeOf) {
		return fmt.Errorf("%d volumes and %d claims assumed", len(v.claimOf), len(v.volumeOf))
	}
	return nil
}
