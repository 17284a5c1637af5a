package scheduler

import (
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A preemptor retried while its victim terminates backs off further each time; when the
// victim is gone it is tried at once, not when that backoff ends.
func TestPreemptorTriedWhenItsVictimsAreGone(t *testing.T) {
	s, fc, clock := newTestScheduler(t, nil)
	fc.graceful = true
	s.AddNode(testutil.Node("n1").Capacity("cpu", "2", "memory", "4Gi").Obj())
	s.AddNode(testutil.Node("n2").Capacity("cpu", "2", "memory", "4Gi").Obj())
	victim := testutil.Pod("victim").Req("cpu", "2").Priority(10).Node("n1").Obj()
	s.AddPod(victim)
	s.AddPod(testutil.Pod("other").Req("cpu", "2").Priority(10000).Node("n2").Obj())
	s.AddPod(testutil.Pod("preemptor").Req("cpu", "2").Priority(1000).Obj())
	drain(s)
	if fc.deleted != 1 || s.cache.NominatedNode("default/preemptor") != "n1" {
		t.Fatalf("no preemption: %d deletions, nominated to %q", fc.deleted, s.cache.NominatedNode("default/preemptor"))
	}
	// Other pods come and go while the victim terminates: each retry fails.
	for i := range 4 {
		clock.t = clock.t.Add(20 * time.Second)
		churn := testutil.Pod("churn").Req("cpu", "1").Node("n2").Obj()
		s.AddPod(churn)
		s.DeletePod(churn)
		drain(s)
		if _, ok := fc.binds["default/preemptor"]; ok {
			t.Fatalf("bound on retry %d, before its victim left", i)
		}
	}
	e := s.queue.Get("default/preemptor")
	if e == nil || e.Attempts < 3 {
		t.Fatalf("preemptor not retried while its victim terminated: %+v", e)
	}
	s.DeletePod(victim)
	drain(s)
	if got := fc.binds["default/preemptor"]; got != "n1" {
		t.Errorf("preemptor bound to %q right after its victim left, want n1 (backoff skipped)", got)
	}
}
