package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// msgCompositeRequiredOnly is the composite's rule, word for word its CRD's CEL rule.
const msgCompositeRequiredOnly = "a composite's topology levels must be Required"

// MaxCompositeDepth is how many levels a hierarchy of CompositePodGroups and PodGroups may
// have (upstream's WorkloadMaxTreeDepth).
const MaxCompositeDepth = 4

// ValidateCompositePodGroup checks a CompositePodGroup against every rule its CRD enforces,
// as ValidatePodGroup does for a PodGroup. Rules that span objects (a parent that exists,
// no cycle, at most MaxCompositeDepth levels) are the scheduler's to check.
func ValidateCompositePodGroup(c *CompositePodGroup) field.ErrorList {
	if c == nil {
		return field.ErrorList{field.Required(field.NewPath("compositePodGroup"), "must not be nil")}
	}
	var errs field.ErrorList
	errs = append(errs, validateObjectName(c.Name, field.NewPath("metadata", "name"))...)
	spec, path := &c.Spec, field.NewPath("spec")
	if p := spec.ParentCompositePodGroupName; p != nil {
		errs = append(errs, validateObjectName(*p, path.Child("parentCompositePodGroupName"))...)
		if *p == c.Name {
			errs = append(errs, field.Invalid(path.Child("parentCompositePodGroupName"), *p, "may not name the composite itself"))
		}
	}
	errs = append(errs, validateCompositePolicy(&spec.SchedulingPolicy, path.Child("schedulingPolicy"))...)
	errs = append(errs, validateDisruptionMode(spec.DisruptionMode, spec.SchedulingPolicy.Gang != nil, path.Child("disruptionMode"))...)
	if spec.PriorityClassName != "" {
		errs = append(errs, validateObjectName(spec.PriorityClassName, path.Child("priorityClassName"))...)
	}
	if p := spec.Priority; p != nil && *p > 1_000_000_000 {
		errs = append(errs, field.Invalid(path.Child("priority"), *p, "must be less than or equal to 1000000000"))
	}
	if p := spec.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
		errs = append(errs, field.NotSupported(path.Child("preemptionPolicy"), *p,
			[]corev1.PreemptionPolicy{corev1.PreemptNever, corev1.PreemptLowerPriority}))
	}
	if c := spec.SchedulingConstraints; c != nil {
		errs = append(errs, validateCompositeTopology(c.Topology, path.Child("schedulingConstraints", "topology"))...)
	}
	st := &c.Status
	errs = append(errs, validatePhaseAndConditions(st.Phase, st.ObservedGeneration, st.Conditions, field.NewPath("status"))...)
	return errs
}

func validateCompositePolicy(p *CompositePodGroupSchedulingPolicy, path *field.Path) field.ErrorList {
	switch {
	case p.Gang == nil && p.Basic == nil:
		return field.ErrorList{field.Required(path, msgOnePolicy)}
	case p.Gang != nil && p.Basic != nil:
		return field.ErrorList{field.Invalid(path, "{gang, basic}", msgOnePolicy)}
	case p.Gang != nil && p.Gang.MinGroupCount < 1:
		return field.ErrorList{field.Invalid(path.Child("gang", "minGroupCount"), p.Gang.MinGroupCount, "must be at least 1")}
	}
	return nil
}

// validateCompositeTopology is validateTopology with every level Required.
func validateCompositeTopology(levels []TopologyConstraint, path *field.Path) field.ErrorList {
	errs := validateTopology(levels, path)
	for i, level := range levels {
		if level.Mode == TopologyModePreferred {
			errs = append(errs, field.Invalid(path.Index(i).Child("mode"), level.Mode, msgCompositeRequiredOnly))
		}
	}
	return errs
}

// IsGang reports whether the composite places its child groups all or nothing.
func (c *CompositePodGroup) IsGang() bool { return c.Spec.SchedulingPolicy.Gang != nil }

// MinGroupCount is how many child groups must fit at once (1 for a basic composite).
func (c *CompositePodGroup) MinGroupCount() int32 {
	if g := c.Spec.SchedulingPolicy.Gang; g != nil {
		return g.MinGroupCount
	}
	return 1
}

// DisruptAll reports whether preemption takes all the composite's child groups together.
func (c *CompositePodGroup) DisruptAll() bool {
	return c.Spec.DisruptionMode != nil && c.Spec.DisruptionMode.All != nil
}

// ParentName is the name of the composite's parent ("" for a root).
func (c *CompositePodGroup) ParentName() string {
	if p := c.Spec.ParentCompositePodGroupName; p != nil {
		return *p
	}
	return ""
}
