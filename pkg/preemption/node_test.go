package preemption_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/plugins/noderesources"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/internal/preempttest"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// setup builds the default profile over a cache and an evaluator using it.
func setup(t *testing.T, nodes []*v1.Node, pods []*v1.Pod) (*cache.Cache, *fwkruntime.Framework, *preemption.Evaluator) {
	t.Helper()
	c := testutil.NewCache(nodes, pods)
	fwk, err := fwkruntime.New(config.Profile{SchedulerName: "phalanx"}, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1),
		Rand: rand.New(rand.NewPCG(1, 1)), Metrics: metrics.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &preemption.Evaluator{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100, ResourcePlugins: []string{noderesources.FitName}}
	e.Handle = preempttest.Handle(fwk, c)
	return c, fwk, e
}

func TestSelectVictims(t *testing.T) {
	node := func() *v1.Node {
		return testutil.Node("n").Labels("rack", "r1").Capacity("cpu", "10", "memory", "10Gi").Obj()
	}
	tests := []struct {
		name        string
		nodes       []*v1.Node
		pods        []*v1.Pod
		preemptor   *v1.Pod
		onNode      string
		wantVictims []string // nil: not a candidate
	}{
		{
			name:  "fewest victims, not lowest priorities",
			nodes: []*v1.Node{node()},
			pods: []*v1.Pod{
				testutil.Pod("p0").Priority(0).Req("cpu", "3").Node("n").Obj(),
				testutil.Pod("p1").Priority(1).Req("cpu", "1").Node("n").Obj(),
				testutil.Pod("p2").Priority(2).Req("cpu", "5").Node("n").Obj(),
				testutil.Pod("p3").Priority(3).Req("cpu", "1").Node("n").Obj(),
			},
			preemptor: testutil.Pod("hi").Priority(10).Req("cpu", "5").Obj(), onNode: "n",
			wantVictims: []string{"p2"},
		},
		{
			name:  "equal and higher priority pods are never victims",
			nodes: []*v1.Node{node()},
			pods: []*v1.Pod{
				testutil.Pod("peer").Priority(10).Req("cpu", "5").Node("n").Obj(),
				testutil.Pod("boss").Priority(20).Req("cpu", "5").Node("n").Obj(),
			},
			preemptor: testutil.Pod("hi").Priority(10).Req("cpu", "1").Obj(), onNode: "n",
			wantVictims: nil,
		},
		{
			name:  "Burstable goes before Guaranteed of equal priority",
			nodes: []*v1.Node{node()},
			pods: []*v1.Pod{
				testutil.Pod("g").Priority(1).Lim("cpu", "5", "memory", "1Gi").Node("n").Obj(),
				testutil.Pod("b").Priority(1).Req("cpu", "5").Node("n").Obj(),
			},
			preemptor: testutil.Pod("hi").Priority(10).Req("cpu", "5").Obj(), onNode: "n",
			wantVictims: []string{"b"},
		},
		{
			name:  "a BestEffort pod is not a victim for a pod slot",
			nodes: []*v1.Node{testutil.Node("n").Capacity("cpu", "10", "memory", "10Gi", "pods", "1").Obj()},
			pods: []*v1.Pod{
				testutil.Pod("be").Priority(0).Node("n").Obj(),
			},
			preemptor: testutil.Pod("hi").Priority(10).Req("cpu", "1").Obj(), onNode: "n",
			wantVictims: nil,
		},
		{
			name:  "a BestEffort pod is a victim for anti-affinity",
			nodes: []*v1.Node{node()},
			pods: []*v1.Pod{
				testutil.Pod("be").Priority(0).Labels("app", "x").Node("n").Obj(),
				testutil.Pod("other").Priority(0).Req("cpu", "1").Node("n").Obj(),
			},
			preemptor:   testutil.Pod("hi").Priority(10).Req("cpu", "1").PodAntiAffinity("rack", map[string]string{"app": "x"}).Obj(),
			onNode:      "n",
			wantVictims: []string{"be"},
		},
		{
			name: "cross-node: the blocker on another node of the rack",
			nodes: []*v1.Node{
				testutil.Node("n").Labels("rack", "r1").Capacity("cpu", "4", "memory", "10Gi").Obj(),
				testutil.Node("m").Labels("rack", "r1").Capacity("cpu", "4", "memory", "10Gi").Obj(),
			},
			pods: []*v1.Pod{
				testutil.Pod("low").Priority(0).Labels("app", "x").Req("cpu", "1").Node("n").Obj(),
				testutil.Pod("big").Priority(100).Req("cpu", "3").Node("n").Obj(),
			},
			preemptor:   testutil.Pod("hi").Priority(10).Req("cpu", "2").PodAntiAffinity("rack", map[string]string{"app": "x"}).Obj(),
			onNode:      "m",
			wantVictims: []string{"low"},
		},
		{
			name:  "lower-priority pods already leaving are room, not victims",
			nodes: []*v1.Node{node()},
			pods: []*v1.Pod{
				preempttest.Deleting(testutil.Pod("leaving").Priority(0).Req("cpu", "5").Node("n").Obj()),
				testutil.Pod("staying").Priority(0).Req("cpu", "5").Node("n").Obj(),
			},
			preemptor: testutil.Pod("hi").Priority(10).Req("cpu", "5").Obj(), onNode: "n",
			wantVictims: []string{},
		},
		{
			name:  "higher-priority pods leaving keep their room",
			nodes: []*v1.Node{node()},
			pods: []*v1.Pod{
				preempttest.Deleting(testutil.Pod("leaving").Priority(50).Req("cpu", "5").Node("n").Obj()),
				testutil.Pod("staying").Priority(0).Req("cpu", "5").Node("n").Obj(),
			},
			preemptor: testutil.Pod("hi").Priority(10).Req("cpu", "6").Obj(), onNode: "n",
			wantVictims: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, fwk, e := setup(t, tc.nodes, tc.pods)
			p := framework.NewPodInfo(tc.preemptor)
			state := framework.NewCycleState()
			if _, st := fwk.RunPreFilterPlugins(context.Background(), state, p); !st.IsSuccess() && !st.IsSkip() {
				t.Fatal(st)
			}
			before := c.Nodes().NumPods()
			cand, err := e.SelectVictims(context.Background(), state, p, c.Get(tc.onNode))
			if err != nil {
				t.Fatal(err)
			}
			if c.Nodes().NumPods() != before {
				t.Fatalf("the simulation was not rolled back: %d pods, had %d", c.Nodes().NumPods(), before)
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
			if tc.wantVictims == nil {
				if cand != nil {
					t.Fatalf("candidate with victims %v, want none", preempttest.Names(cand.Victims))
				}
				return
			}
			if cand == nil {
				t.Fatalf("no candidate, want victims %v", tc.wantVictims)
			}
			if got := preempttest.Names(cand.Victims); !slices.Equal(got, tc.wantVictims) {
				t.Errorf("victims %v, want %v", got, tc.wantVictims)
			}
		})
	}
}
