package admission

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/manifest"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/dynamic-resource-allocation/cel"
)

// Resources are the storage and Dynamic Resource Allocation objects of a scenario, in
// input order.
type Resources struct {
	StorageClasses []*storagev1.StorageClass
	PVs            []*v1.PersistentVolume
	PVCs           []*v1.PersistentVolumeClaim
	CSINodes       []*storagev1.CSINode
	CSIDrivers     []*storagev1.CSIDriver
	Capacities     []*storagev1.CSIStorageCapacity
	Attachments    []*storagev1.VolumeAttachment
	DeviceClasses  []*resourceapi.DeviceClass
	Slices         []*resourceapi.ResourceSlice
	TaintRules     []*resourceapi.DeviceTaintRule
	Claims         []*resourceapi.ResourceClaim
	Templates      []*resourceapi.ResourceClaimTemplate
}

func (r *Resources) add(obj any) {
	switch t := obj.(type) {
	case *storagev1.StorageClass:
		r.StorageClasses = append(r.StorageClasses, t)
	case *v1.PersistentVolume:
		r.PVs = append(r.PVs, t)
	case *v1.PersistentVolumeClaim:
		r.PVCs = append(r.PVCs, t)
	case *storagev1.CSINode:
		r.CSINodes = append(r.CSINodes, t)
	case *storagev1.CSIDriver:
		r.CSIDrivers = append(r.CSIDrivers, t)
	case *storagev1.CSIStorageCapacity:
		r.Capacities = append(r.Capacities, t)
	case *storagev1.VolumeAttachment:
		r.Attachments = append(r.Attachments, t)
	case *resourceapi.DeviceClass:
		r.DeviceClasses = append(r.DeviceClasses, t)
	case *resourceapi.ResourceSlice:
		r.Slices = append(r.Slices, t)
	case *resourceapi.DeviceTaintRule:
		r.TaintRules = append(r.TaintRules, t)
	case *resourceapi.ResourceClaim:
		r.Claims = append(r.Claims, t)
	case *resourceapi.ResourceClaimTemplate:
		r.Templates = append(r.Templates, t)
	}
}

// celCompiler checks CEL selectors as the API server does when it admits a claim or class.
var celCompiler = cel.GetCompiler(cel.Features{})

// admitResources applies the API server's defaults to the storage and DRA objects and
// refuses what it would: every error of every object.
func (sc *Scenario) admitResources(unique func(any, string) error) error {
	r := &sc.Resources
	// admit checks an object's metadata, name and the errors of its kind's validation.
	admit := func(obj any, kind string, m *metav1.ObjectMeta, namespaced bool, validate func() field.ErrorList) {
		if namespaced {
			defaultNamespace(m)
		}
		ns := ""
		if namespaced {
			ns = m.Namespace
		}
		desc := manifest.Describe(kind, ns, m.Name)
		if sc.checkMeta(obj, desc, m, namespaced) != nil || unique(obj, desc) != nil {
			return
		}
		_ = sc.reject(obj, desc, validate())
	}
	for _, c := range r.StorageClasses {
		if c.VolumeBindingMode == nil {
			mode := storagev1.VolumeBindingImmediate
			c.VolumeBindingMode = &mode
		}
		admit(c, "StorageClass", &c.ObjectMeta, false, func() field.ErrorList { return storageClassErrors(c) })
	}
	for _, pv := range r.PVs {
		if pv.Status.Phase == "" {
			pv.Status.Phase = v1.VolumeAvailable
			if pv.Spec.ClaimRef != nil {
				pv.Status.Phase = v1.VolumeBound
			}
		}
		admit(pv, "PersistentVolume", &pv.ObjectMeta, false, func() field.ErrorList { return pvErrors(pv) })
	}
	for _, pvc := range r.PVCs {
		if pvc.Status.Phase == "" {
			pvc.Status.Phase = v1.ClaimPending
		}
		admit(pvc, "PersistentVolumeClaim", &pvc.ObjectMeta, true, func() field.ErrorList { return pvcErrors(pvc) })
	}
	for _, n := range r.CSINodes {
		admit(n, "CSINode", &n.ObjectMeta, false, func() field.ErrorList { return csiNodeErrors(n) })
	}
	for _, d := range r.CSIDrivers {
		defaultCSIDriver(d)
		admit(d, "CSIDriver", &d.ObjectMeta, false, func() field.ErrorList { return csiDriverErrors(d) })
	}
	for _, c := range r.Capacities {
		admit(c, "CSIStorageCapacity", &c.ObjectMeta, true, func() field.ErrorList { return storageCapacityErrors(c) })
	}
	for _, a := range r.Attachments {
		admit(a, "VolumeAttachment", &a.ObjectMeta, false, func() field.ErrorList { return volumeAttachmentErrors(a) })
	}
	for _, dc := range r.DeviceClasses {
		admit(dc, "DeviceClass", &dc.ObjectMeta, false, func() field.ErrorList {
			return checkSelectors(dc.Spec.Selectors, field.NewPath("spec", "selectors"))
		})
	}
	for _, s := range r.Slices {
		admit(s, "ResourceSlice", &s.ObjectMeta, false, func() field.ErrorList { return checkSlice(s) })
	}
	for _, dtr := range r.TaintRules {
		// Status is the eviction controller's; the API server drops it on create.
		dtr.Status = resourceapi.DeviceTaintRuleStatus{}
		admit(dtr, "DeviceTaintRule", &dtr.ObjectMeta, false, func() field.ErrorList { return deviceTaintRuleErrors(dtr) })
	}
	for _, c := range r.Claims {
		admit(c, "ResourceClaim", &c.ObjectMeta, true, func() field.ErrorList { return defaultAndCheckClaimSpec(&c.Spec, field.NewPath("spec")) })
	}
	for _, t := range r.Templates {
		admit(t, "ResourceClaimTemplate", &t.ObjectMeta, true, func() field.ErrorList {
			return defaultAndCheckClaimSpec(&t.Spec.Spec, field.NewPath("spec", "spec"))
		})
	}
	return nil
}

// defaultAndCheckClaimSpec defaults each exact request to one device (ExactCount, count
// 1), as the API server does, and checks that every request names a class and that its
// selectors compile.
func defaultAndCheckClaimSpec(spec *resourceapi.ResourceClaimSpec, path *field.Path) field.ErrorList {
	reqs := path.Child("devices", "requests")
	seen := map[string]bool{}
	var errs field.ErrorList
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		p := reqs.Index(i)
		switch {
		case r.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case seen[r.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), r.Name))
		}
		seen[r.Name] = true
		if (r.Exactly == nil) == (len(r.FirstAvailable) == 0) {
			errs = append(errs, field.Invalid(p, r.Name, "exactly one of exactly or firstAvailable must be set"))
			continue
		}
		if r.Exactly != nil {
			errs = append(errs, defaultExact(r.Exactly, p.Child("exactly"))...)
			continue
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			sp := p.Child("firstAvailable").Index(j)
			if sub.DeviceClassName == "" {
				errs = append(errs, field.Required(sp.Child("deviceClassName"), ""))
			}
			if sub.AllocationMode == "" {
				sub.AllocationMode = resourceapi.DeviceAllocationModeExactCount
			}
			if sub.AllocationMode == resourceapi.DeviceAllocationModeExactCount && sub.Count == 0 {
				sub.Count = 1
			}
			errs = append(errs, checkSelectors(sub.Selectors, sp.Child("selectors"))...)
		}
	}
	return errs
}

func defaultExact(r *resourceapi.ExactDeviceRequest, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if r.DeviceClassName == "" {
		errs = append(errs, field.Required(p.Child("deviceClassName"), ""))
	}
	switch r.AllocationMode {
	case "":
		r.AllocationMode = resourceapi.DeviceAllocationModeExactCount
	case resourceapi.DeviceAllocationModeExactCount, resourceapi.DeviceAllocationModeAll:
	default:
		errs = append(errs, field.NotSupported(p.Child("allocationMode"), r.AllocationMode,
			[]resourceapi.DeviceAllocationMode{resourceapi.DeviceAllocationModeAll, resourceapi.DeviceAllocationModeExactCount}))
	}
	if r.AllocationMode == resourceapi.DeviceAllocationModeExactCount {
		if r.Count == 0 {
			r.Count = 1
		}
		if r.Count < 0 {
			errs = append(errs, field.Invalid(p.Child("count"), r.Count, "must be greater than zero"))
		}
	}
	return append(errs, checkSelectors(r.Selectors, p.Child("selectors"))...)
}

// checkSelectors compiles each CEL selector, as the API server's validation does.
func checkSelectors(sels []resourceapi.DeviceSelector, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range sels {
		if s.CEL == nil {
			errs = append(errs, field.Required(path.Index(i).Child("cel"), ""))
			continue
		}
		res := celCompiler.CompileCELExpression(s.CEL.Expression, cel.Options{})
		if res.Error != nil {
			errs = append(errs, field.Invalid(path.Index(i).Child("cel", "expression"), s.CEL.Expression, res.Error.Error()))
		}
	}
	return errs
}

// checkSlice checks what the allocator relies on: a driver, a pool, exactly one way of
// saying which nodes see the devices, and unique device names.
func checkSlice(s *resourceapi.ResourceSlice) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if s.Spec.Driver == "" {
		errs = append(errs, field.Required(spec.Child("driver"), ""))
	}
	if s.Spec.Pool.Name == "" {
		errs = append(errs, field.Required(spec.Child("pool", "name"), ""))
	}
	if s.Spec.Pool.ResourceSliceCount == 0 {
		s.Spec.Pool.ResourceSliceCount = 1
	}
	ways := 0
	if s.Spec.NodeName != nil && *s.Spec.NodeName != "" {
		ways++
	}
	if s.Spec.NodeSelector != nil {
		ways++
	}
	if s.Spec.AllNodes != nil && *s.Spec.AllNodes {
		ways++
	}
	if s.Spec.PerDeviceNodeSelection != nil && *s.Spec.PerDeviceNodeSelection {
		ways++
	}
	if ways != 1 {
		errs = append(errs, field.Invalid(spec, fmt.Sprint(ways), "exactly one of nodeName, nodeSelector, allNodes or perDeviceNodeSelection must be set"))
	}
	seen := map[string]bool{}
	for i, d := range s.Spec.Devices {
		p := spec.Child("devices").Index(i).Child("name")
		switch {
		case d.Name == "":
			errs = append(errs, field.Required(p, ""))
		case seen[d.Name]:
			errs = append(errs, field.Duplicate(p, d.Name))
		}
		seen[d.Name] = true
	}
	return errs
}
