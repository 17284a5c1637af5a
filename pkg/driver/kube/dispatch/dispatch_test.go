package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/util/flowcontrol"
)

// dispatchHarness starts calls on their own goroutines, as the actuator does, and
// records the order they run in.
type dispatchHarness struct {
	t       *testing.T
	d       *Dispatcher
	mu      sync.Mutex
	ran     []string
	release map[string]chan struct{}
	results map[string]chan error
}

func newHarness(t *testing.T, maxInflight int, limiter flowcontrol.RateLimiter) *dispatchHarness {
	d := New(maxInflight, limiter, time.Minute, NewMetrics(prometheus.NewRegistry()))
	t.Cleanup(d.Stop)
	return &dispatchHarness{t: t, d: d, release: map[string]chan struct{}{}, results: map[string]chan error{}}
}

// start makes call name; it blocks, once running, until finish(name).
func (h *dispatchHarness) start(name string, c *Call) {
	h.t.Helper()
	release := make(chan struct{})
	result := make(chan error, 1)
	h.mu.Lock()
	h.release[name], h.results[name] = release, result
	h.mu.Unlock()
	before := h.count()
	go func() {
		result <- h.d.Do(context.Background(), c, func(context.Context) error {
			h.mu.Lock()
			h.ran = append(h.ran, name)
			h.mu.Unlock()
			<-release
			return nil
		})
	}()
	h.waitFor(func() bool { return h.count() > before })
}

// count is how many calls were ever filed (queued, running, dropped or done).
func (h *dispatchHarness) count() uint64 { return h.d.Filed() }

func (h *dispatchHarness) waitFor(cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatal("condition not met (hung?)")
		}
		time.Sleep(time.Millisecond)
	}
}

func (h *dispatchHarness) running() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ran...)
}

// finish lets a running call return and waits for its result.
func (h *dispatchHarness) finish(name string) error {
	h.t.Helper()
	h.mu.Lock()
	release, result := h.release[name], h.results[name]
	h.mu.Unlock()
	close(release)
	return <-result
}

func TestDispatchOrder(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.start("first", &Call{Class: Bind, Object: "a"})
	h.start("report", &Call{Class: Report, Priority: 1000, Object: "b"})
	h.start("bind-low", &Call{Class: Bind, Priority: 1, Object: "c"})
	h.start("bind-high", &Call{Class: Bind, Priority: 100, Object: "d"})
	h.start("bind-high-2", &Call{Class: Bind, Priority: 100, Object: "e"})
	h.start("evict", &Call{Class: Evict, Object: "f"})
	for _, name := range []string{"first", "evict", "bind-high", "bind-high-2", "bind-low", "report"} {
		h.waitFor(func() bool { r := h.running(); return len(r) > 0 && r[len(r)-1] == name })
		if err := h.finish(name); err != nil {
			t.Fatal(err)
		}
	}
	want := "[first evict bind-high bind-high-2 bind-low report]"
	if got := fmt.Sprint(h.running()); got != want {
		t.Errorf("ran %s, want %s (class, then priority, then arrival)", got, want)
	}
}

func TestDispatchWindowAndObjects(t *testing.T) {
	h := newHarness(t, 2, nil)
	h.start("a1", &Call{Class: Report, Object: "a"})
	h.start("a2", &Call{Class: Bind, Object: "a"})
	h.start("b", &Call{Class: Bind, Object: "b"})
	h.start("c", &Call{Class: Bind, Object: "c"})
	h.waitFor(func() bool { return len(h.running()) == 2 })
	// a2 waits behind a1 (same object) although it is of a better class; b and c
	// share the window's other slot.
	if got := fmt.Sprint(h.running()); got != "[a1 b]" {
		t.Fatalf("running %s, want [a1 b]", got)
	}
	if err := h.finish("a1"); err != nil {
		t.Fatal(err)
	}
	h.waitFor(func() bool { return len(h.running()) == 3 })
	if got := h.running()[2]; got != "a2" {
		t.Errorf("after a1, %s ran; want a2 (its object's next call, bind class before c's arrival)", got)
	}
	for _, n := range []string{"b", "a2"} {
		if err := h.finish(n); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor(func() bool { return len(h.running()) == 4 })
	if err := h.finish("c"); err != nil {
		t.Fatal(err)
	}
}

// A newer report replaces a queued older one of the same pod, and a binding drops the
// pod's queued report: neither dropped call is made, and both callers see success.
func TestDispatchSupersedes(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.start("busy", &Call{Class: Bind, Object: "x"})
	h.start("report-1", &Call{Class: Report, Object: "p", Key: "PodScheduled/p"})
	h.start("report-2", &Call{Class: Report, Object: "p", Key: "PodScheduled/p"})
	if err := <-h.results["report-1"]; err != nil {
		t.Errorf("superseded call returned %v", err)
	}
	h.start("report-q", &Call{Class: Report, Object: "q", Key: "PodScheduled/q"})
	h.start("bind-q", &Call{Class: Bind, Object: "q", Drops: []string{"PodScheduled/q"}})
	if err := <-h.results["report-q"]; err != nil {
		t.Errorf("dropped call returned %v", err)
	}
	for _, n := range []string{"busy", "bind-q", "report-2"} {
		h.waitFor(func() bool { r := h.running(); return r[len(r)-1] == n })
		if err := h.finish(n); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(h.running()); got != "[busy bind-q report-2]" {
		t.Errorf("ran %s", got)
	}
	var superseded dto.Metric
	if err := h.d.metrics.dropped.WithLabelValues("report").Write(&superseded); err != nil {
		t.Fatal(err)
	}
	if got := superseded.GetCounter().GetValue(); got != 2 {
		t.Errorf("superseded metric %v, want 2", got)
	}
}

// recordingLimiter records the context of each Wait.
type recordingLimiter struct {
	flowcontrol.RateLimiter
	mu       sync.Mutex
	deadline []bool
}

func (l *recordingLimiter) Wait(ctx context.Context) error {
	_, ok := ctx.Deadline()
	l.mu.Lock()
	l.deadline = append(l.deadline, ok)
	l.mu.Unlock()
	return nil
}

// The rate limiter's wait is not covered by the call's deadline; the request is.
func TestDispatchDeadlineCoversTheRequestOnly(t *testing.T) {
	lim := &recordingLimiter{}
	d := New(4, lim, time.Minute, NewMetrics(prometheus.NewRegistry()))
	defer d.Stop()
	var requestDeadline bool
	err := d.Do(context.Background(), &Call{Object: "p"}, func(ctx context.Context) error {
		_, requestDeadline = ctx.Deadline()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lim.deadline) != 1 || lim.deadline[0] {
		t.Errorf("limiter waits %v: want one wait, without a deadline", lim.deadline)
	}
	if !requestDeadline {
		t.Error("the request has no deadline")
	}
}

func TestDispatchWindowAdapts(t *testing.T) {
	now := time.Unix(0, 0)
	d := New(8, nil, time.Minute, NewMetrics(prometheus.NewRegistry()))
	defer d.Stop()
	d.now = func() time.Time { return now }
	d.Throttled()
	d.Throttled() // the same second: once
	if d.window != 4 {
		t.Fatalf("window %v after a 429, want 4", d.window)
	}
	now = now.Add(2 * time.Second)
	for range 3 {
		d.Throttled()
		now = now.Add(2 * time.Second)
	}
	if d.window != 1 {
		t.Fatalf("window %v, want the floor of 1", d.window)
	}
	calls := 0
	for d.window < 8 {
		if err := d.Do(context.Background(), &Call{Object: "p"}, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		calls++
		if calls > 1000 {
			t.Fatalf("window stuck at %v", d.window)
		}
	}
	// Additive increase: about one per window's worth of successes (1+2+...+7).
	if calls < 20 || calls > 40 {
		t.Errorf("%d successes to grow from 1 to 8", calls)
	}
	_ = d.Do(context.Background(), &Call{Object: "p"}, func(context.Context) error { return errors.New("x") })
	if d.window != 8 {
		t.Errorf("window %v: a failure other than 429 changes nothing", d.window)
	}
}

func TestDispatchCancelAndStop(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.start("busy", &Call{Object: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		result <- h.d.Do(ctx, &Call{Object: "y"}, func(context.Context) error {
			t.Error("a cancelled call ran")
			return nil
		})
	}()
	h.waitFor(func() bool { return h.count() == 2 })
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	h.start("queued", &Call{Object: "z"})
	h.d.Stop()
	if err := <-h.results["queued"]; !errors.Is(err, ErrStopped) {
		t.Errorf("queued call after stop: %v", err)
	}
	if err := h.d.Do(context.Background(), &Call{Object: "w"}, func(context.Context) error { return nil }); !errors.Is(err, ErrStopped) {
		t.Errorf("call after stop: %v", err)
	}
	if err := h.finish("busy"); err != nil {
		t.Errorf("running call: %v", err)
	}
}

// A call queued behind a less urgent one of the same object lends it its rank: a
// preemptor's nomination, queued behind its own failure report, does not wait for every
// other report.
func TestDispatchRankInheritance(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.start("busy", &Call{Class: Bind, Object: "x"})
	h.start("report-r", &Call{Class: Report, Object: "r"})
	h.start("report-p", &Call{Class: Report, Object: "p"})
	h.start("bind-q", &Call{Class: Bind, Object: "q"})
	h.start("nominate-p", &Call{Class: Nominate, Object: "p"})
	for _, name := range []string{"busy", "bind-q", "report-p", "nominate-p", "report-r"} {
		h.waitFor(func() bool { r := h.running(); return len(r) > 0 && r[len(r)-1] == name })
		if err := h.finish(name); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(h.running()); got != "[busy bind-q report-p nominate-p report-r]" {
		t.Errorf("ran %s", got)
	}
}
