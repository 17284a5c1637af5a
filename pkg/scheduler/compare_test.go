package scheduler

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestCompare(t *testing.T) {
	node := func(name string) *v1.Node { return testutil.Node(name).Capacity("cpu", "4", "memory", "4Gi").Obj() }
	boundPod := func(name, node string) *v1.Pod { return testutil.Pod(name).Req("cpu", "1").Node(node).Obj() }
	tests := []struct {
		name string
		// setup feeds the scheduler; the cluster is then nodes and pods.
		setup func(s *Scheduler)
		nodes []*v1.Node
		pods  []*v1.Pod
		want  []string
	}{{
		name: "consistent",
		setup: func(s *Scheduler) {
			s.AddNode(node("n1"))
			s.AddPod(boundPod("a", "n1"))
			s.AddPod(testutil.Pod("pending").Req("cpu", "100").Obj())
		},
		nodes: []*v1.Node{node("n1")},
		pods:  []*v1.Pod{boundPod("a", "n1"), testutil.Pod("pending").Req("cpu", "100").Obj()},
	}, {
		name: "missed events",
		setup: func(s *Scheduler) {
			s.AddNode(node("n1"))
			s.AddNode(node("gone"))
			s.AddPod(boundPod("deleted", "n1"))
			s.AddPod(boundPod("moved", "n1"))
		},
		nodes: []*v1.Node{node("n1"), node("new")},
		pods:  []*v1.Pod{boundPod("moved", "new"), boundPod("unseen", "n1"), testutil.Pod("unqueued").Obj()},
		want: []string{
			"node gone: in the cache, not in the cluster",
			"node new: in the cluster, not in the cache",
			"pod default/deleted: on n1 in the cache, not bound in the cluster",
			"pod default/moved: on n1 in the cache, bound to new in the cluster",
			"pod default/unqueued: pending in the cluster, neither queued nor being bound",
			"pod default/unseen: bound to n1 in the cluster, not in the cache",
		},
	}, {
		name: "assumption nobody resolves",
		setup: func(s *Scheduler) {
			s.AddNode(node("n1"))
			if err := s.cache.Nodes().AssumePod(framework.NewPodInfo(testutil.Pod("lost").Obj()), "n1"); err != nil {
				t.Fatal(err)
			}
		},
		nodes: []*v1.Node{node("n1")},
		pods:  []*v1.Pod{testutil.Pod("lost").Obj()},
		want: []string{
			"pod default/lost: assumed on n1 with no binding in flight",
			"pod default/lost: pending in the cluster, neither queued nor being bound",
		},
	}, {
		name: "queued pod the cluster no longer has",
		setup: func(s *Scheduler) {
			s.AddNode(node("n1"))
			s.AddPod(testutil.Pod("big").Req("cpu", "100").Obj())
		},
		nodes: []*v1.Node{node("n1")},
		want:  []string{"pod default/big: queued, but gone in the cluster"},
	}, {
		name: "group members",
		setup: func(s *Scheduler) {
			s.AddNode(node("n1"))
			s.AddPodGroup(podGroup("g", 3, false, 0))
			s.AddPod(testutil.Pod("g-0").Labels(v1alpha1.LabelPodGroup, "g").Obj())
		},
		nodes: []*v1.Node{node("n1")},
		pods: []*v1.Pod{
			testutil.Pod("g-0").Labels(v1alpha1.LabelPodGroup, "g").Obj(),
			testutil.Pod("g-1").Labels(v1alpha1.LabelPodGroup, "g").Obj(),
		},
		want: []string{"pod default/g-1: pending in the cluster, neither queued nor being bound"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newTestScheduler(t, nil)
			tc.setup(s)
			drain(s)
			got := s.Compare(tc.nodes, tc.pods)
			if fmt.Sprint(got.Differences) != fmt.Sprint(tc.want) {
				t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got.Differences, "\n"), strings.Join(tc.want, "\n"))
			}
			if got.Consistent() != (len(tc.want) == 0) {
				t.Errorf("Consistent() = %v", got.Consistent())
			}
		})
	}
}

// With bindings in flight, assumed pods are accounted for; once they are confirmed the
// cache matches the cluster.
func TestCompareDuringBinding(t *testing.T) {
	s, fc, _, d := newBindingScheduler(t, "n1")
	pod := testutil.Pod("p").Req("cpu", "1").Obj()
	s.AddPod(pod)
	drain(s)
	nodes := []*v1.Node{testutil.Node("n1").Obj()}
	if c := s.Compare(nodes, []*v1.Pod{pod}); !c.Consistent() || c.AssumedPods != 1 {
		t.Fatalf("during the binding: %+v", c)
	}
	d.run()
	drain(s)
	bound := pod.DeepCopy()
	bound.Spec.NodeName = fc.binds["default/p"]
	if c := s.Compare(nodes, []*v1.Pod{bound}); !c.Consistent() || c.AssumedPods != 0 || c.BoundPods != 1 {
		t.Fatalf("after the binding: %+v", c)
	}
}
