package admission

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Kubernetes' own scheduling.k8s.io PodGroups and Workloads (v1beta1 and v1alpha3 as 1.37
// serves them, v1alpha2 as 1.36 did) and CompositePodGroups (v1alpha3), simulated as a
// cluster serving the API with its gates on: admission refuses what that version's API
// server would, the groups and composites are scheduled through pkg/nativegroup's mapping
// like phalanx's own, and phalanx's status writes land on the native objects, in the
// version's condition types.

// Native kinds in messages, apart from phalanx's.
const (
	nativeKind          = "PodGroup.scheduling.k8s.io"
	nativeCompositeKind = "CompositePodGroup.scheduling.k8s.io"
)

// admitNative admits Workloads, then native PodGroups and CompositePodGroups, each in its
// version: defaults, the API server's validation, the PodGroupWorkloadExists admission
// plugin (1.36 only) and the Priority admission plugin. It reads them into nativegroup's
// shape, in input order.
func (sc *Scenario) admitNative(classes *priorityClasses, unique func(any, string) error) error {
	type workloadAt struct {
		wl *nativegroup.Workload
		t  Timing
	}
	workloads := map[string]workloadAt{}
	var groups, composites []any
	for _, in := range sc.nativeInputs {
		switch _, kind := nativeMeta(in); kind {
		case nativegroup.KindPodGroup:
			groups = append(groups, in)
			continue
		case nativegroup.KindCompositePodGroup:
			composites = append(composites, in)
			continue
		}
		desc, err := sc.admitNativeObject(in, "Workload", unique)
		if errors.Is(err, errRejected) {
			continue // its errors are recorded; the next object's are wanted too
		}
		if err != nil {
			return err
		}
		wl, err := nativegroup.WorkloadFrom(in)
		if err != nil {
			_ = sc.errAt(in, desc, "", err.Error())
			continue
		}
		sc.origin[wl] = sc.origin[in]
		sc.Workloads = append(sc.Workloads, wl)
		t, _ := ParseTiming(&wl.ObjectMeta)
		workloads[wl.Namespace+"/"+wl.Name] = workloadAt{wl, t}
	}
	for _, in := range groups {
		desc, err := sc.admitNativeObject(in, nativeKind, unique)
		if errors.Is(err, errRejected) {
			continue
		}
		if err != nil {
			return err
		}
		pg, err := nativegroup.PodGroupFrom(in)
		if err != nil {
			_ = sc.errAt(in, desc, "", err.Error())
			continue
		}
		sc.origin[pg] = sc.origin[in]
		t, _ := ParseTiming(&pg.ObjectMeta)
		if ref := pg.Spec.WorkloadRef; ref != nil && pg.APIVersion == nativegroup.V1alpha2 {
			w, ok := workloads[pg.Namespace+"/"+ref.WorkloadName]
			if fld, msg := workloadRefProblem(ref, w.wl, ok && w.t.CreateAt <= t.CreateAt && (!w.t.HasDelete || w.t.DeleteAt > t.CreateAt)); msg != "" {
				_ = sc.errAt(pg, desc, fld, msg)
				continue
			}
		}
		prio := nativePriority[schedulingv1beta1.PreemptionPolicy]{class: &pg.Spec.PriorityClassName, priority: &pg.Spec.Priority,
			policy: &pg.Spec.PreemptionPolicy, kind: nativegroup.KindPodGroup, noun: "pod group"}
		if pg.APIVersion == nativegroup.V1alpha2 {
			prio.policy = nil
		}
		if err := admitNativePriority(prio, classes, t.CreateAt); err != nil {
			_ = sc.errAt(pg, desc, err.Field, err.ErrorBody())
			continue
		}
		sc.NativePodGroups = append(sc.NativePodGroups, pg)
	}
	for _, in := range composites {
		desc, err := sc.admitNativeObject(in, nativeCompositeKind, unique)
		if errors.Is(err, errRejected) {
			continue
		}
		if err != nil {
			return err
		}
		c, err := nativegroup.CompositeFrom(in)
		if err != nil {
			_ = sc.errAt(in, desc, "", err.Error())
			continue
		}
		sc.origin[c] = sc.origin[in]
		t, _ := ParseTiming(&c.ObjectMeta)
		prio := nativePriority[schedulingv1alpha3.PreemptionPolicy]{class: &c.Spec.PriorityClassName, priority: &c.Spec.Priority,
			policy: &c.Spec.PreemptionPolicy, kind: nativegroup.KindCompositePodGroup, noun: "composite pod group"}
		if err := admitNativePriority(prio, classes, t.CreateAt); err != nil {
			_ = sc.errAt(c, desc, err.Field, err.ErrorBody())
			continue
		}
		sc.NativeComposites = append(sc.NativeComposites, c)
	}
	return nil
}

// nativeMeta returns a native document's metadata and kind (PodGroup, CompositePodGroup or
// Workload); nil for a kind that is none of them (add puts none in nativeInputs).
func nativeMeta(in any) (*metav1.ObjectMeta, string) {
	switch o := in.(type) {
	case *schedulingv1beta1.PodGroup:
		return &o.ObjectMeta, nativegroup.KindPodGroup
	case *schedulingv1alpha3.PodGroup:
		return &o.ObjectMeta, nativegroup.KindPodGroup
	case *schedulingv1alpha2.PodGroup:
		return &o.ObjectMeta, nativegroup.KindPodGroup
	case *schedulingv1alpha3.CompositePodGroup:
		return &o.ObjectMeta, nativegroup.KindCompositePodGroup
	case *schedulingv1beta1.Workload:
		return &o.ObjectMeta, nativegroup.KindWorkload
	case *schedulingv1alpha3.Workload:
		return &o.ObjectMeta, nativegroup.KindWorkload
	case *schedulingv1alpha2.Workload:
		return &o.ObjectMeta, nativegroup.KindWorkload
	}
	return nil, ""
}

// admitNativeObject checks a native document's metadata and name, then defaults and
// validates it in its own version.
func (sc *Scenario) admitNativeObject(in any, kind string, unique func(any, string) error) (string, error) {
	m, _ := nativeMeta(in)
	if m == nil {
		return "", fmt.Errorf("%T is not a native PodGroup, CompositePodGroup or Workload", in)
	}
	defaultNamespace(m)
	desc := manifest.Describe(kind, m.Namespace, m.Name)
	if err := sc.checkMeta(in, desc, m, true); err != nil {
		return "", err
	}
	if err := unique(in, desc); err != nil {
		return "", err
	}
	if err := sc.reject(in, desc, nativegroup.Validate(in)); err != nil {
		return "", err
	}
	return desc, nil
}

// workloadRefProblem is Kubernetes 1.36's PodGroupWorkloadExists admission plugin: the
// Workload must exist when the group is created, with the template named (1.37 has no such
// plugin: a group whose Workload is missing is created, and phalanx holds it).
func workloadRefProblem(ref *schedulingv1beta1.WorkloadReference, wl *nativegroup.Workload, exists bool) (fld, msg string) {
	path := field.NewPath("spec", "podGroupTemplateRef", "workload")
	if !exists {
		return path.Child("workloadName").String(), fmt.Sprintf("Forbidden: PodGroup rejected: Workload %q not found when the PodGroup is created", ref.WorkloadName)
	}
	if nativegroup.FindTemplate(&wl.Spec, ref.TemplateName) != nil {
		return "", ""
	}
	return path.Child("podGroupTemplateName").String(),
		fmt.Sprintf("Forbidden: PodGroup rejected: PodGroupTemplate %q not found in Workload %q", ref.TemplateName, ref.WorkloadName)
}

// nativePriority is what the Priority admission plugin reads and sets on a native object:
// its class, priority and preemptionPolicy (nil for v1alpha2 PodGroups, which have none),
// and how messages name it.
type nativePriority[P ~string] struct {
	class      *string
	priority   **int32
	policy     **P
	kind, noun string
}

// admitNativePriority is the Priority admission plugin for native PodGroups and
// CompositePodGroups: a named class must exist when the object is created and gives its
// priority; without one, the global default class does. As for pods, an explicit priority
// with no class and no global default is kept, and one that contradicts its class is
// refused. From v1beta1 and v1alpha3 on (the PodGroupPreemptionPolicy gate), the class
// also gives the object its preemptionPolicy (PreemptLowerPriority without one), and a
// contradicting one is refused.
func admitNativePriority[P ~string](np nativePriority[P], classes *priorityClasses, createAt time.Duration) *field.Error {
	var pc *schedulingv1.PriorityClass
	if name := *np.class; name != "" {
		if pc = classes.existsAt(classes.byName[name], createAt); pc == nil {
			return &field.Error{Type: field.ErrorTypeNotFound, Field: "spec.priorityClassName", BadValue: name,
				Detail: "no PriorityClass of that name exists when the " + np.kind + " is created"}
		}
	} else if *np.priority == nil {
		if pc = classes.existsAt(classes.globalDefault, createAt); pc != nil {
			*np.class = pc.Name
		}
	}
	if pc != nil {
		if p := *np.priority; p != nil && *p != pc.Value {
			return field.Forbidden(field.NewPath("spec", "priority"), fmt.Sprintf(
				"priority set in the %s (%d) must match the priority computed (%d) based on the priority class set in the spec", np.noun, *p, pc.Value))
		}
		v := pc.Value
		*np.priority = &v
	}
	if *np.priority == nil {
		zero := int32(0)
		*np.priority = &zero
	}
	if np.policy == nil {
		return nil
	}
	policy := P(v1.PreemptLowerPriority)
	if pc != nil && pc.PreemptionPolicy != nil {
		policy = P(*pc.PreemptionPolicy)
	}
	if p := *np.policy; p != nil && *p != policy {
		return field.Forbidden(field.NewPath("spec", "preemptionPolicy"), fmt.Sprintf(
			"the string value of PreemptionPolicy (%s) must not be provided in %s spec; priority admission controller computed %s from the given PriorityClass name", *p, np.noun, policy))
	}
	*np.policy = &policy
	return nil
}
