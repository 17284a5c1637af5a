package nativegroup

import (
	"context"
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Kubernetes 1.37 validates v1beta1 and v1alpha3 PodGroups and Workloads alike: the
// declarative rules of their types (the same markers in both versions, which k8s.io/api
// generates as Go for v1alpha3 only) and a few hand-written ones (k8s.io/kubernetes
// pkg/apis/scheduling/validation). phalanx runs the generated v1alpha3 functions on either
// version (a v1beta1 object is read into v1alpha3's identical shape first) and repeats the
// hand-written rules, with the gates the e2e control plane turns on.

// gatesOn are the feature gates a v1.37 API server serving the workload API has on, as
// declarative validation options: fields behind them are allowed.
var gatesOn = map[string]bool{
	"TopologyAwareWorkloadScheduling": true,
	"CompositePodGroup":               true,
	"PodGroupPreemptionPolicy":        true,
	"DRAWorkloadResourceClaims":       true,
}

var createV1beta1 = operation.Operation{Type: operation.Create, Options: gatesOn}

// maxTemplateDepth is the depth of a Workload's tree of templates: CompositePodGroup
// templates nest at most maxTemplateDepth-1 deep, PodGroup templates below them.
const maxTemplateDepth = schedulingv1beta1.WorkloadMaxTreeDepth

// asV1alpha3 reads a v1beta1 or v1alpha3 object as v1alpha3's type T, the same shape.
func asV1alpha3[T any](obj any) (*T, error) {
	if o, ok := obj.(*T); ok {
		return o, nil
	}
	out := new(T)
	return out, sameShape(obj, out)
}

// validateV1beta1PodGroup checks a v1beta1 or v1alpha3 PodGroup as the 1.37 API server
// does on creation, after defaulting.
func validateV1beta1PodGroup(obj any) field.ErrorList {
	pg, err := asV1alpha3[schedulingv1alpha3.PodGroup](obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	errs := nameErrors(pg.Name, field.NewPath("metadata", "name"))
	errs = append(errs, schedulingv1alpha3.Validate_PodGroup(context.Background(), createV1beta1, nil, pg, nil)...)
	if pg.Spec.ParentCompositePodGroupName != nil && pg.Spec.WorkloadRef == nil {
		errs = append(errs, field.Required(field.NewPath("spec", "workloadRef"), "must be set when parentCompositePodGroupName is set"))
	}
	return errs
}

// validateV1alpha3Composite checks a v1alpha3 CompositePodGroup as the 1.37 API server does
// on creation (its declarative validation and its name), after defaulting.
func validateV1alpha3Composite(c *schedulingv1alpha3.CompositePodGroup) field.ErrorList {
	errs := nameErrors(c.Name, field.NewPath("metadata", "name"))
	return append(errs, schedulingv1alpha3.Validate_CompositePodGroup(context.Background(), createV1beta1, nil, c, nil)...)
}

// validateV1beta1Workload checks a v1beta1 or v1alpha3 Workload as the 1.37 API server does
// on creation.
func validateV1beta1Workload(obj any) field.ErrorList {
	wl, err := asV1alpha3[schedulingv1alpha3.Workload](obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	errs := nameErrors(wl.Name, field.NewPath("metadata", "name"))
	errs = append(errs, schedulingv1alpha3.Validate_Workload(context.Background(), createV1beta1, nil, wl, nil)...)
	spec := field.NewPath("spec")
	cp := spec.Child("compositePodGroupTemplates")
	errs = append(errs, uniqueTemplateNames(wl.Spec.PodGroupTemplates, wl.Spec.CompositePodGroupTemplates, spec, sets.New[string]())...)
	for i := range wl.Spec.CompositePodGroupTemplates {
		t := &wl.Spec.CompositePodGroupTemplates[i]
		if depth(t) >= maxTemplateDepth {
			errs = append(errs, field.Invalid(cp.Index(i), t.CompositePodGroupTemplates,
				fmt.Sprintf("maximum template hierarchy depth is %d", maxTemplateDepth)))
		}
	}
	errs = append(errs, samePriorityEverywhere(&wl.Spec, spec)...)
	for i := range wl.Spec.CompositePodGroupTemplates {
		errs = append(errs, hasChildren(&wl.Spec.CompositePodGroupTemplates[i], cp.Index(i))...)
	}
	return errs
}

// uniqueTemplateNames: a template's name is unique across the whole tree of a Workload
// (declarative validation already refuses a name twice in one list).
func uniqueTemplateNames(pgs []schedulingv1alpha3.PodGroupTemplate, cpgs []schedulingv1alpha3.CompositePodGroupTemplate,
	path *field.Path, names sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	local := sets.New[string]()
	for i := range pgs {
		if names.Has(pgs[i].Name) {
			errs = append(errs, field.Duplicate(path.Child("podGroupTemplates").Index(i).Child("name"), pgs[i].Name))
		}
		local.Insert(pgs[i].Name)
	}
	names.Insert(local.UnsortedList()...)
	local = sets.New[string]()
	cp := path.Child("compositePodGroupTemplates")
	for i := range cpgs {
		if names.Has(cpgs[i].Name) {
			errs = append(errs, field.Duplicate(cp.Index(i).Child("name"), cpgs[i].Name))
		}
		local.Insert(cpgs[i].Name)
	}
	names.Insert(local.UnsortedList()...)
	for i := range cpgs {
		errs = append(errs, uniqueTemplateNames(cpgs[i].PodGroupTemplates, cpgs[i].CompositePodGroupTemplates, cp.Index(i), names)...)
	}
	return errs
}

func depth(t *schedulingv1alpha3.CompositePodGroupTemplate) int {
	d := 0
	for i := range t.CompositePodGroupTemplates {
		d = max(d, depth(&t.CompositePodGroupTemplates[i]))
	}
	return d + 1
}

// samePriorityEverywhere: every template of a Workload has the same priorityClassName and
// priority.
func samePriorityEverywhere(w *schedulingv1alpha3.WorkloadSpec, path *field.Path) field.ErrorList {
	type prio struct {
		class string
		set   bool
		value int32
	}
	var first *prio
	same := func(class string, p *int32) bool {
		this := prio{class: class}
		if p != nil {
			this.set, this.value = true, *p
		}
		if first == nil {
			first = &this
			return true
		}
		return *first == this
	}
	for _, t := range w.PodGroupTemplates {
		if !same(t.PriorityClassName, t.Priority) {
			return field.ErrorList{field.Invalid(path, nil, "detected multiple priority configurations")}
		}
	}
	var composite func(t *schedulingv1alpha3.CompositePodGroupTemplate) bool
	composite = func(t *schedulingv1alpha3.CompositePodGroupTemplate) bool {
		if !same(t.PriorityClassName, t.Priority) {
			return false
		}
		for i := range t.CompositePodGroupTemplates {
			if !composite(&t.CompositePodGroupTemplates[i]) {
				return false
			}
		}
		for _, c := range t.PodGroupTemplates {
			if !same(c.PriorityClassName, c.Priority) {
				return false
			}
		}
		return true
	}
	for i := range w.CompositePodGroupTemplates {
		if !composite(&w.CompositePodGroupTemplates[i]) {
			return field.ErrorList{field.Invalid(path, nil, "all priority and priorityClassName values must be identical, detected multiple values")}
		}
	}
	return nil
}

// hasChildren: every CompositePodGroup template has a child template.
func hasChildren(t *schedulingv1alpha3.CompositePodGroupTemplate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(t.PodGroupTemplates) == 0 && len(t.CompositePodGroupTemplates) == 0 {
		errs = append(errs, field.Invalid(path, t.Name, "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"))
	}
	for i := range t.CompositePodGroupTemplates {
		errs = append(errs, hasChildren(&t.CompositePodGroupTemplates[i], path.Child("compositePodGroupTemplates").Index(i))...)
	}
	return errs
}

// defaultV1beta1PodGroup applies the API server's default: disruption mode single.
func defaultV1beta1PodGroup(spec *schedulingv1beta1.PodGroupSpec) {
	if spec.DisruptionMode == nil {
		spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	}
}
