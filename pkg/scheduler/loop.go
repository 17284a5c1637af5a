package scheduler

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// Post hands work to the loop; safe from any goroutine.
func (s *Scheduler) Post(fn func()) {
	s.inboxMu.Lock()
	s.inbox = append(s.inbox, fn)
	s.inboxMu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Notify is signalled when work is posted, so an idle loop can wake.
func (s *Scheduler) Notify() <-chan struct{} { return s.notify }

// DrainInbox runs posted work, in order, on the calling (loop) goroutine. It reports
// whether there was any.
func (s *Scheduler) DrainInbox() bool {
	ran := false
	for {
		s.inboxMu.Lock()
		work := s.inbox
		s.inbox = nil
		s.inboxMu.Unlock()
		if len(work) == 0 {
			return ran
		}
		for _, fn := range work {
			fn()
		}
		ran = true
	}
}

// ScheduleOne pops the next entry and runs its cycle. It returns false when nothing was
// ready.
func (s *Scheduler) ScheduleOne(ctx context.Context) bool {
	if len(s.pods.waiting) > 0 {
		s.pods.expireWaiting()
	}
	s.pending.reportGangWaits()
	s.preemptions.ExpireReleaseWaits()
	s.binder.resumeDue()
	entry := s.queue.Pop()
	if entry == nil {
		return false
	}
	// Every popped entry is a scheduling cycle (kube-scheduler's cycle count), whichever
	// profile and kind: a batch is used only by the cycle right after the one that made it.
	s.cycles++
	fwk := s.profiles[entry.Profile]
	if fwk == nil {
		s.logger.Error(nil, "No profile for queued entry", "entry", entry.Key, "profile", entry.Profile)
		s.queue.Done(entry.Key)
		return true
	}
	ctx = s.cycleContext(ctx)
	switch {
	case entry.Pod != nil:
		s.pods.schedule(ctx, fwk, entry, s.cycles)
	case entry.Group != nil:
		s.groups.schedule(ctx, fwk, entry)
	}
	return true
}

// cycleContext is ctx carrying the scheduler's logger, through which the engine's decision
// points log; it is made once per context the driver passes, not once per cycle.
func (s *Scheduler) cycleContext(ctx context.Context) context.Context {
	if ctx != s.loopCtx {
		s.loopCtx, s.loggingCtx = ctx, klog.NewContext(ctx, s.logger)
	}
	return s.loggingCtx
}

// NextWakeup is when the queue next has work without any event: the earliest backoff
// expiry or unschedulable flush, Permit timeout, gang wait report or the end of a
// preemptor's wait for its victims' devices to be released.
func (s *Scheduler) NextWakeup() (time.Time, bool) {
	var next time.Time
	for _, f := range []func() (time.Time, bool){s.queue.NextBackoffExpiry, s.queue.NextUnschedulableFlush, s.pods.nextPermitDeadline, s.pending.nextGangWaitDeadline, s.preemptions.NextReleaseDeadline, s.binder.nextParkedDue} {
		if t, ok := f(); ok && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, !next.IsZero()
}

// Busy reports whether entries are ready or backing off (the simulator runs until it is
// not, and no timed event is left).
func (s *Scheduler) Busy() bool {
	active, backoff, _, _ := s.queue.Counts()
	return active > 0 || backoff > 0 || s.binder.inFlight > 0 || len(s.pods.waiting) > 0
}

// Run is the loop for a real cluster: drain posted work, schedule, and sleep until work is
// posted or a backoff expires.
func (s *Scheduler) Run(ctx context.Context) {
	for ctx.Err() == nil {
		s.DrainInbox()
		s.observeQueue()
		if s.ScheduleOne(ctx) {
			continue
		}
		wait := time.Second
		if t, ok := s.NextWakeup(); ok {
			wait = max(time.Millisecond, min(wait, t.Sub(s.clock.Now())))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-s.notify:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// profileFor returns the profile that schedules pods of a scheduler name.
func (s *Scheduler) profileFor(schedulerName string) (*fwkruntime.Framework, string, error) {
	if fwk, ok := s.profiles[schedulerName]; ok {
		return fwk, schedulerName, nil
	}
	if s.anyName {
		return s.first, s.first.SchedulerName(), nil
	}
	return nil, "", fmt.Errorf("no profile for scheduler name %q", schedulerName)
}

// observeQueue sets scheduler_pending_pods from the queue's pools.
func (s *Scheduler) observeQueue() {
	active, backoff, unschedulable, gated := s.queue.Counts()
	for i, n := range []int{active, backoff, unschedulable, gated} {
		s.pendingGauges[i].Set(float64(n))
	}
}
