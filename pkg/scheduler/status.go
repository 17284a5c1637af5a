package scheduler

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// podStatus tells pending pods why they wait: FailedScheduling events, their PodScheduled
// condition, stale nominations cleared; and keeps each one's last failure for reports.
type podStatus struct {
	actuator    *actuator.Actuator
	clock       framework.Clock
	logger      klog.Logger
	nominations *cache.NominationStore
	queue       *queue.Queue
	// failures keeps the last failure message of pending pods, by key.
	failures map[string]string
	// filed says which group unit a pending member is filed under (pendingGroups.filed).
	filed func(key string) *groupState
}

// LastFailure returns the message of a pending pod's last failed attempt.
func (s *Scheduler) LastFailure(key string) string { return s.status.failures[key] }

// PendingMessage says why a pending pod is pending: its last failure, or the gate that
// holds it (or its group).
func (s *Scheduler) PendingMessage(pod *v1.Pod) string { return s.status.pendingMessage(pod) }

func (ps *podStatus) pendingMessage(pod *v1.Pod) string {
	key := pod.Namespace + "/" + pod.Name
	if msg := ps.failures[key]; msg != "" {
		return msg
	}
	ek := key
	if gs := ps.filed(key); gs != nil {
		ek = gs.entryKey()
	}
	if entry := ps.queue.Get(ek); entry != nil && entry.Gated() {
		return entry.GatedMessage
	}
	return ""
}

// forget drops the last failure of a pod that was placed or is gone.
func (ps *podStatus) forget(key string) { delete(ps.failures, key) }

// reportFailure emits FailedScheduling and sets the PodScheduled condition, skipping the
// API call when the pod already says the same thing.
func (ps *podStatus) reportFailure(p *framework.PodInfo, reason, msg string) {
	ps.reportNominated(p, reason, msg, "")
}

// reportNominated is reportFailure for a pod its cycle nominated to a node (a preemptor):
// the nominated node goes in the same status patch as the condition, as kube-scheduler's
// failure handler writes them, rather than in a write of its own after the victims'
// deletions (docs/decisions/0071). A preemption that fails clears it again
// (Preemptions.done), after this patch: both are the pod's writes, which the client
// makes in order.
func (ps *podStatus) reportNominated(p *framework.PodInfo, reason, msg, node string) {
	ps.failures[p.Key] = msg
	ps.actuator.Event(p.Pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	var nominated *string
	if node != "" && p.Pod.Status.NominatedNodeName != node {
		nominated = &node
	}
	if nominated == nil {
		for _, c := range p.Pod.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == reason && c.Message == msg {
				return
			}
		}
	}
	cond := &v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(ps.clock.Now()),
	}
	pod := p.Pod
	ps.actuator.Async(func(ctx context.Context) error {
		return ps.actuator.Client.PatchPodStatus(ctx, pod, cond, nominated)
	}, func(err error) {
		if err != nil {
			ps.logger.V(2).Info("Could not set the PodScheduled condition", "pod", p.Key, "err", err)
		}
	})
}

// dropNomination forgets a pod's nomination and, when it had one in memory or its status
// names one, clears nominatedNodeName in its status.
func (ps *podStatus) dropNomination(p *framework.PodInfo) {
	if ps.nominations.ClearNomination(p.Key) != "" || p.Pod.Status.NominatedNodeName != "" {
		ps.clearNominatedNodeName(p)
	}
}

// clearNominatedNodeName removes a stale nomination from the pod's status.
func (ps *podStatus) clearNominatedNodeName(p *framework.PodInfo) {
	pod := p.Pod
	empty := ""
	ps.actuator.Async(func(ctx context.Context) error {
		return ps.actuator.Client.PatchPodStatus(ctx, pod, nil, &empty)
	}, func(err error) {
		if err != nil {
			ps.logger.V(2).Info("Could not clear the nominated node", "pod", p.Key, "err", err)
		}
	})
}
