package queue

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time       { return c.t }
func (c *fakeClock) step(d time.Duration) { c.t = c.t.Add(d) }
func entry(key string, prio int32) *Entry {
	return &Entry{QueuedUnit: framework.QueuedUnit{Key: key, Priority: prio}}
}
func newTestQueue(c *fakeClock, o Options) *Queue {
	o.Clock = c
	if o.InitialBackoff == 0 {
		o.InitialBackoff = time.Second
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.MaxUnschedulable == 0 {
		o.MaxUnschedulable = 5 * time.Minute
	}
	return New(o)
}

func popKeys(q *Queue) []string {
	var out []string
	for e := q.Pop(); e != nil; e = q.Pop() {
		out = append(out, e.Key)
	}
	return out
}

func TestOrderPriorityThenArrival(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	q := newTestQueue(c, Options{})
	for _, e := range []struct {
		key  string
		prio int32
	}{{"low-1", 1}, {"high-1", 10}, {"low-2", 1}, {"high-2", 10}, {"mid", 5}} {
		q.Add(entry(e.key, e.prio))
		c.step(time.Millisecond)
	}
	got := popKeys(q)
	want := []string{"high-1", "high-2", "mid", "low-1", "low-2"}
	if !equal(got, want) {
		t.Errorf("pop order %v, want %v", got, want)
	}
}

func TestBackoffDoublesUpToMax(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	q := newTestQueue(c, Options{})
	e := entry("p", 0)
	q.Add(e)
	wants := []time.Duration{1, 2, 4, 8, 10, 10}
	for i, want := range wants {
		got := q.Pop()
		if got != e {
			t.Fatalf("attempt %d: pop returned %v", i+1, got)
		}
		q.Requeue(e, nil, true)
		exp, ok := q.NextBackoffExpiry()
		if !ok || exp.Sub(c.Now()) != want*time.Second {
			t.Fatalf("attempt %d: backoff %v, want %v", i+1, exp.Sub(c.Now()), want*time.Second)
		}
		if q.Pop() != nil {
			t.Fatalf("attempt %d: popped while backing off", i+1)
		}
		c.t = exp
	}
}

func TestUnschedulableMovedOnlyByRegisteredEvents(t *testing.T) {
	fitOnly := map[string][]framework.ClusterEvent{
		"Fit": {{Resource: framework.AssignedPod, Action: framework.Delete}},
	}
	tests := []struct {
		name      string
		rejectors sets.Set[string]
		event     framework.ClusterEvent
		moved     bool
	}{
		{"registered event", sets.New("Fit"), framework.EventAssignedPodDelete, true},
		{"other event", sets.New("Fit"), framework.EventAssignedPodAdd, false},
		{"plugin without registrations cares about all", sets.New("Unknown"), framework.EventNodeAdd, true},
		{"no rejectors: any event", nil, framework.EventNodeAdd, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeClock{t: time.Unix(0, 0)}
			q := newTestQueue(c, Options{Events: fitOnly})
			e := entry("p", 0)
			q.Add(e)
			q.Pop()
			q.Requeue(e, tc.rejectors, false)
			c.step(time.Minute) // past backoff
			q.OnEvent(tc.event, nil)
			if got := q.Pop() != nil; got != tc.moved {
				t.Errorf("moved = %v, want %v (entry in %s)", got, tc.moved, e.Location())
			}
		})
	}
}

func TestEventDuringBackoffGoesToBackoff(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	q := newTestQueue(c, Options{})
	e := entry("p", 0)
	q.Add(e)
	q.Pop()
	q.Requeue(e, nil, false)
	q.OnEvent(framework.EventNodeAdd, nil)
	if e.Location() != "backoff" {
		t.Fatalf("entry in %s, want backoff", e.Location())
	}
	c.step(time.Second)
	if q.Pop() != e {
		t.Error("entry not active after its backoff")
	}
}

func TestUnschedulableFlushedAfterMax(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	q := newTestQueue(c, Options{})
	e := entry("p", 0)
	q.Add(e)
	q.Pop()
	q.Requeue(e, sets.New("X"), false)
	at, ok := q.NextUnschedulableFlush()
	if !ok || at.Sub(c.Now()) != 5*time.Minute {
		t.Fatalf("flush at %v", at)
	}
	c.step(5*time.Minute - time.Second)
	if q.Pop() != nil {
		t.Fatal("retried before the flush interval")
	}
	c.step(time.Second)
	if q.Pop() != e {
		t.Fatal("not retried at the flush interval")
	}
}

func TestPreEnqueueGates(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	open := false
	q := newTestQueue(c, Options{PreEnqueue: func(*Entry) *framework.Status {
		if open {
			return nil
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "closed").WithPlugin("Gate")
	}})
	e := entry("p", 0)
	q.Add(e)
	if !e.Gated() || e.GatedBy != "Gate" || e.GatedMessage != "closed" {
		t.Fatalf("entry not gated: %s by %q", e.Location(), e.GatedBy)
	}
	if q.Pop() != nil {
		t.Fatal("popped a gated entry")
	}
	q.Activate("p")
	if !e.Gated() {
		t.Fatal("activate bypassed a closed gate")
	}
	open = true
	q.Activate("p")
	if q.Pop() != e {
		t.Fatal("entry not active once the gate opened")
	}
	if _, _, _, gated := q.Counts(); gated != 0 {
		t.Errorf("gated count %d after release", gated)
	}
}

func TestDeleteAndRequeueOfReplaced(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	q := newTestQueue(c, Options{})
	e := entry("p", 0)
	q.Add(e)
	q.Pop()
	q.Delete("p")
	q.Requeue(e, nil, false) // deleted while in flight: must not come back
	if q.Get("p") != nil {
		t.Fatal("deleted entry came back")
	}
	a, b, u, g := q.Counts()
	if a+b+u+g != 0 {
		t.Errorf("counts %d %d %d %d after delete", a, b, u, g)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Backoff applies to an entry wherever it waits, also in the active queue (a group whose
// member's binding failed is back before the failure is known), but not in flight.
func TestBackoffFromAnyPool(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	q := newTestQueue(c, Options{})
	q.Add(entry("active", 0))
	q.Backoff("active")
	if e := q.Get("active"); e.Location() != "backoff" {
		t.Fatalf("active entry after Backoff: %s", e.Location())
	}
	if e := q.Pop(); e != nil {
		t.Fatalf("popped %s during its backoff", e.Key)
	}
	c.step(time.Second)
	e := q.Pop()
	if e == nil || e.Key != "active" {
		t.Fatalf("not popped after its backoff: %v", e)
	}
	q.Backoff("active")
	if e.Location() != "in-flight" {
		t.Errorf("in-flight entry moved by Backoff to %s", e.Location())
	}
}
