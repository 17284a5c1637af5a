package scheduler

import (
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// newBindingScheduler is a test scheduler whose actuator tasks (bindings) wait until the
// test runs them, with one node of 4 CPUs.
func newBindingScheduler(t *testing.T, node string) (*Scheduler, *fakeCluster, *fixedClock, *deferredExec) {
	t.Helper()
	s, fc, clock := newTestScheduler(t, nil)
	d := &deferredExec{}
	s.binder.actuator.Exec = d // the actuator every part shares
	s.AddNode(testutil.Node(node).Capacity("cpu", "4", "memory", "4Gi").Obj())
	return s, fc, clock, d
}

// run runs the tasks held so far (and those they start).
func (d *deferredExec) run() {
	for len(d.tasks) > 0 {
		t := d.tasks[0]
		d.tasks = d.tasks[1:]
		t()
	}
}

// An informer update of the pending pod (our own condition patch, say) arrives while its
// binding is in flight, and the binding then fails: the assumption must still be
// forgotten, or every later attempt fails with "already in the cache" (issue 9).
func TestBindFailureAfterPodUpdateForgetsAssumption(t *testing.T) {
	s, fc, clock, d := newBindingScheduler(t, "n")
	pod := testutil.Pod("p").Req("cpu", "1").Obj()
	s.AddPod(pod)
	drain(s)
	if pi := s.Cache().Nodes().Pod("default/p"); pi == nil || !pi.Assumed {
		t.Fatalf("pod not assumed while its binding is in flight: %+v", pi)
	}
	patched := pod.DeepCopy()
	patched.ResourceVersion = "2"
	s.UpdatePod(pod, patched)
	fc.bindErr = errors.New("context deadline exceeded")
	d.run()
	drain(s)
	if pi := s.Cache().Nodes().Pod("default/p"); pi != nil {
		t.Fatalf("assumption kept after the binding failed: %+v", pi)
	}
	fc.bindErr = nil
	clock.t = clock.t.Add(10 * time.Second)
	drain(s)
	d.run()
	drain(s)
	if fc.binds["default/p"] != "n" {
		t.Fatalf("pod not bound on retry (last failure %q)", s.LastFailure("default/p"))
	}
	if msg := s.LastFailure("default/p"); strings.Contains(msg, "already in the cache") {
		t.Errorf("retry failed: %s", msg)
	}
}

// The API server bound the pod but the call reported an error (a timeout after the
// request was sent), and the informer told the loop first: the binding is a success. No
// failure is reported, nothing is retried.
func TestBindErrorAfterInformerConfirmedIsSuccess(t *testing.T) {
	s, fc, _, d := newBindingScheduler(t, "n")
	s.AddPod(testutil.Pod("p").Req("cpu", "1").Obj())
	drain(s)
	fc.bindErr, fc.bindLost = errors.New("context deadline exceeded"), true
	// The bind task posts the informer's update, then its own (failed) result.
	d.run()
	drain(s)
	pi := s.Cache().Nodes().Pod("default/p")
	if pi == nil || pi.Assumed || pi.NodeName != "n" {
		t.Fatalf("cache: %+v, want p bound on n", pi)
	}
	if e := s.Queue().Get("default/p"); e != nil {
		t.Errorf("bound pod still queued (%s)", e.Location())
	}
	if len(fc.patches) > 0 {
		t.Errorf("a bound pod got a failure condition: %v", fc.patches)
	}
	if got := fc.events[len(fc.events)-1]; !strings.HasPrefix(got, "Scheduled:") {
		t.Errorf("last event %q, want Scheduled", got)
	}
}

// A pod deleted while its binding ran: the failed binding is neither retried nor reported.
func TestBindFailureOfDeletedPodIsDropped(t *testing.T) {
	s, fc, clock, d := newBindingScheduler(t, "n")
	pod := testutil.Pod("p").Req("cpu", "1").Obj()
	s.AddPod(pod)
	drain(s)
	s.DeletePod(pod)
	fc.bindErr = errors.New(`pods "p" not found`)
	d.run()
	clock.t = clock.t.Add(time.Minute)
	drain(s)
	if s.Queue().Get("default/p") != nil || s.Cache().Nodes().Pod("default/p") != nil {
		t.Error("deleted pod still queued or cached")
	}
	if len(fc.patches) > 0 {
		t.Errorf("a deleted pod got a failure condition: %v", fc.patches)
	}
}

// A gang member's pod is updated while its binding runs, and the binding fails: the member
// is not made pending twice (the next group cycle would fail with "already in the cache"),
// and the group is bound on the retry.
func TestGroupMemberBindFailureAfterUpdate(t *testing.T) {
	s, fc, clock, d := newBindingScheduler(t, "n")
	s.AddPodGroup(podGroup("g", 2, false, 0))
	var members []*v1.Pod
	for _, name := range []string{"g-0", "g-1"} {
		m := testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "g").Req("cpu", "1").Obj()
		members = append(members, m)
		s.AddPod(m)
	}
	drain(s)
	// The first status write of the group runs; the two bindings are still queued.
	patched := members[0].DeepCopy()
	patched.ResourceVersion = "2"
	s.UpdatePod(members[0], patched)
	fc.bindErr = errors.New("connection reset by peer")
	d.run()
	drain(s)
	if s.Cache().Nodes().Pod("default/g-0") != nil {
		t.Fatal("member still assumed after its binding failed")
	}
	fc.bindErr = nil
	clock.t = clock.t.Add(time.Minute)
	for range 3 {
		drain(s)
		d.run()
	}
	drain(s)
	if fc.binds["default/g-0"] != "n" || fc.binds["default/g-1"] != "n" {
		t.Fatalf("binds %v (g-0's last failure %q)", fc.binds, s.LastFailure("default/g-0"))
	}
	for _, e := range fc.events {
		if strings.Contains(e, "already in the cache") {
			t.Errorf("event %q", e)
		}
	}
}

// The API server binds the pod and its PodTopologyLabels admission adds the node's zone
// label: the confirmed pod is indexed under the labels it has, so taking it off its node
// later (a preemption's simulation, its deletion) finds them all.
func TestConfirmedPodWithNewLabelsIsReindexed(t *testing.T) {
	s, _, _, _ := newBindingScheduler(t, "n")
	pod := testutil.Pod("p").Req("cpu", "1").Obj()
	s.AddPod(pod)
	drain(s)
	if pi := s.Cache().Nodes().Pod("default/p"); pi == nil || !pi.Assumed {
		t.Fatalf("cache: %+v, want p assumed", pi)
	}
	bound := pod.DeepCopy()
	bound.Spec.NodeName = "n"
	bound.Labels = map[string]string{"topology.kubernetes.io/zone": "z1"}
	s.UpdatePod(pod, bound)
	drain(s)
	pi := s.Cache().Nodes().Pod("default/p")
	if pi == nil || pi.Assumed || pi.Pod.Labels["topology.kubernetes.io/zone"] != "z1" {
		t.Fatalf("cache: %+v, want p bound with the zone label", pi)
	}
	if err := s.Cache().Verify(); err != nil {
		t.Fatal(err)
	}
	s.DeletePod(bound)
	if err := s.Cache().Verify(); err != nil {
		t.Fatal(err)
	}
}
