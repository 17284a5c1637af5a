package kube

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
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
	UpdateDeviceTaintRule(old, r *resourceapi.DeviceTaintRule)
	DeleteDeviceTaintRule(r *resourceapi.DeviceTaintRule)
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

// DeviceTaintRules are read from resource.k8s.io/v1, as kube-scheduler v1.37's slice
// tracker reads them (DRADeviceTaintRules, GA and on by default).
const (
	deviceTaintRulesVersion  = "resource.k8s.io/v1"
	deviceTaintRulesResource = "devicetaintrules"
)

// resolveTaintRules reports whether the server serves DeviceTaintRules, asking discovery
// as resolveGroupAPIs does. A server that does not (the DRADeviceTaintRules gate turned
// off) has none to read, as kube-scheduler with the gate off reads none: phalanx then
// sees only the taints the slices list, and says so.
func resolveTaintRules(ctx context.Context, disc discovery.DiscoveryInterface, logger klog.Logger) (bool, error) {
	var served bool
	err := askDiscovery(ctx, logger, "DeviceTaintRules", func() error {
		var err error
		served, err = Serves(disc, deviceTaintRulesVersion, deviceTaintRulesResource)
		return err
	})
	if err == nil && !served {
		logger.Info("The API server does not serve DeviceTaintRules (resource.k8s.io/v1 devicetaintrules): devices are tainted only by their ResourceSlices (serve them, then restart phalanx)")
	}
	return served, err
}

// addTaintRuleInformer adds the DeviceTaintRule informer and its handler after the
// ResourceSlices', before the pods', so that the first cycle sees the devices tainted.
func (d *Driver) addTaintRuleInformer() error {
	r := d.sched.Resources()
	inf := d.factory.Resource().V1().DeviceTaintRules().Informer()
	if err := inf.SetTransform(stripManagedFields); err != nil {
		return err
	}
	h := handlerFuncs(Handlers(d.sched), func(o *resourceapi.DeviceTaintRule) { r.UpdateDeviceTaintRule(nil, o) }, r.UpdateDeviceTaintRule, r.DeleteDeviceTaintRule)
	at := slices.IndexFunc(d.informers, func(inf namedInformer) bool { return inf.name == "resourceslices" }) + 1
	d.informers = slices.Insert(d.informers, at, namedInformer{deviceTaintRulesResource, inf})
	d.handlers = slices.Insert(d.handlers, at, cache.ResourceEventHandler(h))
	return nil
}
