package nativegroup

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// Kubernetes 1.37's CompositePodGroup (KEP-6012), served as scheduling.k8s.io/v1alpha3
// only (the CompositePodGroup gate): a group of PodGroups and CompositePodGroups that name
// it as their parent. phalanx maps it onto its own api/v1alpha1.CompositePodGroup, whose
// shape mirrors it, as it maps native PodGroups onto its PodGroup.

// CompositePodGroup is the native CompositePodGroup, as v1alpha3 serves it.
type CompositePodGroup = schedulingv1alpha3.CompositePodGroup

// KindCompositePodGroup is the kind of a CompositePodGroup, in both APIs.
const KindCompositePodGroup = "CompositePodGroup"

// CompositeInitiallyScheduled is the condition that says a native CompositePodGroup's
// subtree was scheduled; once True it stays True (upstream: "a terminal state"). k8s.io/api
// names it only in its documentation.
const CompositeInitiallyScheduled = "CompositePodGroupInitiallyScheduled"

// CompositeFrom reads a native CompositePodGroup (*schedulingv1alpha3.CompositePodGroup),
// its apiVersion and kind set. It does not change its input.
func CompositeFrom(obj any) (*CompositePodGroup, error) {
	c, ok := obj.(*schedulingv1alpha3.CompositePodGroup)
	if !ok {
		return nil, fmt.Errorf("not a native CompositePodGroup: %T", obj)
	}
	out := c.DeepCopy()
	out.TypeMeta = typeMeta(V1alpha3, KindCompositePodGroup)
	return out, nil
}

// IsNativeComposite reports whether a CompositePodGroup was mapped from a native one
// (ToCompositePodGroup keeps its apiVersion and kind, for status and events).
func IsNativeComposite(c *v1alpha1.CompositePodGroup) bool {
	return c != nil && c.Kind == KindCompositePodGroup && c.APIVersion == V1alpha3
}

// ToCompositePodGroup maps a native CompositePodGroup (read by CompositeFrom), and the
// Workload whose CompositePodGroup template it refers to (nil when that Workload is not
// there), onto the CompositePodGroup phalanx schedules: parentCompositePodGroupName,
// schedulingPolicy (gang's minGroupCount, or basic), the topology keys as Required levels,
// disruptionMode (unset is single), priorityClassName, priority and preemptionPolicy as they
// are; status.conditions as they are, so phalanx's writes build on them.
//
// The composite's own fields win; the optional ones it leaves unset come from its template
// (found at any depth of the Workload's CompositePodGroupTemplates). What the API server
// accepts but phalanx cannot schedule (disruption mode all on a basic composite, a Workload
// or template that is not there) is put on AnnotationInvalidReason: the scheduler holds the
// composite's hierarchy and says why on its condition.
func ToCompositePodGroup(c *CompositePodGroup, wl *Workload) *v1alpha1.CompositePodGroup {
	spec, errs := effectiveCompositeSpec(c, wl)
	out := &v1alpha1.CompositePodGroup{
		TypeMeta:   typeMeta(V1alpha3, KindCompositePodGroup),
		ObjectMeta: *c.ObjectMeta.DeepCopy(),
		Spec: v1alpha1.CompositePodGroupSpec{
			ParentCompositePodGroupName: copyPtr(spec.ParentCompositePodGroupName),
			PriorityClassName:           spec.PriorityClassName,
			Priority:                    copyPtr(spec.Priority),
		},
	}
	p := spec.SchedulingPolicy
	if p.Gang != nil {
		out.Spec.SchedulingPolicy.Gang = &v1alpha1.CompositeGangSchedulingPolicy{MinGroupCount: p.Gang.MinGroupCount}
	}
	if p.Basic != nil {
		out.Spec.SchedulingPolicy.Basic = &v1alpha1.BasicSchedulingPolicy{}
	}
	if sc := spec.SchedulingConstraints; sc != nil {
		out.Spec.SchedulingConstraints = &v1alpha1.CompositePodGroupSchedulingConstraints{}
		for _, t := range sc.Topology {
			out.Spec.SchedulingConstraints.Topology = append(out.Spec.SchedulingConstraints.Topology,
				v1alpha1.TopologyConstraint{Key: t.Key, Mode: v1alpha1.TopologyModeRequired})
		}
	}
	if pp := spec.PreemptionPolicy; pp != nil {
		v := corev1.PreemptionPolicy(*pp)
		out.Spec.PreemptionPolicy = &v
	}
	mode, err := compositeDisruptionMode(spec)
	out.Spec.DisruptionMode = mode
	if err != nil {
		errs = append(errs, err)
	}
	for i := range c.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, *c.Status.Conditions[i].DeepCopy())
	}
	setMarkers(&out.ObjectMeta, errs, initiallyScheduled(V1alpha3, c.Status.Conditions, CompositeInitiallyScheduled))
	return out
}

// compositeSpec is a native composite's spec with the fields it leaves unset taken from
// its Workload's CompositePodGroup template.
type compositeSpec struct {
	schedulingv1alpha3.CompositePodGroupSpec
	templateOrigin
}

// compositeRef is the reference to a composite's template, in the shape of a PodGroup's.
func compositeRef(c *CompositePodGroup) *WorkloadReference {
	if r := c.Spec.WorkloadRef; r != nil {
		return &WorkloadReference{WorkloadName: r.WorkloadName, TemplateName: r.TemplateName}
	}
	return nil
}

// effectiveCompositeSpec fills the fields c leaves unset from the CompositePodGroup template
// it refers to, and reports a reference to a Workload or template that is not there.
func effectiveCompositeSpec(c *CompositePodGroup, wl *Workload) (*compositeSpec, field.ErrorList) {
	s := &compositeSpec{CompositePodGroupSpec: c.Spec, templateOrigin: templateOrigin{version: V1alpha3, fromTemplate: map[string]bool{}}}
	ref := c.Spec.WorkloadRef
	if ref == nil {
		return s, nil
	}
	wlPath, tmplPath := refPaths(V1alpha3)
	if wl == nil || wl.Name != ref.WorkloadName {
		return s, field.ErrorList{field.NotFound(wlPath, ref.WorkloadName)}
	}
	found := FindCompositeTemplate(&wl.Spec, ref.TemplateName)
	if found == nil {
		return s, field.ErrorList{field.NotFound(tmplPath, ref.TemplateName)}
	}
	// The template is v1beta1's building blocks, the composite v1alpha3's: the same JSON. The
	// template's own name and children have no place in a composite's spec and are dropped.
	var tmpl schedulingv1alpha3.CompositePodGroupSpec
	if err := sameShape(found, &tmpl); err != nil {
		return s, field.ErrorList{field.InternalError(tmplPath, err)}
	}
	s.template, s.workload = found.Name, wl.Name
	p := &s.CompositePodGroupSpec
	s.fill("schedulingConstraints", p.SchedulingConstraints == nil,
		func() { p.SchedulingConstraints = tmpl.SchedulingConstraints })
	s.fill("disruptionMode", p.DisruptionMode == nil, func() { p.DisruptionMode = tmpl.DisruptionMode })
	// The class and the value go together, as for a PodGroup.
	s.fill("priority", p.PriorityClassName == "" && p.Priority == nil, func() {
		p.PriorityClassName, p.Priority = tmpl.PriorityClassName, tmpl.Priority
	})
	s.fill("preemptionPolicy", p.PreemptionPolicy == nil, func() { p.PreemptionPolicy = tmpl.PreemptionPolicy })
	return s, nil
}

// FindCompositeTemplate finds the CompositePodGroup template of a name in a Workload, at
// any depth; nil if none.
func FindCompositeTemplate(w *schedulingv1beta1.WorkloadSpec, name string) *schedulingv1beta1.CompositePodGroupTemplate {
	var find func(ts []schedulingv1beta1.CompositePodGroupTemplate) *schedulingv1beta1.CompositePodGroupTemplate
	find = func(ts []schedulingv1beta1.CompositePodGroupTemplate) *schedulingv1beta1.CompositePodGroupTemplate {
		for i := range ts {
			if ts[i].Name == name {
				return &ts[i]
			}
			if t := find(ts[i].CompositePodGroupTemplates); t != nil {
				return t
			}
		}
		return nil
	}
	return find(w.CompositePodGroupTemplates)
}

// compositeDisruptionMode maps single and all as for a PodGroup (mapDisruptionMode).
func compositeDisruptionMode(s *compositeSpec) (*v1alpha1.DisruptionMode, *field.Error) {
	m := s.DisruptionMode
	if m == nil {
		return nil, nil
	}
	return disruptionMode(m.All != nil, m.Single != nil, s.SchedulingPolicy.Gang != nil, &s.templateOrigin)
}
