package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// waitingPod is a pod a Permit plugin holds: assumed on its node, not yet bound.
type waitingPod struct {
	fwk   *fwkruntime.Framework
	state *framework.CycleState
	entry *queue.Entry
	// pod is the entry's pod as it was assumed.
	pod      *framework.PodInfo
	host     string
	deadline time.Time
	start    time.Time
}

func (s *Scheduler) waitForPermit(fwk *fwkruntime.Framework, state *framework.CycleState, e *queue.Entry, p *framework.PodInfo, host string, timeout time.Duration, start time.Time) {
	s.waiting[e.Key] = &waitingPod{fwk: fwk, state: state, entry: e, pod: p, host: host, deadline: s.clock.Now().Add(timeout), start: start}
}

// AllowWaitingPod lets a pod held by Permit go on to binding.
func (s *Scheduler) AllowWaitingPod(key string) {
	w := s.waiting[key]
	if w == nil {
		return
	}
	delete(s.waiting, key)
	s.bind(w.fwk, w.state, w.entry, w.pod, w.host, w.start)
}

// RejectWaitingPod undoes a held pod's assumption and requeues it.
func (s *Scheduler) RejectWaitingPod(key, plugin, msg string) {
	w := s.waiting[key]
	if w == nil {
		return
	}
	delete(s.waiting, key)
	s.undoAssume(context.Background(), w.fwk, w.state, w.pod, w.host)
	s.handleFailure(w.fwk, w.entry, sets.New(plugin), false, msg, nil, w.start)
}

// expireWaitingPods rejects held pods whose Permit timeout passed.
func (s *Scheduler) expireWaitingPods() {
	now := s.clock.Now()
	var expired []string
	for key, w := range s.waiting {
		if !now.Before(w.deadline) {
			expired = append(expired, key)
		}
	}
	slices.Sort(expired)
	for _, key := range expired {
		s.RejectWaitingPod(key, "Permit", fmt.Sprintf("pod %s rejected due to timeout after waiting at permit", key))
	}
}

// nextPermitDeadline is the earliest Permit timeout.
func (s *Scheduler) nextPermitDeadline() (time.Time, bool) {
	var first time.Time
	for _, w := range s.waiting {
		if first.IsZero() || w.deadline.Before(first) {
			first = w.deadline
		}
	}
	return first, !first.IsZero()
}
