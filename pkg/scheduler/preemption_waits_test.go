package scheduler

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	if fc.deleted != 1 || s.cache.Nominations().NominatedNode("default/preemptor") != "n1" {
		t.Fatalf("no preemption: %d deletions, nominated to %q", fc.deleted, s.cache.Nominations().NominatedNode("default/preemptor"))
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

// A wave of preemptions: victims leaving (their deletion, then their disappearance) move
// only their own preemptor, not the others waiting for theirs, whose room they are not
// allowed to take: no wasted cycle, event or status write.
func TestVictimsOfOthersDoNotRetryAWaitingPreemptor(t *testing.T) {
	s, fc, clock := newTestScheduler(t, nil)
	fc.graceful = true
	const n = 3
	victims := make([]*v1.Pod, n)
	for i := range n {
		node := fmt.Sprintf("n%d", i)
		s.AddNode(testutil.Node(node).Capacity("cpu", "2", "memory", "4Gi").Obj())
		victims[i] = testutil.Pod(fmt.Sprintf("victim-%d", i)).Req("cpu", "2").Priority(10).Node(node).Obj()
		s.AddPod(victims[i])
	}
	for i := range n {
		s.AddPod(testutil.Pod(fmt.Sprintf("p-%d", i)).Req("cpu", "2").Priority(1000).Obj())
	}
	drain(s)
	if fc.deleted != n {
		t.Fatalf("%d victims deleted, want %d", fc.deleted, n)
	}
	// The API server reports each victim terminating, then gone, one after the other.
	for i, v := range victims {
		clock.t = clock.t.Add(5 * time.Second) // past any backoff
		terminating := v.DeepCopy()
		terminating.DeletionTimestamp = &metav1.Time{Time: time.Unix(1000, 0)}
		s.UpdatePod(v, terminating)
		s.DeletePod(terminating)
		drain(s)
		if len(fc.binds) != i+1 {
			t.Fatalf("after %d victims left, %d preemptors bound: %v", i+1, len(fc.binds), fc.binds)
		}
		for j := range n {
			if e := s.queue.Get(fmt.Sprintf("default/p-%d", j)); e != nil && e.Attempts != 1 {
				t.Fatalf("p-%d, waiting, tried again when victim-%d left (%d attempts)", j, i, e.Attempts)
			}
		}
	}
	for i := range n {
		name := fmt.Sprintf("default/p-%d", i)
		if got := fc.patchesOf(name); got != 1 {
			t.Errorf("%s: %d PodScheduled writes, want 1 (its first attempt's)", name, got)
		}
	}
}
