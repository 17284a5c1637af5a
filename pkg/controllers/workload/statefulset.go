package workload

import (
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// statefulSet models the StatefulSet controller: pods named <set>-<ordinal> with their
// volume claims (<template>-<set>-<ordinal>, made before the pod and kept after it); with
// OrderedReady (the default) an ordinal is created only when every lower one runs, with
// Parallel all at once. A pod is recreated with the same name once it is gone.
type statefulSet struct {
	ref      Ref
	obj      *appsv1.StatefulSet
	owner    metav1.OwnerReference
	tmpl     Template
	revision string
	ordered  bool
	first    int
	replicas int
	// pods are the set's pods by ordinal; claims the claims made so far.
	pods    map[int]*setPod
	claims  map[string]bool
	stopped bool
}

type setPod struct {
	name                 string
	running, terminating bool
}

func newStatefulSet(s *appsv1.StatefulSet, path *field.Path) (*statefulSet, *field.Error) {
	defaultNamespace(&s.ObjectMeta)
	if err := validateReplicated(s.Name, s.Spec.Replicas, s.Spec.Selector, &s.Spec.Template, path); err != nil {
		return nil, err
	}
	spec := path.Child("spec")
	policy := s.Spec.PodManagementPolicy
	if policy != "" && policy != appsv1.OrderedReadyPodManagement && policy != appsv1.ParallelPodManagement {
		return nil, field.NotSupported(spec.Child("podManagementPolicy"), policy,
			[]string{string(appsv1.OrderedReadyPodManagement), string(appsv1.ParallelPodManagement)})
	}
	for i, t := range s.Spec.VolumeClaimTemplates {
		p := spec.Child("volumeClaimTemplates").Index(i)
		switch {
		case t.Name == "":
			return nil, field.Required(p.Child("metadata", "name"), "")
		case len(t.Spec.AccessModes) == 0:
			return nil, field.Required(p.Child("spec", "accessModes"), "")
		}
		if _, ok := t.Spec.Resources.Requests[v1.ResourceStorage]; !ok {
			return nil, field.Required(p.Child("spec", "resources", "requests").Key(string(v1.ResourceStorage)), "")
		}
	}
	c := &statefulSet{
		ref:      Ref{Kind: "StatefulSet", Namespace: s.Namespace, Name: s.Name},
		obj:      s,
		owner:    controllerRef("apps/v1", "StatefulSet", &s.ObjectMeta),
		tmpl:     Template{Path: spec.Child("template").String(), Pod: templatePod(&s.Spec.Template, s.Namespace, s.Name)},
		revision: s.Name + "-" + hashOf(s.Spec.Template),
		ordered:  policy != appsv1.ParallelPodManagement,
		replicas: int(ptrOr(s.Spec.Replicas, 1)),
		pods:     map[int]*setPod{},
		claims:   map[string]bool{},
	}
	if o := s.Spec.Ordinals; o != nil {
		c.first = int(o.Start)
	}
	return c, nil
}

func (c *statefulSet) Made() []runtime.Object { return nil }
func (c *statefulSet) Workload() Ref          { return c.ref }
func (c *statefulSet) Templates() []Template  { return []Template{c.tmpl} }
func (c *statefulSet) Stop()                  { c.stopped = true }
func (c *statefulSet) Start() []Action        { return c.sync() }

func (c *statefulSet) Observe(p *v1.Pod, ch Change) []Action {
	ord, sp := c.find(p.Name)
	if sp == nil {
		return nil
	}
	switch ch {
	case Running:
		sp.running = true
	case Terminating:
		sp.terminating = true
	case Gone, Succeeded:
		// A finished pod is deleted and made again, as one that is gone.
		delete(c.pods, ord)
	}
	return c.sync()
}

func (c *statefulSet) find(name string) (int, *setPod) {
	for ord, sp := range c.pods {
		if sp.name == name {
			return ord, sp
		}
	}
	return 0, nil
}

// sync creates the missing ordinals; ordered, it stops at the first ordinal that does not
// run yet.
func (c *statefulSet) sync() []Action {
	if c.stopped {
		return nil
	}
	var acts []Action
	for ord := c.first; ord < c.first+c.replicas; ord++ {
		sp := c.pods[ord]
		if sp == nil {
			acts = append(acts, c.create(ord)...)
			sp = c.pods[ord]
		}
		if c.ordered && (!sp.running || sp.terminating) {
			break
		}
	}
	return acts
}

// create makes an ordinal's claims (those not made yet) and its pod.
func (c *statefulSet) create(ord int) []Action {
	s := c.obj
	name := fmt.Sprintf("%s-%d", s.Name, ord)
	var acts []Action
	p := instance(c.tmpl.Pod, name, c.owner, map[string]string{
		labelStatefulSetPodName: name, labelPodIndex: strconv.Itoa(ord), labelRevisionHash: c.revision}, nil)
	p.Spec.Hostname, p.Spec.Subdomain = name, s.Spec.ServiceName
	for _, t := range s.Spec.VolumeClaimTemplates {
		claim := fmt.Sprintf("%s-%s", t.Name, name)
		setClaimVolume(&p.Spec, t.Name, claim)
		if c.claims[claim] {
			continue
		}
		c.claims[claim] = true
		pvc := &v1.PersistentVolumeClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: claim, Labels: maps.Clone(t.Labels), Annotations: maps.Clone(t.Annotations)},
			Spec:       *t.Spec.DeepCopy(),
			Status:     v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
		}
		if sel := s.Spec.Selector; sel != nil && len(sel.MatchLabels) > 0 {
			if pvc.Labels == nil {
				pvc.Labels = map[string]string{}
			}
			maps.Copy(pvc.Labels, sel.MatchLabels)
		}
		acts = append(acts, Action{Object: pvc})
	}
	c.pods[ord] = &setPod{name: name}
	return append(acts, Action{Object: p})
}

// setClaimVolume points the pod's volume of that name at the claim, adding the volume when
// the template has none of that name.
func setClaimVolume(spec *v1.PodSpec, volume, claim string) {
	src := v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == volume {
			spec.Volumes[i].VolumeSource = src
			return
		}
	}
	spec.Volumes = append(spec.Volumes, v1.Volume{Name: volume, VolumeSource: src})
}
