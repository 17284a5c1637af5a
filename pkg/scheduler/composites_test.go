package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// composite builds a CompositePodGroup: gang with minGroupCount when positive, basic
// otherwise; parent "" for a root; topology keys, if any, as Required levels.
func composite(name, parent string, minGroupCount int32, priority *int32, keys ...string) *v1alpha1.CompositePodGroup {
	c := &v1alpha1.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
	if parent != "" {
		c.Spec.ParentCompositePodGroupName = &parent
	}
	if minGroupCount > 0 {
		c.Spec.SchedulingPolicy.Gang = &v1alpha1.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount}
	} else {
		c.Spec.SchedulingPolicy.Basic = &v1alpha1.BasicSchedulingPolicy{}
	}
	c.Spec.Priority = priority
	for _, k := range keys {
		if c.Spec.SchedulingConstraints == nil {
			c.Spec.SchedulingConstraints = &v1alpha1.CompositePodGroupSchedulingConstraints{}
		}
		c.Spec.SchedulingConstraints.Topology = append(c.Spec.SchedulingConstraints.Topology, v1alpha1.TopologyConstraint{Key: k})
	}
	return c
}

// child is a gang PodGroup of minCount members under a composite, with its own priority
// when prio is not nil (else the composite's, inherited).
func child(name, parent string, minCount int32, prio *int32) *v1alpha1.PodGroup {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
	pg.Spec.SchedulingPolicy.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: minCount}
	pg.Spec.ParentCompositePodGroupName = &parent
	pg.Spec.Priority = prio
	return pg
}

func ptr32(v int32) *int32 { return &v }

// addMembers adds n pending members of a group asking for cpu each, at priority prio.
func addMembers(s *Scheduler, group string, n int, cpu string, prio int32) {
	for i := range n {
		s.AddPod(testutil.Pod(fmt.Sprintf("%s-%d", group, i)).Labels(v1alpha1.LabelPodGroup, group).
			Priority(prio).Req("cpu", cpu).Obj())
	}
}

func boundOf(fc *fakeCluster, prefix string) int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	n := 0
	for k := range fc.binds {
		if strings.HasPrefix(k, "default/"+prefix) {
			n++
		}
	}
	return n
}

// A gang composite of two slices needs both: with room for one slice only, nothing binds
// (the composite is all or nothing, though each slice alone would fit); once a node comes,
// both slices bind in one cycle.
func TestCompositeGangIsAllOrNothing(t *testing.T) {
	s, fc, clock := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "4", "memory", "8Gi").Obj())
	s.AddCompositePodGroup(composite("job", "", 2, ptr32(10)))
	s.AddPodGroup(child("slice-a", "job", 2, nil))
	s.AddPodGroup(child("slice-b", "job", 2, nil))
	addMembers(s, "slice-a", 2, "2", 10)
	addMembers(s, "slice-b", 2, "2", 10)
	s.AddNode(testutil.Node("n0").Capacity("cpu", "2", "memory", "8Gi").Obj())
	drain(s)
	if n := len(fc.binds); n != 0 {
		t.Fatalf("%d members bound with room for one slice of two: %v", n, fc.binds)
	}
	if msg := s.LastFailure("default/slice-a-0"); !strings.Contains(msg, "of the 2 groups the composite pod group default/job needs fit") {
		t.Errorf("failure message: %q", msg)
	}
	s.AddNode(testutil.Node("n2").Capacity("cpu", "4", "memory", "8Gi").Obj())
	clock.t = clock.t.Add(time.Minute) // past the backoff
	drain(s)
	if boundOf(fc, "slice-a") != 2 || boundOf(fc, "slice-b") != 2 {
		t.Fatalf("binds after the node came: %v", fc.binds)
	}
}

// minGroupCount 2 of 3 slices: two complete slices are enough, the third binds as far as
// it fits with them (here not at all: a gang of its own that does not fit).
func TestCompositeMinGroupCount(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	for i := range 2 {
		s.AddNode(testutil.Node(fmt.Sprintf("n%d", i)).Capacity("cpu", "4", "memory", "8Gi").Obj())
	}
	s.AddCompositePodGroup(composite("job", "", 2, ptr32(10)))
	for _, sl := range []string{"a", "b", "c"} {
		s.AddPodGroup(child("slice-"+sl, "job", 2, nil))
		addMembers(s, "slice-"+sl, 2, "2", 10)
	}
	drain(s)
	if n := len(fc.binds); n != 4 {
		t.Fatalf("%d members bound, want the 4 of two complete slices: %v", n, fc.binds)
	}
	for _, sl := range []string{"a", "b", "c"} {
		if b := boundOf(fc, "slice-"+sl); b != 0 && b != 2 {
			t.Errorf("slice %s has %d of its 2 members bound: a gang split", sl, b)
		}
	}
}

// A composite's topology level holds all of it in one domain: two slices that each fit in
// either rack go to the same rack, the one with room for both.
func TestCompositeTopologyHoldsItInOneDomain(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("a1").Labels(rackKey, "rack-a").Capacity("cpu", "4", "memory", "8Gi").Obj())
	s.AddNode(testutil.Node("b1").Labels(rackKey, "rack-b").Capacity("cpu", "4", "memory", "8Gi").Obj())
	s.AddNode(testutil.Node("b2").Labels(rackKey, "rack-b").Capacity("cpu", "4", "memory", "8Gi").Obj())
	s.AddCompositePodGroup(composite("job", "", 2, ptr32(10), rackKey))
	s.AddPodGroup(child("slice-a", "job", 2, nil))
	s.AddPodGroup(child("slice-b", "job", 2, nil))
	addMembers(s, "slice-a", 2, "2", 10)
	addMembers(s, "slice-b", 2, "2", 10)
	drain(s)
	if len(fc.binds) != 4 {
		t.Fatalf("binds: %v", fc.binds)
	}
	for pod, node := range fc.binds {
		if !strings.HasPrefix(node, "b") {
			t.Errorf("%s on %s, outside rack-b", pod, node)
		}
	}
}

// A PodGroup that sets no priority takes its composite's; one that sets its own keeps it
// (the lower level overrides the higher, KEP-5710).
func TestCompositePriorityInheritance(t *testing.T) {
	s, _, _ := newTestScheduler(t, nil)
	s.AddCompositePodGroup(composite("job", "", 0, ptr32(100)))
	s.AddPodGroup(child("inherits", "job", 1, nil))
	s.AddPodGroup(child("own", "job", 1, ptr32(7)))
	if g := s.cache.Group("default/inherits"); g.Priority != 100 {
		t.Errorf("inherited priority %d, want 100", g.Priority)
	}
	if g := s.cache.Group("default/own"); g.Priority != 7 {
		t.Errorf("own priority %d, want 7", g.Priority)
	}
	// A group that arrives before its composite takes the priority once it comes.
	s2, _, _ := newTestScheduler(t, nil)
	s2.AddPodGroup(child("early", "late", 1, nil))
	if g := s2.cache.Group("default/early"); g.Priority != 0 {
		t.Fatalf("priority before the composite: %d", g.Priority)
	}
	s2.AddCompositePodGroup(composite("late", "", 0, ptr32(50)))
	if g := s2.cache.Group("default/early"); g.Priority != 50 {
		t.Errorf("priority after the composite came: %d, want 50", g.Priority)
	}
}

// Members of a group whose composite is not known yet wait for it, and say so.
func TestCompositeMissingParentGates(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "8", "memory", "8Gi").Obj())
	s.AddPodGroup(child("slice-a", "job", 2, nil))
	addMembers(s, "slice-a", 2, "1", 0)
	drain(s)
	if len(fc.binds) != 0 {
		t.Fatalf("bound before the composite exists: %v", fc.binds)
	}
	pod := testutil.Pod("slice-a-0").Labels(v1alpha1.LabelPodGroup, "slice-a").Obj()
	if msg := s.PendingMessage(pod); !strings.Contains(msg, "waiting for CompositePodGroup default/job to be created") {
		t.Errorf("pending message %q", msg)
	}
	s.AddCompositePodGroup(composite("job", "", 1, nil))
	drain(s)
	if boundOf(fc, "slice-a") != 2 {
		t.Errorf("binds after the composite came: %v", fc.binds)
	}
}

// A gang composite whose groups lack pods is held at its gate, and its members say why.
func TestCompositeWaitsForGroups(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "8", "memory", "8Gi").Obj())
	s.AddCompositePodGroup(composite("job", "", 2, nil))
	s.AddPodGroup(child("slice-a", "job", 2, nil))
	s.AddPodGroup(child("slice-b", "job", 2, nil))
	addMembers(s, "slice-a", 2, "1", 0)
	addMembers(s, "slice-b", 1, "1", 0)
	drain(s)
	if len(fc.binds) != 0 {
		t.Fatalf("bound with one slice short of members: %v", fc.binds)
	}
	pod := testutil.Pod("slice-a-0").Labels(v1alpha1.LabelPodGroup, "slice-a").Obj()
	if msg := s.PendingMessage(pod); !strings.Contains(msg, msgCompositeWaitingForGroups+" (1 of 2)") {
		t.Errorf("pending message %q", msg)
	}
	addMembers(s, "slice-b", 2, "1", 0)
	drain(s)
	if len(fc.binds) != 4 {
		t.Errorf("binds once the members came: %v", fc.binds)
	}
}

// A gang composite preempts lower-priority pods to start all its slices, and a composite
// of disruption mode All is preempted whole: all its slices' members, as one unit.
func TestCompositePreemption(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	for i := range 2 {
		s.AddNode(testutil.Node(fmt.Sprintf("n%d", i)).Capacity("cpu", "4", "memory", "8Gi").Obj())
	}
	// The running work: a composite of mode All with two single-member slices, priority 5.
	victim := composite("old", "", 2, ptr32(5))
	victim.Spec.DisruptionMode = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	s.AddCompositePodGroup(victim)
	s.AddPodGroup(child("old-a", "old", 1, nil))
	s.AddPodGroup(child("old-b", "old", 1, nil))
	for i, g := range []string{"old-a", "old-b"} {
		s.AddPod(testutil.Pod(g+"-0").Labels(v1alpha1.LabelPodGroup, g).Priority(5).Req("cpu", "3").Node(fmt.Sprintf("n%d", i)).Obj())
	}
	s.AddCompositePodGroup(composite("new", "", 2, ptr32(100)))
	s.AddPodGroup(child("new-a", "new", 1, nil))
	s.AddPodGroup(child("new-b", "new", 1, nil))
	addMembers(s, "new-a", 1, "3", 100)
	addMembers(s, "new-b", 1, "3", 100)
	fc.graceful = false
	drain(s)
	fc.mu.Lock()
	deleted := fc.deleted
	fc.mu.Unlock()
	if deleted != 2 {
		t.Fatalf("%d victims deleted, want both members of the composite old", deleted)
	}
	drain(s)
	if boundOf(fc, "new-a") != 1 || boundOf(fc, "new-b") != 1 {
		t.Errorf("binds after preemption: %v", fc.binds)
	}
	found := false
	for _, e := range fc.events {
		if strings.HasPrefix(e, "Preempted: Preempted by compositepodgroup default/new") {
			found = true
		}
	}
	if !found {
		t.Errorf("no Preempted event naming the composite: %v", fc.events)
	}
}

// The groups of a basic composite are scheduled one by one, yet its topology level holds
// them in one domain: the first group can only go to rack a; the second, which would fit
// in rack b alone, is held to rack a, where it does not fit.
func TestBasicCompositeGroupsShareItsDomain(t *testing.T) {
	s, fc, clock := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("a1").Labels(rackKey, "rack-a").Capacity("cpu", "5", "memory", "8Gi").Obj())
	s.AddNode(testutil.Node("b1").Labels(rackKey, "rack-b").Capacity("cpu", "3", "memory", "8Gi").Obj())
	s.AddCompositePodGroup(composite("svc", "", 0, nil, rackKey))
	s.AddPodGroup(child("first", "svc", 2, nil))
	addMembers(s, "first", 2, "2", 0)
	drain(s)
	if fc.binds["default/first-0"] != "a1" || fc.binds["default/first-1"] != "a1" {
		t.Fatalf("first group: %v", fc.binds)
	}
	s.AddPodGroup(child("second", "svc", 1, nil))
	addMembers(s, "second", 1, "3", 0)
	clock.t = clock.t.Add(time.Minute)
	drain(s)
	if node := fc.binds["default/second-0"]; node != "" {
		t.Errorf("second group bound to %s, outside the composite's rack-a", node)
	}
	if msg := s.LastFailure("default/second-0"); !strings.Contains(msg, "of 1 placement, 1 too small") {
		t.Errorf("failure message: %q", msg)
	}
}

// Nested composites: a job of two gang composites (each a block of two slices) needs both
// blocks; each block's slices share a rack; the whole job shares a zone.
func TestNestedComposites(t *testing.T) {
	s, fc, _ := newTestScheduler(t, nil)
	const zoneKey = "example.com/zone"
	for _, n := range []struct{ name, zone, rack string }{
		{"z1-r1", "z1", "r1"}, {"z1-r2", "z1", "r2"}, {"z2-r3", "z2", "r3"},
	} {
		s.AddNode(testutil.Node(n.name).Labels(zoneKey, n.zone, rackKey, n.rack).Capacity("cpu", "4", "memory", "8Gi").Obj())
	}
	s.AddCompositePodGroup(composite("job", "", 2, ptr32(10), zoneKey))
	for _, blk := range []string{"blk-a", "blk-b"} {
		s.AddCompositePodGroup(composite(blk, "job", 2, nil, rackKey))
		for _, sl := range []string{"x", "y"} {
			s.AddPodGroup(child(blk+"-"+sl, blk, 1, nil))
			addMembers(s, blk+"-"+sl, 1, "2", 10)
		}
	}
	drain(s)
	if len(fc.binds) != 4 {
		t.Fatalf("binds: %v", fc.binds)
	}
	for _, blk := range []string{"blk-a", "blk-b"} {
		x, y := fc.binds["default/"+blk+"-x-0"], fc.binds["default/"+blk+"-y-0"]
		if x != y {
			t.Errorf("%s's slices in two racks: %s and %s", blk, x, y)
		}
		if !strings.HasPrefix(x, "z1") {
			t.Errorf("%s outside the job's zone z1 (the only one with room for both blocks): %s", blk, x)
		}
	}
}

// A composite that is invalid as written (disruption mode All on a basic composite) holds
// its groups back: "web" would fit, yet waits, and the composite and its group say why. The
// CRD's schema refuses such a composite (the simulator too), so it reaches the scheduler
// only from a cluster whose CRD is older than phalanx's.
func TestInvalidCompositeIsNeverScheduled(t *testing.T) {
	const want = "spec.disruptionMode.all: Forbidden: may only be used with the gang scheduling policy"
	s, fc, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("n1").Capacity("cpu", "4", "memory", "8Gi").Obj())
	svc := composite("svc", "", 0, nil)
	svc.Spec.DisruptionMode = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	s.AddCompositePodGroup(svc)
	s.AddPodGroup(child("web", "svc", 1, nil))
	addMembers(s, "web", 1, "1", 0)
	drain(s)
	if len(fc.binds) > 0 {
		t.Errorf("a group of an invalid composite bound: %v", fc.binds)
	}
	pod := testutil.Pod("web-0").Labels(v1alpha1.LabelPodGroup, "web").Obj()
	if msg := s.PendingMessage(pod); !strings.Contains(msg, "CompositePodGroup default/svc: "+want) {
		t.Errorf("web-0 waits with %q, want it to name svc and say %q", msg, want)
	}
	if !strings.Contains(strings.Join(fc.events, "\n"), "FailedScheduling: CompositePodGroup default/svc: "+want) {
		t.Errorf("events %q: no FailedScheduling saying %q", fc.events, want)
	}
}
