package scheduler

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// assumed is a pod assumed on a node, with the cycle state its plugins computed there.
type assumed struct {
	pod   *framework.PodInfo
	host  string
	state *framework.CycleState
}

// binder runs binding cycles off the loop and keeps the bindings in flight, by pod: an
// assumed pod that is neither here nor waiting at Permit is a leak, which the cache
// comparison reports.
type binder struct {
	actuator *actuator.Actuator
	pods     *cache.NodeStore
	retries  *retries
	post     func(func())
	// inFlight counts binding cycles not yet reported back; binding holds their pods, as
	// assumed, by key.
	inFlight int
	binding  map[string]*framework.PodInfo
	// clock tells when parked bindings are due.
	clock framework.Clock
	// parked are the bindings whose PreBind is done and that wait for a
	// PreBindWaitPlugin (a device's binding conditions), asked again at their due time
	// (resumeDue, on the loop). They count as in flight.
	parked []*parkedBinding
}

// parkedBinding is a binding waiting between two asks of RunPreBindReady.
type parkedBinding struct {
	fwk   *fwkruntime.Framework
	as    assumed
	done  func(bindOutcome, *framework.Status)
	since time.Time
	due   time.Time
}

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
func (b *binder) outcome(as assumed, st *framework.Status) bindOutcome {
	p := as.pod
	cur := b.pods.Pod(p.Key)
	switch {
	case cur != nil && !cur.Assumed && cur.NodeName == as.host && cur.Pod.UID == p.Pod.UID:
		return bindSucceeded
	case st.IsSuccess():
		return bindSucceeded
	case cur == p && p.Assumed:
		return bindFailed
	default:
		return bindMoot
	}
}

// bind runs a pod's PreBind and Bind plugins off the loop and delivers the outcome to
// done, on the loop.
//
// When a PreBindWaitPlugin makes the pod wait after PreBind, the binding is parked: no
// goroutine waits, the loop asks again every framework.PreBindPollInterval (resumeDue),
// and the pod is bound once the plugins say it may be, or the binding fails.
func (b *binder) bind(fwk *fwkruntime.Framework, as assumed, done func(bindOutcome, *framework.Status)) {
	b.inFlight++
	b.binding[as.pod.Key] = as.pod
	since := b.clock.Now()
	b.actuator.Exec.Go(func() {
		ctx := context.Background()
		st := fwk.RunPreBindPlugins(ctx, as.state, as.pod, as.host)
		b.finishPreBind(ctx, fwk, as, done, st, since, 0)
	})
}

// finishPreBind, off the loop, asks the waiting plugins (after a successful PreBind) and
// binds the pod when they let it, parks the binding while they wait, or reports the
// failure.
func (b *binder) finishPreBind(ctx context.Context, fwk *fwkruntime.Framework, as assumed, done func(bindOutcome, *framework.Status), st *framework.Status, since time.Time, waited time.Duration) {
	if st.IsSuccess() {
		var reason string
		st, reason = fwk.RunPreBindReady(ctx, as.state, as.pod, as.host, waited)
		if st.Code() == framework.Wait {
			first := waited == 0
			b.post(func() {
				if first {
					b.actuator.Event(as.pod.Pod, nil, v1.EventTypeNormal, reason, "Scheduling", st.Message())
				}
				b.parked = append(b.parked, &parkedBinding{fwk: fwk, as: as, done: done, since: since, due: b.clock.Now().Add(framework.PreBindPollInterval)})
			})
			return
		}
	}
	if st.IsSuccess() {
		st = fwk.RunBindPlugins(ctx, as.state, as.pod, as.host)
	}
	b.post(func() {
		b.inFlight--
		if b.binding[as.pod.Key] == as.pod {
			delete(b.binding, as.pod.Key)
		}
		done(b.outcome(as, st), st)
	})
}

// resumeDue asks again, off the loop, for the parked bindings that are due.
func (b *binder) resumeDue() {
	if len(b.parked) == 0 {
		return
	}
	now := b.clock.Now()
	kept := b.parked[:0]
	var due []*parkedBinding
	for _, pb := range b.parked {
		if pb.due.After(now) {
			kept = append(kept, pb)
		} else {
			due = append(due, pb)
		}
	}
	b.parked = kept
	for _, pb := range due {
		waited := max(now.Sub(pb.since), time.Nanosecond)
		b.actuator.Exec.Go(func() {
			b.finishPreBind(context.Background(), pb.fwk, pb.as, pb.done, nil, pb.since, waited)
		})
	}
}

// nextParkedDue is when the earliest parked binding is due.
func (b *binder) nextParkedDue() (time.Time, bool) {
	var next time.Time
	for _, pb := range b.parked {
		if next.IsZero() || pb.due.Before(next) {
			next = pb.due
		}
	}
	return next, !next.IsZero()
}

// forget undoes an assumption: Unreserve, the pod off the cache, and the pods its room
// may help retried.
func (b *binder) forget(ctx context.Context, fwk *fwkruntime.Framework, as assumed) {
	fwk.RunReservePluginsUnreserve(ctx, as.state, as.pod, as.host)
	b.pods.ForgetPod(as.pod.Key)
	b.retries.onEvent(framework.EventAssignedPodDelete)
}

// recordScheduled emits the Scheduled event of a bound pod.
func (b *binder) recordScheduled(as assumed) {
	b.actuator.Event(as.pod.Pod, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned "+as.pod.Key+" to "+as.host)
}
