package nativegroup

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// ToPodGroup maps a native PodGroup of any version (read by PodGroupFrom), and the Workload
// whose template it refers to (nil when it refers to none, or the Workload is not there),
// onto the PodGroup phalanx schedules:
//
//   - schedulingPolicy: gang and basic as they are;
//   - disruptionMode: single and all as they are (v1alpha2's Pod and PodGroup), unset is
//     single;
//   - priorityClassName, priority and preemptionPolicy as they are (the scheduler resolves
//     the class when they are unset; v1alpha2 groups have no preemptionPolicy, so theirs
//     comes from the class);
//   - schedulingConstraints.topology: each key a Required level (the native API has
//     neither nested levels nor Preferred ones: those need the CRD);
//   - resourceClaims as they are, and the claims its status names (upstream's
//     ResourceClaim controller makes them from templates and records them there);
//   - parentCompositePodGroupName as it is;
//   - status.conditions as they are, so that phalanx's writes build on them.
//
// The group's own fields win; the optional ones it leaves unset are taken from its Workload
// template (controllers copy only some: the Job controller copies the scheduling policy
// alone, which the API requires on the group). The template may sit at any depth of the
// Workload's CompositePodGroupTemplates.
//
// What the API server accepts but phalanx cannot schedule (disruption mode all on a basic
// group, a Workload or template that is not there) is put on the result's
// AnnotationInvalidReason: the scheduler then holds the group and says why on its
// PodGroupScheduled condition and in a Warning event. Malformed fields that the API
// server refuses are mapped as they are, and phalanx's own validation reports them.
func ToPodGroup(pg *PodGroup, wl *Workload) *v1alpha1.PodGroup {
	spec, errs := effectiveSpec(pg, wl)
	out := &v1alpha1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: pg.APIVersion, Kind: KindPodGroup},
		ObjectMeta: *pg.ObjectMeta.DeepCopy(),
		Spec: v1alpha1.PodGroupSpec{
			SchedulingPolicy:            mapPolicy(spec.SchedulingPolicy),
			PriorityClassName:           spec.PriorityClassName,
			Priority:                    copyPtr(spec.Priority),
			PreemptionPolicy:            mapPreemptionPolicy(spec.PreemptionPolicy),
			SchedulingConstraints:       mapConstraints(spec.SchedulingConstraints),
			ParentCompositePodGroupName: copyPtr(spec.ParentCompositePodGroupName),
		},
	}
	if !isVersion(out.APIVersion) {
		out.APIVersion = V1beta1
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

	setMarkers(&out.ObjectMeta, errs, initiallyScheduled(pg.APIVersion, pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled))
	return out
}

// setMarkers puts on a mapped object's metadata the in-memory markers phalanx reads: why it
// cannot be scheduled (AnnotationInvalidReason), and that it was initially scheduled
// (annotationInitiallyScheduled); markers the native object carried are dropped, so no
// user sets them.
func setMarkers(m *metav1.ObjectMeta, errs field.ErrorList, initially bool) {
	delete(m.Annotations, v1alpha1.AnnotationInvalidReason)
	delete(m.Annotations, annotationInitiallyScheduled)
	set := func(key, value string) {
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[key] = value
	}
	if len(errs) > 0 {
		set(v1alpha1.AnnotationInvalidReason, errs.ToAggregate().Error())
	}
	if initially {
		set(annotationInitiallyScheduled, "true")
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
}

// templateOrigin remembers, for messages, which fields of a native object came from its
// Workload template.
type templateOrigin struct {
	version      string
	template     string
	workload     string
	fromTemplate map[string]bool
}

func (s *templateOrigin) path(name string) *field.Path { return field.NewPath("spec", name) }

// from says, for a message, that a field came from the Workload template.
func (s *templateOrigin) from(name string) string {
	if !s.fromTemplate[name] {
		return ""
	}
	return fmt.Sprintf(" (from %s %q of Workload %q)", templateWord(s.version), s.template, s.workload)
}

// fill takes a field from the template when the object leaves it unset.
func (s *templateOrigin) fill(name string, unset bool, take func()) {
	if unset {
		take()
		s.fromTemplate[name] = true
	}
}

// spec is a native PodGroup's spec with the fields it leaves unset taken from its Workload
// template, remembering which came from the template for messages.
type spec struct {
	schedulingv1beta1.PodGroupSpec
	templateOrigin
}

// templateWord is what the version calls a Workload's PodGroup template in messages.
func templateWord(version string) string {
	if version == V1alpha2 {
		return "podGroupTemplate"
	}
	return "template"
}

// refPaths are the paths of the workload and template names of a PodGroup's reference to
// its template, as the version spells them.
func refPaths(version string) (workload, template *field.Path) {
	if version == V1alpha2 {
		p := field.NewPath("spec", "podGroupTemplateRef", "workload")
		return p.Child("workloadName"), p.Child("podGroupTemplateName")
	}
	p := field.NewPath("spec", "workloadRef")
	return p.Child("workloadName"), p.Child("templateName")
}

// effectiveSpec fills the fields pg leaves unset from the Workload template it refers to,
// and reports a reference to a Workload or template that is not there.
func effectiveSpec(pg *PodGroup, wl *Workload) (*spec, field.ErrorList) {
	s := &spec{PodGroupSpec: pg.Spec, templateOrigin: templateOrigin{version: pg.APIVersion, fromTemplate: map[string]bool{}}}
	ref := pg.Spec.WorkloadRef
	if ref == nil {
		return s, nil
	}
	wlPath, tmplPath := refPaths(s.version)
	if wl == nil || wl.Name != ref.WorkloadName {
		return s, field.ErrorList{field.NotFound(wlPath, ref.WorkloadName)}
	}
	tmpl := FindTemplate(&wl.Spec, ref.TemplateName)
	if tmpl == nil {
		return s, field.ErrorList{field.NotFound(tmplPath, ref.TemplateName)}
	}
	s.template, s.workload = tmpl.Name, wl.Name
	fill := s.fill
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
	fill("preemptionPolicy", p.PreemptionPolicy == nil, func() { p.PreemptionPolicy = tmpl.PreemptionPolicy })
	return s, nil
}

// FindTemplate finds the PodGroup template of a name in a Workload, at any depth of its
// CompositePodGroup templates (names are unique across the whole tree); nil if none.
func FindTemplate(w *schedulingv1beta1.WorkloadSpec, name string) *schedulingv1beta1.PodGroupTemplate {
	var find func(pgs []schedulingv1beta1.PodGroupTemplate, cpgs []schedulingv1beta1.CompositePodGroupTemplate) *schedulingv1beta1.PodGroupTemplate
	find = func(pgs []schedulingv1beta1.PodGroupTemplate, cpgs []schedulingv1beta1.CompositePodGroupTemplate) *schedulingv1beta1.PodGroupTemplate {
		for i := range pgs {
			if pgs[i].Name == name {
				return &pgs[i]
			}
		}
		for i := range cpgs {
			if t := find(cpgs[i].PodGroupTemplates, cpgs[i].CompositePodGroupTemplates); t != nil {
				return t
			}
		}
		return nil
	}
	return find(w.PodGroupTemplates, w.CompositePodGroupTemplates)
}

func mapPolicy(p schedulingv1beta1.PodGroupSchedulingPolicy) v1alpha1.PodGroupSchedulingPolicy {
	var out v1alpha1.PodGroupSchedulingPolicy
	if p.Gang != nil {
		out.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	if p.Basic != nil {
		out.Basic = &v1alpha1.BasicSchedulingPolicy{}
	}
	return out
}

func mapPreemptionPolicy(p *schedulingv1beta1.PreemptionPolicy) *corev1.PreemptionPolicy {
	if p == nil {
		return nil
	}
	v := corev1.PreemptionPolicy(*p)
	return &v
}

// mapDisruptionMode maps single and all as they are. All on a basic group is an error, as
// it is for the CRD: the unit of preemption may not be larger than the unit of scheduling.
func mapDisruptionMode(s *spec) (*v1alpha1.DisruptionMode, *field.Error) {
	m := s.DisruptionMode
	if m == nil {
		return nil, nil
	}
	return disruptionMode(m.All != nil, m.Single != nil, s.SchedulingPolicy.Gang != nil, &s.templateOrigin)
}

// disruptionMode maps a native disruption mode, set, of a group or composite (gang or not)
// whose fields came as origin says.
func disruptionMode(all, single, gang bool, origin *templateOrigin) (*v1alpha1.DisruptionMode, *field.Error) {
	switch {
	case all && single:
		return nil, field.Invalid(origin.path("disruptionMode"), "{all, single}", "must specify exactly one of: `single`, `all`")
	case all && !gang && origin.version == V1alpha2:
		return nil, field.Invalid(origin.path("disruptionMode"), "PodGroup",
			"may only be used with the gang scheduling policy"+origin.from("disruptionMode"))
	case all && !gang:
		return nil, field.Forbidden(origin.path("disruptionMode").Child("all"),
			"may only be used with the gang scheduling policy"+origin.from("disruptionMode"))
	case all:
		return &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}, nil
	}
	return &v1alpha1.DisruptionMode{Single: &v1alpha1.SingleDisruptionMode{}}, nil
}

func mapConstraints(c *schedulingv1beta1.PodGroupSchedulingConstraints) *v1alpha1.PodGroupSchedulingConstraints {
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
