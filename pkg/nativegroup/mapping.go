package nativegroup

import (
	"fmt"

	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// APIVersion is the native API's group and version, as objects' apiVersion names it.
var APIVersion = schedulingv1alpha2.SchemeGroupVersion.String()

// Kinds of the native API.
const (
	KindPodGroup = "PodGroup"
	KindWorkload = "Workload"
)

// IsNative reports whether a PodGroup was mapped from a native one. ToPodGroup gives the
// mapped group the native object's apiVersion and kind, so that its status goes back to
// the native object and events regard it (client-go builds an event's reference from an
// object's own apiVersion and kind when it has them).
func IsNative(pg *v1alpha1.PodGroup) bool {
	return pg != nil && pg.APIVersion == APIVersion && pg.Kind == KindPodGroup
}

// ToPodGroup maps a native PodGroup, and the Workload whose template it refers to (nil when
// it refers to none, or the Workload is not there), onto the PodGroup phalanx schedules:
//
//   - schedulingPolicy: gang and basic as they are;
//   - disruptionMode: Pod is single, PodGroup is all, unset is single;
//   - priorityClassName and priority as they are (the scheduler resolves the class when
//     priority is unset); preemptionPolicy comes from the class, as native PodGroups
//     have none;
//   - schedulingConstraints.topology: each key a Required level (the native API has
//     neither nested levels nor Preferred ones: those need the CRD);
//   - status.conditions as they are, so that phalanx's writes build on them.
//
// The group's own fields win; the optional ones it leaves unset are taken from its Workload
// template (controllers copy only some: the Job controller copies the scheduling policy
// alone, which the API requires on the group).
//   - resourceClaims as they are, and the claims its status names (upstream's
//     ResourceClaim controller makes them from templates and records them there);
//
// What the API server accepts but phalanx cannot schedule (disruption mode PodGroup on a
// basic group, a Workload or template that is not there) is put on
// the result's AnnotationInvalidReason: the scheduler then holds the group and says why
// on its PodGroupScheduled condition and in a Warning event. Malformed fields that the API
// server refuses are mapped as they are, and phalanx's own validation reports them.
func ToPodGroup(pg *schedulingv1alpha2.PodGroup, wl *schedulingv1alpha2.Workload) *v1alpha1.PodGroup {
	spec, errs := effectiveSpec(pg, wl)
	out := &v1alpha1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: KindPodGroup},
		ObjectMeta: *pg.ObjectMeta.DeepCopy(),
		Spec: v1alpha1.PodGroupSpec{
			SchedulingPolicy:      mapPolicy(spec.SchedulingPolicy),
			PriorityClassName:     spec.PriorityClassName,
			Priority:              copyPtr(spec.Priority),
			SchedulingConstraints: mapConstraints(spec.SchedulingConstraints),
		},
	}
	for i := range pg.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, *pg.Status.Conditions[i].DeepCopy())
	}
	mode, err := mapDisruptionMode(spec)
	out.Spec.DisruptionMode = mode
	if err != nil {
		errs = append(errs, err)
	}
	for _, c := range spec.ResourceClaims {
		out.Spec.ResourceClaims = append(out.Spec.ResourceClaims, v1alpha1.PodGroupResourceClaim{
			Name: c.Name, ResourceClaimName: copyPtr(c.ResourceClaimName), ResourceClaimTemplateName: copyPtr(c.ResourceClaimTemplateName)})
	}
	// The claims upstream's ResourceClaim controller made from the group's templates.
	for _, c := range pg.Status.ResourceClaimStatuses {
		out.Status.ResourceClaimStatuses = append(out.Status.ResourceClaimStatuses, v1alpha1.PodGroupResourceClaimStatus{
			Name: c.Name, ResourceClaimName: copyPtr(c.ResourceClaimName)})
	}

	delete(out.Annotations, v1alpha1.AnnotationInvalidReason)
	if len(errs) > 0 {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[v1alpha1.AnnotationInvalidReason] = errs.ToAggregate().Error()
	}
	return out
}

// spec is a native PodGroup's spec with the fields it leaves unset taken from its Workload
// template, remembering which came from the template for messages.
type spec struct {
	schedulingv1alpha2.PodGroupSpec
	template     string
	workload     string
	fromTemplate map[string]bool
}

func (s *spec) path(name string) *field.Path { return field.NewPath("spec", name) }

// from says, for a message, that a field came from the Workload template.
func (s *spec) from(name string) string {
	if !s.fromTemplate[name] {
		return ""
	}
	return fmt.Sprintf(" (from podGroupTemplate %q of Workload %q)", s.template, s.workload)
}

// effectiveSpec fills the fields pg leaves unset from the Workload template it refers to,
// and reports a reference to a Workload or template that is not there.
func effectiveSpec(pg *schedulingv1alpha2.PodGroup, wl *schedulingv1alpha2.Workload) (*spec, field.ErrorList) {
	s := &spec{PodGroupSpec: pg.Spec, fromTemplate: map[string]bool{}}
	ref := pg.Spec.PodGroupTemplateRef
	if ref == nil || ref.Workload == nil {
		return s, nil
	}
	refPath := field.NewPath("spec", "podGroupTemplateRef", "workload")
	if wl == nil || wl.Name != ref.Workload.WorkloadName {
		return s, field.ErrorList{field.NotFound(refPath.Child("workloadName"), ref.Workload.WorkloadName)}
	}
	var tmpl *schedulingv1alpha2.PodGroupTemplate
	for i := range wl.Spec.PodGroupTemplates {
		if wl.Spec.PodGroupTemplates[i].Name == ref.Workload.PodGroupTemplateName {
			tmpl = &wl.Spec.PodGroupTemplates[i]
			break
		}
	}
	if tmpl == nil {
		return s, field.ErrorList{field.NotFound(refPath.Child("podGroupTemplateName"), ref.Workload.PodGroupTemplateName)}
	}
	s.template, s.workload = tmpl.Name, wl.Name
	fill := func(name string, unset bool, take func()) {
		if unset {
			take()
			s.fromTemplate[name] = true
		}
	}
	p := &s.PodGroupSpec
	fill("schedulingConstraints", p.SchedulingConstraints == nil,
		func() { p.SchedulingConstraints = tmpl.SchedulingConstraints })
	fill("resourceClaims", len(p.ResourceClaims) == 0, func() { p.ResourceClaims = tmpl.ResourceClaims })
	fill("disruptionMode", p.DisruptionMode == nil, func() { p.DisruptionMode = tmpl.DisruptionMode })
	// The class and the value go together: a value resolved from one class must not be
	// paired with another class.
	fill("priority", p.PriorityClassName == "" && p.Priority == nil, func() {
		p.PriorityClassName, p.Priority = tmpl.PriorityClassName, tmpl.Priority
	})
	return s, nil
}

func mapPolicy(p schedulingv1alpha2.PodGroupSchedulingPolicy) v1alpha1.PodGroupSchedulingPolicy {
	var out v1alpha1.PodGroupSchedulingPolicy
	if p.Gang != nil {
		out.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	if p.Basic != nil {
		out.Basic = &v1alpha1.BasicSchedulingPolicy{}
	}
	return out
}

// mapDisruptionMode maps Pod to single and PodGroup to all. PodGroup on a basic group is an
// error, as all with basic is for the CRD: the unit of preemption may not be larger than
// the unit of scheduling.
func mapDisruptionMode(s *spec) (*v1alpha1.DisruptionMode, *field.Error) {
	m := s.DisruptionMode
	if m == nil {
		return nil, nil
	}
	switch *m {
	case schedulingv1alpha2.DisruptionModePod:
		return &v1alpha1.DisruptionMode{Single: &v1alpha1.SingleDisruptionMode{}}, nil
	case schedulingv1alpha2.DisruptionModePodGroup:
		if s.SchedulingPolicy.Gang == nil {
			return nil, field.Invalid(s.path("disruptionMode"), *m,
				"may only be used with the gang scheduling policy"+s.from("disruptionMode"))
		}
		return &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}, nil
	}
	return nil, field.NotSupported(s.path("disruptionMode"), *m,
		[]schedulingv1alpha2.DisruptionMode{schedulingv1alpha2.DisruptionModePod, schedulingv1alpha2.DisruptionModePodGroup})
}

func mapConstraints(c *schedulingv1alpha2.PodGroupSchedulingConstraints) *v1alpha1.PodGroupSchedulingConstraints {
	if c == nil {
		return nil
	}
	out := &v1alpha1.PodGroupSchedulingConstraints{}
	for _, t := range c.Topology {
		out.Topology = append(out.Topology, v1alpha1.TopologyConstraint{Key: t.Key, Mode: v1alpha1.TopologyModeRequired})
	}
	return out
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
