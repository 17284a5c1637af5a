package scheduler

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// schedulePodEntry is the scheduling cycle of one pod: filter and score over the cache (with
// nominated pods of equal or higher priority counted where they are nominated), PostFilter
// when nothing fits, then assume, Reserve and Permit, and the binding cycle off the loop.
func (s *Scheduler) schedulePodEntry(ctx context.Context, fwk *fwkruntime.Framework, e *queue.Entry) {
	start := time.Now()
	p := e.Pod
	if p.ParseErr != nil {
		s.handleFailure(fwk, e, sets.New(podSpecPlugin), false, p.ParseErr.Error(), nil, start)
		return
	}
	if s.cache.NumNodes() == 0 {
		// As kube-scheduler: nothing to filter, nothing to preempt.
		s.handleFailure(fwk, e, nil, false, ErrNoNodesAvailable, nil, start)
		return
	}
	state := framework.NewCycleState()
	cp := s.cache.Checkpoint()
	s.addNominatedPods(p)
	feasible, diag, err := s.findNodesThatFit(ctx, fwk, state, p)
	if err != nil {
		s.cache.Rollback(cp)
		s.handleFailure(fwk, e, nil, true, err.Error(), nil, start)
		return
	}
	if len(feasible) == 0 {
		fitErr := &FitError{NumAllNodes: diag.NumNodes, Diagnosis: diag}
		var nomination *framework.PostFilterResult
		if fwk.HasPostFilter() {
			res, st := fwk.RunPostFilterPlugins(ctx, state, p, diag.NodeToStatus)
			if st.Code() == framework.Error {
				s.cache.Rollback(cp)
				s.handleFailure(fwk, e, nil, true, st.Message(), nil, start)
				return
			}
			if !st.IsSuccess() {
				fitErr.PostFilterMsg = st.Message()
			}
			nomination = res
		}
		s.cache.Rollback(cp)
		s.handleFailure(fwk, e, diag.UnschedulablePlugins, false, fitErr.Error(), nomination, start)
		return
	}
	host, err := s.prioritizeNodes(ctx, fwk, state, p, feasible, 0)
	s.cache.Rollback(cp)
	if err != nil {
		s.handleFailure(fwk, e, nil, true, err.Error(), nil, start)
		return
	}
	s.assume(ctx, fwk, state, e, host, start)
}

// assume records the decision in the cache, runs Reserve and Permit, and starts binding.
func (s *Scheduler) assume(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, e *queue.Entry, host string, start time.Time) {
	p := e.Pod
	if s.observer != nil {
		s.observer.BeforeAssume(p, host, s.cache)
	}
	s.cache.ClearNomination(p.Key)
	if err := s.cache.AssumePod(p, host); err != nil {
		s.handleFailure(fwk, e, nil, true, err.Error(), nil, start)
		return
	}
	if st := fwk.RunReservePluginsReserve(ctx, state, p, host); !st.IsSuccess() {
		s.undoAssume(ctx, fwk, state, p, host)
		s.handleFailure(fwk, e, sets.New(st.Plugin()), !st.IsRejected(), st.Message(), nil, start)
		return
	}
	st, timeout := fwk.RunPermitPlugins(ctx, state, p, host)
	switch {
	case st.Code() == framework.Wait:
		s.waitForPermit(fwk, state, e, p, host, timeout, start)
		return
	case !st.IsSuccess():
		s.undoAssume(ctx, fwk, state, p, host)
		s.handleFailure(fwk, e, sets.New(st.Plugin()), !st.IsRejected(), st.Message(), nil, start)
		return
	}
	s.bind(fwk, state, e, p, host, start)
}

func (s *Scheduler) undoAssume(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, host string) {
	fwk.RunReservePluginsUnreserve(ctx, state, p, host)
	s.cache.ForgetPod(p.Key)
	s.onClusterEvent(framework.EventAssignedPodDelete)
}

// handleFailure requeues an entry that could not be scheduled, applies the nomination
// PostFilter decided (a nil result leaves the nomination as it is), and tells the user why.
func (s *Scheduler) handleFailure(fwk *fwkruntime.Framework, e *queue.Entry, rejectors sets.Set[string], isError bool, msg string, nomination *framework.PostFilterResult, start time.Time) {
	p := e.Pod
	if nomination != nil {
		if nomination.NominatedNodeName != "" {
			s.cache.Nominate(p, nomination.NominatedNodeName)
		} else if s.cache.ClearNomination(p.Key) != "" || p.Pod.Status.NominatedNodeName != "" {
			s.clearNominatedNodeName(p)
		}
	}
	if note := s.spentDecision(e.Key); note != "" {
		msg, isError = note+msg, true
	}
	s.queue.Requeue(e, rejectors, isError)
	result, reason := metrics.ResultUnschedulable, v1.PodReasonUnschedulable
	if isError {
		result, reason = metrics.ResultError, v1.PodReasonSchedulerError
	}
	s.observeAttempt(fwk, result, start)
	s.reportFailure(p, reason, msg)
}

func (s *Scheduler) observeAttempt(fwk *fwkruntime.Framework, result string, start time.Time) {
	s.metrics.ScheduleAttempts.WithLabelValues(result, fwk.SchedulerName()).Inc()
	s.metrics.SchedulingAttemptDuration.WithLabelValues(result, fwk.SchedulerName()).Observe(time.Since(start).Seconds())
}

// CheckFits runs PreFilter and Filter for a pod on one node with a fresh state, against the
// cluster without nominated pods. The simulator's invariant checks use it to confirm each
// placement honours the pod's hard constraints.
func (s *Scheduler) CheckFits(p *framework.PodInfo, node string) *framework.Status {
	fwk, _, err := s.profileFor(p.Pod.Spec.SchedulerName)
	if err != nil {
		return framework.AsStatus(err)
	}
	n := s.cache.Get(node)
	if n == nil {
		return framework.NewStatus(framework.Error, "node "+node+" not found")
	}
	state := framework.NewCycleState()
	ctx := context.Background()
	res, st := fwk.RunPreFilterPlugins(ctx, state, p)
	if !st.IsSuccess() {
		return st
	}
	if res != nil && res.NodeNames != nil {
		if _, ok := res.NodeNames[node]; !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node excluded by PreFilter")
		}
	}
	return fwk.RunFilterPlugins(ctx, state, p, n)
}
