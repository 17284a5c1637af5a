// Package dispatch is the queue of the kube driver's API calls (docs/decisions/0012):
// bindings, evictions and status writes wait for their turn here, not in the HTTP client,
// ordered by class, pod priority and age, one call per object at a time, at most a window
// of them in flight (halved when the API server answers 429, grown back with successes).
// A call takes its rate-limiter token only once dispatched, and its deadline starts then.
// The driver says which calls to make (Call) and how (the function Do runs); the
// dispatcher knows nothing of Kubernetes objects.
package dispatch

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"
)

// Class orders the actuator's API calls: a lower class goes first.
type Class int8

const (
	// Evict: a victim's DisruptionTarget condition and deletion. Its grace period starts
	// when it is deleted, so the preemptor's wait starts then too.
	Evict Class = iota
	// Bind: bindings, and the PreBind writes before them.
	Bind
	// Nominate: a preemptor's nominatedNodeName, PodGroup status.
	Nominate
	// Report: PodScheduled=False conditions. They explain, they decide nothing, and a
	// newer one makes an older one moot.
	Report
	// Event: events, which have a budget of their own (the driver's event sink), and take
	// a slot only when no other call wants it.
	Event
	numClasses
)

var classNames = [numClasses]string{"evict", "bind", "nominate", "report", "event"}

func (c Class) String() string { return classNames[c] }

// Call is one API call waiting for its turn. The caller sets the exported fields.
type Call struct {
	Class    Class
	Priority int32
	// Object serialises calls: at most one call per object runs at a time, in the order
	// they were made, so the server sees a pod's writes in the scheduler's order (a
	// failure report made before a retried binding never lands after it).
	Object string
	// Key, when set, makes this call replace a queued call with the same key (the latest
	// PodScheduled condition of a pod is the only one worth writing).
	Key string
	// Drops are keys of queued calls this one makes moot (a binding drops the pod's queued
	// PodScheduled=False report).
	Drops []string
	// OwnBudget says the caller took its rate-limiter token from a budget of its own.
	OwnBudget bool

	// rank and rankPriority order the call in the ready heap: its own class and
	// priority, or those of a more urgent call of its object queued behind it (a
	// preemptor's nomination must not wait for the report queued before it to get
	// through every binding).
	rank         Class
	rankPriority int32

	seq     uint64
	index   int           // in the ready heap, -1 when not there
	ready   chan struct{} // closed when the call may run, or is dropped
	dropped bool
	started bool
}

// Dispatcher runs the actuator's API calls. A burst of decisions waits here, not in the
// HTTP client: calls run at most window at a time, highest class, then highest pod
// priority, then oldest first; a call takes a token from the client-side rate limiter
// (if any) only once it is dispatched, and its deadline starts after that, so it covers
// the request alone. The window grows by one per window's worth of successful calls and
// halves when the API server throttles us (HTTP 429), at most once a second: Priority
// and Fairness sets the pace, not a guess.
type Dispatcher struct {
	limiter flowcontrol.RateLimiter // nil: no client-side rate limit
	timeout time.Duration
	// life ends with Stop: waits that are not bounded by a call's deadline (the rate
	// limiter's, resolving a binding's outcome) end with it.
	life     context.Context
	stopLife context.CancelFunc
	max      int
	now      func() time.Time
	metrics  *Metrics

	mu          sync.Mutex
	window      float64
	lastHalving time.Time
	inflight    int
	seq         uint64
	ready       callHeap
	// lanes holds each object's calls in order; the first is in flight or in ready.
	lanes map[string][]*Call
	// byKey holds the queued (not started) calls that have a key.
	byKey map[string]*Call
	// stopped makes every queued and future call fail.
	stopped bool
}

// New returns a dispatcher of at most maxInflight calls at once, each taking a token of
// limiter (nil: none) when its turn comes and bounded by timeout from then on.
func New(maxInflight int, limiter flowcontrol.RateLimiter, timeout time.Duration, m *Metrics) *Dispatcher {
	life, stop := context.WithCancel(context.Background())
	return &Dispatcher{
		limiter: limiter, timeout: timeout, max: maxInflight, now: time.Now, metrics: m, life: life, stopLife: stop,
		window: float64(maxInflight), lanes: map[string][]*Call{}, byKey: map[string]*Call{},
	}
}

// ErrStopped is returned for calls made or queued after Stop.
var ErrStopped = errors.New("the API client is shutting down")

// ErrOutcomeUnknown is wrapped by the error of a call that could not find out what the
// server did before the client shut down; the call is counted with the result unknown.
var ErrOutcomeUnknown = errors.New("outcome unknown")

// Do runs fn when the call's turn comes, with a context bounded by the dispatcher's
// timeout, and returns its error; nil when the call was dropped for a newer one.
func (d *Dispatcher) Do(ctx context.Context, c *Call, fn func(context.Context) error) error {
	if !d.enqueue(c) {
		return ErrStopped
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
		return ErrStopped
	}
	err := d.run(ctx, c, fn)
	d.finish(c, err)
	return err
}

// Timeout is how long a call may take once sent.
func (d *Dispatcher) Timeout() time.Duration { return d.timeout }

// UntilStopped returns a context that also ends when the dispatcher stops: a wait a call
// makes that its deadline does not bound (reading a binding back until the server
// answers) ends with the client.
func (d *Dispatcher) UntilStopped(ctx context.Context) (context.Context, context.CancelFunc) {
	return mergeDone(ctx, d.life)
}

// Filed counts the calls ever filed (queued, running, dropped or done): a call made on
// another goroutine is queued once the count has grown past it.
func (d *Dispatcher) Filed() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seq
}

// mergeDone returns a context that ends when either does (or cancel is called).
func mergeDone(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

func (d *Dispatcher) run(ctx context.Context, c *Call, fn func(context.Context) error) error {
	if d.limiter != nil && !c.OwnBudget {
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
	d.metrics.observe(c.Class, err, d.now().Sub(start))
	return err
}

func (d *Dispatcher) stoppedNow() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stopped
}

// enqueue files a call: it replaces and drops the queued calls it supersedes, waits
// behind its object's earlier calls, and is dispatched if there is room.
func (d *Dispatcher) enqueue(c *Call) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return false
	}
	d.seq++
	c.seq, c.index, c.ready = d.seq, -1, make(chan struct{})
	for _, k := range append(c.Drops, c.Key) {
		if old := d.byKey[k]; k != "" && old != nil {
			d.remove(old)
			old.dropped = true
			close(old.ready)
			d.metrics.dropped.WithLabelValues(old.Class.String()).Inc()
		}
	}
	if c.Key != "" {
		d.byKey[c.Key] = c
	}
	lane := append(d.lanes[c.Object], c)
	d.lanes[c.Object] = lane
	if len(lane) == 1 {
		d.pushHead(lane)
	} else {
		d.rerank(lane)
	}
	d.metrics.queued.WithLabelValues(c.Class.String()).Inc()
	d.dispatchLocked()
	return true
}

// remove takes a call that has not started out of the queue; the next call of its object
// becomes ready if it was the first.
func (d *Dispatcher) remove(c *Call) {
	if d.byKey[c.Key] == c {
		delete(d.byKey, c.Key)
	}
	lane := d.lanes[c.Object]
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
	d.setLane(c.Object, lane)
	d.metrics.queued.WithLabelValues(c.Class.String()).Dec()
}

// pushHead makes the first call of an object's lane ready, ranked by its lane.
func (d *Dispatcher) pushHead(lane []*Call) {
	setRank(lane)
	heap.Push(&d.ready, lane[0])
}

// rerank ranks a lane's first call again after the lane changed, if it is ready.
func (d *Dispatcher) rerank(lane []*Call) {
	if len(lane) > 0 && lane[0].index >= 0 {
		setRank(lane)
		heap.Fix(&d.ready, lane[0].index)
	}
}

// setRank gives a lane's first call the most urgent class and priority of the lane.
func setRank(lane []*Call) {
	head := lane[0]
	head.rank, head.rankPriority = head.Class, head.Priority
	for _, c := range lane[1:] {
		head.rank = min(head.rank, c.Class)
		head.rankPriority = max(head.rankPriority, c.Priority)
	}
}

func (d *Dispatcher) setLane(object string, lane []*Call) {
	if len(lane) == 0 {
		delete(d.lanes, object)
		return
	}
	d.lanes[object] = lane
}

// dispatchLocked starts ready calls while the window has room.
func (d *Dispatcher) dispatchLocked() {
	for d.inflight < max(1, int(d.window)) && d.ready.Len() > 0 {
		c := heap.Pop(&d.ready).(*Call)
		if d.byKey[c.Key] == c {
			delete(d.byKey, c.Key)
		}
		c.started = true
		d.inflight++
		d.metrics.queued.WithLabelValues(c.Class.String()).Dec()
		d.metrics.inflight.Inc()
		close(c.ready)
	}
}

// finish ends a call: its object's next call becomes ready, the window adapts, and
// waiting calls are dispatched.
func (d *Dispatcher) finish(c *Call, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inflight--
	d.metrics.inflight.Dec()
	lane := d.lanes[c.Object]
	if len(lane) > 0 && lane[0] == c {
		lane = lane[1:]
		if len(lane) > 0 {
			d.pushHead(lane)
		}
	}
	d.setLane(c.Object, lane)
	if err == nil && d.window < float64(d.max) {
		d.window = min(float64(d.max), d.window+1/d.window)
	}
	d.metrics.window.Set(d.window)
	d.dispatchLocked()
}

// Throttled halves the window: the API server answered 429 Too Many Requests.
func (d *Dispatcher) Throttled() {
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

// Stop fails every queued call and every call made from now on.
func (d *Dispatcher) Stop() {
	d.stopLife()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	for d.ready.Len() > 0 {
		c := heap.Pop(&d.ready).(*Call)
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
type callHeap []*Call

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
	c := x.(*Call)
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
