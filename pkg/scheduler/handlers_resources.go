package scheduler

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The handlers of the storage and Dynamic Resource Allocation objects pods wait for: each
// updates the cache and retries the pods whose rejecting plugins registered the event.

func resourceEvent(r framework.EventResource, a framework.ActionType, label string) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: r, Action: a, Label: label}
}

// changeOf is Add for a new object (no old one), UpdateOther for a changed one.
func changeOf[T any](old *T) framework.ActionType {
	if old == nil {
		return framework.Add
	}
	return framework.UpdateOther
}

// UpdatePV records a PersistentVolume (nil old for a new one).
func (s *Scheduler) UpdatePV(old, pv *v1.PersistentVolume) {
	s.cache.SetPV(pv)
	s.onClusterEvent(resourceEvent(framework.PersistentVolume, changeOf(old), "PersistentVolumeChange"))
}

// DeletePV forgets a PersistentVolume.
func (s *Scheduler) DeletePV(pv *v1.PersistentVolume) {
	s.cache.RemovePV(pv.Name)
	s.onClusterEvent(resourceEvent(framework.PersistentVolume, framework.Delete, "PersistentVolumeDelete"))
}

// UpdatePVC records a PersistentVolumeClaim (nil old for a new one).
func (s *Scheduler) UpdatePVC(old, pvc *v1.PersistentVolumeClaim) {
	s.cache.SetPVC(pvc)
	s.onClusterEvent(resourceEvent(framework.PersistentVolumeClaim, changeOf(old), "PersistentVolumeClaimChange"))
}

// DeletePVC forgets a PersistentVolumeClaim.
func (s *Scheduler) DeletePVC(pvc *v1.PersistentVolumeClaim) {
	s.cache.RemovePVC(framework.PVCKey(pvc.Namespace, pvc.Name))
	s.onClusterEvent(resourceEvent(framework.PersistentVolumeClaim, framework.Delete, "PersistentVolumeClaimDelete"))
}

// UpdateStorageClass records a StorageClass (nil old for a new one).
func (s *Scheduler) UpdateStorageClass(old, sc *storagev1.StorageClass) {
	s.cache.SetStorageClass(sc)
	s.onClusterEvent(resourceEvent(framework.StorageClass, changeOf(old), "StorageClassChange"))
}

// DeleteStorageClass forgets a StorageClass.
func (s *Scheduler) DeleteStorageClass(sc *storagev1.StorageClass) {
	s.cache.RemoveStorageClass(sc.Name)
}

// UpdateCSINode records a CSINode (nil old for a new one).
func (s *Scheduler) UpdateCSINode(old, n *storagev1.CSINode) {
	s.cache.SetCSINode(n)
	s.onClusterEvent(resourceEvent(framework.CSINode, changeOf(old), "CSINodeChange"))
}

// DeleteCSINode forgets a CSINode.
func (s *Scheduler) DeleteCSINode(n *storagev1.CSINode) {
	s.cache.RemoveCSINode(n.Name)
	s.onClusterEvent(resourceEvent(framework.CSINode, framework.Delete, "CSINodeDelete"))
}

// UpdateResourceClaim records a ResourceClaim (nil old for a new one).
func (s *Scheduler) UpdateResourceClaim(old, c *resourceapi.ResourceClaim) {
	s.cache.SetResourceClaim(c)
	s.onClusterEvent(resourceEvent(framework.ResourceClaim, changeOf(old), "ResourceClaimChange"))
}

// DeleteResourceClaim forgets a ResourceClaim; its devices are free.
func (s *Scheduler) DeleteResourceClaim(c *resourceapi.ResourceClaim) {
	s.cache.RemoveResourceClaim(c.Namespace + "/" + c.Name)
	s.onClusterEvent(resourceEvent(framework.ResourceClaim, framework.Delete, "ResourceClaimDelete"))
}

// UpdateResourceSlice records a ResourceSlice (nil old for a new one).
func (s *Scheduler) UpdateResourceSlice(old, sl *resourceapi.ResourceSlice) {
	s.cache.SetResourceSlice(sl)
	s.onClusterEvent(resourceEvent(framework.ResourceSlice, changeOf(old), "ResourceSliceChange"))
}

// DeleteResourceSlice forgets a ResourceSlice.
func (s *Scheduler) DeleteResourceSlice(sl *resourceapi.ResourceSlice) {
	s.cache.RemoveResourceSlice(sl.Name)
	s.onClusterEvent(resourceEvent(framework.ResourceSlice, framework.Delete, "ResourceSliceDelete"))
}

// UpdateDeviceClass records a DeviceClass (nil old for a new one).
func (s *Scheduler) UpdateDeviceClass(old, dc *resourceapi.DeviceClass) {
	s.cache.SetDeviceClass(dc)
	s.onClusterEvent(resourceEvent(framework.DeviceClass, changeOf(old), "DeviceClassChange"))
}

// DeleteDeviceClass forgets a DeviceClass.
func (s *Scheduler) DeleteDeviceClass(dc *resourceapi.DeviceClass) {
	s.cache.RemoveDeviceClass(dc.Name)
}
