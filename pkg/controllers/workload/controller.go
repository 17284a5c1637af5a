package workload

import (
	"maps"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Options say which controllers are modelled.
type Options struct {
	// WorkloadWithJob models Kubernetes 1.37's Job controller with its WorkloadWithJob
	// gate on (alpha, off by default): a Job gets a Workload and a PodGroup (jobworkload.go).
	WorkloadWithJob bool
}

// Change is what happened to a pod a controller made.
type Change int

const (
	// Running: bound to a node and running (a simulated pod is ready at once).
	Running Change = iota + 1
	// Terminating: its deletion started, other than by its own success (preemption,
	// eviction, a user's delete).
	Terminating
	// Gone: removed from the cluster.
	Gone
	// Succeeded: it ran to completion.
	Succeeded
)

// Action is an object a controller creates, at once or after a delay: a *v1.Pod or a
// *v1.PersistentVolumeClaim; or, with Then instead of an Object, a timer: when After has
// passed, the host calls Then and performs what it returns (the Job controller's backoff,
// after which it makes every pod still missing).
type Action struct {
	After  time.Duration
	Object metav1.Object
	Then   func() []Action
}

// Ref names a workload.
type Ref struct {
	Kind, Namespace, Name string
}

func (r Ref) String() string { return r.Kind + " " + r.Namespace + "/" + r.Name }

// Template is one of a workload's pod templates as a pod, with the path of the template in
// the workload ("spec.template"). The caller admits it in place (the API server's defaults
// and priority) before Start; every pod made from the template is a copy of it.
type Template struct {
	Path string
	Pod  *v1.Pod
}

// Controller is the model of one workload's controller (or, for a Deployment or a JobSet,
// of the controllers that make its pods).
type Controller interface {
	// Workload names the workload the controller was made for.
	Workload() Ref
	// Made are the objects other than pods the controller makes when the workload is
	// created (a Job's Workload and PodGroup): the caller admits and creates them with the
	// workload.
	Made() []runtime.Object
	// Templates are its pod templates, to admit before Start.
	Templates() []Template
	// Start is called when the workload is created; it returns what to create.
	Start() []Action
	// Observe is told what happened to one of the pods the controller made (and of no
	// other pod); it returns what to create in reaction.
	Observe(pod *v1.Pod, c Change) []Action
	// Stop is called when the workload is deleted: the controller makes nothing more.
	Stop()
}

// The labels, annotations and names the controllers write, as Kubernetes spells them.
const (
	labelPodTemplateHash      = "pod-template-hash"
	labelRevisionHash         = "controller-revision-hash"
	labelStatefulSetPodName   = "statefulset.kubernetes.io/pod-name"
	labelPodIndex             = "apps.kubernetes.io/pod-index"
	labelJobControllerUID     = "batch.kubernetes.io/controller-uid"
	labelJobName              = "batch.kubernetes.io/job-name"
	labelLegacyControllerUID  = "controller-uid"
	labelLegacyJobName        = "job-name"
	annotationCompletionIndex = "batch.kubernetes.io/job-completion-index"
)

// uidOf gives an object without a UID the one the simulator gives objects.
func uidOf(m *metav1.ObjectMeta) types.UID {
	if m.UID == "" {
		m.UID = types.UID("sim-" + m.Namespace + "-" + m.Name)
	}
	return m.UID
}

func controllerRef(apiVersion, kind string, m *metav1.ObjectMeta) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: m.Name, UID: uidOf(m), Controller: &yes, BlockOwnerDeletion: &yes}
}

// templatePod is a pod template as a pod of the workload's namespace, named after the
// workload until a controller names its copies.
func templatePod(t *v1.PodTemplateSpec, namespace, name string) *v1.Pod {
	return &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Labels: maps.Clone(t.Labels), Annotations: maps.Clone(t.Annotations)},
		Spec: *t.Spec.DeepCopy(),
	}
}

// instance is a new pod made from an admitted template pod: its own name and owner, and
// the labels and annotations the controller adds.
func instance(proto *v1.Pod, name string, owner metav1.OwnerReference, labels, annotations map[string]string) *v1.Pod {
	p := proto.DeepCopy()
	p.Name, p.GenerateName, p.UID = name, "", ""
	p.OwnerReferences = append(p.OwnerReferences, owner)
	if len(labels) > 0 && p.Labels == nil {
		p.Labels = map[string]string{}
	}
	maps.Copy(p.Labels, labels)
	if len(annotations) > 0 && p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	maps.Copy(p.Annotations, annotations)
	return p
}
