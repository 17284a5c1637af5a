package workload

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// replicaSet models the ReplicaSet controller: it keeps spec.replicas pods that are not
// being deleted, and replaces a pod as soon as its deletion starts. A Deployment is one
// ReplicaSet named after its pod template's hash (a rollout never happens in a
// simulation).
type replicaSet struct {
	ref   Ref
	owner metav1.OwnerReference
	name  string
	tmpl  Template
	names names
	// labels are added to every pod (a Deployment's pod-template-hash).
	labels   map[string]string
	replicas int32
	active   map[string]bool
	stopped  bool
}

func newReplicaSet(rs *appsv1.ReplicaSet, path *field.Path) (*replicaSet, *field.Error) {
	defaultNamespace(&rs.ObjectMeta)
	if err := validateReplicated(rs.Name, rs.Spec.Replicas, rs.Spec.Selector, &rs.Spec.Template, path); err != nil {
		return nil, err
	}
	return &replicaSet{
		ref:      Ref{Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name},
		owner:    controllerRef("apps/v1", "ReplicaSet", &rs.ObjectMeta),
		name:     rs.Name,
		tmpl:     Template{Path: path.Child("spec", "template").String(), Pod: templatePod(&rs.Spec.Template, rs.Namespace, rs.Name)},
		names:    names{seed: "ReplicaSet/" + rs.Namespace + "/" + rs.Name},
		replicas: ptrOr(rs.Spec.Replicas, 1),
		active:   map[string]bool{},
	}, nil
}

// newDeployment is the ReplicaSet a Deployment makes: named <deployment>-<hash>, its pods
// labelled pod-template-hash=<hash>.
func newDeployment(d *appsv1.Deployment, path *field.Path) (*replicaSet, *field.Error) {
	defaultNamespace(&d.ObjectMeta)
	if err := validateReplicated(d.Name, d.Spec.Replicas, d.Spec.Selector, &d.Spec.Template, path); err != nil {
		return nil, err
	}
	hash := hashOf(d.Spec.Template)
	rsMeta := metav1.ObjectMeta{Namespace: d.Namespace, Name: d.Name + "-" + hash}
	return &replicaSet{
		ref:      Ref{Kind: "Deployment", Namespace: d.Namespace, Name: d.Name},
		owner:    controllerRef("apps/v1", "ReplicaSet", &rsMeta),
		name:     rsMeta.Name,
		tmpl:     Template{Path: path.Child("spec", "template").String(), Pod: templatePod(&d.Spec.Template, d.Namespace, d.Name)},
		names:    names{seed: "Deployment/" + d.Namespace + "/" + d.Name},
		labels:   map[string]string{labelPodTemplateHash: hash},
		replicas: ptrOr(d.Spec.Replicas, 1),
		active:   map[string]bool{},
	}, nil
}

// validateReplicated is what the API server checks of a ReplicaSet, Deployment or
// StatefulSet that matters here: a name, replicas not negative, a selector that selects
// the template's labels, and pods that restart always.
func validateReplicated(name string, replicas *int32, selector *metav1.LabelSelector, t *v1.PodTemplateSpec, path *field.Path) *field.Error {
	spec := path.Child("spec")
	if name == "" {
		return field.Required(path.Child("metadata", "name"), "")
	}
	if replicas != nil && *replicas < 0 {
		return field.Invalid(spec.Child("replicas"), *replicas, "must be greater than or equal to 0")
	}
	if selector == nil {
		return field.Required(spec.Child("selector"), "")
	}
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return field.Invalid(spec.Child("selector"), selector, err.Error())
	}
	if sel.Empty() {
		return field.Invalid(spec.Child("selector"), selector, "empty selector is invalid")
	}
	if !sel.Matches(labels.Set(t.Labels)) {
		return field.Invalid(spec.Child("template", "metadata", "labels"), t.Labels, "`selector` does not match template `labels`")
	}
	if rp := t.Spec.RestartPolicy; rp != "" && rp != v1.RestartPolicyAlways {
		return field.NotSupported(spec.Child("template", "spec", "restartPolicy"), rp, []string{string(v1.RestartPolicyAlways)})
	}
	return nil
}

func (c *replicaSet) Made() []runtime.Object { return nil }
func (c *replicaSet) Workload() Ref          { return c.ref }
func (c *replicaSet) Templates() []Template  { return []Template{c.tmpl} }
func (c *replicaSet) Stop()                  { c.stopped = true }
func (c *replicaSet) Start() []Action        { return c.sync() }

func (c *replicaSet) Observe(p *v1.Pod, ch Change) []Action {
	if ch == Running || !c.active[p.Name] {
		return nil
	}
	delete(c.active, p.Name) // terminating, gone or finished: no longer counts
	return c.sync()
}

func (c *replicaSet) sync() []Action {
	if c.stopped {
		return nil
	}
	var acts []Action
	for n := int32(len(c.active)); n < c.replicas; n++ {
		p := instance(c.tmpl.Pod, c.names.next(c.name+"-"), c.owner, maps.Clone(c.labels), nil)
		c.active[p.Name] = true
		acts = append(acts, Action{Object: p})
	}
	return acts
}
