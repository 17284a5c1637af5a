package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// waitingPod is a pod a Permit plugin holds: assumed on its node, not yet bound.
type waitingPod struct {
	attempt podAttempt
	// as is the entry's pod as it was assumed.
	as       assumed
	deadline time.Time
}

// AllowWaitingPod lets a pod held by Permit go on to binding.
func (s *Scheduler) AllowWaitingPod(key string) { s.pods.allow(key) }

// RejectWaitingPod undoes a held pod's assumption and requeues it.
func (s *Scheduler) RejectWaitingPod(key, plugin, msg string) { s.pods.reject(key, plugin, msg) }

func (c *podCycle) allow(key string) {
	w := c.waiting[key]
	if w == nil {
		return
	}
	delete(c.waiting, key)
	c.bind(w.attempt, w.as)
}

func (c *podCycle) reject(key, plugin, msg string) {
	w := c.waiting[key]
	if w == nil {
		return
	}
	delete(c.waiting, key)
	c.binder.forget(context.Background(), w.attempt.fwk, w.as)
	c.fail(w.attempt, framework.NewStatus(framework.Unschedulable, msg).WithPlugin(plugin), sets.New(plugin), nil)
}

// dropWaiting forgets a held pod that is gone: its reservations are undone.
func (c *podCycle) dropWaiting(key string) {
	if w := c.waiting[key]; w != nil {
		delete(c.waiting, key)
		w.attempt.fwk.RunReservePluginsUnreserve(context.Background(), w.as.state, w.as.pod, w.as.host)
	}
}

// expireWaiting rejects held pods whose Permit timeout passed.
func (c *podCycle) expireWaiting() {
	now := c.clock.Now()
	var expired []string
	for key, w := range c.waiting {
		if !now.Before(w.deadline) {
			expired = append(expired, key)
		}
	}
	slices.Sort(expired)
	for _, key := range expired {
		c.reject(key, "Permit", fmt.Sprintf("pod %s rejected due to timeout after waiting at permit", key))
	}
}

// nextPermitDeadline is the earliest Permit timeout.
func (c *podCycle) nextPermitDeadline() (time.Time, bool) {
	var first time.Time
	for _, w := range c.waiting {
		if first.IsZero() || w.deadline.Before(first) {
			first = w.deadline
		}
	}
	return first, !first.IsZero()
}
