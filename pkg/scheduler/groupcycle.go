package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// msgWaitingForPreemption is the preemptor group's condition message while its victims
// leave (KEP-5710).
const msgWaitingForPreemption = "pod group is waiting for podgroup preemption to complete"

// scheduleGroupEntry is the group cycle: every pending member of a PodGroup is placed in
// one cycle on one snapshot. A gang succeeds only when at least minCount members (counting
// those already running) fit, and then they are bound together; otherwise nothing is kept
// and PodGroupPostFilter (workload-aware preemption) runs once for the group. A basic
// group keeps whatever members fit.
func (s *Scheduler) scheduleGroupEntry(ctx context.Context, fwk *fwkruntime.Framework, e *queue.Entry) {
	start := time.Now()
	gs := e.Group.(*groupState)
	g := gs.info
	if g == nil || len(gs.pending) == 0 {
		s.queue.Done(e.Key)
		return
	}
	pending := slices.Clone(gs.pending)
	need := s.groupNeed(g)

	cp := s.cache.Checkpoint()
	s.addNominatedPodsFor(g.Priority, func(p *framework.PodInfo) bool { return framework.GroupKey(p) == g.Key })
	if fwk.HasPlacementGenerators() {
		state := framework.NewCycleState()
		genStart := time.Now()
		placements, generated, st := fwk.RunPlacementGeneratePlugins(ctx, state, g, pending)
		s.metrics.PodGroupPlacementDuration.WithLabelValues("generate").Observe(time.Since(genStart).Seconds())
		if !st.IsSuccess() || generated {
			s.scheduleInPlacements(ctx, fwk, e, gs, cp, state, pending, need, placements, st, start)
			return
		}
	}
	placement, err := s.placeMembers(ctx, fwk, pending, framework.PlaceOptions{Need: need})
	if err != nil {
		s.cache.Rollback(cp)
		s.handleGroupFailure(fwk, e, gs, nil, true, err.Error(), nil, start)
		return
	}
	if len(placement.Assignments) < need {
		msg := placement.Message
		if g.Gang() {
			msg = fmt.Sprintf("%d of the %d pods needed fit: %s", len(placement.Assignments), need, placement.Message)
		}
		res, st := fwk.RunPodGroupPostFilterPlugins(ctx, g, pending, placement, s.groupSchedulingFunc(fwk, nil, g), nil)
		s.cache.Rollback(cp)
		if st.Code() == framework.Error {
			s.handleGroupFailure(fwk, e, gs, placement, true, st.Message(), nil, start)
			return
		}
		if !st.IsSuccess() && st.Message() != "" {
			msg += " " + st.Message()
		}
		s.handleGroupFailure(fwk, e, gs, placement, false, msg, res, start)
		return
	}
	s.cache.Rollback(cp)
	s.assumeGroup(ctx, fwk, e, gs, placement, start)
}

// groupNeed is how many pending members must fit for the group to make progress: the
// rest of a gang's minCount, or one member of a basic group or of a gang already running.
func (s *Scheduler) groupNeed(g *framework.GroupInfo) int {
	return framework.GroupNeed(g, len(s.cache.GroupMembers(g.Key)))
}

// groupSchedulingFunc gives PodGroupPostFilter plugins the group algorithm of this profile.
// state is the group cycle's (nil without placements): a call restricted to a placement
// assumes it with the PlacementState plugins while the members are placed, and reverts it.
func (s *Scheduler) groupSchedulingFunc(fwk *fwkruntime.Framework, state *framework.CycleState, g *framework.GroupInfo) framework.PodGroupSchedulingFunc {
	return func(ctx context.Context, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
		if p := opts.Placement; p != nil && state != nil {
			if st := fwk.RunAssumePlacement(ctx, state, g, p); !st.IsSuccess() {
				if st.Code() == framework.Error {
					return nil, st.AsError()
				}
				return &framework.GroupPlacement{Unplaced: members, Message: st.Message(), UnschedulablePlugins: []string{st.Plugin()}}, nil
			}
			defer fwk.RunRevertPlacement(ctx, state, g, p)
		}
		return s.placeMembers(ctx, fwk, members, opts)
	}
}

// assumeGroup makes a successful group cycle real: every placed member is assumed on its
// node, Reserve and Permit run, and all are bound in this cycle. Members that did not fit
// (beyond a gang's minCount) stay pending and are tried again.
func (s *Scheduler) assumeGroup(ctx context.Context, fwk *fwkruntime.Framework, e *queue.Entry, gs *groupState, pl *framework.GroupPlacement, start time.Time) {
	g := gs.info
	var assumed []framework.Assignment
	undo := func() {
		for _, a := range assumed {
			s.undoAssume(ctx, fwk, a.State, a.Pod, a.Node.Name)
		}
	}
	for _, a := range pl.Assignments {
		s.cache.ClearNomination(a.Pod.Key)
		if s.observer != nil {
			s.observer.BeforeAssume(a.Pod, a.Node.Name, s.cache)
		}
		if err := s.cache.AssumePod(a.Pod, a.Node.Name); err != nil {
			undo()
			s.handleGroupFailure(fwk, e, gs, nil, true, err.Error(), nil, start)
			return
		}
		assumed = append(assumed, a)
		st := fwk.RunReservePluginsReserve(ctx, a.State, a.Pod, a.Node.Name)
		if st.IsSuccess() {
			// A group's members are released together: a Permit that waits is a
			// rejection here, since the group does not wait for itself.
			st, _ = fwk.RunPermitPlugins(ctx, a.State, a.Pod, a.Node.Name)
		}
		if !st.IsSuccess() {
			undo()
			s.handleGroupFailure(fwk, e, gs, nil, !st.IsRejected(), st.Message(), nil, start)
			return
		}
	}
	if s.observer != nil {
		s.observer.GroupPlaced(g, assumed)
	}
	s.forgetDecision(e.Key)
	for _, a := range assumed {
		gs.pending = slices.DeleteFunc(gs.pending, func(q *framework.PodInfo) bool { return q == a.Pod })
		delete(s.failures, a.Pod.Key)
		a := a
		s.bindPod(fwk, a.State, a.Pod, a.Node.Name, func(o bindOutcome, st *framework.Status) { s.finishMemberBinding(fwk, gs, a, o, st) })
	}
	s.observeGroupAttempt(fwk, metrics.ResultScheduled, start)
	bound := len(s.cache.GroupMembers(g.Key))
	if bound >= g.MinCount() {
		if s.setGroupCondition(gs, true, v1alpha1.PodGroupReasonScheduled, "") {
			s.metrics.PodGroupScheduled(g.Gang(), fwk.SchedulerName(), s.clock.Now().Sub(e.Added))
			msg := fmt.Sprintf("Scheduled %d pods of pod group %s", bound, g.Key)
			if pl.Placement != nil {
				msg += " in " + pl.Placement.Name
			}
			s.actuator.Event(g.PodGroup, nil, v1.EventTypeNormal, "Scheduled", "Scheduling", msg)
		}
	}
	if len(gs.pending) == 0 {
		s.queue.Done(e.Key)
		return
	}
	// The members left over (beyond what the group needed) are tried again at once, now
	// as extra members of a running group: one at a time, with preemption, rather than
	// waiting in the unschedulable pool for an event or the periodic flush.
	s.queue.Requeue(e, sets.New(pl.UnschedulablePlugins...), false)
	s.queue.Activate(e.Key)
	for _, p := range pl.Unplaced {
		s.reportFailure(p, v1.PodReasonUnschedulable, pl.Message)
	}
}

// groupRunning reports whether a group already runs at least its minCount members: its
// pending members are extras, and their failures do not change the group's status.
func (s *Scheduler) groupRunning(g *framework.GroupInfo) bool {
	return len(s.cache.GroupMembers(g.Key)) >= g.MinCount()
}

// finishMemberBinding handles a member's binding result. A failure with our assumption
// still in place puts the member back among the group's pending pods, to be tried again; a
// member deleted or bound meanwhile is left alone.
func (s *Scheduler) finishMemberBinding(fwk *fwkruntime.Framework, gs *groupState, a framework.Assignment, o bindOutcome, st *framework.Status) {
	switch o {
	case bindSucceeded:
		s.recordScheduled(a.Pod, a.Node.Name)
	case bindFailed:
		s.undoAssume(context.Background(), fwk, a.State, a.Pod, a.Node.Name)
		s.reportFailure(a.Pod, v1.PodReasonSchedulerError, "Binding rejected: "+st.Message())
		s.addPendingMember(a.Pod, gs.profile, true)
		s.queue.Backoff(groupEntryKey(gs.key))
	}
}

// handleGroupFailure requeues a group that could not be placed and tells the user why, on
// the group and on each pending member. A PodGroupPostFilter result with nominations means
// preemption is making room: the group waits for it. One without nominations clears stale
// nominations of the members; no result leaves them.
func (s *Scheduler) handleGroupFailure(fwk *fwkruntime.Framework, e *queue.Entry, gs *groupState, pl *framework.GroupPlacement, isError bool, msg string, res *framework.PodGroupPostFilterResult, start time.Time) {
	g := gs.info
	if note := s.spentDecision(e.Key); note != "" {
		msg, isError = note+msg, true
	}
	reason := v1alpha1.PodGroupReasonUnschedulable
	podReason := v1.PodReasonUnschedulable
	result := metrics.ResultUnschedulable
	if isError {
		reason, podReason, result = v1alpha1.PodGroupReasonSchedulerError, v1.PodReasonSchedulerError, metrics.ResultError
	}
	condMsg := msg
	if res != nil && (len(res.Nominations) > 0 || res.Waiting) {
		condMsg = msgWaitingForPreemption
	} else if res != nil {
		for _, p := range gs.pending {
			if s.cache.ClearNomination(p.Key) != "" || p.Pod.Status.NominatedNodeName != "" {
				s.clearNominatedNodeName(p)
			}
		}
	}
	var rejectors sets.Set[string]
	if pl != nil {
		rejectors = sets.New(pl.UnschedulablePlugins...)
	}
	s.queue.Requeue(e, rejectors, isError)
	s.observeGroupAttempt(fwk, result, start)
	// A group that runs (minCount members bound) keeps its Scheduled status while extra
	// members wait: only the members say why they wait.
	if !s.groupRunning(g) && (s.setGroupCondition(gs, false, reason, condMsg) || !isError) {
		s.actuator.Event(g.PodGroup, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	}
	for _, p := range gs.pending {
		s.reportFailure(p, podReason, msg)
	}
}

func (s *Scheduler) observeGroupAttempt(fwk *fwkruntime.Framework, result string, start time.Time) {
	s.metrics.PodGroupScheduleAttempts.WithLabelValues(result, fwk.SchedulerName()).Inc()
	s.metrics.SchedulingAttemptDuration.WithLabelValues(result, fwk.SchedulerName()).Observe(time.Since(start).Seconds())
}

// addNominatedPodsFor is addNominatedPods for a group: nominated pods of equal or higher
// priority, except the group's own members.
func (s *Scheduler) addNominatedPodsFor(priority int32, own func(*framework.PodInfo) bool) {
	s.cache.ForEachNominated(func(np *framework.PodInfo, node string) {
		if own(np) || np.Priority < priority || s.cache.Get(node) == nil || s.cache.Pod(np.Key) != nil {
			return
		}
		s.cache.AddPod(np, node)
	})
}

// equivalenceKey identifies members whose placement cannot differ: equal requests, equal
// static filter keys, no host ports and no constraint involving other pods. "" for a
// member that has no equivalent.
func equivalenceKey(fwk *fwkruntime.Framework, m *framework.PodInfo) string {
	// Claims and volumes are the pod's own: two pods with equal specs may still differ in
	// what their claims can get.
	if m.HasInterPodConstraints() || len(m.HostPorts) > 0 || m.ParseErr != nil || m.Pod.Spec.NodeName != "" ||
		len(m.Pod.Spec.ResourceClaims) > 0 || len(framework.PodPVCs(m.Pod)) > 0 {
		return ""
	}
	return fwk.StaticFilterKey(framework.NewCycleState(), m) + "\x00" + m.Requests.Vector.String()
}
