package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestScheduleBindsAndConfirms(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("small").Capacity("cpu", "1", "memory", "1Gi").Obj())
	s.AddNode(testutil.Node("big").Capacity("cpu", "8", "memory", "8Gi").Obj())
	s.AddPod(testutil.Pod("p").Req("cpu", "2").Obj())
	drain(s)
	if fc.binds["default/p"] != "big" {
		t.Fatalf("binds %v, want p on big", fc.binds)
	}
	pi := s.Cache().Nodes().Pod("default/p")
	if pi == nil || pi.Assumed || pi.NodeName != "big" {
		t.Fatalf("cache: %+v", pi)
	}
	if s.Queue().Get("default/p") != nil {
		t.Error("scheduled pod still queued")
	}
	if !strings.HasPrefix(fc.events[len(fc.events)-1], "Scheduled: Successfully assigned default/p to big") {
		t.Errorf("events %v", fc.events)
	}
}

func TestBindFailureForgetsAndRequeues(t *testing.T) {
	s, fc, clock := newTestScheduler(t, nil)
	fc.bindErr = errors.New("etcd is on holiday")
	s.AddNode(testutil.Node("n").Capacity("cpu", "1", "memory", "1Gi").Obj())
	s.AddPod(testutil.Pod("p").Req("cpu", "1").Obj())
	drain(s)
	if s.Cache().Nodes().Pod("default/p") != nil {
		t.Fatal("pod still assumed after its binding failed")
	}
	e := s.Queue().Get("default/p")
	if e == nil || e.Location() != "backoff" {
		t.Fatalf("pod not in backoff after a bind error: %v", e)
	}
	if msg := s.LastFailure("default/p"); !strings.Contains(msg, "Binding rejected") || !strings.Contains(msg, "holiday") {
		t.Errorf("failure message %q", msg)
	}
	fc.bindErr = nil
	clock.t = clock.t.Add(time.Second)
	drain(s)
	if fc.binds["default/p"] != "n" {
		t.Errorf("pod not bound after the retry: %v", fc.binds)
	}
}

// The room a preemptor was nominated to is not taken by lower-priority pods (the design's
// Example 1), but a higher-priority pod may take it.
func TestNominatedPodsHoldTheirRoom(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "10", "memory", "10Gi").Obj())
	c := testutil.Pod("c").Priority(1000).Req("cpu", "10").Obj()
	c.Status.NominatedNodeName = "n1"
	c.Spec.SchedulingGates = nil
	// c waits behind a gate so only its nomination matters.
	c.Spec.SchedulingGates = append(c.Spec.SchedulingGates, gate("hold"))
	s.AddPod(c)
	s.AddPod(testutil.Pod("d").Priority(50).Req("cpu", "2").Obj())
	drain(s)
	if _, ok := fc.binds["default/d"]; ok {
		t.Fatal("a lower-priority pod took the room of a nominated pod")
	}
	if msg := s.LastFailure("default/d"); !strings.Contains(msg, "Insufficient cpu") {
		t.Errorf("d's failure: %q", msg)
	}
	s.AddPod(testutil.Pod("f").Priority(2000).Req("cpu", "2").Obj())
	drain(s)
	if fc.binds["default/f"] != "n1" {
		t.Errorf("a higher-priority pod could not use the nominated room: %v", fc.binds)
	}
}

func TestUnschedulableRetriedOnlyByHelpfulEvents(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "1", "memory", "1Gi").Obj())
	s.AddPod(testutil.Pod("big").Req("cpu", "4").Obj())
	drain(s)
	e := s.Queue().Get("default/big")
	if e == nil || e.Location() != "unschedulable" {
		t.Fatalf("big: %v", e)
	}
	attempts := e.Attempts
	// A node label change cannot help a pod rejected for cpu.
	old := testutil.Node("n1").Capacity("cpu", "1", "memory", "1Gi").Obj()
	relabelled := old.DeepCopy()
	relabelled.Labels["x"] = "y"
	s.UpdateNode(old, relabelled)
	if e.Location() != "unschedulable" {
		t.Fatalf("moved by an unrelated event to %s", e.Location())
	}
	s.AddNode(testutil.Node("n2").Capacity("cpu", "8", "memory", "8Gi").Obj())
	if e.Location() == "unschedulable" {
		t.Fatal("not moved by a node addition")
	}
	_ = attempts
	_ = fc
}

// Filtering in parallel batches must cut at the same nodes as a sequential scan, so that
// placements do not depend on the number of workers.
func TestPlacementsIndependentOfParallelism(t *testing.T) {
	run := func(parallelism int) map[string]string {
		cfg := config.Default()
		cfg.Parallelism = parallelism
		cfg.PercentageOfNodesToScore = 10
		s, fc, _ := newTestScheduler(t, cfg)
		for i := range 300 {
			s.AddNode(testutil.Node(fmt.Sprintf("n%03d", i)).Capacity("cpu", fmt.Sprint(1+i%7), "memory", "16Gi").Obj())
		}
		for i := range 200 {
			s.AddPod(testutil.Pod(fmt.Sprintf("p%03d", i)).Req("cpu", fmt.Sprintf("%dm", 200+i%5*300)).Obj())
		}
		drain(s)
		return fc.binds
	}
	one, many := run(1), run(16)
	if len(one) != 200 {
		t.Fatalf("bound %d of 200", len(one))
	}
	for k, v := range one {
		if many[k] != v {
			t.Fatalf("pod %s: node %s with 1 worker, %s with 16", k, v, many[k])
		}
	}
}

// A preemption whose API calls fail is tried again after a backoff, not at once: with a
// victim the API server never lets go, an immediate retry would be a hot loop of status
// patches, deletions and events.
func TestFailedPreemptionBacksOff(t *testing.T) {
	s, fc, clock := newTestScheduler(t, nil)
	fc.deleteErr = errors.New("admission webhook denied the request")
	s.AddNode(testutil.Node("n1").Capacity("cpu", "2", "memory", "4Gi").Obj())
	s.AddPod(testutil.Pod("victim").Req("cpu", "2").Priority(10).Node("n1").Obj())
	s.AddPod(testutil.Pod("preemptor").Req("cpu", "2").Priority(1000).Obj())
	drain(s)
	drain(s)
	if fc.deleted != 1 {
		t.Fatalf("%d deletions with the clock stopped, want 1", fc.deleted)
	}
	if got := s.cache.Nominations().NominatedNode("default/preemptor"); got != "" {
		t.Errorf("preemptor still nominated to %q after the failure", got)
	}
	clock.t = clock.t.Add(2 * time.Second)
	drain(s)
	if fc.deleted != 2 {
		t.Errorf("%d deletions after the backoff, want 2 (one retry)", fc.deleted)
	}
}

// A pending pod being deleted is not scheduled: the API server would refuse its binding.
func TestPendingPodBeingDeletedIsNotScheduled(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "2", "memory", "4Gi").Obj())
	gone := testutil.Pod("gone").Req("cpu", "1").Obj()
	now := metav1.Now()
	gone.DeletionTimestamp = &now
	s.AddPod(gone)
	p := testutil.Pod("p").Req("cpu", "1").Obj()
	s.AddPod(p)
	leaving := p.DeepCopy()
	leaving.DeletionTimestamp = &now
	s.UpdatePod(p, leaving)
	drain(s)
	if len(fc.binds) != 0 || s.queue.Get("default/p") != nil || s.queue.Get("default/gone") != nil {
		t.Errorf("binds %v; queued p: %v, gone: %v; want nothing", fc.binds, s.queue.Get("default/p") != nil, s.queue.Get("default/gone") != nil)
	}
}

// scheduler_pending_pods follows the queue's pools.
func TestPendingPodsMetric(t *testing.T) {
	s, _, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "1", "memory", "1Gi").Obj())
	s.AddPod(testutil.Pod("big").Req("cpu", "2").Obj())
	gated := testutil.Pod("gated").Req("cpu", "1").Obj()
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{gate("wait")}
	s.AddPod(gated)
	drain(s)
	s.observeQueue()
	got := map[string]float64{}
	mfs, _ := s.metrics.Registry.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "scheduler_pending_pods" {
			for _, m := range mf.GetMetric() {
				got[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	want := map[string]float64{"active": 0, "backoff": 0, "unschedulable": 1, "gated": 1}
	for pool, n := range want {
		if got[pool] != n {
			t.Errorf("scheduler_pending_pods{queue=%q} = %v, want %v (all: %v)", pool, got[pool], n, got)
		}
	}
}
