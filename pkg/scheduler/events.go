package scheduler

import (
	"context"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
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
		if old != nil && old.Spec.NodeName == pod.Spec.NodeName {
			if pi := s.cache.Nodes().Pod(key); pi != nil && !boundPodChanged(old, pod, pi) {
				pi.Pod = pod
				return
			}
		}
		s.addBoundPod(pod)
	default:
		if g := v1alpha1.PodGroupNameOf(pod); g != "" {
			if s.binder.binding[key] != nil {
				// A member whose binding is in flight is not pending: the binding's outcome
				// decides whether it is tried again.
				return
			}
			if old != nil && v1alpha1.PodGroupNameOf(old) != g {
				s.pending.removeMember(key)
			}
			s.pending.updateMember(pod, pendingPodMayHelp(old, pod))
			return
		}
		entry := s.queue.Get(key)
		if entry == nil {
			s.addPendingPod(pod)
			return
		}
		entry.Pod = framework.NewPodInfo(pod)
		entry.Priority = entry.Pod.Priority
		if pod.Status.NominatedNodeName != "" && s.cache.Nominations().NominatedNode(key) == "" {
			s.cache.Nominations().Nominate(entry.Pod, pod.Status.NominatedNodeName)
		}
		s.queue.Update(entry, pendingPodMayHelp(old, pod))
	}
}

// DeletePod handles a pod that is gone (deleted, or finished).
func (s *Scheduler) DeletePod(pod *v1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	s.pods.dropWaiting(key)
	s.status.forget(key)
	s.queue.Delete(key)
	s.pending.removeMember(key)
	s.cache.Nominations().ClearNomination(key)
	pi := s.cache.Nodes().RemoveBoundPod(key)
	// After the cache's removal: a preemption this pod was the last victim of sees which
	// of its claims are still being released (no pod of the cache uses them).
	victimOf := s.preemptions.PodGone(key)
	if pi != nil {
		if gk := framework.GroupKey(pi); gk != "" && len(s.cache.GroupMembers(gk)) == 0 {
			if g := s.cache.Group(gk); g != nil {
				// The last bound member is gone: the group's claims are free.
				s.groupAPI.ReleaseClaims(g.PodGroup)
			}
		}
		s.retries.onVictimEvent(framework.EventAssignedPodDelete, victimOf)
	}
}

func (s *Scheduler) addBoundPod(pod *v1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	s.preemptions.ForgetVictims(key)
	s.queue.Delete(key)
	s.pending.removeMember(key)
	s.cache.Nominations().ClearNomination(key)
	s.status.forget(key)
	if pi := s.cache.Nodes().Pod(key); pi != nil && pi.Assumed && pi.NodeName == pod.Spec.NodeName && !boundPodChanged(pi.Pod, pod, pi) {
		// The binding we made is confirmed: keep the PodInfo, it is the same pod. A pod
		// that changed on the way (the API server's PodTopologyLabels admission gives a
		// bound pod its node's zone and region labels) is added again below, so that the
		// cache's label index holds the labels it has.
		pi.Assumed = false
		pi.Pod = pod
		s.cache.Nodes().SetLeaving(pi, pod.DeletionTimestamp != nil)
		s.retries.onEvent(framework.EventAssignedPodAdd)
		return
	}
	pi := framework.NewPodInfo(pod)
	if err := s.cache.Nodes().AddBoundPod(pi); err != nil {
		s.logger.Error(err, "Adding bound pod to the cache", "pod", key)
		return
	}
	s.retries.onVictimEvent(framework.EventAssignedPodAdd, s.preemptions.VictimOf(key))
}

func (s *Scheduler) addPendingPod(pod *v1.Pod) {
	_, profile, err := s.profileFor(pod.Spec.SchedulerName)
	if err != nil {
		return // another scheduler's pod
	}
	pi := framework.NewPodInfo(pod)
	if pod.Status.NominatedNodeName != "" {
		s.cache.Nominations().Nominate(pi, pod.Status.NominatedNodeName)
	}
	if pi.Group != "" {
		s.pending.addMember(pi, profile, true)
		return
	}
	s.queue.Add(&queue.Entry{QueuedUnit: framework.QueuedUnit{Key: pi.Key, Priority: pi.Priority}, Pod: pi, Profile: profile})
}

// AddNode handles a node that appeared.
func (s *Scheduler) AddNode(node *v1.Node) {
	s.retries.onNodeEvent(framework.EventNodeAdd, s.cache.Nodes().AddNode(node))
}

// UpdateNode handles a changed node; only changes that could make pods fit trigger retries.
func (s *Scheduler) UpdateNode(old, node *v1.Node) {
	n := s.cache.Nodes().AddNode(node)
	if old == nil {
		s.retries.onNodeEvent(framework.EventNodeAdd, n)
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
	// The API server keeps the list sorted: comparing in order is comparing the sets.
	if !slices.Equal(old.Status.DeclaredFeatures, node.Status.DeclaredFeatures) {
		action |= framework.UpdateNodeDeclaredFeature
	}
	if action != 0 {
		s.retries.onNodeEvent(framework.ClusterEvent{Resource: framework.Node, Action: action, Label: "NodeUpdate"}, n)
	}
}

// DeleteNode handles a node that is gone.
func (s *Scheduler) DeleteNode(node *v1.Node) {
	s.cache.Nodes().RemoveNode(node.Name)
	s.retries.onEvent(framework.ClusterEvent{Resource: framework.Node, Action: framework.Delete, Label: "NodeDelete"})
}

// SetNamespace records a namespace's labels.
func (s *Scheduler) SetNamespace(ns *v1.Namespace) {
	s.cache.SetNamespace(ns)
	s.retries.onEvent(framework.ClusterEvent{Resource: framework.Namespace, Action: framework.Add, Label: "NamespaceAdd"})
}

// DeleteNamespace forgets a namespace.
func (s *Scheduler) DeleteNamespace(ns *v1.Namespace) { s.cache.RemoveNamespace(ns.Name) }

// UpdatePDB records a PodDisruptionBudget (nil old for a new one).
func (s *Scheduler) UpdatePDB(old, pdb *policyv1.PodDisruptionBudget) {
	s.cache.DisruptionBudgets().SetPDB(pdb)
	s.retries.onEvent(framework.ClusterEvent{Resource: framework.PodDisruptionBudget, Action: framework.Update, Label: "PDBUpdate"})
}

// DeletePDB forgets a PodDisruptionBudget.
func (s *Scheduler) DeletePDB(pdb *policyv1.PodDisruptionBudget) {
	s.cache.DisruptionBudgets().RemovePDB(pdb.Namespace + "/" + pdb.Name)
}

// AddPriorityClass records a PriorityClass; groups that name it are resolved again.
func (s *Scheduler) AddPriorityClass(pc *schedulingv1.PriorityClass) { s.pending.setPriorityClass(pc) }

// DeletePriorityClass forgets a PriorityClass.
func (s *Scheduler) DeletePriorityClass(pc *schedulingv1.PriorityClass) {
	s.pending.deletePriorityClass(pc)
}

// AddPodGroup handles a PodGroup that appeared or changed.
func (s *Scheduler) AddPodGroup(pg *v1alpha1.PodGroup) { s.pending.setGroup(pg) }

// UpdatePodGroup handles a changed PodGroup.
func (s *Scheduler) UpdatePodGroup(_, pg *v1alpha1.PodGroup) { s.pending.setGroup(pg) }

// DeletePodGroup forgets a PodGroup; its pending members wait for it to come back.
func (s *Scheduler) DeletePodGroup(pg *v1alpha1.PodGroup) { s.pending.deleteGroup(pg) }

// AddCompositePodGroup handles a CompositePodGroup that appeared or changed.
func (s *Scheduler) AddCompositePodGroup(c *v1alpha1.CompositePodGroup) { s.pending.setComposite(c) }

// UpdateCompositePodGroup handles a changed CompositePodGroup.
func (s *Scheduler) UpdateCompositePodGroup(_, c *v1alpha1.CompositePodGroup) {
	s.pending.setComposite(c)
}

// DeleteCompositePodGroup forgets a CompositePodGroup; the groups that name it wait for it
// to come back.
func (s *Scheduler) DeleteCompositePodGroup(c *v1alpha1.CompositePodGroup) {
	s.pending.deleteComposite(c)
}

// preEnqueue decides whether an entry may enter the active queue: a group's gates, or a
// pod's preemption in progress and its profile's PreEnqueue plugins.
func (s *Scheduler) preEnqueue(entry *queue.Entry) *framework.Status {
	fwk := s.profiles[entry.Profile]
	if gs, ok := entry.Group.(*groupState); ok && fwk != nil {
		return s.pending.gate(entry, gs)
	}
	if fwk == nil || entry.Pod == nil {
		return nil
	}
	if st := s.preemptions.Gate(entry.Key); st != nil {
		return st
	}
	return fwk.RunPreEnqueuePlugins(context.Background(), entry.Pod)
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
// readiness does not. pi is the cache's PodInfo of the pod: when it was made from old, its
// requests are old's, and only the new pod's are computed.
func boundPodChanged(old, pod *v1.Pod, pi *framework.PodInfo) bool {
	if !maps.Equal(old.Labels, pod.Labels) || (old.DeletionTimestamp == nil) != (pod.DeletionTimestamp == nil) ||
		!apiequality.Semantic.DeepEqual(old.Spec.Affinity, pod.Spec.Affinity) {
		return true
	}
	var a resource.PodRequests
	var errA error
	if pi.Pod == old && pi.ParseErr == nil {
		a = pi.Requests // computed by resource.ForPod(old) without error
	} else {
		a, errA = resource.ForPod(old)
	}
	b, errB := resource.ForPod(pod)
	return errA != nil || errB != nil || a != b
}
