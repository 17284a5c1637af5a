package kube

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
)

// ReportingController names phalanx in the events it writes.
const ReportingController = "phalanx"

// eventSink records events through events.k8s.io/v1, on a budget of their own: each
// write waits for a token of its limiter and then in the dispatcher behind every other
// call; at most eventBacklog writes are under way and further events are dropped (and
// counted). So a burst of decisions never waits for its events, and events never take
// the API server from bindings. It counts the writes in flight, so that shutdown can
// wait for them.
type eventSink struct {
	events.EventSink
	calls   *dispatch.Dispatcher
	seq     atomic.Uint64
	limiter flowcontrol.RateLimiter
	backlog int64
	dropped prometheus.Counter
	waiting atomic.Int64

	inflight atomic.Int64
	// last is when a write last started or ended (unix nanoseconds).
	last atomic.Int64
}

func (s *eventSink) track() func() {
	s.inflight.Add(1)
	s.last.Store(time.Now().UnixNano())
	return func() {
		s.last.Store(time.Now().UnixNano())
		s.inflight.Add(-1)
	}
}

// write runs one write of the sink: at most backlog writes at once (waiting for the
// budget, for a slot in the dispatcher, or in flight), the others dropped; a dropped
// event is reported written, as the broadcaster would otherwise retry it.
func (s *eventSink) write(ctx context.Context, fn func(context.Context) (*eventsv1.Event, error)) (*eventsv1.Event, error) {
	defer s.track()()
	if s.waiting.Add(1) > s.backlog {
		s.waiting.Add(-1)
		s.dropped.Inc()
		return nil, nil
	}
	defer s.waiting.Add(-1)
	if err := s.limiter.Wait(ctx); err != nil {
		return nil, nil // shutting down
	}
	// Events need no order among themselves: each is its own object.
	cl := &dispatch.Call{Class: dispatch.Event, Object: "event/" + strconv.FormatUint(s.seq.Add(1), 10), OwnBudget: true}
	var ev *eventsv1.Event
	err := s.calls.Do(ctx, cl, func(callCtx context.Context) error {
		var err error
		ev, err = fn(callCtx)
		return err
	})
	if err != nil && (ctx.Err() != nil || errors.Is(err, dispatch.ErrStopped)) {
		// Shutting down: the broadcaster would log and retry it for nothing.
		return nil, nil
	}
	return ev, err
}

func (s *eventSink) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, func(ctx context.Context) (*eventsv1.Event, error) { return s.EventSink.Create(ctx, e) })
}

func (s *eventSink) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, func(ctx context.Context) (*eventsv1.Event, error) { return s.EventSink.Update(ctx, e) })
}

func (s *eventSink) Patch(ctx context.Context, e *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return s.write(ctx, func(ctx context.Context) (*eventsv1.Event, error) { return s.EventSink.Patch(ctx, e, data) })
}

// eventRecorder is the events.k8s.io/v1 broadcaster and its recorder.
type eventRecorder struct {
	broadcaster events.EventBroadcaster
	recorder    events.EventRecorder
	sink        *eventSink
	cancel      context.CancelFunc
}

func newEventRecorder(client kubernetes.Interface, scheme *runtime.Scheme, calls *dispatch.Dispatcher, limiter flowcontrol.RateLimiter, dropped prometheus.Counter) *eventRecorder {
	sink := &eventSink{EventSink: &events.EventSinkImpl{Interface: client.EventsV1()}, calls: calls, limiter: limiter, backlog: eventBacklog, dropped: dropped}
	b := events.NewBroadcaster(sink)
	return &eventRecorder{broadcaster: b, recorder: b.NewRecorder(scheme, ReportingController), sink: sink}
}

// start begins writing recorded events to the API server.
func (r *eventRecorder) start() error {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	return r.broadcaster.StartRecordingToSinkWithContext(ctx)
}

// flush stops taking events and waits, up to timeout, until the ones already recorded
// are written: no write in flight and none started for a short while (the broadcaster
// hands each event to its own goroutine, so a write may start just after the queue is
// drained).
func (r *eventRecorder) flush(timeout time.Duration) {
	r.broadcaster.Shutdown()
	deadline := time.Now().Add(timeout)
	const quiet = 300 * time.Millisecond
	for time.Now().Before(deadline) {
		if r.sink.inflight.Load() == 0 && time.Since(time.Unix(0, r.sink.last.Load())) > quiet {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r.cancel != nil {
		r.cancel()
	}
}
