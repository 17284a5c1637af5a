package kube

import (
	"context"
	"sync/atomic"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
)

// ReportingController names phalanx in the events it writes.
const ReportingController = "phalanx"

// eventSink records events through events.k8s.io/v1 and counts the writes in flight,
// so that shutdown can wait for them.
type eventSink struct {
	events.EventSink
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

func (s *eventSink) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	defer s.track()()
	return s.EventSink.Create(ctx, e)
}

func (s *eventSink) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	defer s.track()()
	return s.EventSink.Update(ctx, e)
}

func (s *eventSink) Patch(ctx context.Context, e *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	defer s.track()()
	return s.EventSink.Patch(ctx, e, data)
}

// eventRecorder is the events.k8s.io/v1 broadcaster and its recorder.
type eventRecorder struct {
	broadcaster events.EventBroadcaster
	recorder    events.EventRecorder
	sink        *eventSink
	cancel      context.CancelFunc
}

func newEventRecorder(client kubernetes.Interface, scheme *runtime.Scheme) *eventRecorder {
	sink := &eventSink{EventSink: &events.EventSinkImpl{Interface: client.EventsV1()}}
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
