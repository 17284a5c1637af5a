package admission

import (
	"reflect"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's validation of the storage kinds, for the fields the simulator reads
// (see validate.go).

var accessModes = []string{string(v1.ReadOnlyMany), string(v1.ReadWriteMany), string(v1.ReadWriteOnce), string(v1.ReadWriteOncePod)}

func accessModeErrors(modes []v1.PersistentVolumeAccessMode, path *field.Path, required string) field.ErrorList {
	if len(modes) == 0 {
		return field.ErrorList{field.Required(path, required)}
	}
	var errs field.ErrorList
	once, other := false, false
	for _, m := range modes {
		switch m {
		case v1.ReadWriteOncePod:
			once = true
		case v1.ReadOnlyMany, v1.ReadWriteMany, v1.ReadWriteOnce:
			other = true
		default:
			errs = append(errs, field.NotSupported(path, m, accessModes))
		}
	}
	if once && other {
		errs = append(errs, field.Forbidden(path, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

func positiveQuantityErrors(q resource.Quantity, path *field.Path) field.ErrorList {
	if q.Sign() <= 0 {
		return field.ErrorList{field.Invalid(path, q.String(), "must be greater than zero")}
	}
	return nil
}

func volumeModeErrors(m *v1.PersistentVolumeMode, path *field.Path) field.ErrorList {
	if m != nil && *m != v1.PersistentVolumeBlock && *m != v1.PersistentVolumeFilesystem {
		return field.ErrorList{field.NotSupported(path, *m, []string{string(v1.PersistentVolumeBlock), string(v1.PersistentVolumeFilesystem)})}
	}
	return nil
}

// sources counts the volume sources set in a VolumeSource or PersistentVolumeSource: the
// API server wants exactly one.
func sources(src any) int {
	v := reflect.ValueOf(src)
	n := 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
		}
	}
	return n
}

func volumeSourceErrors(n int, path *field.Path) field.ErrorList {
	switch {
	case n == 0:
		return field.ErrorList{field.Required(path, "must specify a volume type")}
	case n > 1:
		return field.ErrorList{field.Forbidden(path, "may not specify more than 1 volume type")}
	}
	return nil
}

func pvcErrors(pvc *v1.PersistentVolumeClaim) field.ErrorList {
	errs := metaErrors(&pvc.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	spec := field.NewPath("spec")
	errs = append(errs, accessModeErrors(pvc.Spec.AccessModes, spec.Child("accessModes"), "at least 1 access mode is required")...)
	if s := pvc.Spec.Selector; s != nil {
		errs = append(errs, metavalidation.ValidateLabelSelector(s, metavalidation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	}
	size := spec.Child("resources", "requests").Key(string(v1.ResourceStorage))
	if q, ok := pvc.Spec.Resources.Requests[v1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(size, ""))
	} else {
		errs = append(errs, positiveQuantityErrors(q, size)...)
	}
	if c := pvc.Spec.StorageClassName; c != nil && *c != "" {
		errs = append(errs, nameErrors(*c, apivalidation.NameIsDNSSubdomain, spec.Child("storageClassName"))...)
	}
	return append(errs, volumeModeErrors(pvc.Spec.VolumeMode, spec.Child("volumeMode"))...)
}

func pvErrors(pv *v1.PersistentVolume) field.ErrorList {
	errs := metaErrors(&pv.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	spec := field.NewPath("spec")
	errs = append(errs, accessModeErrors(pv.Spec.AccessModes, spec.Child("accessModes"), "")...)
	capacity := spec.Child("capacity")
	if len(pv.Spec.Capacity) == 0 {
		errs = append(errs, field.Required(capacity, ""))
	}
	if _, ok := pv.Spec.Capacity[v1.ResourceStorage]; !ok || len(pv.Spec.Capacity) > 1 {
		errs = append(errs, field.NotSupported(capacity, pv.Spec.Capacity, []string{string(v1.ResourceStorage)}))
	}
	for _, name := range sortedNames(pv.Spec.Capacity) {
		errs = append(errs, positiveQuantityErrors(pv.Spec.Capacity[name], capacity.Key(string(name)))...)
	}
	if p := pv.Spec.PersistentVolumeReclaimPolicy; p != "" && p != v1.PersistentVolumeReclaimDelete && p != v1.PersistentVolumeReclaimRecycle && p != v1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(spec.Child("persistentVolumeReclaimPolicy"), p, []string{string(v1.PersistentVolumeReclaimDelete), string(v1.PersistentVolumeReclaimRecycle), string(v1.PersistentVolumeReclaimRetain)}))
	}
	if na := pv.Spec.NodeAffinity; na != nil {
		if na.Required == nil {
			errs = append(errs, field.Required(spec.Child("nodeAffinity", "required"), "must specify required node constraints"))
		} else {
			errs = append(errs, nodeSelectorErrors(na.Required, spec.Child("nodeAffinity", "required"))...)
		}
	}
	errs = append(errs, volumeSourceErrors(sources(pv.Spec.PersistentVolumeSource), spec)...)
	if c := pv.Spec.StorageClassName; c != "" {
		errs = append(errs, nameErrors(c, apivalidation.NameIsDNSSubdomain, spec.Child("storageClassName"))...)
	}
	return append(errs, volumeModeErrors(pv.Spec.VolumeMode, spec.Child("volumeMode"))...)
}

func storageClassErrors(c *storagev1.StorageClass) field.ErrorList {
	errs := metaErrors(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	if c.Provisioner == "" {
		errs = append(errs, field.Required(field.NewPath("provisioner"), ""))
	} else {
		for _, msg := range validation.IsQualifiedName(c.Provisioner) {
			errs = append(errs, field.Invalid(field.NewPath("provisioner"), c.Provisioner, msg))
		}
	}
	if p := c.ReclaimPolicy; p != nil && *p != v1.PersistentVolumeReclaimDelete && *p != v1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), *p, []string{string(v1.PersistentVolumeReclaimDelete), string(v1.PersistentVolumeReclaimRetain)}))
	}
	if m := c.VolumeBindingMode; m != nil && *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer {
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), *m, []string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}))
	}
	for i, term := range c.AllowedTopologies {
		p := field.NewPath("allowedTopologies").Index(i)
		if len(term.MatchLabelExpressions) == 0 {
			errs = append(errs, field.Required(p.Child("matchLabelExpressions"), "must contain at least one requirement"))
		}
		for j, e := range term.MatchLabelExpressions {
			ep := p.Child("matchLabelExpressions").Index(j)
			errs = append(errs, metavalidation.ValidateLabelName(e.Key, ep.Child("key"))...)
			if len(e.Values) == 0 {
				errs = append(errs, field.Required(ep.Child("values"), "must specify as least one value"))
			}
		}
	}
	return errs
}

func csiNodeErrors(n *storagev1.CSINode) field.ErrorList {
	errs := metaErrors(&n.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	drivers := field.NewPath("spec", "drivers")
	seen := sets.New[string]()
	for i, d := range n.Spec.Drivers {
		p := drivers.Index(i)
		if d.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if seen.Has(d.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		seen.Insert(d.Name)
		if d.NodeID == "" {
			errs = append(errs, field.Required(p.Child("nodeID"), ""))
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			errs = append(errs, field.Invalid(p.Child("allocatable", "count"), *a.Count, "must be greater than or equal to 0"))
		}
	}
	return errs
}

// csiDriverName is the API server's check of a CSI driver's name (a CSIDriver's name, a
// VolumeAttachment's attacher): at most 63 characters, a DNS subdomain ignoring case.
func csiDriverName(name string, _ bool) []string {
	if name == "" {
		return []string{"name or generateName is required"}
	}
	var msgs []string
	if len(name) > 63 {
		msgs = append(msgs, validation.MaxLenError(63))
	}
	return append(msgs, validation.IsDNS1123Subdomain(strings.ToLower(name))...)
}

// defaultCSIDriver sets the fields the API server defaults on a CSIDriver (v1.37, with
// VolumeLimitScaling and SELinuxMountReadWriteOncePod on).
func defaultCSIDriver(d *storagev1.CSIDriver) {
	no := func() *bool { b := false; return &b }
	s := &d.Spec
	if s.AttachRequired == nil {
		yes := true
		s.AttachRequired = &yes
	}
	if s.PodInfoOnMount == nil {
		s.PodInfoOnMount = no()
	}
	if s.StorageCapacity == nil {
		s.StorageCapacity = no()
	}
	if s.FSGroupPolicy == nil {
		p := storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy
		s.FSGroupPolicy = &p
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	if s.RequiresRepublish == nil {
		s.RequiresRepublish = no()
	}
	if s.SELinuxMount == nil {
		s.SELinuxMount = no()
	}
	if s.PreventPodSchedulingIfMissing == nil {
		s.PreventPodSchedulingIfMissing = no()
	}
}

func csiDriverErrors(d *storagev1.CSIDriver) field.ErrorList {
	errs := metaErrors(&d.ObjectMeta, false, csiDriverName)
	spec := field.NewPath("spec")
	if p := d.Spec.FSGroupPolicy; p != nil && *p != storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy && *p != storagev1.FileFSGroupPolicy && *p != storagev1.NoneFSGroupPolicy {
		errs = append(errs, field.NotSupported(spec.Child("fsGroupPolicy"), *p, []string{string(storagev1.FileFSGroupPolicy), string(storagev1.NoneFSGroupPolicy), string(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)}))
	}
	for _, m := range d.Spec.VolumeLifecycleModes {
		if m != storagev1.VolumeLifecyclePersistent && m != storagev1.VolumeLifecycleEphemeral {
			errs = append(errs, field.NotSupported(spec.Child("volumeLifecycleModes"), m, []string{string(storagev1.VolumeLifecyclePersistent), string(storagev1.VolumeLifecycleEphemeral)}))
		}
	}
	if p := d.Spec.NodeAllocatableUpdatePeriodSeconds; p != nil && *p < 10 {
		errs = append(errs, field.Invalid(spec.Child("nodeAllocatableUpdatePeriodSeconds"), *p, "must be greater than or equal to 10 seconds"))
	}
	if d.Spec.ServiceAccountTokenInSecrets != nil && len(d.Spec.TokenRequests) == 0 {
		errs = append(errs, field.Invalid(spec.Child("serviceAccountTokenInSecrets"), *d.Spec.ServiceAccountTokenInSecrets, "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	return errs
}

func storageCapacityErrors(c *storagev1.CSIStorageCapacity) field.ErrorList {
	errs := metaErrors(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	errs = append(errs, metavalidation.ValidateLabelSelector(c.NodeTopology, metavalidation.LabelSelectorValidationOptions{}, field.NewPath("nodeTopology"))...)
	for _, msg := range apivalidation.NameIsDNSSubdomain(c.StorageClassName, false) {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if c.Capacity != nil && c.Capacity.Sign() < 0 {
		errs = append(errs, field.Invalid(field.NewPath("capacity"), c.Capacity.String(), "must be greater than or equal to 0"))
	}
	return errs
}

// volumeAttachmentErrors: an attachment of an inline volume is checked for having one
// source only (the scheduler counts attachments of PersistentVolumes alone).
func volumeAttachmentErrors(a *storagev1.VolumeAttachment) field.ErrorList {
	errs := metaErrors(&a.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	spec := field.NewPath("spec")
	if a.Spec.Attacher == "" {
		errs = append(errs, field.Required(spec.Child("attacher"), ""))
	} else {
		for _, msg := range csiDriverName(a.Spec.Attacher, false) {
			errs = append(errs, field.Invalid(spec.Child("attacher"), a.Spec.Attacher, msg))
		}
	}
	src := a.Spec.Source
	switch {
	case src.InlineVolumeSpec == nil && src.PersistentVolumeName == nil:
		errs = append(errs, field.Required(spec.Child("source"), "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.InlineVolumeSpec != nil && src.PersistentVolumeName != nil:
		errs = append(errs, field.Forbidden(spec.Child("source"), "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.PersistentVolumeName != nil && *src.PersistentVolumeName == "":
		errs = append(errs, field.Required(spec.Child("source", "persistentVolumeName"), "must specify non empty persistentVolumeName"))
	case src.PersistentVolumeName != nil:
		for _, msg := range apivalidation.NameIsDNSSubdomain(*src.PersistentVolumeName, false) {
			errs = append(errs, field.Invalid(spec.Child("source", "persistentVolumeName"), *src.PersistentVolumeName, msg))
		}
	}
	for _, msg := range apivalidation.NameIsDNSSubdomain(a.Spec.NodeName, false) {
		errs = append(errs, field.Invalid(spec.Child("nodeName"), a.Spec.NodeName, msg))
	}
	return errs
}
