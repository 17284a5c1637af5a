package podfit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// batchEvents records what batching counts.
type batchEvents struct{ got []string }

func (r *batchEvents) Attempt(_, result string) { r.got = append(r.got, result) }
func (r *batchEvents) Flushed(_, reason string) { r.got = append(r.got, "flush:"+reason) }
func (r *batchEvents) Rescored(string, time.Duration) {
	r.got = append(r.got, "rescore")
}
func (r *batchEvents) Hint(string, bool, time.Duration) {}
func (r *batchEvents) Stored(string, time.Duration)     {}

type tickClock struct{ t time.Time }

func (c *tickClock) Now() time.Time { return c.t }

// batchStep is one pod cycle: the pod (by name; "big" requests 3 CPUs, others 1), its cycle
// number, how long after the previous step it runs, whether it is nominated (to n1), and
// what batching should count and where the pod should go ("" : anywhere).
type batchStep struct {
	pod       string
	cycle     int64
	after     time.Duration
	nominated bool
	removeN3  bool
	fillN2    bool
	want      []string
	wantNode  string
}

// TestBatchHintsAndFlushes holds podfit's batch to kube-scheduler's OpportunisticBatch:
// which cycles get a hint, which flush reason each unusable state is counted under, and
// that a used hint leaves the state for the next pod while a fresh cycle replaces it.
// Nodes: n1 (8 CPUs), n2 (6), n3 (4), n4 (2); each pod takes the emptiest node it fits.
func TestBatchHintsAndFlushes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []batchStep
	}{{
		name: "alike pods follow the first one's scores; its node scored again competes",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}, wantNode: "n1"},
			// n1 still fits: scored again (6 of 8 CPUs free after b) it loses to n2 (5 of 6).
			{pod: "b", cycle: 2, want: []string{"rescore", "hint_used"}, wantNode: "n2"},
			// n2 scored again (4 of 6) loses to n1 (6 of 8, scored in the last cycle).
			{pod: "c", cycle: 3, want: []string{"rescore", "hint_used"}, wantNode: "n1"},
		},
	}, {
		name: "a cycle in between (another profile's, a failure) flushes as pod_skipped",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}},
			{pod: "b", cycle: 3, want: []string{"flush:pod_skipped", "no_hint"}},
			{pod: "c", cycle: 4, want: []string{"rescore", "hint_used"}},
		},
	}, {
		name: "another signature flushes as pod_incompatible and replaces the state",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}},
			{pod: "big", cycle: 2, want: []string{"flush:pod_incompatible", "no_hint"}},
			{pod: "b", cycle: 3, want: []string{"flush:pod_incompatible", "no_hint"}},
		},
	}, {
		name: "a nominated pod is not batched",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}},
			{pod: "b", cycle: 2, nominated: true, want: []string{"flush:pod_nominated", "no_hint", "flush:empty_list"}, wantNode: "n1"},
		},
	}, {
		name: "a state older than 500ms expires",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}},
			{pod: "b", cycle: 2, after: podfit.MaxBatchAge + time.Millisecond, want: []string{"flush:expired", "no_hint"}},
			{pod: "c", cycle: 3, after: podfit.MaxBatchAge, want: []string{"rescore", "hint_used"}},
		},
	}, {
		name: "a cached node gone flushes as node_missing",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}},
			{pod: "b", cycle: 2, removeN3: true, want: []string{"flush:node_missing", "rescore", "no_hint"}},
		},
	}, {
		name: "an unsignable pod flushes as pod_not_batchable when stored",
		steps: []batchStep{
			{pod: "spread", cycle: 1, want: []string{"no_hint", "flush:pod_not_batchable"}},
			{pod: "a", cycle: 2, want: []string{"no_hint"}},
		},
	}, {
		name: "a pod that fits one node only leaves an empty list",
		steps: []batchStep{
			{pod: "huge", cycle: 1, want: []string{"no_hint", "flush:empty_list"}, wantNode: "n1"},
		},
	}, {
		name: "the last chosen node full: no rescore, the hint is the next best",
		steps: []batchStep{
			// big (3 CPUs) fits n1 (8), n2 (6), n3 (4), not n4 (2).
			{pod: "big", cycle: 1, want: []string{"no_hint"}, wantNode: "n1"},
			// n1 (5 left) still fits: scored again (2 of 8 left) it loses to n2 (3 of 6).
			{pod: "big", cycle: 2, want: []string{"rescore", "hint_used"}, wantNode: "n2"},
			// n2 (3 left) still fits: scored again (0 of 6 left) it loses to n1 and n3.
			{pod: "big", cycle: 3, want: []string{"rescore", "hint_used"}, wantNode: "n1"},
			// n1 (2 left) no longer fits: no rescore; n3 (1 of 4 left) beats n2 (0 of 6).
			{pod: "big", cycle: 4, want: []string{"hint_used"}, wantNode: "n3"},
			// n3 (1 left) no longer fits: n2, the last in the list, is the hint.
			{pod: "big", cycle: 5, want: []string{"hint_used"}, wantNode: "n2"},
			// The list is empty: no hint, a fresh cycle.
			{pod: "a", cycle: 6, want: []string{"no_hint"}},
		},
	}, {
		name: "a hint that no longer fits is not used, and the fresh cycle's scores replace the state",
		steps: []batchStep{
			{pod: "a", cycle: 1, want: []string{"no_hint"}, wantNode: "n1"},
			// n2 fills up between the cycles: the batch's scores of it are stale.
			{pod: "b", cycle: 2, fillN2: true, want: []string{"rescore", "hint_not_used"}, wantNode: "n1"},
			{pod: "c", cycle: 3, want: []string{"rescore", "hint_used"}, wantNode: "n3"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := testutil.NewCache(nil, nil)
			for i, cpu := range []string{"8", "6", "4", "2"} {
				c.Nodes().AddNode(testutil.Node(fmt.Sprintf("n%d", i+1)).Capacity("cpu", cpu, "memory", "64Gi").Obj())
			}
			rec := &batchEvents{}
			clock := &tickClock{t: time.Unix(1000, 0)}
			pf, fwk := batchProfile(t, c, rec, clock)
			for i, s := range tc.steps {
				clock.t = clock.t.Add(s.after)
				if s.removeN3 {
					c.Nodes().RemoveNode("n3")
				}
				if s.fillN2 {
					if err := c.Nodes().AssumePod(testutil.Pod("filler").Req("cpu", "6").Info(), "n2"); err != nil {
						t.Fatal(err)
					}
				}
				pod := testutil.Pod(fmt.Sprintf("%s-%d", s.pod, i)).Req("cpu", "1")
				switch s.pod {
				case "big":
					pod = testutil.Pod(fmt.Sprintf("%s-%d", s.pod, i)).Req("cpu", "3")
				case "huge":
					pod = testutil.Pod(fmt.Sprintf("%s-%d", s.pod, i)).Req("cpu", "7")
				case "spread":
					pod = pod.SpreadConstraint(v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: v1.DoNotSchedule})
				}
				p := framework.NewPodInfo(pod.Obj())
				if s.nominated {
					c.Nominations().Nominate(p, "n1")
				}
				rec.got = nil
				ctx := context.Background()
				bc := &podfit.BatchCycle{Signature: fwk.SignPod(ctx, p), Cycle: s.cycle}
				state := framework.NewCycleState()
				feasible, _, err := pf.FindNodes(ctx, state, p, podfit.Query{Batch: bc})
				if err != nil || len(feasible) == 0 {
					t.Fatalf("step %d: feasible %v, err %v", i, feasible, err)
				}
				host, err := pf.SelectNodeBatched(ctx, state, p, feasible, bc)
				if err != nil {
					t.Fatal(err)
				}
				if s.nominated {
					c.Nominations().ClearNomination(p.Key)
				}
				if err := c.Nodes().AssumePod(p, host); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(rec.got, s.want) {
					t.Errorf("step %d (%s): counted %v, want %v", i, s.pod, rec.got, s.want)
				}
				if s.wantNode != "" && host != s.wantNode {
					t.Errorf("step %d (%s): on %s, want %s", i, s.pod, host, s.wantNode)
				}
			}
		})
	}
}

func batchProfile(t *testing.T, c *cache.Cache, rec podfit.BatchRecorder, clock framework.Clock) (podfit.Profile, *fwkruntime.Framework) {
	t.Helper()
	prof := config.Profile{SchedulerName: "phalanx", PluginConfig: []config.PluginConfig{{Name: "PodTopologySpread", Args: []byte(`{"defaultingType":"List"}`)}}}
	rnd := rand.New(rand.NewPCG(1, 1))
	fwk, err := fwkruntime.New(prof, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd, Metrics: metrics.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !fwk.Signable() {
		t.Fatalf("the profile signs no pod: %v cannot", fwk.Unsigned())
	}
	return podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd,
		Clock: clock, BatchRecorder: rec}).For(fwk), fwk
}
