package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Messages shared by the Go checks and, word for word, the CRD's CEL rules, so that a user
// reads the same sentence from kubectl and from phalanx simulate.
const (
	msgOnePolicy       = "exactly one of gang or basic must be set"
	msgOneDisruption   = "exactly one of single or all must be set"
	msgAllNeedsGang    = "may only be used with the gang scheduling policy"
	msgRequiredOrdered = "a Required level may not follow a Preferred one"
)

// ValidatePodGroup checks a PodGroup against every rule its CRD enforces, so that the
// simulator, which has no API server, rejects what a cluster would, and that the scheduler can
// refuse a group it was handed without those checks. It also checks that metadata.name is a
// DNS subdomain, as the API server does.
//
// Topology levels go from coarse to fine, and every Required level must come before every
// Preferred one: the preferred levels are then searched inside one domain of the finest
// required level. A Required level under a Preferred one would pin the group to one fine
// domain anyway, leaving the coarser preference nothing to decide, so it is rejected as a
// likely mistake rather than given a meaning.
//
// Priority needs no check: every int32 is a valid priority, and a value outside int32 fails
// to decode. Each error names its field path, e.g.
// "spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be at least 1".
func ValidatePodGroup(pg *PodGroup) field.ErrorList {
	if pg == nil {
		return field.ErrorList{field.Required(field.NewPath("podGroup"), "must not be nil")}
	}
	var errs field.ErrorList
	errs = append(errs, validateObjectName(pg.Name, field.NewPath("metadata", "name"))...)
	errs = append(errs, validateSpec(&pg.Spec, field.NewPath("spec"))...)
	errs = append(errs, validateStatus(&pg.Status, field.NewPath("status"))...)
	return errs
}

func validateSpec(spec *PodGroupSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateSchedulingPolicy(&spec.SchedulingPolicy, path.Child("schedulingPolicy"))...)
	errs = append(errs, validateDisruptionMode(spec.DisruptionMode, spec.SchedulingPolicy.Gang != nil, path.Child("disruptionMode"))...)
	if spec.PriorityClassName != "" {
		errs = append(errs, validateObjectName(spec.PriorityClassName, path.Child("priorityClassName"))...)
	}
	if p := spec.ParentCompositePodGroupName; p != nil {
		errs = append(errs, validateObjectName(*p, path.Child("parentCompositePodGroupName"))...)
	}
	if p := spec.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
		errs = append(errs, field.NotSupported(path.Child("preemptionPolicy"), *p,
			[]corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
	}
	if c := spec.SchedulingConstraints; c != nil {
		errs = append(errs, validateTopology(c.Topology, path.Child("schedulingConstraints", "topology"))...)
		errs = append(errs, validateDeviceTopology(c.DeviceTopology, path.Child("schedulingConstraints", "deviceTopology"))...)
	}
	errs = append(errs, validateResourceClaims(spec.ResourceClaims, path.Child("resourceClaims"))...)
	return errs
}

func validateSchedulingPolicy(p *PodGroupSchedulingPolicy, path *field.Path) field.ErrorList {
	switch {
	case p.Gang == nil && p.Basic == nil:
		return field.ErrorList{field.Required(path, msgOnePolicy)}
	case p.Gang != nil && p.Basic != nil:
		return field.ErrorList{field.Invalid(path, "{gang, basic}", msgOnePolicy)}
	case p.Gang != nil && p.Gang.MinCount < 1:
		return field.ErrorList{field.Invalid(path.Child("gang", "minCount"), p.Gang.MinCount, "must be at least 1")}
	}
	return nil
}

// validateDisruptionMode checks a disruption mode; all is allowed only with the gang policy.
func validateDisruptionMode(m *DisruptionMode, gang bool, path *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	switch {
	case m.Single == nil && m.All == nil:
		errs = append(errs, field.Required(path, msgOneDisruption))
	case m.Single != nil && m.All != nil:
		errs = append(errs, field.Invalid(path, "{single, all}", msgOneDisruption))
	}
	if m.All != nil && !gang {
		errs = append(errs, field.Forbidden(path.Child("all"), msgAllNeedsGang))
	}
	return errs
}

func validateTopology(levels []TopologyConstraint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(levels) > MaxTopologyLevels {
		errs = append(errs, field.TooMany(path, len(levels), MaxTopologyLevels))
	}
	seen := make(map[string]bool, len(levels))
	sawPreferred := false
	for i, level := range levels {
		keyPath, modePath := path.Index(i).Child("key"), path.Index(i).Child("mode")
		switch {
		case level.Key == "":
			errs = append(errs, field.Required(keyPath, "the node label that names this level's domains"))
		case seen[level.Key]:
			errs = append(errs, field.Duplicate(keyPath, level.Key))
		default:
			errs = append(errs, metav1validation.ValidateLabelName(level.Key, keyPath)...)
		}
		seen[level.Key] = true

		switch level.Mode {
		case "", TopologyModeRequired:
			if sawPreferred {
				errs = append(errs, field.Invalid(modePath, TopologyModeRequired, msgRequiredOrdered))
			}
		case TopologyModePreferred:
			sawPreferred = true
		default:
			errs = append(errs, field.NotSupported(modePath, level.Mode,
				[]TopologyMode{TopologyModeRequired, TopologyModePreferred}))
		}
	}
	return errs
}

func validateStatus(st *PodGroupStatus, path *field.Path) field.ErrorList {
	return validatePhaseAndConditions(st.Phase, st.ObservedGeneration, st.Conditions, path)
}

func validatePhaseAndConditions(phase PodGroupPhase, observed int64, conditions []metav1.Condition, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch phase {
	case "", PodGroupPhasePending, PodGroupPhaseScheduled, PodGroupPhasePreempted:
	default:
		errs = append(errs, field.NotSupported(path.Child("phase"), phase,
			[]PodGroupPhase{PodGroupPhasePending, PodGroupPhaseScheduled, PodGroupPhasePreempted}))
	}
	if observed < 0 {
		errs = append(errs, field.Invalid(path.Child("observedGeneration"), observed,
			"must be greater than or equal to 0"))
	}
	errs = append(errs, metav1validation.ValidateConditions(conditions, path.Child("conditions"))...)
	return errs
}

// validateObjectName checks a reference to or the name of an object that must be a DNS
// subdomain, as PodGroup and PriorityClass names are.
func validateObjectName(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}
