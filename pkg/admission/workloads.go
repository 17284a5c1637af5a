package admission

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// Workloads (Jobs, Deployments, ReplicaSets, StatefulSets, JobSets) become pods as their
// controllers would make them (pkg/controllers/workload): admission makes each one's
// controller model and admits its pod templates once, as the API server admits pods; the
// run (pkg/driver/sim) creates what a controller asks for when it asks, and tells it what
// happens to its pods.

// Controlled is a workload of the input with the model of its controller.
type Controlled struct {
	Object     any
	Controller workload.Controller
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
	case *workload.JobSet:
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
	desc := manifest.Describe(kind, m.Namespace, m.Name)
	if err := sc.checkMeta(w.Object, desc, m, true); err != nil {
		return err
	}
	if err := unique(w.Object, desc); err != nil {
		return err
	}
	c, warnings, ferr := workload.New(w.Object, workload.Options{WorkloadWithJob: sc.controlPlane.WorkloadWithJob})
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
func (sc *Scenario) admitTemplate(obj any, kind, desc string, t workload.Template, classes *priorityClasses, runtimeClasses map[string]*nodev1.RuntimeClass) error {
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
