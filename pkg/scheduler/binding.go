package scheduler

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// bindOutcome is what became of a binding, as the loop sees it when the result comes back.
type bindOutcome int

const (
	// bindSucceeded: the API call succeeded, or the informer already reports the pod on
	// that node (the call's error came after the server had bound it).
	bindSucceeded bindOutcome = iota
	// bindFailed: the pod is not bound and our assumption is still in the cache: forget
	// it and try again.
	bindFailed
	// bindMoot: the pod is no longer ours to retry: it was deleted, or bound elsewhere,
	// while the call ran. Nothing to undo, nothing to report.
	bindMoot
)

// outcome classifies a binding result. p is the PodInfo that was assumed (not the queue
// entry's, which informer updates replace while the binding runs).
func (s *Scheduler) outcome(p *framework.PodInfo, host string, st *framework.Status) bindOutcome {
	cur := s.cache.Pod(p.Key)
	switch {
	case cur != nil && !cur.Assumed && cur.NodeName == host && cur.Pod.UID == p.Pod.UID:
		return bindSucceeded
	case st.IsSuccess():
		return bindSucceeded
	case cur == p && p.Assumed:
		return bindFailed
	default:
		return bindMoot
	}
}

// bind runs the binding cycle of p, the entry's pod as it was assumed, off the loop; its
// result comes back through Post.
func (s *Scheduler) bind(fwk *fwkruntime.Framework, state *framework.CycleState, e *queue.Entry, p *framework.PodInfo, host string, start time.Time) {
	s.bindPod(fwk, state, p, host, func(o bindOutcome, st *framework.Status) {
		s.finishBinding(fwk, state, e, p, host, o, st, start)
	})
}

// bindPod runs a pod's PreBind and Bind plugins off the loop and delivers the outcome to
// done, on the loop. While it runs, the pod is in s.binding: an assumed pod that is not there is a
// leak, which the cache comparison reports.
func (s *Scheduler) bindPod(fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, host string, done func(bindOutcome, *framework.Status)) {
	s.bindingsInFlight++
	s.binding[p.Key] = p
	s.actuator.Exec.Go(func() {
		ctx := context.Background()
		st := fwk.RunPreBindPlugins(ctx, state, p, host)
		if st.IsSuccess() {
			st = fwk.RunBindPlugins(ctx, state, p, host)
		}
		s.Post(func() {
			s.bindingsInFlight--
			if s.binding[p.Key] == p {
				delete(s.binding, p.Key)
			}
			done(s.outcome(p, host, st), st)
		})
	})
}

// finishBinding ends a pod's binding cycle. Only a binding that failed with our
// assumption still in place is undone and retried; a pod that was deleted or bound
// meanwhile gets no failure report (a bound pod must never say PodScheduled=False).
func (s *Scheduler) finishBinding(fwk *fwkruntime.Framework, state *framework.CycleState, e *queue.Entry, p *framework.PodInfo, host string, o bindOutcome, st *framework.Status, start time.Time) {
	ours := s.queue.Get(e.Key) == e
	switch o {
	case bindSucceeded:
		if ours {
			s.queue.Done(e.Key)
		}
		s.forgetDecision(e.Key)
		s.observeAttempt(fwk, metrics.ResultScheduled, start)
		s.metrics.PodScheduled(e.Attempts, s.clock.Now().Sub(e.InitialAttempt))
		s.recordScheduled(p, host)
	case bindFailed:
		s.undoAssume(context.Background(), fwk, state, p, host)
		if ours {
			s.handleFailure(fwk, e, nil, true, "Binding rejected: "+st.Message(), nil, start)
		}
	case bindMoot:
		if ours {
			// Not expected (deleting or binding the pod also takes it out of the queue),
			// but a pod must never be dropped: it is tried again.
			s.queue.Requeue(e, nil, true)
		}
	}
}

// recordScheduled emits the Scheduled event of a bound pod.
func (s *Scheduler) recordScheduled(p *framework.PodInfo, host string) {
	s.actuator.Event(p.Pod, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned "+p.Key+" to "+host)
}
