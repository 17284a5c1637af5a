package scheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
	"github.com/phalanx-dev/phalanx/pkg/testutil/workload"
)

// batchingCluster adds 200 nodes, the first 100 ("a-*") with half the room of the others
// ("b-*"), and n pods alike (the same owner's replicas), and schedules them.
func batchingCluster(t *testing.T, cfg *config.Configuration, n int) (*Scheduler, *fakeCluster) {
	t.Helper()
	s, fc, _ := newTestScheduler(t, cfg)
	for i := range 100 {
		s.AddNode(testutil.Node(fmt.Sprintf("a-%03d", i)).Capacity("cpu", "4", "memory", "8Gi").Obj())
	}
	for i := range 100 {
		s.AddNode(testutil.Node(fmt.Sprintf("b-%03d", i)).Capacity("cpu", "8", "memory", "16Gi").Obj())
	}
	for i := range n {
		s.AddPod(testutil.Pod(fmt.Sprintf("web-%d", i)).Labels("app", "web").Req("cpu", "1", "memory", "1Gi").Obj())
	}
	drain(s)
	return s, fc
}

// listDefaulting is the default configuration with PodTopologySpread's defaults off
// (defaultingType List, no constraints): the only way kube-scheduler's plugins sign pods.
func listDefaulting(t testing.TB, gate *bool) *config.Configuration {
	cfg := defaultConfigWithArgs(t, "PodTopologySpread", `{"defaultingType":"List"}`)
	if gate != nil {
		cfg.FeatureGates = map[string]bool{config.OpportunisticBatching: *gate}
	}
	return cfg
}

// TestBatchingPlacesAlikePodsFromTheFirstScores: with signable pods, pods 2..n take the
// best node pod 1's cycle scored and did not take (its own node scored again), and the
// scans' start does not move, as kube-scheduler v1.37's OpportunisticBatching: the first
// 100 nodes found (the adaptive number on 200 nodes) hold every pod. Without batching, pod
// 2's cycle scans the next 100 nodes and takes a bigger one.
func TestBatchingPlacesAlikePodsFromTheFirstScores(t *testing.T) {
	const n = 5
	s, fc := batchingCluster(t, listDefaulting(t, nil), n)
	seen := map[string]bool{}
	for i := range n {
		node := fc.binds[fmt.Sprintf("default/web-%d", i)]
		if !strings.HasPrefix(node, "a-") || seen[node] {
			t.Fatalf("web-%d on %q; binds %v: want every pod on its own node of the first 100", i, node, fc.binds)
		}
		seen[node] = true
	}
	m := s.Metrics()
	if got := counterValue(t, m.BatchAttempts.WithLabelValues("phalanx", "hint_used")); got != n-1 {
		t.Errorf("hint_used %v, want %d", got, n-1)
	}
	if got := counterValue(t, m.BatchRescoreAttempts.WithLabelValues("phalanx")); got != n-1 {
		t.Errorf("rescore attempts %v, want %d (the last chosen node still fits)", got, n-1)
	}

	off := false
	_, fc = batchingCluster(t, listDefaulting(t, &off), n)
	if node := fc.binds["default/web-1"]; !strings.HasPrefix(node, "b-") {
		t.Fatalf("gate off: web-1 on %q, want a node of the second scan (b-*)", node)
	}
}

// TestBatchingDefaultProfileSignsNoPod: with PodTopologySpread's system default constraints
// (the default arguments) no pod can be signed, in kube-scheduler v1.37.2 as in phalanx, so
// every cycle scores afresh; only the metrics tell that batching was asked.
func TestBatchingDefaultProfileSignsNoPod(t *testing.T) {
	const n = 5
	s, fc := batchingCluster(t, nil, n)
	if node := fc.binds["default/web-1"]; !strings.HasPrefix(node, "b-") {
		t.Fatalf("web-1 on %q, want a node of the second scan (b-*)", node)
	}
	m := s.Metrics()
	for _, c := range []struct {
		label string
		got   float64
	}{
		{"no_hint", counterValue(t, m.BatchAttempts.WithLabelValues("phalanx", "no_hint"))},
		{"pod_not_batchable", counterValue(t, m.BatchCacheFlushed.WithLabelValues("phalanx", "pod_not_batchable"))},
	} {
		if c.got != n {
			t.Errorf("%s: %v, want %d", c.label, c.got, n)
		}
	}
}

// counterValue reads a counter.
func counterValue(t testing.TB, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// BenchmarkSchedulePodsBatching is BenchmarkSchedulePods with OpportunisticBatching on and
// off (featureGates), for the default profile (no pod signed: the cost of asking) and for
// PodTopologySpread's defaultingType List (pods without constraints of their own signed):
// `go test -bench SchedulePodsBatching/<profile>/<gate>` alternately gives decision 42's
// ratios.
func BenchmarkSchedulePodsBatching(b *testing.B) {
	const nodes, numPods = 5000, 20000
	spec := workload.Spec{Nodes: nodes, Pods: numPods, Seed: 1}
	ns, ps := workload.Nodes(spec), workload.Pods(spec)
	// replicas: the same pods, each app's replicas created one after the other (as a
	// Deployment's are), so alike pods follow each other in the queue; the workload
	// itself interleaves the apps, and pods of other apps never sign alike (their labels).
	replicas := slices.Clone(ps)
	slices.SortStableFunc(replicas, func(a, b *v1.Pod) int { return strings.Compare(a.Labels["app"], b.Labels["app"]) })
	for _, profile := range []string{"default", "list", "replicas"} {
		for _, gate := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/gate=%v", profile, gate), func(b *testing.B) {
				var total time.Duration
				for b.Loop() {
					b.StopTimer()
					cfg := config.Default()
					pods := ps
					if profile != "default" {
						cfg = defaultConfigWithArgs(b, "PodTopologySpread", `{"defaultingType":"List"}`)
					}
					if profile == "replicas" {
						pods = replicas
					}
					cfg.FeatureGates = map[string]bool{config.OpportunisticBatching: gate}
					s, fc, _ := newTestScheduler(b, cfg)
					for _, n := range ns {
						s.AddNode(n)
					}
					for _, p := range pods {
						s.AddPod(p)
					}
					b.StartTimer()
					start := time.Now()
					ctx := context.Background()
					for s.ScheduleOne(ctx) {
						s.DrainInbox()
					}
					total += time.Since(start)
					b.StopTimer()
					if len(fc.binds) != numPods {
						b.Fatalf("bound %d of %d pods", len(fc.binds), numPods)
					}
					hinted := counterValue(b, s.Metrics().BatchAttempts.WithLabelValues("phalanx", "hint_used"))
					b.ReportMetric(hinted, "hinted/op")
					b.StartTimer()
				}
				b.ReportMetric(float64(numPods)*float64(b.N)/total.Seconds(), "pods/s")
			})
		}
	}
}
