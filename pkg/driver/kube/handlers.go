package kube

import (
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// Handlers is the part of the scheduler the informers feed: its event handlers, which
// must run on the scheduling loop, and Post, which gets them there. *scheduler.Scheduler
// implements it.
type Handlers interface {
	Post(fn func())

	AddPod(pod *v1.Pod)
	UpdatePod(old, pod *v1.Pod)
	DeletePod(pod *v1.Pod)
	AddNode(node *v1.Node)
	UpdateNode(old, node *v1.Node)
	DeleteNode(node *v1.Node)
	SetNamespace(ns *v1.Namespace)
	DeleteNamespace(ns *v1.Namespace)
	UpdatePDB(old, pdb *policyv1.PodDisruptionBudget)
	DeletePDB(pdb *policyv1.PodDisruptionBudget)
	AddPriorityClass(pc *schedulingv1.PriorityClass)
	DeletePriorityClass(pc *schedulingv1.PriorityClass)
	AddPodGroup(pg *v1alpha1.PodGroup)
	UpdatePodGroup(old, pg *v1alpha1.PodGroup)
	DeletePodGroup(pg *v1alpha1.PodGroup)
	AddCompositePodGroup(c *v1alpha1.CompositePodGroup)
	UpdateCompositePodGroup(old, c *v1alpha1.CompositePodGroup)
	DeleteCompositePodGroup(c *v1alpha1.CompositePodGroup)
}

// unwrap returns the object of an informer event as a T, looking inside the tombstone a
// delete carries when the watch missed the deletion and a relist found the object gone.
func unwrap[T any](obj any) (T, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	t, ok := obj.(T)
	return t, ok
}

// handlerFuncs builds informer handlers that post each event to the loop. Objects that
// are not a T (which informers never deliver) are dropped.
func handlerFuncs[T any](h Handlers, add func(T), update func(old, obj T), del func(T)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := unwrap[T](obj); ok {
				h.Post(func() { add(o) })
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := unwrap[T](oldObj)
			o, ok2 := unwrap[T](obj)
			if ok1 && ok2 {
				h.Post(func() { update(old, o) })
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := unwrap[T](obj); ok {
				h.Post(func() { del(o) })
			}
		},
	}
}

// podHandler feeds pods to the scheduler. Every bound pod is fed, whichever scheduler
// placed it, since it takes room; a pending pod only when its spec.schedulerName is one
// of our profiles' (spec.schedulerName is immutable, so a pod never changes sides).
type podHandler struct {
	h        Handlers
	profiles map[string]bool
}

// ours reports whether the scheduler wants to hear about the pod.
func (p *podHandler) ours(pod *v1.Pod) bool {
	return pod.Spec.NodeName != "" || p.profiles[pod.Spec.SchedulerName]
}

func (p *podHandler) OnAdd(obj any, _ bool) {
	pod, ok := unwrap[*v1.Pod](obj)
	if !ok || !p.ours(pod) {
		return
	}
	if pending(pod) && pod.DeletionTimestamp != nil {
		return // being deleted before it was ever scheduled
	}
	p.h.Post(func() { p.h.AddPod(pod) })
}

func (p *podHandler) OnUpdate(oldObj, obj any) {
	old, ok1 := unwrap[*v1.Pod](oldObj)
	pod, ok2 := unwrap[*v1.Pod](obj)
	if !ok1 || !ok2 || !p.ours(pod) {
		return
	}
	if pending(pod) && pod.DeletionTimestamp != nil {
		// A pending pod being deleted must not be scheduled any more: the API server
		// refuses to bind it. The scheduler's core would keep retrying it with backoff
		// until it is gone, so it is removed from the queue now.
		p.h.Post(func() { p.h.DeletePod(pod) })
		return
	}
	p.h.Post(func() { p.h.UpdatePod(old, pod) })
}

func (p *podHandler) OnDelete(obj any) {
	pod, ok := unwrap[*v1.Pod](obj)
	if !ok || !p.ours(pod) {
		return
	}
	p.h.Post(func() { p.h.DeletePod(pod) })
}

func pending(pod *v1.Pod) bool { return pod.Spec.NodeName == "" }

// The handlers of the other kinds: each event as it is, posted to the loop.

func nodeHandler(h Handlers) cache.ResourceEventHandler {
	return handlerFuncs(h, h.AddNode, h.UpdateNode, h.DeleteNode)
}

func namespaceHandler(h Handlers) cache.ResourceEventHandler {
	return handlerFuncs(h, h.SetNamespace, func(_, ns *v1.Namespace) { h.SetNamespace(ns) }, h.DeleteNamespace)
}

func pdbHandler(h Handlers) cache.ResourceEventHandler {
	return handlerFuncs(h, func(pdb *policyv1.PodDisruptionBudget) { h.UpdatePDB(nil, pdb) }, h.UpdatePDB, h.DeletePDB)
}

func priorityClassHandler(h Handlers) cache.ResourceEventHandler {
	return handlerFuncs(h, h.AddPriorityClass, func(_, pc *schedulingv1.PriorityClass) { h.AddPriorityClass(pc) }, h.DeletePriorityClass)
}
