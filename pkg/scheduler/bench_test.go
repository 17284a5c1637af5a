package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/testutil/workload"
)

// BenchmarkSchedulePods schedules the benchmark workload (mixed sizes, node selectors,
// zone and host spreading, GPU pods behind a taint) onto 5,000 nodes and reports pods/s
// of the scheduling loop, bindings included (they complete synchronously here).
func BenchmarkSchedulePods(b *testing.B) {
	for _, tc := range []struct {
		name        string
		nodes, pods int
	}{{"5000Nodes/20000Pods", 5000, 20000}} {
		b.Run(tc.name, func(b *testing.B) {
			spec := workload.Spec{Nodes: tc.nodes, Pods: tc.pods, Seed: 1}
			nodes, pods := workload.Nodes(spec), workload.Pods(spec)
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				s, fc, _ := newTestScheduler(b, nil)
				for _, n := range nodes {
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
				if len(fc.binds) != tc.pods {
					b.Fatalf("bound %d of %d pods", len(fc.binds), tc.pods)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(tc.pods)*float64(b.N)/total.Seconds(), "pods/s")
		})
	}
}
