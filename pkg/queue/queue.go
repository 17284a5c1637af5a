package queue

import (
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// Options configure a Queue.
type Options struct {
	Clock          framework.Clock
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxUnschedulable is the longest an entry waits in the unschedulable pool without a
	// retry.
	MaxUnschedulable time.Duration
	// PreEnqueue runs the PreEnqueue plugins for an entry; non-success gates it.
	PreEnqueue func(*Entry) *framework.Status
	// Less orders the active queue (the QueueSort plugin); nil means priority, then
	// timestamp.
	Less func(a, b *framework.QueuedUnit) bool
	// Events maps a plugin name to the events that may undo its rejection. A plugin that
	// is not in the map is assumed to care about every event.
	Events map[string][]framework.ClusterEvent
	// Metrics records entries coming in, pending groups and the plugins holding entries
	// back (nil: none).
	Metrics *metrics.QueueRecorder
}

// Events the queue counts entries coming in for (scheduler_queue_incoming_pods_total),
// besides the cluster events' own labels.
const (
	eventAdd             = "PodAdd"
	eventUpdate          = "PodUpdate"
	eventAttemptFailure  = "ScheduleAttemptFailure"
	eventBackoffComplete = "BackoffComplete"
	eventForceActivate   = "ForceActivate"
)

// Queue holds pending entries. It is not safe for concurrent use: the scheduling loop owns
// it. The counts are atomic so that metrics can read them from another goroutine.
type Queue struct {
	opts          Options
	entries       map[string]*Entry
	active        entryHeap
	backoff       entryHeap
	unschedulable map[string]*Entry
	// byPlugin indexes the unschedulable entries by the plugins that rejected them ("" for
	// none), so an event only visits the entries it may help.
	byPlugin map[string]map[string]*Entry
	gated    map[string]*Entry

	counts [6]atomic.Int64
	seq    uint64
}

// New returns an empty queue.
func New(opts Options) *Queue {
	q := &Queue{
		opts:          opts,
		entries:       map[string]*Entry{},
		unschedulable: map[string]*Entry{},
		byPlugin:      map[string]map[string]*Entry{},
		gated:         map[string]*Entry{},
	}
	less := opts.Less
	if less == nil {
		less = PriorityThenTimestamp
	}
	q.active.less = func(a, b *Entry) bool {
		if less(&a.QueuedUnit, &b.QueuedUnit) {
			return true
		}
		if less(&b.QueuedUnit, &a.QueuedUnit) {
			return false
		}
		return a.seq < b.seq // arrival order: a total order keeps the simulator deterministic
	}
	q.backoff.less = func(a, b *Entry) bool {
		if !a.backoffExpiry.Equal(b.backoffExpiry) {
			return a.backoffExpiry.Before(b.backoffExpiry)
		}
		return q.active.less(a, b)
	}
	return q
}

// Get returns an entry by key, wherever it is (nil when unknown).
func (q *Queue) Get(key string) *Entry { return q.entries[key] }

// Add puts a new entry in the queue: active, or gated when a PreEnqueue plugin says so. An
// entry with the same key is replaced.
func (q *Queue) Add(e *Entry) {
	if old := q.entries[e.Key]; old != nil {
		q.detach(old)
	}
	e.Timestamp = q.opts.Clock.Now()
	if e.Added.IsZero() {
		e.Added = e.Timestamp
	}
	e.heapIndex = -1
	q.entries[e.Key] = e
	q.admit(e, eventAdd)
}

// Update refreshes an entry after its object changed. A gated entry re-runs PreEnqueue (the
// change may have lifted a scheduling gate); an unschedulable entry is retried when the
// update is one that could help it; otherwise the entry keeps its place.
func (q *Queue) Update(e *Entry, mayHelp bool) {
	switch e.where {
	case inGated:
		q.detach(e)
		q.admit(e, eventUpdate)
	case inActive:
		q.active.fix(e)
	case inUnschedulable:
		if mayHelp {
			q.detach(e)
			q.moveToActiveOrBackoff(e, eventUpdate)
		}
	}
}

// Delete removes an entry.
func (q *Queue) Delete(key string) {
	if e := q.entries[key]; e != nil {
		q.detach(e)
		delete(q.entries, key)
	}
}

// Pop returns the highest-priority active entry, now in flight, or nil when there is none.
func (q *Queue) Pop() *Entry {
	q.Flush()
	if q.active.Len() == 0 {
		return nil
	}
	e := q.active.pop()
	q.setWhere(e, inFlight)
	e.Attempts++
	if e.InitialAttempt.IsZero() {
		e.InitialAttempt = q.opts.Clock.Now()
	}
	return e
}

// Done forgets an in-flight entry that was scheduled.
func (q *Queue) Done(key string) {
	if e := q.entries[key]; e != nil && e.where == inFlight {
		q.setWhere(e, nowhere)
		delete(q.entries, key)
	}
}

// Requeue returns an in-flight entry that failed. Rejected entries wait in the
// unschedulable pool for an event their rejecting plugins registered; errors go straight
// to backoff.
func (q *Queue) Requeue(e *Entry, rejectors sets.Set[string], isError bool) {
	if q.entries[e.Key] != e || e.where != inFlight {
		return // deleted or replaced while in flight
	}
	now := q.opts.Clock.Now()
	e.lastFailure = now
	e.Timestamp = now
	e.UnschedulablePlugins = rejectors
	e.backoffExpiry = now.Add(q.backoffDuration(e))
	if isError {
		q.setWhere(e, inBackoff)
		q.backoff.push(e)
		q.opts.Metrics.Incoming(inBackoff.String(), eventAttemptFailure)
		return
	}
	q.setWhere(e, inUnschedulable)
	q.opts.Metrics.Incoming(inUnschedulable.String(), eventAttemptFailure)
	q.unschedulable[e.Key] = e
	for _, p := range pluginKeys(e) {
		m := q.byPlugin[p]
		if m == nil {
			m = map[string]*Entry{}
			q.byPlugin[p] = m
		}
		m[e.Key] = e
	}
}

func pluginKeys(e *Entry) []string {
	if len(e.UnschedulablePlugins) == 0 {
		return []string{""}
	}
	return sets.List(e.UnschedulablePlugins)
}

// Activate moves entries to the active queue now (an async preemption finished, a gang
// became complete), skipping any backoff; PreEnqueue gates still apply.
func (q *Queue) Activate(keys ...string) {
	for _, k := range keys {
		e := q.entries[k]
		if e == nil {
			continue
		}
		switch e.where {
		case inGated, inUnschedulable, inBackoff:
			q.detach(e)
			q.admit(e, eventForceActivate)
		}
	}
}

// Backoff moves an entry that is not in flight (active, unschedulable, gated or backing
// off) to backoff from now, as after an error: a failed preemption or binding is tried
// again, but not in a tight loop against an API server that keeps refusing it. PreEnqueue
// gates apply when it leaves.
func (q *Queue) Backoff(key string) {
	e := q.entries[key]
	if e == nil {
		return
	}
	switch e.where {
	case inActive, inGated, inUnschedulable, inBackoff:
		q.detach(e)
		now := q.opts.Clock.Now()
		e.lastFailure = now
		e.backoffExpiry = now.Add(q.backoffDuration(e))
		q.setWhere(e, inBackoff)
		q.backoff.push(e)
		q.opts.Metrics.Incoming(inBackoff.String(), eventAttemptFailure)
	}
}

// OnEvent moves the unschedulable entries that the event may help to the active queue (or
// to backoff while they still back off), and re-runs PreEnqueue on gated entries whose
// gate registered the event. Entries for which accept returns false stay.
func (q *Queue) OnEvent(ev framework.ClusterEvent, accept func(*Entry) bool) {
	candidates := map[string]*Entry{}
	for plugin, entries := range q.byPlugin {
		if plugin != "" && !q.interested(sets.New(plugin), ev) {
			continue
		}
		for k, e := range entries {
			candidates[k] = e
		}
	}
	for _, e := range sortedEntries(candidates) {
		if accept != nil && !accept(e) {
			continue
		}
		q.detach(e)
		q.moveToActiveOrBackoff(e, ev.Label)
	}
	for _, e := range sortedEntries(q.gated) {
		if !q.interested(sets.New(e.GatedBy), ev) || (accept != nil && !accept(e)) {
			continue
		}
		q.detach(e)
		q.admit(e, ev.Label)
	}
}

// Flush moves entries whose backoff expired to the active queue, and entries that waited
// in the unschedulable pool longer than MaxUnschedulable to active or backoff.
func (q *Queue) Flush() {
	now := q.opts.Clock.Now()
	for q.backoff.Len() > 0 && !q.backoff.peek().backoffExpiry.After(now) {
		e := q.backoff.pop()
		q.setWhere(e, nowhere)
		q.admit(e, eventBackoffComplete)
	}
	if q.opts.MaxUnschedulable <= 0 || len(q.unschedulable) == 0 {
		return
	}
	for _, e := range sortedEntries(q.unschedulable) {
		if now.Sub(e.lastFailure) >= q.opts.MaxUnschedulable {
			q.detach(e)
			q.moveToActiveOrBackoff(e, framework.EventUnschedulableTimeout.Label)
		}
	}
}

// NextBackoffExpiry is when the earliest backing-off entry becomes active.
func (q *Queue) NextBackoffExpiry() (time.Time, bool) {
	if q.backoff.Len() == 0 {
		return time.Time{}, false
	}
	return q.backoff.peek().backoffExpiry, true
}

// NextUnschedulableFlush is when the oldest unschedulable entry will be retried without
// an event.
func (q *Queue) NextUnschedulableFlush() (time.Time, bool) {
	var first time.Time
	for _, e := range q.unschedulable {
		if first.IsZero() || e.lastFailure.Before(first) {
			first = e.lastFailure
		}
	}
	if first.IsZero() || q.opts.MaxUnschedulable <= 0 {
		return time.Time{}, false
	}
	return first.Add(q.opts.MaxUnschedulable), true
}

// Waited is how long since the entry first entered the queue (for a group, since its
// first member came).
func (q *Queue) Waited(e *Entry) time.Duration { return q.opts.Clock.Now().Sub(e.Added) }

// Counts returns the number of entries in each pool; safe to call from any goroutine.
func (q *Queue) Counts() (active, backoff, unschedulable, gated int) {
	return int(q.counts[inActive].Load()), int(q.counts[inBackoff].Load()),
		int(q.counts[inUnschedulable].Load()), int(q.counts[inGated].Load())
}

// Entries returns every entry, wherever it is (in flight too), in key order.
func (q *Queue) Entries() []*Entry { return sortedEntries(q.entries) }

// Unschedulable returns the entries in the unschedulable pool, in key order.
func (q *Queue) Unschedulable() []*Entry { return sortedEntries(q.unschedulable) }

// Gated returns the gated entries, in key order.
func (q *Queue) Gated() []*Entry { return sortedEntries(q.gated) }

func (q *Queue) backoffDuration(e *Entry) time.Duration {
	d := q.opts.InitialBackoff
	for i := 1; i < e.Attempts && d < q.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, q.opts.MaxBackoff)
}

// admit puts an entry that is in no pool in the active queue, or the gated pool when a
// PreEnqueue plugin holds it; event is why it came (for the metrics).
func (q *Queue) admit(e *Entry, event string) {
	if q.opts.PreEnqueue != nil {
		if s := q.opts.PreEnqueue(e); !s.IsSuccess() {
			e.GatedBy = s.Plugin()
			e.GatedMessage = s.Message()
			q.setWhere(e, inGated)
			q.gated[e.Key] = e
			q.opts.Metrics.Incoming(inGated.String(), event)
			return
		}
	}
	e.GatedBy, e.GatedMessage = "", ""
	q.pushActive(e)
	q.opts.Metrics.Incoming(inActive.String(), event)
}

func (q *Queue) moveToActiveOrBackoff(e *Entry, event string) {
	if q.opts.Clock.Now().Before(e.backoffExpiry) {
		q.setWhere(e, inBackoff)
		q.backoff.push(e)
		q.opts.Metrics.Incoming(inBackoff.String(), event)
		return
	}
	q.admit(e, event)
}

func (q *Queue) pushActive(e *Entry) {
	q.seq++
	e.seq = q.seq
	q.setWhere(e, inActive)
	q.active.push(e)
}

// detach takes an entry out of whatever pool holds it.
func (q *Queue) detach(e *Entry) {
	switch e.where {
	case inActive:
		q.active.remove(e)
	case inBackoff:
		q.backoff.remove(e)
	case inUnschedulable:
		delete(q.unschedulable, e.Key)
		for _, p := range pluginKeys(e) {
			delete(q.byPlugin[p], e.Key)
		}
	case inGated:
		delete(q.gated, e.Key)
	}
	q.setWhere(e, nowhere)
}

func (q *Queue) setWhere(e *Entry, l location) {
	if e.where != nowhere {
		q.counts[e.where].Add(-1)
		q.observe(e, -1)
	}
	e.where = l
	if l != nowhere {
		q.counts[l].Add(1)
		q.observe(e, 1)
	}
}

// observe keeps the gauges of the pool the entry is in: pending groups by pool, and the
// plugins that hold the entries of the unschedulable and gated pools back (an entry
// counts once for each of them, as in kube-scheduler; a PodGroup waiting as a whole
// counts once, as in scheduler_pending_pods). Both are set before an entry enters its
// pool and stay until it leaves.
func (q *Queue) observe(e *Entry, delta float64) {
	r := q.opts.Metrics
	if r == nil {
		return
	}
	if e.Group != nil && e.where != inFlight {
		r.PendingGroups(e.where.String(), delta)
	}
	switch e.where {
	case inUnschedulable:
		for p := range e.UnschedulablePlugins {
			r.Unschedulable(p, e.Profile, delta)
		}
	case inGated:
		r.Unschedulable(e.GatedBy, e.Profile, delta)
	}
}

// interested reports whether an event may undo a rejection by any of the plugins.
func (q *Queue) interested(plugins sets.Set[string], ev framework.ClusterEvent) bool {
	if len(plugins) == 0 {
		return true
	}
	for name := range plugins {
		regs, ok := q.opts.Events[name]
		if !ok {
			return true
		}
		for _, r := range regs {
			if r.Matches(ev) {
				return true
			}
		}
	}
	return false
}

// PriorityThenTimestamp is kube-scheduler's PrioritySort order: higher priority first,
// then earlier arrival.
func PriorityThenTimestamp(a, b *framework.QueuedUnit) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.Timestamp.Before(b.Timestamp)
}
