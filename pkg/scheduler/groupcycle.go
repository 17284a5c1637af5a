package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/groupapi"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/preemptexec"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// msgWaitingForPreemption is the preemptor group's condition message while its victims
// leave (KEP-5710).
const msgWaitingForPreemption = "pod group is waiting for podgroup preemption to complete"

// groupCycle is the scheduling cycle of a pod group: every pending member is placed in one
// cycle on one snapshot, by the profile's placer (pkg/placement). A gang succeeds only when
// at least minCount members (counting those already running) fit, and then they are bound
// together; otherwise nothing is kept and PodGroupPostFilter (workload-aware preemption)
// runs once for the group. A basic group keeps whatever members fit.
type groupCycle struct {
	cache       *cache.Cache
	queue       *queue.Queue
	metrics     *metrics.Metrics
	observer    Observer
	actuator    *actuator.Actuator
	status      *podStatus
	binder      *binder
	preemptions *preemptexec.Preemptions
	pending     *pendingGroups
	groupAPI    *groupapi.Writer
	placers     map[*fwkruntime.Framework]*placement.Placer
}

// groupAttempt is one attempt at scheduling a unit (a PodGroup, or a gang composite's
// hierarchy): its queue entry and state, the profile, the members it tries and how many
// must fit, whether the unit already runs what it needs, the checkpoint the cycle's
// simulations are rolled back to, and when it began.
type groupAttempt struct {
	fwk     *fwkruntime.Framework
	entry   *queue.Entry
	gs      *groupState
	tree    *placement.Tree
	pending []*framework.PodInfo
	need    int
	running bool
	cp      framework.Checkpoint
	start   time.Time
}

// unitPlacer places a unit's members: a PodGroup's (placement.Group) or a composite's
// hierarchy (placement.TreePlacer).
type unitPlacer interface {
	framework.GroupPlacer
	Search(ctx context.Context, pending []*framework.PodInfo, need int, placements []*framework.Placement) (*placement.SearchResult, error)
}

// placer is the attempt's placer, in state (nil without placements).
func (c *groupCycle) placer(a groupAttempt, state *framework.CycleState) unitPlacer {
	if a.tree != nil {
		return c.placers[a.fwk].ForTree(a.tree, state)
	}
	return c.placers[a.fwk].For(a.gs.info, state)
}

func (c *groupCycle) schedule(ctx context.Context, fwk *fwkruntime.Framework, entry *queue.Entry) {
	gs := entry.Group.(*groupState)
	g := gs.info
	if g == nil || len(gs.pending) == 0 {
		c.queue.Done(entry.Key)
		return
	}
	a := groupAttempt{fwk: fwk, entry: entry, gs: gs, start: time.Now()}
	if gs.composite {
		tree, problem := c.pending.tree(gs)
		if problem != "" {
			// The gate let it through before the hierarchy changed: it says why next time.
			c.fail(a, framework.NewStatus(framework.Error, problem), nil, nil)
			return
		}
		a.tree, a.pending, a.need, a.running = tree, tree.Members(), tree.Need(), tree.Satisfied()
	} else {
		running := len(c.cache.GroupMembers(g.Key))
		a.pending, a.need, a.running = slices.Clone(gs.pending), framework.GroupNeed(g, running), running >= g.MinCount()
	}
	a.cp = c.cache.Checkpoint()
	c.addNominatedPods(a)
	if fwk.HasPlacementGenerators() {
		state := framework.NewCycleState()
		genStart := time.Now()
		placements, generated, st := fwk.RunPlacementGeneratePlugins(ctx, state, g, a.pending)
		c.metrics.PodGroupPlacementDuration.WithLabelValues("generate").Observe(time.Since(genStart).Seconds())
		if !st.IsSuccess() || generated {
			c.scheduleInPlacements(ctx, a, c.placer(a, state), placements, st)
			return
		}
	}
	gp := c.placer(a, nil)
	placed, err := gp.Place(ctx, a.pending, framework.PlaceOptions{Need: a.need})
	if err != nil {
		c.cache.Rollback(a.cp)
		c.fail(a, framework.AsStatus(err), nil, nil)
		return
	}
	if len(placed.Assignments) < a.need {
		msg := placed.Message
		if g.Gang() && !g.IsComposite() {
			msg = fmt.Sprintf("%d of the %d pods needed fit: %s", len(placed.Assignments), a.need, placed.Message)
		}
		res, st := fwk.RunPodGroupPostFilterPlugins(ctx, &framework.GroupAttempt{Group: g, Pending: a.pending, Placed: placed, Placer: gp, Need: a.need})
		c.cache.Rollback(a.cp)
		if st.Code() == framework.Error {
			c.fail(a, st, placed.UnschedulablePlugins, nil)
			return
		}
		if !st.IsSuccess() && st.Message() != "" {
			msg += " " + st.Message()
		}
		c.fail(a, framework.NewStatus(framework.Unschedulable, msg), placed.UnschedulablePlugins, res)
		return
	}
	c.cache.Rollback(a.cp)
	c.assume(ctx, a, placed)
}

// scheduleInPlacements is the group cycle of a group with placements (KEP-5732): the
// search picks a placement and the members are assumed there; when none is feasible,
// PodGroupPostFilter gets the placements so that preemption keeps the group inside one.
// generated is the status of the placements' generation; the attempt's checkpoint is
// rolled back here.
func (c *groupCycle) scheduleInPlacements(ctx context.Context, a groupAttempt, gp unitPlacer, placements []*framework.Placement, generated *framework.Status) {
	g := a.gs.info
	switch {
	case !generated.IsSuccess():
		c.cache.Rollback(a.cp)
		c.fail(a, generated, []string{generated.Plugin()}, nil)
		return
	case len(placements) == 0:
		c.cache.Rollback(a.cp)
		c.fail(a, framework.NewStatus(framework.Unschedulable, "no placement was generated for the pod group"), nil, nil)
		return
	}
	out, err := gp.Search(ctx, a.pending, a.need, placements)
	if err != nil {
		c.cache.Rollback(a.cp)
		c.fail(a, framework.AsStatus(err), nil, nil)
		return
	}
	if out.Placed != nil {
		c.cache.Rollback(a.cp)
		c.assume(ctx, a, out.Placed)
		return
	}
	res, st := a.fwk.RunPodGroupPostFilterPlugins(ctx, &framework.GroupAttempt{Group: g, Pending: a.pending,
		Placed: &framework.GroupPlacement{}, Placements: out.Candidates, Placer: gp, Need: a.need})
	c.cache.Rollback(a.cp)
	if st.Code() == framework.Error {
		c.fail(a, st, nil, nil)
		return
	}
	msg := out.Message
	if !st.IsSuccess() && st.Message() != "" {
		msg += " " + st.Message()
	}
	c.fail(a, framework.NewStatus(framework.Unschedulable, msg), sets.List(out.Rejectors), res)
}

// addNominatedPods places the pods nominated to nodes with a priority not lower than the
// unit's, its own members aside, so the cycle treats their room as taken.
func (c *groupCycle) addNominatedPods(a groupAttempt) {
	g := a.gs.info
	own := func(np *framework.PodInfo) bool { return framework.GroupKey(np) == g.Key }
	if a.tree != nil {
		groups := map[string]bool{}
		for _, t := range a.tree.Groups() {
			groups[t.Group.Key] = true
		}
		own = func(np *framework.PodInfo) bool { return groups[framework.GroupKey(np)] }
	}
	c.cache.AddNominatedPods(func(np *framework.PodInfo) bool { return np.Priority >= g.Priority && !own(np) })
}

// fail requeues a group that could not be placed and tells the user why, on the group and
// on each pending member; only events registered by the rejecting plugins retry it. A
// PodGroupPostFilter result with nominations means preemption is making room: the group
// waits for it. One without nominations clears stale nominations of the members; no
// result leaves them.
func (c *groupCycle) fail(a groupAttempt, st *framework.Status, rejectors []string, res *framework.PodGroupPostFilterResult) {
	gs := a.gs
	g := gs.info
	msg, isError := st.Message(), !st.IsRejected()
	if note := c.preemptions.SpentDecision(a.entry.Key); note != "" {
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
			c.status.dropNomination(p)
		}
	}
	c.queue.Requeue(a.entry, sets.New(rejectors...), isError)
	c.observe(a, result)
	// A unit that runs (minCount members bound, a complete hierarchy) keeps its Scheduled
	// status while extra members wait: only the members say why they wait.
	if !a.running && (c.groupAPI.SetCondition(g, false, reason, condMsg) || !isError) {
		c.actuator.Event(g.Object(), nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	}
	for _, p := range gs.pending {
		c.status.reportFailure(p, podReason, msg)
	}
}

func (c *groupCycle) observe(a groupAttempt, result string) {
	c.metrics.PodGroupScheduleAttempts.WithLabelValues(result, a.fwk.SchedulerName()).Inc()
	c.metrics.SchedulingAttemptDuration.WithLabelValues(result, a.fwk.SchedulerName()).Observe(time.Since(a.start).Seconds())
}
