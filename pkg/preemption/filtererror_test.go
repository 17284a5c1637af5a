package preemption_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

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

// unjudgeable fails with an error on a node that holds a pod labelled bad=true, as
// NodeVolumeLimits does on a node where a pod's in-tree volume cannot be translated to
// CSI. It runs after the default filters, so a node too full for the pod never reaches it.
type unjudgeable struct{}

func (unjudgeable) Name() string { return "Unjudgeable" }
func (unjudgeable) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	for _, q := range n.Pods {
		if q.Pod.Labels["bad"] == "true" {
			return framework.NewStatus(framework.Error, "cannot judge "+q.Pod.Name)
		}
	}
	return nil
}

// TestFilterErrorsInTheDryRun: a filter's error while victims are simulated away is read
// as kube-scheduler's dry run reads it (schedulerdiff seeds 34527, 39003 and 59510): a pod
// given back on whose node the filters fail with an error is a victim; a node whose filters
// fail with an error even with every lower-priority pod gone is no candidate; the error
// fails the decision only when no node is one.
func TestFilterErrorsInTheDryRun(t *testing.T) {
	node := func(name string) *v1.Node {
		return testutil.Node(name).Capacity("cpu", "10", "memory", "10Gi").Obj()
	}
	tests := []struct {
		name      string
		nodes     []*v1.Node
		pods      []*v1.Pod
		wantNode  string
		victims   []string
		wantError bool
	}{
		{
			// Giving "bad" back fails with an error, so it goes, though "small" alone
			// would make room by resources.
			name:  "a pod the filters cannot judge is a victim",
			nodes: []*v1.Node{node("n")},
			pods: []*v1.Pod{
				testutil.Pod("bad").Priority(1).Labels("bad", "true").Req("cpu", "5").Node("n").Obj(),
				testutil.Pod("small").Priority(0).Req("cpu", "1").Node("n").Obj(),
			},
			wantNode: "n", victims: []string{"bad"},
		},
		{
			// On m the error stays whatever goes ("bad" is not a victim: priority 100);
			// n is a candidate, so the error does not count.
			name:  "a node that cannot be judged is no candidate",
			nodes: []*v1.Node{node("m"), node("n")},
			pods: []*v1.Pod{
				testutil.Pod("bad").Priority(100).Labels("bad", "true").Req("cpu", "4").Node("m").Obj(),
				testutil.Pod("m-small").Priority(0).Req("cpu", "2").Node("m").Obj(),
				testutil.Pod("n-big").Priority(0).Req("cpu", "6").Node("n").Obj(),
			},
			wantNode: "n", victims: []string{"n-big"},
		},
		{
			name:  "no node but one that cannot be judged: the error",
			nodes: []*v1.Node{node("m")},
			pods: []*v1.Pod{
				testutil.Pod("bad").Priority(100).Labels("bad", "true").Req("cpu", "4").Node("m").Obj(),
				testutil.Pod("m-small").Priority(0).Req("cpu", "2").Node("m").Obj(),
			},
			wantError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testutil.NewCache(tc.nodes, tc.pods)
			reg := plugins.NewRegistry()
			reg["Unjudgeable"] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) { return unjudgeable{}, nil }
			profile := config.Profile{SchedulerName: "phalanx", Plugins: config.Plugins{Enabled: []config.Plugin{{Name: "Unjudgeable"}}}}
			fwk, err := fwkruntime.New(profile, field.NewPath("profile"), reg, fwkruntime.Options{
				Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1),
				Rand: rand.New(rand.NewPCG(1, 1)), Metrics: metrics.New(),
			})
			if err != nil {
				t.Fatal(err)
			}
			e := &preemption.Evaluator{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100, ResourcePlugins: []string{noderesources.FitName}}
			e.Handle = preempttest.Handle(fwk, c)
			p := framework.NewPodInfo(testutil.Pod("hi").Priority(10).Req("cpu", "5").Obj())
			state := framework.NewCycleState()
			if _, st := fwk.RunPreFilterPlugins(context.Background(), state, p); !st.IsSuccess() && !st.IsSkip() {
				t.Fatal(st)
			}
			filtered := framework.NewNodeToStatus()
			for _, n := range c.NodeInfos() {
				st := fwk.RunFilterPlugins(context.Background(), state, p, n)
				if st.Code() != framework.Unschedulable {
					t.Fatalf("node %s: %v, want NodeResourcesFit's Unschedulable", n.Name, st)
				}
				filtered.Set(n.Name, st)
			}
			res, err := e.Preempt(context.Background(), state, p, filtered)
			switch {
			case tc.wantError:
				if err == nil {
					t.Fatalf("no error (result %+v), want the filter's", res)
				}
				return
			case err != nil:
				t.Fatal(err)
			case res.Candidate == nil:
				t.Fatalf("no candidate (%s), want %s", res.Message, tc.wantNode)
			}
			if got := preempttest.Names(res.Candidate.Victims); res.Candidate.Node.Name != tc.wantNode || !slices.Equal(got, tc.victims) {
				t.Errorf("victims %v on %s, want %v on %s", got, res.Candidate.Node.Name, tc.victims, tc.wantNode)
			}
		})
	}
}
