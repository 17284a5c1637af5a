package scheduler

import (
	"fmt"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const rackKey = "example.com/rack"

func rackGroup(name string, minCount, priority int32) *v1alpha1.PodGroup {
	pg := podGroup(name, minCount, false, priority)
	pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{
		Topology: []v1alpha1.TopologyConstraint{{Key: rackKey}},
	}
	return pg
}

// BenchmarkTopologyGang: 1,000 racks of 16 nodes (16,000 nodes) and a 64-pod gang that
// must run in one rack (KEP-5732). "free": half the racks are busy (two low-priority pods
// fill 28 of each node's 32 cpu), the other half empty, and the gang (8 cpu per member,
// so a whole rack) fits in any empty one. "preemption": every rack is busy, so no
// placement fits and workload-aware preemption runs per placement. It reports the decision
// time: one group cycle, from the queue to the members assumed (free) or nominated with
// victims chosen (preemption).
func BenchmarkTopologyGang(b *testing.B) {
	for _, tc := range []struct {
		name        string
		busyEvery   int // rack r is busy when r%busyEvery == 0
		wantVictims bool
	}{
		{"free", 2, false},
		{"preemption", 1, true},
	} {
		b.Run(tc.name, func(b *testing.B) { benchTopologyGang(b, tc.busyEvery, tc.wantVictims) })
	}
}

func benchTopologyGang(b *testing.B, busyEvery int, wantVictims bool) {
	const racks, perRack, gang = 1000, 16, 64
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		s, fc, _ := newTestScheduler(b, nil)
		for r := range racks {
			rack := fmt.Sprintf("rack-%04d", r)
			for i := range perRack {
				node := fmt.Sprintf("%s-%02d", rack, i)
				s.AddNode(testutil.Node(node).Labels(rackKey, rack).Capacity("cpu", "32", "memory", "256Gi").Obj())
				if r%busyEvery != 0 {
					continue
				}
				for k := range 2 {
					prio := int32((r*perRack+i+k)%10) * 10
					s.AddPod(testutil.Pod(fmt.Sprintf("%s-busy-%d", node, k)).Priority(prio).
						Req("cpu", "14", "memory", "8Gi").Node(node).Obj())
				}
			}
		}
		s.AddPodGroup(rackGroup("trainer", gang, 1000))
		for m := range gang {
			s.AddPod(testutil.Pod(fmt.Sprintf("trainer-%02d", m)).Labels(v1alpha1.LabelPodGroup, "trainer").
				Priority(1000).Req("cpu", "8", "memory", "16Gi").Obj())
		}
		total += timedCycle(b, s)
		s.DrainInbox()
		if wantVictims {
			wantPreempted(b, s, fc, gang)
		} else if len(fc.binds) != gang || fc.deleted != 0 {
			b.Fatalf("%d members bound and %d victims, want %d bound and none", len(fc.binds), fc.deleted, gang)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
}
