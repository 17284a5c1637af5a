package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
)

// The observer learns from response headers that the server enforces Priority and
// Fairness, and reports every 429.
func TestAPFObserver(t *testing.T) {
	var apf atomic.Bool
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if apf.Load() {
			w.Header().Set(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID, "fs-uid")
		}
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	o := &apfObserver{}
	var throttled atomic.Int32
	o.onThrottled(func() { throttled.Add(1) })
	cfg := &rest.Config{Host: srv.URL}
	o.observe(cfg)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func() {
		resp, err := hc.Get(srv.URL + "/version")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	get()
	if o.seen.Load() {
		t.Fatal("APF seen without its headers")
	}
	apf.Store(true)
	get()
	if !o.seen.Load() {
		t.Fatal("APF not seen from its headers")
	}
	status.Store(http.StatusTooManyRequests)
	get()
	get()
	if n := throttled.Load(); n != 2 {
		t.Errorf("%d 429s reported, want 2", n)
	}
}

func TestRateLimits(t *testing.T) {
	apf := &apfObserver{}
	if l := (RateLimits{QPS: -1}).limiter(apf); l != nil {
		t.Errorf("negative QPS: limiter %v, want none", l)
	}
	l := (RateLimits{QPS: 10}).limiter(apf)
	accepted := 0
	for l.TryAccept() {
		accepted++
	}
	if l.QPS() != 10 || accepted != 20 {
		t.Errorf("QPS 10: limiter of %v QPS with a burst of %d, want 10 and twice that", l.QPS(), accepted)
	}
	auto := (RateLimits{}).limiter(apf)
	for auto.TryAccept() {
	}
	if auto.TryAccept() {
		t.Fatal("without APF, the default limits requests")
	}
	apf.seen.Store(true)
	for range 1000 {
		if !auto.TryAccept() {
			t.Fatal("with APF, the default does not limit requests")
		}
	}
	if err := auto.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// blockingLimiter holds every Wait until released.
type blockingLimiter struct {
	flowcontrol.RateLimiter
	waiting atomic.Int32
	release chan struct{}
}

func (l *blockingLimiter) Wait(ctx context.Context) error {
	l.waiting.Add(1)
	select {
	case <-l.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type countingSink struct {
	events.EventSink
	created atomic.Int32
}

func (s *countingSink) Create(context.Context, *eventsv1.Event) (*eventsv1.Event, error) {
	s.created.Add(1)
	return &eventsv1.Event{}, nil
}

// Events wait for their own budget; beyond the backlog they are dropped, not queued.
func TestEventBudgetDropsBeyondBacklog(t *testing.T) {
	lim := &blockingLimiter{release: make(chan struct{})}
	reg := prometheus.NewRegistry()
	m := newCallMetrics(reg)
	inner := &countingSink{}
	calls := dispatch.New(4, nil, time.Minute, dispatch.NewMetrics(reg))
	defer calls.Stop()
	sink := &eventSink{EventSink: inner, calls: calls, limiter: lim, backlog: 2, dropped: m.eventsDropped}
	done := make(chan struct{}, 2)
	for range 2 {
		go func() {
			_, _ = sink.Create(context.Background(), &eventsv1.Event{})
			done <- struct{}{}
		}()
	}
	for lim.waiting.Load() < 2 { // both writes wait for the budget
		runtime.Gosched()
	}
	ev, err := sink.Create(context.Background(), &eventsv1.Event{})
	if ev != nil || err != nil {
		t.Errorf("dropped event: %v, %v", ev, err)
	}
	if got := metricValue(t, reg, "phalanx_events_dropped_total", ""); got != 1 {
		t.Errorf("dropped %v, want 1", got)
	}
	close(lim.release)
	<-done
	<-done
	if n := inner.created.Load(); n != 2 {
		t.Errorf("%d events written, want the 2 that waited", n)
	}
}

// metricValue is the value of a counter or gauge sample whose one label has value label
// ("" for a metric without labels).
func metricValue(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label != "" && (len(m.GetLabel()) != 1 || m.GetLabel()[0].GetValue() != label) {
				continue
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}
