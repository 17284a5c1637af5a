package sim

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Kubernetes' own scheduling.k8s.io/v1alpha2 PodGroups and Workloads, simulated as a
// cluster with the alpha API serves them: admission refuses what the API server would,
// the groups are scheduled through pkg/nativegroup's mapping like phalanx's own, and
// phalanx's status writes land on the native objects.

// nativeKind names a native PodGroup in messages, apart from phalanx's PodGroup.
const nativeKind = "PodGroup.scheduling.k8s.io"

// nativeRecord is a native PodGroup during the run.
type nativeRecord struct {
	// obj is the object as the API server would hold it now, its status included.
	obj *schedulingv1alpha2.PodGroup
	// phase is the phase phalanx last decided, for the report (the native status has none).
	phase v1alpha1.PodGroupPhase
	gone  bool
}

// admitNative admits Workloads, then native PodGroups: defaults, the API server's
// validation, the PodGroupWorkloadExists and Priority admission plugins.
func (sc *Scenario) admitNative(classes *priorityClasses, unique func(any, string) error) error {
	type workloadAt struct {
		wl *schedulingv1alpha2.Workload
		t  timing
	}
	workloads := map[string]workloadAt{}
	for _, wl := range sc.Workloads {
		defaultNamespace(&wl.ObjectMeta)
		desc := describe("Workload", wl.Namespace, wl.Name)
		if err := sc.checkMeta(wl, desc, &wl.ObjectMeta, true); err != nil {
			return err
		}
		if err := unique(wl, desc); err != nil {
			return err
		}
		if err := sc.reject(wl, desc, nativegroup.ValidateWorkload(wl)); err != nil {
			return err
		}
		t, _ := parseTiming(&wl.ObjectMeta)
		workloads[wl.Namespace+"/"+wl.Name] = workloadAt{wl, t}
	}
	for _, pg := range sc.NativePodGroups {
		defaultNamespace(&pg.ObjectMeta)
		desc := describe(nativeKind, pg.Namespace, pg.Name)
		if err := sc.checkMeta(pg, desc, &pg.ObjectMeta, true); err != nil {
			return err
		}
		if err := unique(pg, desc); err != nil {
			return err
		}
		nativegroup.Default(pg)
		if err := sc.reject(pg, desc, nativegroup.ValidatePodGroup(pg)); err != nil {
			return err
		}
		t, _ := parseTiming(&pg.ObjectMeta)
		if ref := pg.Spec.PodGroupTemplateRef; ref != nil && ref.Workload != nil {
			w, ok := workloads[pg.Namespace+"/"+ref.Workload.WorkloadName]
			if fld, msg := workloadRefProblem(ref.Workload, w.wl, ok && w.t.createAt <= t.createAt && (!w.t.hasDelete || w.t.deleteAt > t.createAt)); msg != "" {
				return sc.errAt(pg, desc, fld, msg)
			}
		}
		if err := admitNativePriority(pg, classes, t.createAt); err != nil {
			return sc.errAt(pg, desc, err.Field, err.ErrorBody())
		}
	}
	return nil
}

// workloadRefProblem is the PodGroupWorkloadExists admission plugin: the Workload must
// exist when the group is created, with the template named.
func workloadRefProblem(ref *schedulingv1alpha2.WorkloadPodGroupTemplateReference, wl *schedulingv1alpha2.Workload, exists bool) (fld, msg string) {
	path := field.NewPath("spec", "podGroupTemplateRef", "workload")
	if !exists {
		return path.Child("workloadName").String(), fmt.Sprintf("Forbidden: PodGroup rejected: Workload %q not found when the PodGroup is created", ref.WorkloadName)
	}
	for _, t := range wl.Spec.PodGroupTemplates {
		if t.Name == ref.PodGroupTemplateName {
			return "", ""
		}
	}
	return path.Child("podGroupTemplateName").String(),
		fmt.Sprintf("Forbidden: PodGroup rejected: PodGroupTemplate %q not found in Workload %q", ref.PodGroupTemplateName, ref.WorkloadName)
}

// admitNativePriority is the Priority admission plugin for native PodGroups: a named class
// must exist when the group is created and gives its priority; without one, the global
// default class does. As for pods, an explicit priority with no class and no global
// default is kept, and one that contradicts its class is refused.
func admitNativePriority(pg *schedulingv1alpha2.PodGroup, classes *priorityClasses, createAt time.Duration) *field.Error {
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
func (s *Simulator) nativeClash(native *schedulingv1alpha2.PodGroup, _ *v1alpha1.PodGroup, msg string) {
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
		gr := GroupReport{APIVersion: nativegroup.APIVersion, Namespace: pg.Namespace, Name: pg.Name,
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
