package kube

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// ResourceHandlers are the scheduler's handlers of storage and Dynamic Resource
// Allocation objects; *scheduler.ResourceEvents implements them.
type ResourceHandlers interface {
	UpdatePV(old, pv *v1.PersistentVolume)
	DeletePV(pv *v1.PersistentVolume)
	UpdatePVC(old, pvc *v1.PersistentVolumeClaim)
	DeletePVC(pvc *v1.PersistentVolumeClaim)
	UpdateStorageClass(old, sc *storagev1.StorageClass)
	DeleteStorageClass(sc *storagev1.StorageClass)
	UpdateCSINode(old, n *storagev1.CSINode)
	DeleteCSINode(n *storagev1.CSINode)
	UpdateCSIDriver(old, d *storagev1.CSIDriver)
	DeleteCSIDriver(d *storagev1.CSIDriver)
	UpdateCSIStorageCapacity(old, c *storagev1.CSIStorageCapacity)
	DeleteCSIStorageCapacity(c *storagev1.CSIStorageCapacity)
	UpdateVolumeAttachment(old, a *storagev1.VolumeAttachment)
	DeleteVolumeAttachment(a *storagev1.VolumeAttachment)
	UpdateResourceClaim(old, c *resourceapi.ResourceClaim)
	DeleteResourceClaim(c *resourceapi.ResourceClaim)
	UpdateResourceSlice(old, s *resourceapi.ResourceSlice)
	DeleteResourceSlice(s *resourceapi.ResourceSlice)
	UpdateDeviceClass(old, dc *resourceapi.DeviceClass)
	DeleteDeviceClass(dc *resourceapi.DeviceClass)
}

// resourceInformers are the informers of the objects pods with volumes and devices wait
// for, with the handlers that feed them to the scheduler. They come before pods in the
// driver's lists, so the first cycle knows every claim and device.
func resourceInformers(f informers.SharedInformerFactory, h Handlers, r ResourceHandlers) ([]namedInformer, []cache.ResourceEventHandler) {
	infs := []namedInformer{
		{"storageclasses", f.Storage().V1().StorageClasses().Informer()},
		{"csinodes", f.Storage().V1().CSINodes().Informer()},
		{"csidrivers", f.Storage().V1().CSIDrivers().Informer()},
		{"csistoragecapacities", f.Storage().V1().CSIStorageCapacities().Informer()},
		{"volumeattachments", f.Storage().V1().VolumeAttachments().Informer()},
		{"persistentvolumes", f.Core().V1().PersistentVolumes().Informer()},
		{"persistentvolumeclaims", f.Core().V1().PersistentVolumeClaims().Informer()},
		{"deviceclasses", f.Resource().V1().DeviceClasses().Informer()},
		{"resourceslices", f.Resource().V1().ResourceSlices().Informer()},
		{"resourceclaims", f.Resource().V1().ResourceClaims().Informer()},
	}
	handlers := []cache.ResourceEventHandler{
		handlerFuncs(h, func(o *storagev1.StorageClass) { r.UpdateStorageClass(nil, o) }, r.UpdateStorageClass, r.DeleteStorageClass),
		handlerFuncs(h, func(o *storagev1.CSINode) { r.UpdateCSINode(nil, o) }, r.UpdateCSINode, r.DeleteCSINode),
		handlerFuncs(h, func(o *storagev1.CSIDriver) { r.UpdateCSIDriver(nil, o) }, r.UpdateCSIDriver, r.DeleteCSIDriver),
		handlerFuncs(h, func(o *storagev1.CSIStorageCapacity) { r.UpdateCSIStorageCapacity(nil, o) }, r.UpdateCSIStorageCapacity, r.DeleteCSIStorageCapacity),
		handlerFuncs(h, func(o *storagev1.VolumeAttachment) { r.UpdateVolumeAttachment(nil, o) }, r.UpdateVolumeAttachment, r.DeleteVolumeAttachment),
		handlerFuncs(h, func(o *v1.PersistentVolume) { r.UpdatePV(nil, o) }, r.UpdatePV, r.DeletePV),
		handlerFuncs(h, func(o *v1.PersistentVolumeClaim) { r.UpdatePVC(nil, o) }, r.UpdatePVC, r.DeletePVC),
		handlerFuncs(h, func(o *resourceapi.DeviceClass) { r.UpdateDeviceClass(nil, o) }, r.UpdateDeviceClass, r.DeleteDeviceClass),
		handlerFuncs(h, func(o *resourceapi.ResourceSlice) { r.UpdateResourceSlice(nil, o) }, r.UpdateResourceSlice, r.DeleteResourceSlice),
		handlerFuncs(h, func(o *resourceapi.ResourceClaim) { r.UpdateResourceClaim(nil, o) }, r.UpdateResourceClaim, r.DeleteResourceClaim),
	}
	return infs, handlers
}
