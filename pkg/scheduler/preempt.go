package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Condition of a preemption victim, with the wording of the KEPs.
const (
	ReasonPreemptionByScheduler = "PreemptionByScheduler"
	msgPreemptedForPod          = "phalanx: preempting to accommodate a higher priority pod"
	gatePreemption              = "PreemptionInProgress"
)

// inflightPreemption is a preemption whose API calls are running.
type inflightPreemption struct {
	node    string
	victims []*framework.PodInfo
}

// Preempt carries out a preemption decided in this cycle (framework.PreemptionActuator),
// asynchronously as KEP-4832 describes: the victims are marked as leaving at once, so no
// later cycle counts them as victims again or as room; the preemptor is held back by a
// PreEnqueue gate while a task off the loop sets the victims' DisruptionTarget condition,
// deletes them (in parallel) and records the preemptor's nominated node. The nomination
// itself is made in memory by the cycle's failure handling, right away.
func (s *Scheduler) Preempt(preemptor *framework.PodInfo, node string, victims []*framework.PodInfo) {
	for _, v := range victims {
		v.Terminating = true
	}
	s.preempting[preemptor.Key] = &inflightPreemption{node: node, victims: victims}
	if s.observer != nil {
		s.observer.Preempting(preemptor, node, victims)
	}
	preemptorPod := preemptor.Pod
	pods := make([]*v1.Pod, len(victims))
	for i, v := range victims {
		pods[i] = v.Pod
	}
	s.actuator.Exec.Go(func() {
		start := time.Now()
		err := s.actuatePreemption(preemptorPod, node, pods)
		result := "success"
		if err != nil {
			result = "error"
		}
		// Observed when the work is done, with its real result (upstream's defer captures
		// the result before it is known).
		s.metrics.PreemptionGoroutineDuration.WithLabelValues(result).Observe(time.Since(start).Seconds())
		s.metrics.PreemptionGoroutines.WithLabelValues(result).Inc()
		s.Post(func() { s.preemptionDone(preemptor, err) })
	})
}

// actuatePreemption makes the API calls of a preemption. It runs off the loop.
func (s *Scheduler) actuatePreemption(preemptor *v1.Pod, node string, victims []*v1.Pod) error {
	ctx := context.Background()
	errs := make([]error, len(victims))
	s.actuator.Exec.Parallel(len(victims), func(i int) {
		victim := victims[i]
		cond := &v1.PodCondition{
			Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: ReasonPreemptionByScheduler,
			Message: msgPreemptedForPod, LastTransitionTime: metav1.NewTime(s.clock.Now()),
		}
		if err := s.actuator.Client.PatchPodStatus(ctx, victim, cond, nil); err != nil && !apierrors.IsNotFound(err) {
			errs[i] = fmt.Errorf("setting the DisruptionTarget condition of %s/%s: %w", victim.Namespace, victim.Name, err)
			return
		}
		if err := s.actuator.Client.DeletePod(ctx, victim, nil); err != nil && !apierrors.IsNotFound(err) {
			errs[i] = fmt.Errorf("deleting %s/%s: %w", victim.Namespace, victim.Name, err)
			return
		}
		s.actuator.Event(victim, preemptor, v1.EventTypeNormal, "Preempted", "Preempting",
			fmt.Sprintf("Preempted by pod %s/%s on node %s", preemptor.Namespace, preemptor.Name, node))
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return s.actuator.Client.PatchPodStatus(ctx, preemptor, nil, &node)
}

// preemptionDone releases the preemptor. On failure the nomination is reverted, victims
// not deleted are no longer counted as leaving, and the preemptor is retried after backoff.
func (s *Scheduler) preemptionDone(preemptor *framework.PodInfo, err error) {
	inflight := s.preempting[preemptor.Key]
	delete(s.preempting, preemptor.Key)
	if err == nil {
		// The preemptor waits in the unschedulable pool for its victims to leave; only if
		// an event already tried to move it (and met the gate) does it go on now.
		if e := s.queue.Get(preemptor.Key); e != nil && e.Gated() {
			s.queue.Activate(preemptor.Key)
		}
		return
	}
	s.logger.Info("Preemption failed; reverting the nomination", "pod", preemptor.Key, "err", err)
	if inflight != nil {
		for _, v := range inflight.victims {
			if cur := s.cache.Pod(v.Key); cur == v && v.Pod.DeletionTimestamp == nil {
				v.Terminating = false
			}
		}
	}
	if s.cache.ClearNomination(preemptor.Key) != "" || preemptor.Pod.Status.NominatedNodeName != "" {
		s.clearNominatedNodeName(preemptor)
	}
	s.actuator.Event(preemptor.Pod, nil, v1.EventTypeWarning, "FailedScheduling", "Preempting",
		"preemption failed, will retry: "+err.Error())
	s.queue.Activate(preemptor.Key)
}

// preemptionGate holds a pod back while its preemption's API calls run.
func (s *Scheduler) preemptionGate(key string) *framework.Status {
	if _, ok := s.preempting[key]; ok {
		return framework.NewStatus(framework.Pending, "waiting for the preemption of its victims to be carried out").WithPlugin(gatePreemption)
	}
	return nil
}
