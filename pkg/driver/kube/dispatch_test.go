package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/flowcontrol"
)

// dispatchHarness starts calls on their own goroutines, as the actuator does, and
// records the order they run in.
type dispatchHarness struct {
	t       *testing.T
	d       *dispatcher
	reg     *prometheus.Registry
	mu      sync.Mutex
	ran     []string
	release map[string]chan struct{}
	results map[string]chan error
}

func newHarness(t *testing.T, maxInflight int, limiter flowcontrol.RateLimiter) *dispatchHarness {
	reg := prometheus.NewRegistry()
	d := newDispatcher(maxInflight, limiter, time.Minute, newDispatchMetrics(reg))
	t.Cleanup(d.stop)
	return &dispatchHarness{t: t, d: d, reg: reg, release: map[string]chan struct{}{}, results: map[string]chan error{}}
}

// start makes call name; it blocks, once running, until finish(name).
func (h *dispatchHarness) start(name string, c *call) {
	h.t.Helper()
	release := make(chan struct{})
	result := make(chan error, 1)
	h.mu.Lock()
	h.release[name], h.results[name] = release, result
	h.mu.Unlock()
	before := h.count()
	go func() {
		result <- h.d.do(context.Background(), c, func(context.Context) error {
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
func (h *dispatchHarness) count() uint64 {
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	return h.d.seq
}

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
	h.start("first", &call{class: classBind, object: "a"})
	h.start("report", &call{class: classReport, priority: 1000, object: "b"})
	h.start("bind-low", &call{class: classBind, priority: 1, object: "c"})
	h.start("bind-high", &call{class: classBind, priority: 100, object: "d"})
	h.start("bind-high-2", &call{class: classBind, priority: 100, object: "e"})
	h.start("evict", &call{class: classEvict, object: "f"})
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
	h.start("a1", &call{class: classReport, object: "a"})
	h.start("a2", &call{class: classBind, object: "a"})
	h.start("b", &call{class: classBind, object: "b"})
	h.start("c", &call{class: classBind, object: "c"})
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
	h.start("busy", &call{class: classBind, object: "x"})
	h.start("report-1", &call{class: classReport, object: "p", key: "PodScheduled/p"})
	h.start("report-2", &call{class: classReport, object: "p", key: "PodScheduled/p"})
	if err := <-h.results["report-1"]; err != nil {
		t.Errorf("superseded call returned %v", err)
	}
	h.start("report-q", &call{class: classReport, object: "q", key: "PodScheduled/q"})
	h.start("bind-q", &call{class: classBind, object: "q", drops: []string{"PodScheduled/q"}})
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
	if got := metricValue(t, h.reg, "phalanx_api_calls_superseded_total", "report"); got != 2 {
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
	d := newDispatcher(4, lim, time.Minute, newDispatchMetrics(prometheus.NewRegistry()))
	defer d.stop()
	var requestDeadline bool
	err := d.do(context.Background(), &call{object: "p"}, func(ctx context.Context) error {
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
	d := newDispatcher(8, nil, time.Minute, newDispatchMetrics(prometheus.NewRegistry()))
	defer d.stop()
	d.now = func() time.Time { return now }
	d.throttled()
	d.throttled() // the same second: once
	if d.window != 4 {
		t.Fatalf("window %v after a 429, want 4", d.window)
	}
	now = now.Add(2 * time.Second)
	for range 3 {
		d.throttled()
		now = now.Add(2 * time.Second)
	}
	if d.window != 1 {
		t.Fatalf("window %v, want the floor of 1", d.window)
	}
	calls := 0
	for d.window < 8 {
		if err := d.do(context.Background(), &call{object: "p"}, func(context.Context) error { return nil }); err != nil {
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
	_ = d.do(context.Background(), &call{object: "p"}, func(context.Context) error { return errors.New("x") })
	if d.window != 8 {
		t.Errorf("window %v: a failure other than 429 changes nothing", d.window)
	}
}

func TestDispatchCancelAndStop(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.start("busy", &call{object: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		result <- h.d.do(ctx, &call{object: "y"}, func(context.Context) error {
			t.Error("a cancelled call ran")
			return nil
		})
	}()
	h.waitFor(func() bool { return h.count() == 2 })
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	h.start("queued", &call{object: "z"})
	h.d.stop()
	if err := <-h.results["queued"]; !errors.Is(err, errStopped) {
		t.Errorf("queued call after stop: %v", err)
	}
	if err := h.d.do(context.Background(), &call{object: "w"}, func(context.Context) error { return nil }); !errors.Is(err, errStopped) {
		t.Errorf("call after stop: %v", err)
	}
	if err := h.finish("busy"); err != nil {
		t.Errorf("running call: %v", err)
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

// A call queued behind a less urgent one of the same object lends it its rank: a
// preemptor's nomination, queued behind its own failure report, does not wait for every
// other report.
func TestDispatchRankInheritance(t *testing.T) {
	h := newHarness(t, 1, nil)
	h.start("busy", &call{class: classBind, object: "x"})
	h.start("report-r", &call{class: classReport, object: "r"})
	h.start("report-p", &call{class: classReport, object: "p"})
	h.start("bind-q", &call{class: classBind, object: "q"})
	h.start("nominate-p", &call{class: classNominate, object: "p"})
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
