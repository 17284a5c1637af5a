package nativegroup

import (
	"context"
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// Validate applies the API server's defaults to a native PodGroup, CompositePodGroup or
// Workload of any version and checks it as that version's API server does on creation, in its words. The
// simulator refuses what it reports, as a cluster would.
func Validate(obj any) field.ErrorList {
	switch o := obj.(type) {
	case *schedulingv1alpha2.PodGroup:
		defaultV1alpha2(o)
		return validateV1alpha2PodGroup(o)
	case *schedulingv1alpha2.Workload:
		return validateV1alpha2Workload(o)
	case *schedulingv1beta1.PodGroup:
		defaultV1beta1PodGroup(&o.Spec)
		return validateV1beta1PodGroup(o)
	case *schedulingv1alpha3.PodGroup:
		if o.Spec.DisruptionMode == nil {
			o.Spec.DisruptionMode = &schedulingv1alpha3.DisruptionMode{Single: &schedulingv1alpha3.SingleDisruptionMode{}}
		}
		return validateV1beta1PodGroup(o)
	case *schedulingv1beta1.Workload, *schedulingv1alpha3.Workload:
		return validateV1beta1Workload(o)
	case *schedulingv1alpha3.CompositePodGroup:
		if o.Spec.DisruptionMode == nil {
			o.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{Single: &schedulingv1alpha3.SingleCompositeDisruptionMode{}}
		}
		return validateV1alpha3Composite(o)
	}
	return field.ErrorList{field.InternalError(nil, fmt.Errorf("not a native PodGroup, CompositePodGroup or Workload: %T", obj))}
}

// The 1.36 API server's limits for the v1alpha2 kinds.
const (
	maxTopologyLevels       = 1
	highestUserPriority     = 1000000000
	lowestPriority          = -2147483648
	maxResourceClaims       = schedulingv1alpha2.MaxPodGroupResourceClaims
	maxPodGroupTemplates    = schedulingv1alpha2.WorkloadMaxPodGroupTemplates
	nativeDisruptionDefault = schedulingv1alpha2.DisruptionModePod
)

// validateV1alpha2PodGroup checks a v1alpha2 PodGroup as the Kubernetes 1.36 API server
// does on creation with the alpha gates on (its declarative validation, same wording),
// after defaultV1alpha2.
func validateV1alpha2PodGroup(pg *schedulingv1alpha2.PodGroup) field.ErrorList {
	errs := nameErrors(pg.Name, field.NewPath("metadata", "name"))
	spec := field.NewPath("spec")
	if ref := pg.Spec.PodGroupTemplateRef; ref != nil {
		errs = append(errs, validateTemplateRef(ref, spec.Child("podGroupTemplateRef"))...)
	}
	errs = append(errs, validateTemplateFields(templateFields{
		policy:      pg.Spec.SchedulingPolicy,
		constraints: pg.Spec.SchedulingConstraints,
		claims:      pg.Spec.ResourceClaims,
		mode:        pg.Spec.DisruptionMode,
		className:   pg.Spec.PriorityClassName,
		priority:    pg.Spec.Priority,
	}, spec)...)
	return errs
}

// validateV1alpha2Workload checks a v1alpha2 Workload as the 1.36 API server does on
// creation.
func validateV1alpha2Workload(wl *schedulingv1alpha2.Workload) field.ErrorList {
	ctx, op := context.Background(), create
	errs := nameErrors(wl.Name, field.NewPath("metadata", "name"))
	spec := field.NewPath("spec")
	if ref := wl.Spec.ControllerRef; ref != nil {
		p := spec.Child("controllerRef")
		if ref.APIGroup != "" {
			errs = append(errs, validate.LongName(ctx, op, p.Child("apiGroup"), &ref.APIGroup, nil)...)
		}
		for _, f := range []struct {
			name  string
			value *string
		}{{"kind", &ref.Kind}, {"name", &ref.Name}} {
			if *f.value == "" {
				errs = append(errs, field.Required(p.Child(f.name), ""))
			} else {
				errs = append(errs, validate.PathSegmentName(ctx, op, p.Child(f.name), f.value, nil)...)
			}
		}
	}
	tp := spec.Child("podGroupTemplates")
	templates := wl.Spec.PodGroupTemplates
	switch {
	case len(templates) == 0:
		return append(errs, field.Required(tp, ""))
	case len(templates) > maxPodGroupTemplates:
		return append(errs, validate.MaxItems(ctx, op, tp, templates, nil, maxPodGroupTemplates)...)
	}
	errs = append(errs, validate.ValSliceUnique(ctx, op, tp, templates, nil, func(a, b *schedulingv1alpha2.PodGroupTemplate) bool {
		return a.Name == b.Name
	})...)
	for i := range templates {
		t := &templates[i]
		p := tp.Index(i)
		if t.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			errs = append(errs, validate.ShortName(ctx, op, p.Child("name"), &t.Name, nil)...)
		}
		errs = append(errs, validateTemplateFields(templateFields{
			policy:      t.SchedulingPolicy,
			constraints: t.SchedulingConstraints,
			claims:      t.ResourceClaims,
			mode:        t.DisruptionMode,
			className:   t.PriorityClassName,
			priority:    t.Priority,
		}, p)...)
	}
	return errs
}

// defaultV1alpha2 applies the 1.36 API server's defaults to a PodGroup: disruption mode Pod.
func defaultV1alpha2(pg *schedulingv1alpha2.PodGroup) {
	if pg.Spec.DisruptionMode == nil {
		m := nativeDisruptionDefault
		pg.Spec.DisruptionMode = &m
	}
}

// create is the operation the API server validates new objects under.
var create = operation.Operation{Type: operation.Create}

var (
	policyUnion = validate.NewUnionMembership(validate.NewUnionMember("basic"), validate.NewUnionMember("gang"))
	refUnion    = validate.NewUnionMembership(validate.NewUnionMember("workload"))
	claimUnion  = validate.NewUnionMembership(validate.NewUnionMember("resourceClaimName"), validate.NewUnionMember("resourceClaimTemplateName"))
	modes       = sets.New(schedulingv1alpha2.DisruptionModePod, schedulingv1alpha2.DisruptionModePodGroup)
)

// templateFields are the fields a PodGroup and a PodGroupTemplate share, validated alike.
type templateFields struct {
	policy      schedulingv1alpha2.PodGroupSchedulingPolicy
	constraints *schedulingv1alpha2.PodGroupSchedulingConstraints
	claims      []schedulingv1alpha2.PodGroupResourceClaim
	mode        *schedulingv1alpha2.DisruptionMode
	className   string
	priority    *int32
}

func validateTemplateFields(f templateFields, path *field.Path) field.ErrorList {
	ctx, op := context.Background(), create
	pp := path.Child("schedulingPolicy")
	errs := validate.Union(ctx, op, pp, &f.policy, nil, policyUnion,
		func(p *schedulingv1alpha2.PodGroupSchedulingPolicy) bool { return p.Basic != nil },
		func(p *schedulingv1alpha2.PodGroupSchedulingPolicy) bool { return p.Gang != nil })
	if g := f.policy.Gang; g != nil {
		mp := pp.Child("gang", "minCount")
		if g.MinCount == 0 {
			errs = append(errs, field.Required(mp, ""))
		} else {
			errs = append(errs, validate.Minimum(ctx, op, mp, &g.MinCount, nil, 1)...)
		}
	}
	if c := f.constraints; c != nil {
		tp := path.Child("schedulingConstraints", "topology")
		errs = append(errs, validate.MaxItems(ctx, op, tp, c.Topology, nil, maxTopologyLevels)...)
		for i := range c.Topology {
			kp := tp.Index(i).Child("key")
			if c.Topology[i].Key == "" {
				errs = append(errs, field.Required(kp, ""))
			} else {
				errs = append(errs, validate.LabelKey(ctx, op, kp, &c.Topology[i].Key, nil)...)
			}
		}
	}
	errs = append(errs, validateClaims(f.claims, path.Child("resourceClaims"))...)
	if f.mode != nil {
		errs = append(errs, validate.Enum(ctx, op, path.Child("disruptionMode"), f.mode, nil, modes, nil)...)
	}
	if f.className != "" {
		errs = append(errs, validate.LongName(ctx, op, path.Child("priorityClassName"), &f.className, nil)...)
	}
	if f.priority != nil {
		prp := path.Child("priority")
		errs = append(errs, validate.Maximum(ctx, op, prp, f.priority, nil, highestUserPriority)...)
		errs = append(errs, validate.Minimum(ctx, op, prp, f.priority, nil, lowestPriority)...)
	}
	return errs
}

func validateClaims(claims []schedulingv1alpha2.PodGroupResourceClaim, path *field.Path) field.ErrorList {
	ctx, op := context.Background(), create
	if len(claims) > maxResourceClaims {
		return validate.MaxItems(ctx, op, path, claims, nil, maxResourceClaims)
	}
	errs := validate.ValSliceUnique(ctx, op, path, claims, nil, func(a, b *schedulingv1alpha2.PodGroupResourceClaim) bool {
		return a.Name == b.Name
	})
	for i := range claims {
		c := &claims[i]
		p := path.Index(i)
		errs = append(errs, validate.Union(ctx, op, p, c, nil, claimUnion,
			func(c *schedulingv1alpha2.PodGroupResourceClaim) bool { return c.ResourceClaimName != nil },
			func(c *schedulingv1alpha2.PodGroupResourceClaim) bool { return c.ResourceClaimTemplateName != nil })...)
		if c.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			errs = append(errs, validate.ShortName(ctx, op, p.Child("name"), &c.Name, nil)...)
		}
		errs = append(errs, validate.LongName(ctx, op, p.Child("resourceClaimName"), c.ResourceClaimName, nil)...)
		errs = append(errs, validate.LongName(ctx, op, p.Child("resourceClaimTemplateName"), c.ResourceClaimTemplateName, nil)...)
	}
	return errs
}

func validateTemplateRef(ref *schedulingv1alpha2.PodGroupTemplateReference, path *field.Path) field.ErrorList {
	ctx, op := context.Background(), create
	errs := validate.Union(ctx, op, path, ref, nil, refUnion,
		func(r *schedulingv1alpha2.PodGroupTemplateReference) bool { return r.Workload != nil })
	w := ref.Workload
	if w == nil {
		return errs
	}
	wp := path.Child("workload")
	if w.WorkloadName == "" {
		errs = append(errs, field.Required(wp.Child("workloadName"), ""))
	} else {
		errs = append(errs, validate.LongName(ctx, op, wp.Child("workloadName"), &w.WorkloadName, nil)...)
	}
	if w.PodGroupTemplateName == "" {
		errs = append(errs, field.Required(wp.Child("podGroupTemplateName"), ""))
	} else {
		errs = append(errs, validate.ShortName(ctx, op, wp.Child("podGroupTemplateName"), &w.PodGroupTemplateName, nil)...)
	}
	return errs
}

// nameErrors checks metadata.name: PodGroup and Workload names are DNS subdomains.
func nameErrors(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "name or generateName is required")}
	}
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}
