package sim

import (
	"errors"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/controllers"
)

// Workloads (Jobs, Deployments, ReplicaSets, StatefulSets, JobSets) become pods as their
// controllers would make them (pkg/controllers): the simulator admits each pod template
// once, at load, creates what a controller asks for when it asks, and tells it what
// happens to its pods. Pods whose controller is not in the input (a snapshot's) are
// replaced as that kind of controller would replace them.

func init() {
	maps.Copy(kinds, controllers.Kinds)
}

// Controlled is a workload of the input with the model of its controller.
type Controlled struct {
	Object     any
	Controller controllers.Controller
}

// WorkloadOf is a workload object's kind and metadata; ok is false for other objects.
func WorkloadOf(obj any) (kind string, m *metav1.ObjectMeta, ok bool) {
	switch o := obj.(type) {
	case *batchv1.Job:
		return "Job", &o.ObjectMeta, true
	case *appsv1.Deployment:
		return "Deployment", &o.ObjectMeta, true
	case *appsv1.ReplicaSet:
		return "ReplicaSet", &o.ObjectMeta, true
	case *appsv1.StatefulSet:
		return "StatefulSet", &o.ObjectMeta, true
	case *controllers.JobSet:
		return "JobSet", &o.ObjectMeta, true
	}
	return "", nil, false
}

// addWorkload files a workload object of the input; false when obj is not one.
func (sc *Scenario) addWorkload(obj any) bool {
	if _, _, ok := WorkloadOf(obj); !ok {
		return false
	}
	sc.Controlled = append(sc.Controlled, Controlled{Object: obj})
	return true
}

// admitWorkloads checks each workload as the API server (and, for a JobSet, its webhook)
// would, makes its controller's model and admits its pod templates as the API server
// admits pods (defaults, priority), so that every pod made from them is admitted.
func (sc *Scenario) admitWorkloads(classes *priorityClasses, runtimeClasses map[string]*nodev1.RuntimeClass, unique func(any, string) error) error {
	for i := range sc.Controlled {
		// A refused workload's errors are recorded; the next one's are wanted too.
		if err := sc.admitWorkload(&sc.Controlled[i], classes, runtimeClasses, unique); err != nil && !errors.Is(err, errRejected) {
			return err
		}
	}
	return nil
}

func (sc *Scenario) admitWorkload(w *Controlled, classes *priorityClasses, runtimeClasses map[string]*nodev1.RuntimeClass, unique func(any, string) error) error {
	kind, m, _ := WorkloadOf(w.Object)
	defaultNamespace(m)
	desc := describe(kind, m.Namespace, m.Name)
	if err := sc.checkMeta(w.Object, desc, m, true); err != nil {
		return err
	}
	if err := unique(w.Object, desc); err != nil {
		return err
	}
	c, warnings, ferr := controllers.New(w.Object, controllers.Options{WorkloadWithJob: sc.controlPlane.WorkloadWithJob})
	if ferr != nil {
		return sc.errAt(w.Object, desc, ferr.Field, ferr.ErrorBody())
	}
	for _, msg := range warnings {
		sc.Warnings = append(sc.Warnings, sc.origin[w.Object].String()+": "+msg)
	}
	for _, t := range c.Templates() {
		if err := sc.admitTemplate(w.Object, kind, desc, t, classes, runtimeClasses); err != nil {
			return err
		}
	}
	// What the controller makes with the workload is admitted as native objects of the
	// input (admitNative runs next), created and deleted with the workload.
	for _, o := range c.Made() {
		om := o.(metav1.ObjectMetaAccessor).GetObjectMeta()
		om.SetAnnotations(timingOf(m))
		sc.origin[o] = sc.origin[w.Object]
		sc.nativeInputs = append(sc.nativeInputs, o)
	}
	w.Controller = c
	return nil
}

// timingOf is the timeline annotations of an object, for what is made with it.
func timingOf(m *metav1.ObjectMeta) map[string]string {
	var out map[string]string
	for _, a := range []string{AnnotationCreateAt, AnnotationDeleteAt} {
		if v, ok := m.Annotations[a]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[a] = v
		}
	}
	return out
}

// admitTemplate admits a pod template as a pod; its errors name the workload and the
// template's field.
func (sc *Scenario) admitTemplate(obj any, kind, desc string, t controllers.Template, classes *priorityClasses, runtimeClasses map[string]*nodev1.RuntimeClass) error {
	for _, a := range []string{AnnotationCreateAt, AnnotationDeleteAt} {
		if _, ok := t.Pod.Annotations[a]; ok {
			return sc.errAt(obj, desc, t.Path+".metadata.annotations["+a+"]", "Forbidden: set it on the "+kind+" itself")
		}
	}
	sc.origin[t.Pod] = sc.origin[obj]
	before := len(sc.errs)
	err := sc.admitPod(t.Pod, classes, runtimeClasses, func(any, string) error { return nil })
	// The template's errors name the workload, and the template's field in it.
	for _, ie := range sc.errs[before:] {
		ie.Object = desc
		if ie.Field == "" {
			ie.Field = t.Path
		} else {
			ie.Field = t.Path + "." + ie.Field
		}
	}
	return err
}

// planWorkloads creates each workload at its create-at time (its controller then makes its
// first pods) and deletes it at its delete-at time (its controller stops, and the garbage
// collector deletes its pods). Pods of the input that name a controller not in the input
// are given a model of it.
func (s *Simulator) planWorkloads() {
	for _, w := range s.sc.Controlled {
		_, m, _ := WorkloadOf(w.Object)
		t, _ := parseTiming(m)
		c := w.Controller
		s.at(Epoch.Add(t.createAt), func() { s.perform(c, c.Start(), "") })
		if t.hasDelete {
			s.at(Epoch.Add(t.deleteAt), func() {
				c.Stop()
				for _, rec := range s.podOrder {
					if rec.ctrl == c && rec.created && !rec.gone {
						s.deletePod(rec, nil)
					}
				}
			})
		}
	}
	owners := map[types.UID]controllers.Controller{}
	for _, rec := range s.podOrder {
		ref := metav1.GetControllerOf(rec.pod)
		if ref == nil {
			continue
		}
		c, ok := owners[ref.UID]
		if !ok {
			c = controllers.ForOwner(rec.pod)
			owners[ref.UID] = c
		}
		rec.ctrl = c
	}
}

// tell passes a change of a pod to its controller; what the controller makes in reaction
// to a pod's end replaces that pod.
func (s *Simulator) tell(rec *podRecord, ch controllers.Change) {
	if rec.ctrl == nil {
		return
	}
	replaces := ""
	if ch == controllers.Terminating || ch == controllers.Gone {
		replaces = rec.pod.Name
	}
	s.perform(rec.ctrl, rec.ctrl.Observe(rec.pod, ch), replaces)
}

// perform creates what a controller asks for, each at its time.
func (s *Simulator) perform(c controllers.Controller, acts []controllers.Action, replaces string) {
	for _, a := range acts {
		switch o := a.Object.(type) {
		case *v1.Pod:
			s.at(s.now.Add(a.After), func() { s.createMadePod(c, o, replaces) })
		case *v1.PersistentVolumeClaim:
			s.at(s.now.Add(a.After), func() {
				if s.objs.pvcs[o.Namespace+"/"+o.Name] == nil {
					s.createPVC(o)
				}
			})
		}
	}
}

// createMadePod creates a pod a controller made, as the API server would: a name no live
// pod has (else the creation fails, as it would), a UID of its own.
func (s *Simulator) createMadePod(c controllers.Controller, p *v1.Pod, replaces string) {
	k := key(p)
	old := s.pods[k]
	if old != nil && !old.gone {
		s.events = append(s.events, Event{Time: s.seconds(s.now), Object: c.Workload().Kind + "/" + c.Workload().Namespace + "/" + c.Workload().Name,
			Type: v1.EventTypeWarning, Reason: "FailedCreate", Message: fmt.Sprintf("pods %q already exists", p.Name)})
		return
	}
	delete(p.Annotations, AnnotationCreateAt)
	delete(p.Annotations, AnnotationDeleteAt)
	p.UID = types.UID("sim-" + p.Namespace + "-" + p.Name)
	if old != nil { // a StatefulSet's pod made again
		p.UID = types.UID(fmt.Sprintf("%s-%d", p.UID, len(s.podOrder)))
	}
	t, _ := parseTiming(&p.ObjectMeta)
	rec := &podRecord{pod: p, timing: t, phase: PhasePending, ctrl: c, replaces: replaces}
	s.pods[k] = rec
	s.podOrder = append(s.podOrder, rec)
	s.createPod(rec)
}
