package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/testutil"
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

// BenchmarkPreemption has the shape of scheduler-perf's PreemptionBasic: 5,000 nodes full
// of low-priority pods (4 per node), then 1,000 high-priority pods that each need one
// preemption. It reports pods/s of the scheduling cycles that end in a preemption (the
// decision: candidate search on 10% of the nodes, victim selection, nomination); victims
// are deleted at once by the fake client.
func BenchmarkPreemption(b *testing.B) {
	const nodes, perNode, preemptors = 5000, 4, 1000
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		s, fc, _ := newTestScheduler(b, nil)
		for i := range nodes {
			name := fmt.Sprintf("node-%04d", i)
			s.AddNode(testutil.Node(name).Capacity("cpu", "4", "memory", "16Gi").Obj())
			for j := range perNode {
				s.AddPod(testutil.Pod(fmt.Sprintf("low-%04d-%d", i, j)).Priority(0).Req("cpu", "1", "memory", "1Gi").Node(name).Obj())
			}
		}
		for i := range preemptors {
			s.AddPod(testutil.Pod(fmt.Sprintf("high-%04d", i)).Priority(1000).Req("cpu", "1", "memory", "1Gi").Obj())
		}
		ctx := context.Background()
		b.StartTimer()
		start := time.Now()
		for s.ScheduleOne(ctx) {
			s.DrainInbox()
		}
		total += time.Since(start)
		b.StopTimer()
		if fc.deleted != preemptors {
			b.Fatalf("%d victims for %d preemptors", fc.deleted, preemptors)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(preemptors)*float64(b.N)/total.Seconds(), "pods/s")
}
