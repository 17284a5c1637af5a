package sim

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Kubernetes' own scheduling.k8s.io PodGroups and Workloads (v1beta1 and v1alpha3 as 1.37
// serves them, v1alpha2 as 1.36 did), simulated as a cluster serving the API with its
// gates on: admission refuses what that version's API server would, the groups are
// scheduled through pkg/nativegroup's mapping like phalanx's own, and phalanx's status
// writes land on the native objects, in the version's condition types.

// nativeKind names a native PodGroup in messages, apart from phalanx's PodGroup.
const nativeKind = "PodGroup.scheduling.k8s.io"

// nativeRecord is a native PodGroup during the run.
type nativeRecord struct {
	// obj is the object as the API server would hold it now, its status included.
	obj *nativegroup.PodGroup
	// phase is the phase phalanx last decided, for the report (the native status has none).
	phase v1alpha1.PodGroupPhase
	gone  bool
}

// admitNative admits Workloads, then native PodGroups, each in its version: defaults, the
// API server's validation, the PodGroupWorkloadExists admission plugin (1.36 only) and the
// Priority admission plugin. It reads them into nativegroup's shape, in input order.
func (sc *Scenario) admitNative(classes *priorityClasses, unique func(any, string) error) error {
	type workloadAt struct {
		wl *nativegroup.Workload
		t  timing
	}
	workloads := map[string]workloadAt{}
	var groups []any
	for _, in := range sc.nativeInputs {
		if _, isGroup := nativeMeta(in); isGroup {
			groups = append(groups, in)
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
		t, _ := parseTiming(&wl.ObjectMeta)
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
		t, _ := parseTiming(&pg.ObjectMeta)
		if ref := pg.Spec.WorkloadRef; ref != nil && pg.APIVersion == nativegroup.V1alpha2 {
			w, ok := workloads[pg.Namespace+"/"+ref.WorkloadName]
			if fld, msg := workloadRefProblem(ref, w.wl, ok && w.t.createAt <= t.createAt && (!w.t.hasDelete || w.t.deleteAt > t.createAt)); msg != "" {
				_ = sc.errAt(pg, desc, fld, msg)
				continue
			}
		}
		if err := admitNativePriority(pg, classes, t.createAt); err != nil {
			_ = sc.errAt(pg, desc, err.Field, err.ErrorBody())
			continue
		}
		sc.NativePodGroups = append(sc.NativePodGroups, pg)
	}
	return nil
}

// nativeMeta returns a native document's metadata, and whether it is a PodGroup (else a
// Workload); nil for a kind that is neither (add puts none in nativeInputs).
func nativeMeta(in any) (*metav1.ObjectMeta, bool) {
	switch o := in.(type) {
	case *schedulingv1beta1.PodGroup:
		return &o.ObjectMeta, true
	case *schedulingv1alpha3.PodGroup:
		return &o.ObjectMeta, true
	case *schedulingv1alpha2.PodGroup:
		return &o.ObjectMeta, true
	case *schedulingv1beta1.Workload:
		return &o.ObjectMeta, false
	case *schedulingv1alpha3.Workload:
		return &o.ObjectMeta, false
	case *schedulingv1alpha2.Workload:
		return &o.ObjectMeta, false
	}
	return nil, false
}

// admitNativeObject checks a native document's metadata and name, then defaults and
// validates it in its own version.
func (sc *Scenario) admitNativeObject(in any, kind string, unique func(any, string) error) (string, error) {
	m, _ := nativeMeta(in)
	if m == nil {
		return "", fmt.Errorf("%T is not a native PodGroup or Workload", in)
	}
	defaultNamespace(m)
	desc := describe(kind, m.Namespace, m.Name)
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

// admitNativePriority is the Priority admission plugin for native PodGroups: a named class
// must exist when the group is created and gives its priority; without one, the global
// default class does. As for pods, an explicit priority with no class and no global
// default is kept, and one that contradicts its class is refused. From v1beta1 and
// v1alpha3 on (the PodGroupPreemptionPolicy gate), the class also gives the group its
// preemptionPolicy (PreemptLowerPriority without one), and a contradicting one is refused.
func admitNativePriority(pg *nativegroup.PodGroup, classes *priorityClasses, createAt time.Duration) *field.Error {
	var pc *schedulingv1.PriorityClass
	if name := pg.Spec.PriorityClassName; name != "" {
		if pc = classes.existsAt(classes.byName[name], createAt); pc == nil {
			return &field.Error{Type: field.ErrorTypeNotFound, Field: "spec.priorityClassName", BadValue: name,
				Detail: "no PriorityClass of that name exists when the PodGroup is created"}
		}
	} else if pg.Spec.Priority == nil {
		if pc = classes.existsAt(classes.globalDefault, createAt); pc != nil {
			pg.Spec.PriorityClassName = pc.Name
		}
	}
	if pc != nil {
		if p := pg.Spec.Priority; p != nil && *p != pc.Value {
			return field.Forbidden(field.NewPath("spec", "priority"), fmt.Sprintf(
				"priority set in the pod group (%d) must match the priority computed (%d) based on the priority class set in the spec", *p, pc.Value))
		}
		v := pc.Value
		pg.Spec.Priority = &v
	}
	if pg.Spec.Priority == nil {
		zero := int32(0)
		pg.Spec.Priority = &zero
	}
	if pg.APIVersion == nativegroup.V1alpha2 {
		return nil
	}
	policy := schedulingv1beta1.PreemptLowerPriority
	if pc != nil && pc.PreemptionPolicy != nil {
		policy = schedulingv1beta1.PreemptionPolicy(*pc.PreemptionPolicy)
	}
	if p := pg.Spec.PreemptionPolicy; p != nil && *p != policy {
		return field.Forbidden(field.NewPath("spec", "preemptionPolicy"), fmt.Sprintf(
			"the string value of PreemptionPolicy (%s) must not be provided in pod group spec; priority admission controller computed %s from the given PriorityClass name", *p, policy))
	}
	pg.Spec.PreemptionPolicy = &policy
	return nil
}

// planNative puts the native objects on the timeline: Workloads before the PodGroups that
// refer to them.
func (s *Simulator) planNative() {
	for _, wl := range s.sc.Workloads {
		t, _ := parseTiming(&wl.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() { s.sources.SetWorkload(wl) })
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() { s.sources.DeleteWorkload(wl) })
		}
	}
	for _, pg := range s.sc.NativePodGroups {
		key := pg.Namespace + "/" + pg.Name
		t, _ := parseTiming(&pg.ObjectMeta)
		s.at(Epoch.Add(t.createAt), func() {
			rec := &nativeRecord{obj: pg.DeepCopy()}
			s.native[key] = rec
			s.sources.SetNative(rec.obj)
		})
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() {
				if rec := s.native[key]; rec != nil && !rec.gone {
					rec.gone = true
					s.sources.DeleteNative(rec.obj)
				}
			})
		}
	}
}

// updateNativeStatus writes phalanx's conditions to the native PodGroup a group was
// mapped from, as the kube driver patches its status, and reports the change back.
func (s *Simulator) updateNativeStatus(pg *v1alpha1.PodGroup) error {
	rec := s.native[pg.Namespace+"/"+pg.Name]
	if rec == nil || rec.gone || rec.obj.UID != pg.UID {
		return fmt.Errorf("podgroups.scheduling.k8s.io %q not found", pg.Name)
	}
	next := rec.obj.DeepCopy()
	for _, c := range nativegroup.StatusConditions(pg) {
		meta.SetStatusCondition(&next.Status.Conditions, c)
	}
	rec.obj, rec.phase = next, pg.Status.Phase
	s.sources.SetNative(next)
	return nil
}

// nativeClash tells a native PodGroup's users that a CRD PodGroup of the same name holds
// it back, as the kube driver does: its condition and a Warning event (the scheduler
// reports the CRD group).
func (s *Simulator) nativeClash(native *nativegroup.PodGroup, _ *v1alpha1.PodGroup, msg string) {
	rec := s.native[native.Namespace+"/"+native.Name]
	if rec == nil {
		return
	}
	next := rec.obj.DeepCopy()
	meta.SetStatusCondition(&next.Status.Conditions, nativegroup.ClashCondition(native, msg, s.now))
	rec.obj, rec.phase = next, v1alpha1.PodGroupPhasePending
	s.Event(next, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	// The change reaches the scheduler as an informer would report it, after this event.
	s.Go(func() {
		if !rec.gone && rec.obj == next {
			s.sources.SetNative(next)
		}
	})
}

// nativeReports are the native PodGroups' outcomes, in input order.
func (s *Simulator) nativeReports() []GroupReport {
	var out []GroupReport
	for _, pg := range s.sc.NativePodGroups {
		obj, phase := pg, v1alpha1.PodGroupPhasePending
		if rec := s.native[pg.Namespace+"/"+pg.Name]; rec != nil {
			obj = rec.obj
			if rec.phase != "" {
				phase = rec.phase
			}
		}
		gr := GroupReport{APIVersion: pg.APIVersion, Namespace: pg.Namespace, Name: pg.Name,
			Phase: string(phase), Conditions: []Condition{}}
		gr.MinCount = nativegroup.ToPodGroup(obj, nil).MinCount()
		if p := obj.Spec.Priority; p != nil {
			v := *p
			gr.Priority = &v
		}
		for _, c := range obj.Status.Conditions {
			gr.Conditions = append(gr.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
		out = append(out, gr)
	}
	return out
}
