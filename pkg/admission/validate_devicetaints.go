package admission

import (
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// deviceTaintRuleErrors is the API server's validation of a DeviceTaintRule's spec
// (v1.37's ValidateDeviceTaintRule): the selector's driver a CSI driver name, its pool a
// pool name, its device a DNS label; the taint's key a label name, its value a label value,
// its effect one of None, NoSchedule, NoExecute.
func deviceTaintRuleErrors(r *resourceapi.DeviceTaintRule) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if sel := r.Spec.DeviceSelector; sel != nil {
		p := spec.Child("deviceSelector")
		if sel.Driver != nil {
			if *sel.Driver == "" {
				errs = append(errs, field.Required(p.Child("driver"), ""))
			} else {
				errs = append(errs, nameErrors(*sel.Driver, csiDriverName, p.Child("driver"))...)
			}
		}
		if sel.Pool != nil {
			errs = append(errs, poolNameErrors(*sel.Pool, p.Child("pool"))...)
		}
		if sel.Device != nil {
			errs = append(errs, dnsLabelErrors(*sel.Device, p.Child("device"))...)
		}
	}
	t := r.Spec.Taint
	p := spec.Child("taint")
	errs = append(errs, metavalidation.ValidateLabelName(t.Key, p.Child("key"))...)
	if t.Value != "" {
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
		}
	}
	switch t.Effect {
	case "":
		errs = append(errs, field.Required(p.Child("effect"), ""))
	case resourceapi.DeviceTaintEffectNone, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute:
	default:
		errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, []resourceapi.DeviceTaintEffect{
			resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNone}))
	}
	return errs
}

// poolNameErrors: a pool name is required, at most 253 characters, and each of its parts
// between slashes a DNS subdomain.
func poolNameErrors(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	if len(name) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.TooLong(path, "", validation.DNS1123SubdomainMaxLength))
	}
	for _, part := range strings.Split(name, "/") {
		for _, msg := range validation.IsDNS1123Subdomain(part) {
			errs = append(errs, field.Invalid(path, part, msg))
		}
	}
	return errs
}
