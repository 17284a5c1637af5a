package scheduler

import (
	"context"

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
func (b *binder) bind(fwk *fwkruntime.Framework, as assumed, done func(bindOutcome, *framework.Status)) {
	b.inFlight++
	b.binding[as.pod.Key] = as.pod
	b.actuator.Exec.Go(func() {
		ctx := context.Background()
		st := fwk.RunPreBindPlugins(ctx, as.state, as.pod, as.host)
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
	})
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
