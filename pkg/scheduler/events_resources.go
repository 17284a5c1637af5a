package scheduler

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemptexec"
)

// ResourceEvents are the handlers of the storage and Dynamic Resource Allocation objects
// pods wait for: each updates the cache's store of them and retries the pods whose
// rejecting plugins registered the event. Like the Scheduler's, they run on the loop.
type ResourceEvents struct {
	volumes *cache.VolumeStore
	devices *cache.DeviceStore
	retries *retries
	// preemptions are told of claims changed: a preemptor waiting for its victims' claims
	// to be released is tried once they are.
	preemptions *preemptexec.Preemptions
}

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
func (r *ResourceEvents) UpdatePV(old, pv *v1.PersistentVolume) {
	r.volumes.SetPV(pv)
	r.retries.onEvent(resourceEvent(framework.PersistentVolume, changeOf(old), "PersistentVolumeChange"))
}

// DeletePV forgets a PersistentVolume.
func (r *ResourceEvents) DeletePV(pv *v1.PersistentVolume) {
	r.volumes.RemovePV(pv.Name)
	r.retries.onEvent(resourceEvent(framework.PersistentVolume, framework.Delete, "PersistentVolumeDelete"))
}

// UpdatePVC records a PersistentVolumeClaim (nil old for a new one).
func (r *ResourceEvents) UpdatePVC(old, pvc *v1.PersistentVolumeClaim) {
	r.volumes.SetPVC(pvc)
	r.retries.onEvent(resourceEvent(framework.PersistentVolumeClaim, changeOf(old), "PersistentVolumeClaimChange"))
}

// DeletePVC forgets a PersistentVolumeClaim.
func (r *ResourceEvents) DeletePVC(pvc *v1.PersistentVolumeClaim) {
	r.volumes.RemovePVC(framework.PVCKey(pvc.Namespace, pvc.Name))
	r.retries.onEvent(resourceEvent(framework.PersistentVolumeClaim, framework.Delete, "PersistentVolumeClaimDelete"))
}

// UpdateStorageClass records a StorageClass (nil old for a new one).
func (r *ResourceEvents) UpdateStorageClass(old, sc *storagev1.StorageClass) {
	r.volumes.SetStorageClass(sc)
	r.retries.onEvent(resourceEvent(framework.StorageClass, changeOf(old), "StorageClassChange"))
}

// DeleteStorageClass forgets a StorageClass.
func (r *ResourceEvents) DeleteStorageClass(sc *storagev1.StorageClass) {
	r.volumes.RemoveStorageClass(sc.Name)
}

// UpdateCSINode records a CSINode (nil old for a new one).
func (r *ResourceEvents) UpdateCSINode(old, n *storagev1.CSINode) {
	r.volumes.SetCSINode(n)
	r.retries.onEvent(resourceEvent(framework.CSINode, changeOf(old), "CSINodeChange"))
}

// DeleteCSINode forgets a CSINode.
func (r *ResourceEvents) DeleteCSINode(n *storagev1.CSINode) {
	r.volumes.RemoveCSINode(n.Name)
	r.retries.onEvent(resourceEvent(framework.CSINode, framework.Delete, "CSINodeDelete"))
}

// UpdateCSIDriver records a CSIDriver (nil old for a new one).
func (r *ResourceEvents) UpdateCSIDriver(old, d *storagev1.CSIDriver) {
	r.volumes.SetCSIDriver(d)
	r.retries.onEvent(resourceEvent(framework.CSIDriver, changeOf(old), "CSIDriverChange"))
}

// DeleteCSIDriver forgets a CSIDriver.
func (r *ResourceEvents) DeleteCSIDriver(d *storagev1.CSIDriver) {
	r.volumes.RemoveCSIDriver(d.Name)
	r.retries.onEvent(resourceEvent(framework.CSIDriver, framework.Delete, "CSIDriverDelete"))
}

// UpdateCSIStorageCapacity records a CSIStorageCapacity (nil old for a new one).
func (r *ResourceEvents) UpdateCSIStorageCapacity(old, c *storagev1.CSIStorageCapacity) {
	r.volumes.SetStorageCapacity(c)
	r.retries.onEvent(resourceEvent(framework.CSIStorageCapacity, changeOf(old), "CSIStorageCapacityChange"))
}

// DeleteCSIStorageCapacity forgets a CSIStorageCapacity.
func (r *ResourceEvents) DeleteCSIStorageCapacity(c *storagev1.CSIStorageCapacity) {
	r.volumes.RemoveStorageCapacity(framework.PVCKey(c.Namespace, c.Name))
	r.retries.onEvent(resourceEvent(framework.CSIStorageCapacity, framework.Delete, "CSIStorageCapacityDelete"))
}

// UpdateVolumeAttachment records a VolumeAttachment (nil old for a new one).
func (r *ResourceEvents) UpdateVolumeAttachment(old, a *storagev1.VolumeAttachment) {
	r.volumes.SetVolumeAttachment(a)
	r.retries.onEvent(resourceEvent(framework.VolumeAttachment, changeOf(old), "VolumeAttachmentChange"))
}

// DeleteVolumeAttachment forgets a VolumeAttachment: its volume is detached.
func (r *ResourceEvents) DeleteVolumeAttachment(a *storagev1.VolumeAttachment) {
	r.volumes.RemoveVolumeAttachment(a.Name)
	r.retries.onEvent(resourceEvent(framework.VolumeAttachment, framework.Delete, "VolumeAttachmentDelete"))
}

// UpdateResourceClaim records a ResourceClaim (nil old for a new one).
func (r *ResourceEvents) UpdateResourceClaim(old, c *resourceapi.ResourceClaim) {
	r.devices.SetResourceClaim(c)
	r.retries.onEvent(resourceEvent(framework.ResourceClaim, changeOf(old), "ResourceClaimChange"))
	r.preemptions.ClaimsChanged()
}

// DeleteResourceClaim forgets a ResourceClaim; its devices are free.
func (r *ResourceEvents) DeleteResourceClaim(c *resourceapi.ResourceClaim) {
	r.devices.RemoveResourceClaim(c.Namespace + "/" + c.Name)
	r.retries.onEvent(resourceEvent(framework.ResourceClaim, framework.Delete, "ResourceClaimDelete"))
	r.preemptions.ClaimsChanged()
}

// UpdateResourceSlice records a ResourceSlice (nil old for a new one).
func (r *ResourceEvents) UpdateResourceSlice(old, sl *resourceapi.ResourceSlice) {
	r.devices.SetResourceSlice(sl)
	r.retries.onEvent(resourceEvent(framework.ResourceSlice, changeOf(old), "ResourceSliceChange"))
}

// DeleteResourceSlice forgets a ResourceSlice.
func (r *ResourceEvents) DeleteResourceSlice(sl *resourceapi.ResourceSlice) {
	r.devices.RemoveResourceSlice(sl.Name)
	r.retries.onEvent(resourceEvent(framework.ResourceSlice, framework.Delete, "ResourceSliceDelete"))
}

// UpdateDeviceClass records a DeviceClass (nil old for a new one).
func (r *ResourceEvents) UpdateDeviceClass(old, dc *resourceapi.DeviceClass) {
	r.devices.SetDeviceClass(dc)
	r.retries.onEvent(resourceEvent(framework.DeviceClass, changeOf(old), "DeviceClassChange"))
}

// DeleteDeviceClass forgets a DeviceClass.
func (r *ResourceEvents) DeleteDeviceClass(dc *resourceapi.DeviceClass) {
	r.devices.RemoveDeviceClass(dc.Name)
}

// UpdateDeviceTaintRule records a DeviceTaintRule (nil old for a new one). kube-scheduler
// sees a rule through its slice tracker, as an update of the slices whose devices' taints
// it changes; so are pods retried here, only when some device's taints changed.
func (r *ResourceEvents) UpdateDeviceTaintRule(old, dtr *resourceapi.DeviceTaintRule) {
	if r.devices.SetDeviceTaintRule(dtr) {
		r.retries.onEvent(resourceEvent(framework.ResourceSlice, framework.UpdateOther, "ResourceSliceChange"))
	}
}

// DeleteDeviceTaintRule forgets a DeviceTaintRule: the devices it tainted are untainted.
func (r *ResourceEvents) DeleteDeviceTaintRule(dtr *resourceapi.DeviceTaintRule) {
	if r.devices.RemoveDeviceTaintRule(dtr.Name) {
		r.retries.onEvent(resourceEvent(framework.ResourceSlice, framework.UpdateOther, "ResourceSliceChange"))
	}
}
