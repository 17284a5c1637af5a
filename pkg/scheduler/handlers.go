package scheduler

import (
	"context"
	"maps"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/queue"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// The handlers below apply cluster events. Drivers call them on the loop goroutine (the
// kube driver through Post), never during a cycle.

// AddPod handles a pod that appeared.
func (s *Scheduler) AddPod(pod *v1.Pod) {
	switch {
	case isTerminal(pod):
		return
	case pod.Spec.NodeName == "" && pod.DeletionTimestamp != nil:
		return // a pending pod being deleted: nothing to schedule (kube-scheduler skips it too)
	case pod.Spec.NodeName != "":
		s.addBoundPod(pod)
	default:
		s.addPendingPod(pod)
	}
}

// UpdatePod handles a changed pod.
func (s *Scheduler) UpdatePod(old, pod *v1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	switch {
	case isTerminal(pod), pod.Spec.NodeName == "" && pod.DeletionTimestamp != nil:
		s.DeletePod(pod)
	case pod.Spec.NodeName != "":
		if old != nil && old.Spec.NodeName == pod.Spec.NodeName && !boundPodChanged(old, pod) {
			if pi := s.cache.Pod(key); pi != nil {
				pi.Pod = pod
				return
			}
		}
		s.addBoundPod(pod)
	default:
		if g := v1alpha1.PodGroupNameOf(pod); g != "" {
			if s.binding[key] != nil {
				// A member whose binding is in flight is not pending: the binding's outcome
				// decides whether it is tried again.
				return
			}
			if old != nil && v1alpha1.PodGroupNameOf(old) != g {
				s.removePendingMember(key, pod.Namespace+"/"+v1alpha1.PodGroupNameOf(old))
			}
			s.updatePendingMember(pod, pendingPodMayHelp(old, pod))
			return
		}
		e := s.queue.Get(key)
		if e == nil {
			s.addPendingPod(pod)
			return
		}
		e.Pod = framework.NewPodInfo(pod)
		e.Priority = e.Pod.Priority
		if pod.Status.NominatedNodeName != "" && s.cache.NominatedNode(key) == "" {
			s.cache.Nominate(e.Pod, pod.Status.NominatedNodeName)
		}
		s.queue.Update(e, pendingPodMayHelp(old, pod))
	}
}

// DeletePod handles a pod that is gone (deleted, or finished).
func (s *Scheduler) DeletePod(pod *v1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	if w := s.waiting[key]; w != nil {
		delete(s.waiting, key)
		w.fwk.RunReservePluginsUnreserve(context.Background(), w.state, w.pod, w.host)
	}
	delete(s.failures, key)
	delete(s.preempting, key)
	s.forgetDecision(key)
	victimOf := s.victimOf[key]
	s.victimGone(key)
	s.forgetVictims(key)
	s.queue.Delete(key)
	if g := v1alpha1.PodGroupNameOf(pod); g != "" {
		s.removePendingMember(key, pod.Namespace+"/"+g)
	}
	s.cache.ClearNomination(key)
	if pi := s.cache.RemoveBoundPod(key); pi != nil {
		if gk := framework.GroupKey(pi); gk != "" && len(s.cache.GroupMembers(gk)) == 0 {
			if g := s.cache.Group(gk); g != nil {
				// The last bound member is gone: the group's claims are free.
				s.releaseGroupClaims(g.PodGroup)
			}
		}
		s.onVictimEvent(framework.EventAssignedPodDelete, victimOf)
	}
}

func (s *Scheduler) addBoundPod(pod *v1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	s.forgetVictims(key)
	s.queue.Delete(key)
	if g := v1alpha1.PodGroupNameOf(pod); g != "" {
		s.removePendingMember(key, pod.Namespace+"/"+g)
	}
	s.cache.ClearNomination(key)
	delete(s.failures, key)
	if pi := s.cache.Pod(key); pi != nil && pi.Assumed && pi.NodeName == pod.Spec.NodeName {
		// The binding we made is confirmed: keep the PodInfo, it is the same pod.
		pi.Assumed = false
		pi.Pod = pod
		pi.Terminating = pod.DeletionTimestamp != nil
		s.onClusterEvent(framework.EventAssignedPodAdd)
		return
	}
	pi := framework.NewPodInfo(pod)
	if err := s.cache.AddBoundPod(pi); err != nil {
		s.logger.Error(err, "Adding bound pod to the cache", "pod", key)
		return
	}
	s.onVictimEvent(framework.EventAssignedPodAdd, s.victimOf[key])
}

func (s *Scheduler) addPendingPod(pod *v1.Pod) {
	fwk, profile, err := s.profileFor(pod.Spec.SchedulerName)
	if err != nil {
		return // another scheduler's pod
	}
	_ = fwk
	pi := framework.NewPodInfo(pod)
	if pod.Status.NominatedNodeName != "" {
		s.cache.Nominate(pi, pod.Status.NominatedNodeName)
	}
	if pi.Group != "" {
		s.addPendingMember(pi, profile, true)
		return
	}
	s.queue.Add(&queue.Entry{QueuedUnit: framework.QueuedUnit{Key: pi.Key, Priority: pi.Priority}, Pod: pi, Profile: profile})
}

// AddNode handles a node that appeared.
func (s *Scheduler) AddNode(node *v1.Node) {
	s.onNodeEvent(framework.EventNodeAdd, s.cache.AddNode(node))
}

// UpdateNode handles a changed node; only changes that could make pods fit trigger retries.
func (s *Scheduler) UpdateNode(old, node *v1.Node) {
	n := s.cache.AddNode(node)
	if old == nil {
		s.onNodeEvent(framework.EventNodeAdd, n)
		return
	}
	var action framework.ActionType
	if !apiequality.Semantic.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) {
		action |= framework.UpdateNodeAllocatable
	}
	if !maps.Equal(old.Labels, node.Labels) {
		action |= framework.UpdateNodeLabel
	}
	if !apiequality.Semantic.DeepEqual(old.Spec.Taints, node.Spec.Taints) {
		action |= framework.UpdateNodeTaint
	}
	if old.Spec.Unschedulable != node.Spec.Unschedulable {
		action |= framework.UpdateNodeSchedulable
	}
	if action != 0 {
		s.onNodeEvent(framework.ClusterEvent{Resource: framework.Node, Action: action, Label: "NodeUpdate"}, n)
	}
}

// DeleteNode handles a node that is gone.
func (s *Scheduler) DeleteNode(node *v1.Node) {
	s.cache.RemoveNode(node.Name)
	s.onClusterEvent(framework.ClusterEvent{Resource: framework.Node, Action: framework.Delete, Label: "NodeDelete"})
}

// SetNamespace records a namespace's labels.
func (s *Scheduler) SetNamespace(ns *v1.Namespace) {
	s.cache.SetNamespace(ns)
	s.onClusterEvent(framework.ClusterEvent{Resource: framework.Namespace, Action: framework.Add, Label: "NamespaceAdd"})
}

// DeleteNamespace forgets a namespace.
func (s *Scheduler) DeleteNamespace(ns *v1.Namespace) { s.cache.RemoveNamespace(ns.Name) }

func (s *Scheduler) onClusterEvent(ev framework.ClusterEvent) {
	s.queue.OnEvent(ev, nil)
}

// onVictimEvent is onClusterEvent for a change of a preemption's victim: it does not
// move the preemptors that wait for their own victims and would not be allowed that
// room (victims.go).
func (s *Scheduler) onVictimEvent(ev framework.ClusterEvent, w *victimWait) {
	if w == nil {
		s.onClusterEvent(ev)
		return
	}
	s.queue.OnEvent(ev, func(e *queue.Entry) bool { return s.victimEventMayHelp(e, w) })
}

// onNodeEvent is onClusterEvent for an event about node n: a pod whose rejecting plugins
// have queueing hints is retried only if one of them says the node may help it.
func (s *Scheduler) onNodeEvent(ev framework.ClusterEvent, n *framework.NodeInfo) {
	s.queue.OnEvent(ev, func(e *queue.Entry) bool {
		if n == nil || e.Pod == nil || e.Gated() || len(e.UnschedulablePlugins) == 0 {
			return true
		}
		fwk := s.profiles[e.Profile]
		for name := range e.UnschedulablePlugins {
			if !s.registered(name, ev) {
				continue
			}
			if h := fwk.QueueingHint(name); h == nil || h.QueueingHint(ev, e.Pod, n) {
				return true
			}
		}
		return false
	})
}

// registered reports whether an event may undo a rejection by the plugin (a plugin that
// registered nothing may be helped by anything).
func (s *Scheduler) registered(plugin string, ev framework.ClusterEvent) bool {
	regs, ok := s.events[plugin]
	if !ok {
		return true
	}
	for _, r := range regs {
		if r.Matches(ev) {
			return true
		}
	}
	return false
}

// preEnqueue runs the entry's profile PreEnqueue plugins.
func (s *Scheduler) preEnqueue(e *queue.Entry) *framework.Status {
	fwk := s.profiles[e.Profile]
	if gs, ok := e.Group.(*groupState); ok && fwk != nil {
		return s.groupPreEnqueue(e, gs)
	}
	if fwk == nil || e.Pod == nil {
		return nil
	}
	if st := s.preemptionGate(e.Key); st != nil {
		return st
	}
	return fwk.RunPreEnqueuePlugins(context.Background(), e.Pod)
}

// pendingPodMayHelp reports whether a change to a pending pod may let it fit now: its spec
// or labels, or the ResourceClaims the ResourceClaim controller made for it.
func pendingPodMayHelp(old, pod *v1.Pod) bool {
	return old == nil || !apiequality.Semantic.DeepEqual(old.Spec, pod.Spec) || !maps.Equal(old.Labels, pod.Labels) ||
		!apiequality.Semantic.DeepEqual(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses) ||
		!apiequality.Semantic.DeepEqual(old.Status.ExtendedResourceClaimStatus, pod.Status.ExtendedResourceClaimStatus)
}

func isTerminal(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

// boundPodChanged reports whether an update to a bound pod changes what the cache keeps:
// labels, termination, requests (in-place resize), affinity or ports. Status churn such as
// readiness does not.
func boundPodChanged(old, pod *v1.Pod) bool {
	if !maps.Equal(old.Labels, pod.Labels) || (old.DeletionTimestamp == nil) != (pod.DeletionTimestamp == nil) ||
		!apiequality.Semantic.DeepEqual(old.Spec.Affinity, pod.Spec.Affinity) {
		return true
	}
	a, errA := resource.ForPod(old)
	b, errB := resource.ForPod(pod)
	return errA != nil || errB != nil || a != b
}

// UpdatePDB records a PodDisruptionBudget (nil old for a new one).
func (s *Scheduler) UpdatePDB(old, pdb *policyv1.PodDisruptionBudget) {
	s.cache.SetPDB(pdb)
	s.onClusterEvent(framework.ClusterEvent{Resource: framework.PodDisruptionBudget, Action: framework.Update, Label: "PDBUpdate"})
}

// DeletePDB forgets a PodDisruptionBudget.
func (s *Scheduler) DeletePDB(pdb *policyv1.PodDisruptionBudget) {
	s.cache.RemovePDB(pdb.Namespace + "/" + pdb.Name)
}
