package scheduler

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/preemptexec"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// ErrNoNodesAvailable is kube-scheduler's message when the cluster has no node at all.
const ErrNoNodesAvailable = "no nodes available to schedule pods"

// podCycle is the scheduling cycle of one pod: filter and score over the cache (with
// nominated pods of equal or higher priority counted where they are nominated), PostFilter
// when nothing fits, then assume, Reserve and Permit (a pod a Permit plugin holds waits in
// waiting), and the binding cycle off the loop.
type podCycle struct {
	cache       *cache.Cache
	queue       *queue.Queue
	finder      *podfit.Finder
	metrics     *metrics.Metrics
	observer    Observer
	clock       framework.Clock
	status      *podStatus
	binder      *binder
	preemptions *preemptexec.Preemptions
	// waiting holds pods a Permit plugin asked to wait, by key.
	waiting map[string]*waitingPod
	// batching is the OpportunisticBatching gate: pods of a profile whose plugins can
	// sign them are batched (podfit's batch.go).
	batching bool
}

// podAttempt is one attempt at scheduling a pod: its queue entry, the profile, and when
// it began.
type podAttempt struct {
	fwk   *fwkruntime.Framework
	entry *queue.Entry
	start time.Time
}

func (c *podCycle) schedule(ctx context.Context, fwk *fwkruntime.Framework, entry *queue.Entry, cycle int64) {
	a := podAttempt{fwk: fwk, entry: entry, start: time.Now()}
	p := entry.Pod
	if p.ParseErr != nil {
		c.fail(a, framework.NewStatus(framework.UnschedulableAndUnresolvable, p.ParseErr.Error()), sets.New(podSpecPlugin), nil)
		return
	}
	if c.cache.Nodes().NumNodes() == 0 {
		// As kube-scheduler: nothing to filter, nothing to preempt.
		c.fail(a, framework.NewStatus(framework.Unschedulable, ErrNoNodesAvailable), nil, nil)
		return
	}
	state := framework.NewCycleState()
	cp := c.cache.Checkpoint()
	c.addNominatedPods(p)
	fit := c.finder.For(fwk)
	var bc *podfit.BatchCycle
	if c.batching {
		bc = &podfit.BatchCycle{Signature: fwk.SignPod(ctx, p), Cycle: cycle}
	}
	feasible, diag, err := fit.FindNodes(ctx, state, p, podfit.Query{Batch: bc})
	if err != nil {
		c.cache.Rollback(cp)
		c.fail(a, framework.AsStatus(err), nil, nil)
		return
	}
	if len(feasible) == 0 {
		fitErr := &framework.FitError{NumAllNodes: diag.NumNodes, Diagnosis: diag}
		var nomination *framework.PostFilterResult
		if fwk.HasPostFilter() {
			res, st := fwk.RunPostFilterPlugins(ctx, state, p, diag.NodeToStatus)
			if st.Code() == framework.Error {
				c.cache.Rollback(cp)
				c.fail(a, st, nil, nil)
				return
			}
			if !st.IsSuccess() {
				fitErr.PostFilterMsg = st.Message()
			}
			nomination = res
		}
		c.cache.Rollback(cp)
		c.fail(a, framework.NewStatus(framework.Unschedulable, fitErr.Error()), diag.UnschedulablePlugins, nomination)
		return
	}
	var host string
	if bc != nil {
		host, err = fit.SelectNodeBatched(ctx, state, p, feasible, bc)
	} else {
		host, err = fit.SelectNode(ctx, state, p, feasible, 0)
	}
	c.cache.Rollback(cp)
	if err != nil {
		c.fail(a, framework.AsStatus(err), nil, nil)
		return
	}
	c.assume(ctx, a, assumed{pod: p, host: host, state: state})
}

// addNominatedPods places the pending pods nominated to nodes, with priority not lower than
// p's, onto those nodes, so the cycle treats their room as taken (the preemption design's
// Example 1). The caller rolls them back.
func (c *podCycle) addNominatedPods(p *framework.PodInfo) {
	c.cache.AddNominatedPods(func(np *framework.PodInfo) bool { return np.Key != p.Key && np.Priority >= p.Priority })
}

// assume records the decision in the cache, runs Reserve and Permit, and starts binding.
func (c *podCycle) assume(ctx context.Context, a podAttempt, as assumed) {
	p, fwk := as.pod, a.fwk
	if c.observer != nil {
		c.observer.BeforeAssume(p, as.host, c.cache)
	}
	c.cache.Nominations().ClearNomination(p.Key)
	if err := c.cache.Nodes().AssumePod(p, as.host); err != nil {
		c.fail(a, framework.AsStatus(err), nil, nil)
		return
	}
	if st := fwk.RunReservePluginsReserve(ctx, as.state, p, as.host); !st.IsSuccess() {
		c.binder.forget(ctx, fwk, as)
		c.fail(a, st, sets.New(st.Plugin()), nil)
		return
	}
	st, timeout := fwk.RunPermitPlugins(ctx, as.state, p, as.host)
	switch {
	case st.Code() == framework.Wait:
		c.waiting[a.entry.Key] = &waitingPod{attempt: a, as: as, deadline: c.clock.Now().Add(timeout)}
		return
	case !st.IsSuccess():
		c.binder.forget(ctx, fwk, as)
		c.fail(a, st, sets.New(st.Plugin()), nil)
		return
	}
	c.bind(a, as)
}

// bind runs the binding cycle of the attempt's pod as it was assumed.
func (c *podCycle) bind(a podAttempt, as assumed) {
	c.binder.bind(a.fwk, as, func(o bindOutcome, st *framework.Status) { c.finishBinding(a, as, o, st) })
}

// finishBinding ends a pod's binding cycle. Only a binding that failed with our
// assumption still in place is undone and retried; a pod that was deleted or bound
// meanwhile gets no failure report (a bound pod must never say PodScheduled=False).
func (c *podCycle) finishBinding(a podAttempt, as assumed, o bindOutcome, st *framework.Status) {
	ours := c.queue.Get(a.entry.Key) == a.entry
	switch o {
	case bindSucceeded:
		if ours {
			c.queue.Done(a.entry.Key)
		}
		c.preemptions.ForgetDecision(a.entry.Key)
		c.observe(a, metrics.ResultScheduled)
		c.metrics.PodScheduled(a.entry.Attempts, c.clock.Now().Sub(a.entry.InitialAttempt))
		c.binder.recordScheduled(as)
	case bindFailed:
		c.binder.forget(context.Background(), a.fwk, as)
		c.status.logger.Error(st.AsError(), "Binding failed", "pod", as.pod.Key, "node", as.host)
		if ours {
			c.fail(a, framework.NewStatus(framework.Error, "Binding rejected: "+st.Message()), nil, nil)
		}
	case bindMoot:
		if ours {
			// Not expected (deleting or binding the pod also takes it out of the queue),
			// but a pod must never be dropped: it is tried again.
			c.queue.Requeue(a.entry, nil, true)
		}
	}
}

// fail requeues a pod that could not be scheduled and tells the user why. st says why (an
// Error, or a rejection); only events registered by the rejecting plugins retry the pod.
// A PostFilter result applies its nomination (nil leaves the nomination as it is).
func (c *podCycle) fail(a podAttempt, st *framework.Status, rejectors sets.Set[string], nomination *framework.PostFilterResult) {
	p := a.entry.Pod
	nominated := ""
	if nomination != nil {
		if nominated = nomination.NominatedNodeName; nominated != "" {
			c.cache.Nominations().Nominate(p, nominated)
		} else {
			c.status.dropNomination(p)
		}
	}
	msg, isError := st.Message(), !st.IsRejected()
	if note := c.preemptions.SpentDecision(a.entry.Key); note != "" {
		msg, isError = note+msg, true
	}
	c.queue.Requeue(a.entry, rejectors, isError)
	result, reason := metrics.ResultUnschedulable, v1.PodReasonUnschedulable
	if isError {
		result, reason = metrics.ResultError, v1.PodReasonSchedulerError
	}
	c.observe(a, result)
	c.status.reportNominated(p, reason, msg, nominated)
}

func (c *podCycle) observe(a podAttempt, result string) {
	c.metrics.ScheduleAttempts.WithLabelValues(result, a.fwk.SchedulerName()).Inc()
	c.metrics.SchedulingAttemptDuration.WithLabelValues(result, a.fwk.SchedulerName()).Observe(time.Since(a.start).Seconds())
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
	return s.pods.finder.For(fwk).FitsOn(context.Background(), framework.NewCycleState(), p, n)
}
