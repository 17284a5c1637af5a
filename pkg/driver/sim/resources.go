package sim

import (
	"fmt"

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
	DeviceClasses  []*resourceapi.DeviceClass
	Slices         []*resourceapi.ResourceSlice
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
	case *resourceapi.DeviceClass:
		r.DeviceClasses = append(r.DeviceClasses, t)
	case *resourceapi.ResourceSlice:
		r.Slices = append(r.Slices, t)
	case *resourceapi.ResourceClaim:
		r.Claims = append(r.Claims, t)
	case *resourceapi.ResourceClaimTemplate:
		r.Templates = append(r.Templates, t)
	}
}

// celCompiler checks CEL selectors as the API server does when it admits a claim or class.
var celCompiler = cel.GetCompiler(cel.Features{})

// admitResources applies the API server's defaults to the storage and DRA objects and
// refuses what it would: missing names and required fields, duplicates, CEL selectors that
// do not compile.
func (sc *Scenario) admitResources(unique func(any, string) error) error {
	r := &sc.Resources
	check := func(obj any, kind string, m *metav1.ObjectMeta, namespaced bool) (string, error) {
		if namespaced {
			defaultNamespace(m)
		}
		ns := ""
		if namespaced {
			ns = m.Namespace
		}
		desc := describe(kind, ns, m.Name)
		if err := sc.checkMeta(obj, desc, m, namespaced); err != nil {
			return desc, err
		}
		return desc, unique(obj, desc)
	}
	for _, c := range r.StorageClasses {
		desc, err := check(c, "StorageClass", &c.ObjectMeta, false)
		if err != nil {
			return err
		}
		if c.Provisioner == "" {
			return sc.errAt(c, desc, "provisioner", "Required value")
		}
		if c.VolumeBindingMode == nil {
			mode := storagev1.VolumeBindingImmediate
			c.VolumeBindingMode = &mode
		}
	}
	for _, pv := range r.PVs {
		desc, err := check(pv, "PersistentVolume", &pv.ObjectMeta, false)
		if err != nil {
			return err
		}
		if _, ok := pv.Spec.Capacity[v1.ResourceStorage]; !ok {
			return sc.errAt(pv, desc, "spec.capacity[storage]", "Required value")
		}
		if len(pv.Spec.AccessModes) == 0 {
			return sc.errAt(pv, desc, "spec.accessModes", "Required value")
		}
		if pv.Status.Phase == "" {
			pv.Status.Phase = v1.VolumeAvailable
			if pv.Spec.ClaimRef != nil {
				pv.Status.Phase = v1.VolumeBound
			}
		}
	}
	for _, pvc := range r.PVCs {
		desc, err := check(pvc, "PersistentVolumeClaim", &pvc.ObjectMeta, true)
		if err != nil {
			return err
		}
		if len(pvc.Spec.AccessModes) == 0 {
			return sc.errAt(pvc, desc, "spec.accessModes", "Required value")
		}
		if _, ok := pvc.Spec.Resources.Requests[v1.ResourceStorage]; !ok {
			return sc.errAt(pvc, desc, "spec.resources.requests[storage]", "Required value")
		}
		if pvc.Status.Phase == "" {
			pvc.Status.Phase = v1.ClaimPending
		}
	}
	for _, n := range r.CSINodes {
		if _, err := check(n, "CSINode", &n.ObjectMeta, false); err != nil {
			return err
		}
	}
	for _, dc := range r.DeviceClasses {
		desc, err := check(dc, "DeviceClass", &dc.ObjectMeta, false)
		if err != nil {
			return err
		}
		if fe := checkSelectors(dc.Spec.Selectors, field.NewPath("spec", "selectors")); fe != nil {
			return sc.errAt(dc, desc, fe.Field, fe.ErrorBody())
		}
	}
	for _, s := range r.Slices {
		desc, err := check(s, "ResourceSlice", &s.ObjectMeta, false)
		if err != nil {
			return err
		}
		if fe := checkSlice(s); fe != nil {
			return sc.errAt(s, desc, fe.Field, fe.ErrorBody())
		}
	}
	for _, c := range r.Claims {
		desc, err := check(c, "ResourceClaim", &c.ObjectMeta, true)
		if err != nil {
			return err
		}
		if fe := defaultAndCheckClaimSpec(&c.Spec, field.NewPath("spec")); fe != nil {
			return sc.errAt(c, desc, fe.Field, fe.ErrorBody())
		}
	}
	for _, t := range r.Templates {
		desc, err := check(t, "ResourceClaimTemplate", &t.ObjectMeta, true)
		if err != nil {
			return err
		}
		if fe := defaultAndCheckClaimSpec(&t.Spec.Spec, field.NewPath("spec", "spec")); fe != nil {
			return sc.errAt(t, desc, fe.Field, fe.ErrorBody())
		}
	}
	return nil
}

// defaultAndCheckClaimSpec defaults each exact request to one device (ExactCount, count
// 1), as the API server does, and checks that every request names a class and that its
// selectors compile.
func defaultAndCheckClaimSpec(spec *resourceapi.ResourceClaimSpec, path *field.Path) *field.Error {
	reqs := path.Child("devices", "requests")
	seen := map[string]bool{}
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		p := reqs.Index(i)
		switch {
		case r.Name == "":
			return field.Required(p.Child("name"), "")
		case seen[r.Name]:
			return field.Duplicate(p.Child("name"), r.Name)
		case (r.Exactly == nil) == (len(r.FirstAvailable) == 0):
			return field.Invalid(p, r.Name, "exactly one of exactly or firstAvailable must be set")
		}
		seen[r.Name] = true
		if r.Exactly != nil {
			if fe := defaultExact(r.Exactly, p.Child("exactly")); fe != nil {
				return fe
			}
			continue
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			sp := p.Child("firstAvailable").Index(j)
			if sub.DeviceClassName == "" {
				return field.Required(sp.Child("deviceClassName"), "")
			}
			if sub.AllocationMode == "" {
				sub.AllocationMode = resourceapi.DeviceAllocationModeExactCount
			}
			if sub.AllocationMode == resourceapi.DeviceAllocationModeExactCount && sub.Count == 0 {
				sub.Count = 1
			}
			if fe := checkSelectors(sub.Selectors, sp.Child("selectors")); fe != nil {
				return fe
			}
		}
	}
	return nil
}

func defaultExact(r *resourceapi.ExactDeviceRequest, p *field.Path) *field.Error {
	if r.DeviceClassName == "" {
		return field.Required(p.Child("deviceClassName"), "")
	}
	switch r.AllocationMode {
	case "":
		r.AllocationMode = resourceapi.DeviceAllocationModeExactCount
	case resourceapi.DeviceAllocationModeExactCount, resourceapi.DeviceAllocationModeAll:
	default:
		return field.NotSupported(p.Child("allocationMode"), r.AllocationMode,
			[]resourceapi.DeviceAllocationMode{resourceapi.DeviceAllocationModeAll, resourceapi.DeviceAllocationModeExactCount})
	}
	if r.AllocationMode == resourceapi.DeviceAllocationModeExactCount {
		if r.Count == 0 {
			r.Count = 1
		}
		if r.Count < 0 {
			return field.Invalid(p.Child("count"), r.Count, "must be greater than zero")
		}
	}
	return checkSelectors(r.Selectors, p.Child("selectors"))
}

// checkSelectors compiles each CEL selector, as the API server's validation does.
func checkSelectors(sels []resourceapi.DeviceSelector, path *field.Path) *field.Error {
	for i, s := range sels {
		if s.CEL == nil {
			return field.Required(path.Index(i).Child("cel"), "")
		}
		res := celCompiler.CompileCELExpression(s.CEL.Expression, cel.Options{})
		if res.Error != nil {
			return field.Invalid(path.Index(i).Child("cel", "expression"), s.CEL.Expression, res.Error.Error())
		}
	}
	return nil
}

// checkSlice checks what the allocator relies on: a driver, a pool, exactly one way of
// saying which nodes see the devices, and unique device names.
func checkSlice(s *resourceapi.ResourceSlice) *field.Error {
	spec := field.NewPath("spec")
	switch {
	case s.Spec.Driver == "":
		return field.Required(spec.Child("driver"), "")
	case s.Spec.Pool.Name == "":
		return field.Required(spec.Child("pool", "name"), "")
	case s.Spec.Pool.ResourceSliceCount == 0:
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
		return field.Invalid(spec, fmt.Sprint(ways), "exactly one of nodeName, nodeSelector, allNodes or perDeviceNodeSelection must be set")
	}
	seen := map[string]bool{}
	for i, d := range s.Spec.Devices {
		p := spec.Child("devices").Index(i).Child("name")
		switch {
		case d.Name == "":
			return field.Required(p, "")
		case seen[d.Name]:
			return field.Duplicate(p, d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}
