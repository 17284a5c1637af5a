package sim

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// podRecord is the simulator's record of one input pod through its life.
type podRecord struct {
	pod     *v1.Pod // current object; replaced, never mutated, since the scheduler holds it
	timing  admission.Timing
	created bool
	gone    bool
	// terminating is set from deletion until the pod is gone.
	terminating bool
	phase       string
	node        string
	boundAt     *float64
	endAt       *float64
	preemptedBy *report.ObjectRef
	// victimOfScheduler marks a deletion made by preemption (phase Preempted).
	victimOfScheduler bool
	// createdAt and deletedAt are when the pod appeared and when its deletion started.
	createdAt, deletedAt *float64
	// devices and volumes are what the pod's claims held when it was bound.
	devices, volumes []string
	// ctrl is the model of the controller that made the pod or that the pod names
	// (workloads.go); replaces names the pod it was made in place of.
	ctrl     workload.Controller
	replaces string
	// replaced says a pod made in its place exists; awaitsReplacement that it ended and
	// is in its controller's unreplaced queue (Simulator.unreplaced).
	replaced, awaitsReplacement bool
	// message is the simulator's own word on the pod, when it has one (a pod bound to a
	// node that does not exist); the scheduler's otherwise.
	message string
}

// The simulator is the actuator's Client: the calls below change the in-memory cluster and
// tell the scheduler, as informers would.

// BindPod binds a pending pod.
func (s *Simulator) BindPod(_ context.Context, pod *v1.Pod, node string) error {
	rec := s.pods[key(pod)]
	switch {
	case rec == nil || rec.gone || !rec.created:
		return fmt.Errorf("pods %q not found", pod.Name)
	case rec.pod.Spec.NodeName != "":
		s.violate("pod %s bound twice: to %s, then to %s", key(pod), rec.pod.Spec.NodeName, node)
		return fmt.Errorf("pod %s is already assigned to node %q", key(pod), rec.pod.Spec.NodeName)
	case rec.terminating:
		return fmt.Errorf("pod %s is being deleted", key(pod))
	}
	if s.nodes[node] == nil {
		return fmt.Errorf("nodes %q not found", node)
	}
	old := rec.pod
	np := old.DeepCopy()
	np.Spec.NodeName = node
	np.Status.Phase = v1.PodRunning
	start := metav1.NewTime(s.now)
	np.Status.StartTime = &start
	setCondition(&np.Status, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: start})
	rec.pod = np
	rec.phase = report.PhaseRunning
	rec.node = node
	rec.devices, rec.volumes = s.objs.podDevices(np), s.objs.boundVolumes(np)
	t := s.seconds(s.now)
	rec.boundAt = &t
	s.nodeUsage.add(node, np, s)
	s.sched.UpdatePod(old, np)
	if rec.timing.HasRunFor {
		s.at(s.now.Add(rec.timing.RunFor), func() { s.succeed(rec) })
	}
	s.budgets.PodsChanged()
	s.tell(rec, workload.Running)
	return nil
}

// DeletePod deletes a pod gracefully: a pending pod goes at once, a bound one terminates
// after its grace period (or its terminate-after annotation).
func (s *Simulator) DeletePod(_ context.Context, pod *v1.Pod, grace *int64) error {
	rec := s.pods[key(pod)]
	if rec == nil || rec.gone || !rec.created {
		return fmt.Errorf("pods %q not found", pod.Name)
	}
	rec.victimOfScheduler = true
	s.deletePod(rec, grace)
	return nil
}

func (s *Simulator) deletePod(rec *podRecord, grace *int64) {
	if rec.terminating {
		return
	}
	rec.markDeleted(s.seconds(s.now))
	if rec.pod.Spec.NodeName == "" {
		s.gone(rec)
		return
	}
	g := *rec.pod.Spec.TerminationGracePeriodSeconds
	if grace != nil {
		g = *grace
	}
	wait := time.Duration(g) * time.Second
	if rec.timing.HasTerminateAfter {
		wait = rec.timing.TerminateAfter
	}
	old := rec.pod
	np := old.DeepCopy()
	ts := metav1.NewTime(s.now)
	np.DeletionTimestamp = &ts
	np.DeletionGracePeriodSeconds = &g
	rec.pod = np
	rec.terminating = true
	s.sched.UpdatePod(old, np)
	s.at(s.now.Add(wait), func() { s.gone(rec) })
	s.budgets.PodsChanged()
	s.tell(rec, workload.Terminating)
}

// gone removes a pod from the cluster.
func (s *Simulator) gone(rec *podRecord) {
	if rec.gone {
		return
	}
	rec.gone = true
	rec.terminating = false
	end := s.seconds(s.now)
	rec.endAt = &end
	rec.markDeleted(end) // gone without a deletion first: its node was deleted
	switch {
	case rec.victimOfScheduler:
		rec.phase = report.PhasePreempted
	case rec.phase != report.PhaseSucceeded:
		rec.phase = report.PhaseDeleted
	}
	if rec.node != "" && rec.phase != report.PhaseSucceeded {
		s.nodeUsage.remove(rec.node, rec.pod)
	}
	if s.opts.claimReleaseDelay() == 0 {
		// released at once: the scheduler never sees the claims of a pod that is gone
		s.releaseClaims(rec.pod)
		s.sched.DeletePod(rec.pod)
	} else {
		s.sched.DeletePod(rec.pod)
		s.releaseClaims(rec.pod)
	}
	s.budgets.PodsChanged()
	s.tell(rec, workload.Gone)
}

// releaseClaims has the ResourceClaim controller release the claims of a pod that is gone
// or finished, after its delay (Options.ClaimReleaseDelay): until then the claims keep
// their devices, as on a cluster. The report's events say when it acted.
func (s *Simulator) releaseClaims(p *v1.Pod) {
	if len(p.Spec.ResourceClaims) == 0 && p.Status.ExtendedResourceClaimStatus == nil {
		return
	}
	delay := s.opts.claimReleaseDelay()
	release := func() {
		done := s.objs.claimController.ReleasePodClaims(p)
		if done.Empty() {
			return
		}
		var parts []string
		if len(done.Deleted) > 0 {
			parts = append(parts, "deleted "+strings.Join(done.Deleted, ", "))
		}
		if len(done.Deallocated) > 0 {
			parts = append(parts, "deallocated "+strings.Join(done.Deallocated, ", "))
		}
		if len(parts) == 0 {
			parts = append(parts, "dropped the reservations of "+strings.Join(done.Unreserved, ", "))
		}
		s.events = append(s.events, report.Event{Time: s.seconds(s.now), Object: "Pod/" + p.Namespace + "/" + p.Name,
			Type: v1.EventTypeNormal, Reason: "ResourceClaimsReleased",
			Message: fmt.Sprintf("the ResourceClaim controller %s, %s after the pod ended", strings.Join(parts, "; "), delay)})
	}
	if delay == 0 {
		release()
		return
	}
	s.at(s.now.Add(delay), release)
}

// markDeleted records the first moment the pod's deletion started.
func (rec *podRecord) markDeleted(t float64) {
	if rec.deletedAt == nil {
		rec.deletedAt = &t
	}
}

// succeed ends a pod whose run-for elapsed.
func (s *Simulator) succeed(rec *podRecord) {
	if rec.gone || rec.terminating {
		return
	}
	old := rec.pod
	np := old.DeepCopy()
	np.Status.Phase = v1.PodSucceeded
	rec.pod = np
	rec.phase = report.PhaseSucceeded
	rec.gone = true
	end := s.seconds(s.now)
	rec.endAt = &end
	s.nodeUsage.remove(rec.node, np)
	s.sched.UpdatePod(old, np)
	s.releaseClaims(np)
	s.budgets.PodsChanged()
	s.tell(rec, workload.Succeeded)
}

// PatchPodStatus sets a condition and/or the nominated node name.
func (s *Simulator) PatchPodStatus(_ context.Context, pod *v1.Pod, cond *v1.PodCondition, nominated *string) error {
	return s.patchPodStatus(pod, func(st *v1.PodStatus) {
		if cond != nil {
			setCondition(st, *cond)
		}
		if nominated != nil {
			st.NominatedNodeName = *nominated
		}
	})
}

// patchPodStatus changes a copy of a pod's status and tells the scheduler.
func (s *Simulator) patchPodStatus(pod *v1.Pod, change func(*v1.PodStatus)) error {
	rec := s.pods[key(pod)]
	if rec == nil || rec.gone || !rec.created {
		return fmt.Errorf("pods %q not found", pod.Name)
	}
	old := rec.pod
	np := *old
	np.Status = *old.Status.DeepCopy()
	change(&np.Status)
	rec.pod = &np
	s.sched.UpdatePod(old, &np)
	return nil
}

// UpdateStatus stores the status of a PodGroup or a CompositePodGroup.
func (s *Simulator) UpdateStatus(_ context.Context, obj runtime.Object) error {
	return s.groups.updateStatus(obj)
}

// Event records an event; a Preempted event names the victim's preemptor.
func (s *Simulator) Event(regarding, related runtime.Object, eventType, reason, _ string, note string) {
	ref := refOf(regarding)
	s.events = append(s.events, report.Event{Time: s.seconds(s.now), Object: ref.Kind + "/" + ref.Namespace + "/" + ref.Name,
		Type: eventType, Reason: reason, Message: note})
	if reason == "Preempted" && ref.Kind == "Pod" && related != nil {
		if rec := s.pods[ref.Namespace+"/"+ref.Name]; rec != nil {
			r := refOf(related)
			rec.preemptedBy = &r
		}
	}
}

func refOf(obj runtime.Object) report.ObjectRef {
	switch o := obj.(type) {
	case *v1.Pod:
		return report.ObjectRef{Kind: "Pod", Namespace: o.Namespace, Name: o.Name}
	case *v1alpha1.PodGroup:
		return report.ObjectRef{Kind: "PodGroup", Namespace: o.Namespace, Name: o.Name}
	case *nativegroup.PodGroup:
		return report.ObjectRef{Kind: "PodGroup", Namespace: o.Namespace, Name: o.Name}
	case *v1alpha1.CompositePodGroup:
		return report.ObjectRef{Kind: "CompositePodGroup", Namespace: o.Namespace, Name: o.Name}
	case *nativegroup.CompositePodGroup:
		return report.ObjectRef{Kind: "CompositePodGroup", Namespace: o.Namespace, Name: o.Name}
	case *v1.Node:
		return report.ObjectRef{Kind: "Node", Name: o.Name}
	case *policyv1.PodDisruptionBudget:
		return report.ObjectRef{Kind: "PodDisruptionBudget", Namespace: o.Namespace, Name: o.Name}
	}
	return report.ObjectRef{Kind: fmt.Sprintf("%T", obj)}
}

func setCondition(st *v1.PodStatus, c v1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			if st.Conditions[i].Status == c.Status {
				c.LastTransitionTime = st.Conditions[i].LastTransitionTime
			}
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

func key(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func (s *Simulator) addNode(n *v1.Node) {
	s.nodeAdded[n.Name] = s.seconds(s.now)
	s.nodes[n.Name] = n
	s.sched.AddNode(n)
	// The node's kubelet starts the pods already bound to it.
	for _, rec := range s.waitingForNode[n.Name] {
		if !rec.gone && !rec.terminating {
			s.startPod(rec, n.Name)
		}
	}
	delete(s.waitingForNode, n.Name)
}

// deleteNode removes a node; its pods are deleted with it (the pod garbage collector would
// do so in a real cluster).
func (s *Simulator) deleteNode(n *v1.Node) {
	s.nodeDeleted[n.Name] = s.seconds(s.now)
	delete(s.nodes, n.Name)
	for _, rec := range s.podOrder {
		if rec.node == n.Name && !rec.gone {
			s.gone(rec)
		}
	}
	s.sched.DeleteNode(n)
}

func (s *Simulator) createPod(rec *podRecord) {
	p := rec.pod
	if !s.opts.TakeOver {
		p = p.DeepCopy()
	}
	p.CreationTimestamp.Time = s.now
	s.objs.claimController.CreatePodClaims(p)
	s.objs.volumes.CreateEphemeralClaims(p)
	rec.pod = p
	rec.created = true
	created := s.seconds(s.now)
	rec.createdAt = &created
	if n := p.Spec.NodeName; n != "" && s.nodes[n] == nil {
		s.awaitNode(rec, n)
	} else if n != "" {
		s.startPod(rec, n)
	}
	s.sched.AddPod(p)
	s.budgets.PodsChanged()
}

// startPod runs a pod created bound to a node, as the node's kubelet does.
func (s *Simulator) startPod(rec *podRecord, node string) {
	p := rec.pod
	p.Status.Phase = v1.PodRunning
	rec.phase, rec.node, rec.message = report.PhaseRunning, node, ""
	t := s.seconds(s.now)
	rec.boundAt = &t
	if p.Status.StartTime == nil {
		start := metav1.NewTime(s.now)
		p.Status.StartTime = &start
	}
	s.nodeUsage.add(node, p, s)
	if rec.timing.HasRunFor {
		s.at(s.now.Add(rec.timing.RunFor), func() { s.succeed(rec) })
	}
	s.tell(rec, workload.Running)
}

// awaitNode keeps a pod bound to a node that does not exist pending, as a cluster does:
// no kubelet runs it. It starts if the node appears; once the node has been missing for
// admission.PodGCQuarantine, the pod garbage collector deletes it.
func (s *Simulator) awaitNode(rec *podRecord, node string) {
	rec.message = fmt.Sprintf("bound to node %s, which does not exist: no kubelet runs it, and the pod garbage collector deletes it unless the node appears within %s", node, admission.PodGCQuarantine)
	s.waitingForNode[node] = append(s.waitingForNode[node], rec)
	s.at(s.now.Add(admission.PodGCQuarantine), func() {
		if rec.gone || rec.phase != report.PhasePending || s.nodes[node] != nil {
			return
		}
		rec.message = fmt.Sprintf("deleted by the pod garbage collector: bound to node %s, which did not exist for %s", node, admission.PodGCQuarantine)
		grace := int64(0)
		s.deletePod(rec, &grace)
	})
}

// templateAppeared makes the claims that waited for a template, for the pending pods.
func (s *Simulator) templateAppeared() {
	for _, rec := range s.podOrder {
		if !rec.created || rec.gone || rec.pod.Spec.NodeName != "" {
			continue
		}
		old := rec.pod
		np := old.DeepCopy()
		if s.objs.claimController.CreatePodClaims(np) {
			rec.pod = np
			s.sched.UpdatePod(old, np)
		}
	}
}

// existingPods are the pods that exist, in input order, each with whether its deletion
// has started: what the disruption controller counts.
func (s *Simulator) existingPods() iter.Seq2[*v1.Pod, bool] {
	return func(yield func(*v1.Pod, bool) bool) {
		for _, rec := range s.podOrder {
			if rec.created && !rec.gone && !yield(rec.pod, rec.terminating) {
				return
			}
		}
	}
}
