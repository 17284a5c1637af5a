package sim

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/controllers"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Pod phases in the report.
const (
	PhasePending   = "Pending"
	PhaseRunning   = "Running"
	PhaseSucceeded = "Succeeded"
	PhasePreempted = "Preempted"
	PhaseDeleted   = "Deleted"
)

// podRecord is the simulator's record of one input pod through its life.
type podRecord struct {
	pod     *v1.Pod // current object; replaced, never mutated, since the scheduler holds it
	timing  timing
	created bool
	gone    bool
	// terminating is set from deletion until the pod is gone.
	terminating bool
	phase       string
	node        string
	boundAt     *float64
	endAt       *float64
	preemptedBy *ObjectRef
	// victimOfScheduler marks a deletion made by preemption (phase Preempted).
	victimOfScheduler bool
	// createdAt and deletedAt are when the pod appeared and when its deletion started.
	createdAt, deletedAt *float64
	// devices and volumes are what the pod's claims held when it was bound.
	devices, volumes []string
	// ctrl is the model of the controller that made the pod or that the pod names
	// (workloads.go); replaces names the pod it was made in place of.
	ctrl     controllers.Controller
	replaces string
	// message is the simulator's own word on the pod, when it has one (a pod bound to a
	// node that does not exist); the scheduler's otherwise.
	message string
}

// ObjectRef names an object in the report.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
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
	rec.phase = PhaseRunning
	rec.node = node
	rec.devices, rec.volumes = s.podDevices(np), s.boundVolumes(np)
	t := s.seconds(s.now)
	rec.boundAt = &t
	s.nodeUsage.add(node, np, s)
	s.sched.UpdatePod(old, np)
	if rec.timing.hasRunFor {
		s.at(s.now.Add(rec.timing.runFor), func() { s.succeed(rec) })
	}
	s.pdbsDirty = true
	s.tell(rec, controllers.Running)
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
	if rec.timing.hasTerminateAfter {
		wait = rec.timing.terminateAfter
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
	s.pdbsDirty = true
	s.tell(rec, controllers.Terminating)
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
		rec.phase = PhasePreempted
	case rec.phase != PhaseSucceeded:
		rec.phase = PhaseDeleted
	}
	if rec.node != "" && rec.phase != PhaseSucceeded {
		s.nodeUsage.remove(rec.node, rec.pod)
	}
	s.sched.DeletePod(rec.pod)
	s.releasePodClaims(rec.pod)
	s.pdbsDirty = true
	s.tell(rec, controllers.Gone)
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
	rec.phase = PhaseSucceeded
	rec.gone = true
	end := s.seconds(s.now)
	rec.endAt = &end
	s.nodeUsage.remove(rec.node, np)
	s.sched.UpdatePod(old, np)
	s.releasePodClaims(np)
	s.pdbsDirty = true
	s.tell(rec, controllers.Succeeded)
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
	if c, ok := obj.(*v1alpha1.CompositePodGroup); ok {
		return s.updateCompositeStatus(c)
	}
	pg, ok := obj.(*v1alpha1.PodGroup)
	if !ok {
		return fmt.Errorf("status updates of %T are not supported", obj)
	}
	if nativegroup.IsNative(pg) {
		return s.updateNativeStatus(pg)
	}
	cur := s.groups[pg.Namespace+"/"+pg.Name]
	if cur == nil || s.groupGone[pg.Namespace+"/"+pg.Name] {
		return fmt.Errorf("podgroups %q not found", pg.Name)
	}
	next := cur.DeepCopy()
	next.Status = *pg.Status.DeepCopy()
	s.groups[pg.Namespace+"/"+pg.Name] = next
	s.sources.SetCRD(next)
	return nil
}

// updateCompositeStatus stores the status of a CompositePodGroup, as UpdateStatus does a
// PodGroup's.
func (s *Simulator) updateCompositeStatus(c *v1alpha1.CompositePodGroup) error {
	if nativegroup.IsNativeComposite(c) {
		return s.updateNativeCompositeStatus(c)
	}
	key := c.Namespace + "/" + c.Name
	cur := s.composites[key]
	if cur == nil || s.compositeGone[key] || cur.UID != c.UID {
		return fmt.Errorf("compositepodgroups %q not found", c.Name)
	}
	next := cur.DeepCopy()
	next.Status = *c.Status.DeepCopy()
	s.composites[key] = next
	s.sources.SetCRDComposite(next)
	return nil
}

// Event records an event; a Preempted event names the victim's preemptor.
func (s *Simulator) Event(regarding, related runtime.Object, eventType, reason, _ string, note string) {
	ref := refOf(regarding)
	s.events = append(s.events, Event{Time: s.seconds(s.now), Object: ref.Kind + "/" + ref.Namespace + "/" + ref.Name,
		Type: eventType, Reason: reason, Message: note})
	if reason == "Preempted" && ref.Kind == "Pod" && related != nil {
		if rec := s.pods[ref.Namespace+"/"+ref.Name]; rec != nil {
			r := refOf(related)
			rec.preemptedBy = &r
		}
	}
}

func refOf(obj runtime.Object) ObjectRef {
	switch o := obj.(type) {
	case *v1.Pod:
		return ObjectRef{Kind: "Pod", Namespace: o.Namespace, Name: o.Name}
	case *v1alpha1.PodGroup:
		return ObjectRef{Kind: "PodGroup", Namespace: o.Namespace, Name: o.Name}
	case *nativegroup.PodGroup:
		return ObjectRef{Kind: "PodGroup", Namespace: o.Namespace, Name: o.Name}
	case *v1alpha1.CompositePodGroup:
		return ObjectRef{Kind: "CompositePodGroup", Namespace: o.Namespace, Name: o.Name}
	case *nativegroup.CompositePodGroup:
		return ObjectRef{Kind: "CompositePodGroup", Namespace: o.Namespace, Name: o.Name}
	case *v1.Node:
		return ObjectRef{Kind: "Node", Name: o.Name}
	case *policyv1.PodDisruptionBudget:
		return ObjectRef{Kind: "PodDisruptionBudget", Namespace: o.Namespace, Name: o.Name}
	}
	return ObjectRef{Kind: fmt.Sprintf("%T", obj)}
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
