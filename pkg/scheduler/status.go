package scheduler

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// LastFailure returns the message of a pending pod's last failed attempt.
func (s *Scheduler) LastFailure(key string) string { return s.failures[key] }

// PendingMessage says why a pending pod is pending: its last failure, or the gate that
// holds it (or its group).
func (s *Scheduler) PendingMessage(pod *v1.Pod) string {
	key := pod.Namespace + "/" + pod.Name
	if msg := s.failures[key]; msg != "" {
		return msg
	}
	ek := key
	if g := v1alpha1.PodGroupNameOf(pod); g != "" {
		ek = groupEntryKey(pod.Namespace + "/" + g)
	}
	if e := s.queue.Get(ek); e != nil && e.Gated() {
		return e.GatedMessage
	}
	return ""
}

// reportFailure emits FailedScheduling and sets the PodScheduled condition, skipping the
// API call when the pod already says the same thing.
func (s *Scheduler) reportFailure(p *framework.PodInfo, reason, msg string) {
	s.failures[p.Key] = msg
	s.actuator.Event(p.Pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	for _, c := range p.Pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == reason && c.Message == msg {
			return
		}
	}
	cond := &v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(s.clock.Now()),
	}
	pod := p.Pod
	s.actuator.Async(func(ctx context.Context) error {
		return s.actuator.Client.PatchPodStatus(ctx, pod, cond, nil)
	}, func(err error) {
		if err != nil {
			s.logger.V(2).Info("Could not set the PodScheduled condition", "pod", p.Key, "err", err)
		}
	})
}

// clearNominatedNodeName removes a stale nomination from the pod's status.
func (s *Scheduler) clearNominatedNodeName(p *framework.PodInfo) {
	pod := p.Pod
	empty := ""
	s.actuator.Async(func(ctx context.Context) error {
		return s.actuator.Client.PatchPodStatus(ctx, pod, nil, &empty)
	}, func(err error) {
		if err != nil {
			s.logger.V(2).Info("Could not clear the nominated node", "pod", p.Key, "err", err)
		}
	})
}
