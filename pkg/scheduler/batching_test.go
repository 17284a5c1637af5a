package scheduler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
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
func listDefaulting(t *testing.T, gate *bool) *config.Configuration {
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
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
