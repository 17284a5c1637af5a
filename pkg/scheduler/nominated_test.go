package scheduler

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// Every cycle counts the room of the pods nominated before it as taken, in its filters and
// in its preemption, and stops counting it once the nomination ends. n1 runs a
// low-priority victim of 1 cpu of its 2; a higher-priority pod c of 1 cpu is nominated to
// n1 (held by a gate); n2 runs a pod the gang may not preempt. The gang's one member (2
// cpu) can neither fit nor make room while c's nomination stands (the victim's cpu is not
// enough beside c's); when the nomination ends, the next cycle preempts the victim and the
// member lands on n1.
func TestNominatedMembersSeenByLaterCycles(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(s *Scheduler, c *v1.Pod)
	}{
		{"nominated pod deleted", func(s *Scheduler, c *v1.Pod) { s.DeletePod(c) }},
		{"nominated pod bound elsewhere", func(s *Scheduler, c *v1.Pod) {
			bound := c.DeepCopy()
			bound.Spec.NodeName = "n3"
			s.UpdatePod(c, bound)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, fc, clock := newTestScheduler(t, nil)
			for _, n := range []string{"n1", "n2"} {
				s.AddNode(testutil.Node(n).Capacity("cpu", "2", "memory", "4Gi").Obj())
			}
			s.AddNode(testutil.Node("n3").Capacity("cpu", "1", "memory", "4Gi").Obj())
			victim := testutil.Pod("victim").Req("cpu", "1").Priority(10).Node("n1").Obj()
			s.AddPod(victim)
			s.AddPod(testutil.Pod("keep").Req("cpu", "2").Priority(2000).Node("n2").Obj())
			c := testutil.Pod("c").Priority(1000).Req("cpu", "1").Obj()
			c.Status.NominatedNodeName = "n1"
			c.Spec.SchedulingGates = append(c.Spec.SchedulingGates, gate("hold"))
			s.AddPod(c)
			s.AddPodGroup(podGroup("g", 1, false, 500))
			s.AddPod(testutil.Pod("g-0").Labels(v1alpha1.LabelPodGroup, "g").Req("cpu", "2").Priority(500).Obj())
			drain(s)
			if fc.deleted != 0 || fc.binds["default/g-0"] != "" {
				t.Fatalf("with c nominated to n1: %d deletions, g-0 bound to %q; want neither", fc.deleted, fc.binds["default/g-0"])
			}
			if got := s.cache.Nominations().NominatedNode("default/g-0"); got != "" {
				t.Fatalf("g-0 nominated to %q while c's nomination stands", got)
			}
			if s.cache.Nodes().Pod("default/c") != nil || s.cache.OpenCheckpoints() != 0 {
				t.Fatalf("c left in the cache after the cycles (%d checkpoints open)", s.cache.OpenCheckpoints())
			}
			// Two more cycles of the gang, as retries: the same verdict.
			for range 2 {
				clock.t = clock.t.Add(10 * time.Minute)
				drain(s)
			}
			if fc.deleted != 0 || fc.binds["default/g-0"] != "" {
				t.Fatalf("retried with c nominated to n1: %d deletions, g-0 bound to %q; want neither", fc.deleted, fc.binds["default/g-0"])
			}
			tc.end(s, c)
			clock.t = clock.t.Add(10 * time.Minute)
			drain(s)
			if fc.deleted != 1 {
				t.Fatalf("after c's nomination ended: %d deletions, want the victim's", fc.deleted)
			}
			drain(s)
			if got := fc.binds["default/g-0"]; got != "n1" {
				t.Errorf("g-0 bound to %q after its victim left, want n1", got)
			}
		})
	}
}
