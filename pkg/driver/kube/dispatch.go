package kube

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"
)

// callClass orders the actuator's API calls: a lower class goes first.
type callClass int8

const (
	// classEvict: a victim's DisruptionTarget condition and deletion. Its grace period
	// starts when it is deleted, so the preemptor's wait starts then too.
	classEvict callClass = iota
	// classBind: bindings.
	classBind
	// classNominate: a preemptor's nominatedNodeName, PodGroup status.
	classNominate
	// classReport: PodScheduled=False conditions. They explain, they decide nothing, and a
	// newer one makes an older one moot.
	classReport
	// classEvent: events, which have a budget of their own (eventSink), and take a slot
	// only when no other call wants it.
	classEvent
	numClasses
)

var classNames = [numClasses]string{"evict", "bind", "nominate", "report", "event"}

func (c callClass) String() string { return classNames[c] }

// call is one API call waiting for its turn.
type call struct {
	class    callClass
	priority int32
	// object serialises calls: at most one call per object runs at a time, in the order
	// they were made, so the server sees a pod's writes in the scheduler's order (a
	// failure report made before a retried binding never lands after it).
	object string
	// key, when set, makes this call replace a queued call with the same key (the latest
	// PodScheduled condition of a pod is the only one worth writing).
	key string
	// drops are keys of queued calls this one makes moot (a binding drops the pod's queued
	// PodScheduled=False report).
	drops []string
	// ownBudget says the caller took its rate-limiter token from a budget of its own.
	ownBudget bool

	// rank and rankPriority order the call in the ready heap: its own class and
	// priority, or those of a more urgent call of its object queued behind it (a
	// preemptor's nomination must not wait for the report queued before it to get
	// through every binding).
	rank         callClass
	rankPriority int32

	seq     uint64
	index   int           // in the ready heap, -1 when not there
	ready   chan struct{} // closed when the call may run, or is dropped
	dropped bool
	started bool
}

// dispatcher runs the actuator's API calls. A burst of decisions waits here, not in the
// HTTP client: calls run at most window at a time, highest class, then highest pod
// priority, then oldest first; a call takes a token from the client-side rate limiter
// (if any) only once it is dispatched, and its deadline starts after that, so it covers
// the request alone. The window grows by one per window's worth of successful calls and
// halves when the API server throttles us (HTTP 429), at most once a second: Priority
// and Fairness sets the pace, not a guess.
type dispatcher struct {
	limiter flowcontrol.RateLimiter // nil: no client-side rate limit
	timeout time.Duration
	// life ends with stop: waits that are not bounded by a call's deadline (the rate
	// limiter's, resolving a binding's outcome) end with it.
	life     context.Context
	stopLife context.CancelFunc
	max      int
	now      func() time.Time
	metrics  *dispatchMetrics

	mu          sync.Mutex
	window      float64
	lastHalving time.Time
	inflight    int
	seq         uint64
	ready       callHeap
	// lanes holds each object's calls in order; the first is in flight or in ready.
	lanes map[string][]*call
	// byKey holds the queued (not started) calls that have a key.
	byKey map[string]*call
	// stopped makes every queued and future call fail.
	stopped bool
}

func newDispatcher(maxInflight int, limiter flowcontrol.RateLimiter, timeout time.Duration, m *dispatchMetrics) *dispatcher {
	life, stop := context.WithCancel(context.Background())
	return &dispatcher{
		limiter: limiter, timeout: timeout, max: maxInflight, now: time.Now, metrics: m, life: life, stopLife: stop,
		window: float64(maxInflight), lanes: map[string][]*call{}, byKey: map[string]*call{},
	}
}

// errStopped is returned for calls made or queued after stop.
var errStopped = errors.New("the API client is shutting down")

// do runs fn when the call's turn comes, with a context bounded by the dispatcher's
// timeout, and returns its error; nil when the call was dropped for a newer one.
func (d *dispatcher) do(ctx context.Context, c *call, fn func(context.Context) error) error {
	if !d.enqueue(c) {
		return errStopped
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		d.mu.Lock()
		waiting := !c.started && !c.dropped
		if waiting {
			d.remove(c)
			d.dispatchLocked()
		}
		d.mu.Unlock()
		if waiting {
			return ctx.Err()
		}
		<-c.ready
	}
	if c.dropped {
		return nil
	}
	if d.stoppedNow() {
		d.finish(c, nil)
		return errStopped
	}
	err := d.run(ctx, c, fn)
	d.finish(c, err)
	return err
}

func (d *dispatcher) run(ctx context.Context, c *call, fn func(context.Context) error) error {
	if d.limiter != nil && !c.ownBudget {
		waitCtx, cancel := mergeDone(ctx, d.life)
		err := d.limiter.Wait(waitCtx)
		cancel()
		if err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	start := d.now()
	err := fn(ctx)
	d.metrics.observe(c.class, err, d.now().Sub(start))
	return err
}

func (d *dispatcher) stoppedNow() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stopped
}

// enqueue files a call: it replaces and drops the queued calls it supersedes, waits
// behind its object's earlier calls, and is dispatched if there is room.
func (d *dispatcher) enqueue(c *call) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return false
	}
	d.seq++
	c.seq, c.index, c.ready = d.seq, -1, make(chan struct{})
	for _, k := range append(c.drops, c.key) {
		if old := d.byKey[k]; k != "" && old != nil {
			d.remove(old)
			old.dropped = true
			close(old.ready)
			d.metrics.dropped.WithLabelValues(old.class.String()).Inc()
		}
	}
	if c.key != "" {
		d.byKey[c.key] = c
	}
	lane := append(d.lanes[c.object], c)
	d.lanes[c.object] = lane
	if len(lane) == 1 {
		d.pushHead(lane)
	} else {
		d.rerank(lane)
	}
	d.metrics.queued.WithLabelValues(c.class.String()).Inc()
	d.dispatchLocked()
	return true
}

// remove takes a call that has not started out of the queue; the next call of its object
// becomes ready if it was the first.
func (d *dispatcher) remove(c *call) {
	if d.byKey[c.key] == c {
		delete(d.byKey, c.key)
	}
	lane := d.lanes[c.object]
	for i, q := range lane {
		if q != c {
			continue
		}
		lane = append(lane[:i:i], lane[i+1:]...)
		if c.index >= 0 {
			heap.Remove(&d.ready, c.index)
			if len(lane) > 0 {
				d.pushHead(lane)
			}
		} else {
			d.rerank(lane)
		}
		break
	}
	d.setLane(c.object, lane)
	d.metrics.queued.WithLabelValues(c.class.String()).Dec()
}

// pushHead makes the first call of an object's lane ready, ranked by its lane.
func (d *dispatcher) pushHead(lane []*call) {
	setRank(lane)
	heap.Push(&d.ready, lane[0])
}

// rerank ranks a lane's first call again after the lane changed, if it is ready.
func (d *dispatcher) rerank(lane []*call) {
	if len(lane) > 0 && lane[0].index >= 0 {
		setRank(lane)
		heap.Fix(&d.ready, lane[0].index)
	}
}

// setRank gives a lane's first call the most urgent class and priority of the lane.
func setRank(lane []*call) {
	head := lane[0]
	head.rank, head.rankPriority = head.class, head.priority
	for _, c := range lane[1:] {
		head.rank = min(head.rank, c.class)
		head.rankPriority = max(head.rankPriority, c.priority)
	}
}

func (d *dispatcher) setLane(object string, lane []*call) {
	if len(lane) == 0 {
		delete(d.lanes, object)
		return
	}
	d.lanes[object] = lane
}

// dispatchLocked starts ready calls while the window has room.
func (d *dispatcher) dispatchLocked() {
	for d.inflight < max(1, int(d.window)) && d.ready.Len() > 0 {
		c := heap.Pop(&d.ready).(*call)
		if d.byKey[c.key] == c {
			delete(d.byKey, c.key)
		}
		c.started = true
		d.inflight++
		d.metrics.queued.WithLabelValues(c.class.String()).Dec()
		d.metrics.inflight.Inc()
		close(c.ready)
	}
}

// finish ends a call: its object's next call becomes ready, the window adapts, and
// waiting calls are dispatched.
func (d *dispatcher) finish(c *call, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inflight--
	d.metrics.inflight.Dec()
	lane := d.lanes[c.object]
	if len(lane) > 0 && lane[0] == c {
		lane = lane[1:]
		if len(lane) > 0 {
			d.pushHead(lane)
		}
	}
	d.setLane(c.object, lane)
	if err == nil && d.window < float64(d.max) {
		d.window = min(float64(d.max), d.window+1/d.window)
	}
	d.metrics.window.Set(d.window)
	d.dispatchLocked()
}

// throttled halves the window: the API server answered 429 Too Many Requests.
func (d *dispatcher) throttled() {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if now.Sub(d.lastHalving) < time.Second {
		return
	}
	d.lastHalving = now
	d.window = max(1, d.window/2)
	d.metrics.window.Set(d.window)
	d.metrics.throttled.Inc()
}

// stop fails every queued call and every call made from now on.
func (d *dispatcher) stop() {
	d.stopLife()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	for d.ready.Len() > 0 {
		c := heap.Pop(&d.ready).(*call)
		c.started = true
		d.inflight++
		close(c.ready)
	}
	for object, lane := range d.lanes {
		for _, c := range lane {
			if !c.started {
				c.started = true
				d.inflight++
				close(c.ready)
			}
		}
		delete(d.lanes, object)
	}
	clear(d.byKey)
}

// callHeap orders ready calls: rank (class), then rank priority (higher first), then
// arrival.
type callHeap []*call

func (h callHeap) Len() int { return len(h) }
func (h callHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.rankPriority != b.rankPriority {
		return a.rankPriority > b.rankPriority
	}
	return a.seq < b.seq
}
func (h callHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *callHeap) Push(x any) {
	c := x.(*call)
	c.index = len(*h)
	*h = append(*h, c)
}
func (h *callHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	c.index = -1
	*h = old[:len(old)-1]
	return c
}
