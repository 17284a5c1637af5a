package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func podGroup(name string, minCount int32, all bool, priority int32) *v1alpha1.PodGroup {
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: v1alpha1.PodGroupSpec{
			SchedulingPolicy: v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: minCount}},
			Priority:         &priority,
		},
	}
	if all {
		pg.Spec.DisruptionMode = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	}
	return pg
}

// timedCycle runs one scheduling cycle with the benchmark's timer on and returns how long
// it took; the timer is off again when it returns.
func timedCycle(b *testing.B, s *Scheduler) time.Duration {
	b.StartTimer()
	start := time.Now()
	if !s.ScheduleOne(context.Background()) {
		b.Fatal("nothing to schedule")
	}
	d := time.Since(start)
	b.StopTimer()
	return d
}

// wantPreempted fails the benchmark unless its cycle preempted pods and nominated every
// one of the members.
func wantPreempted(b *testing.B, s *Scheduler, fc *fakeCluster, members int) {
	if fc.deleted == 0 || s.cache.Nominations().NumNominated() != members {
		b.Fatalf("%d victims, %d members nominated; want victims and %d nominated", fc.deleted, s.cache.Nominations().NumNominated(), members)
	}
}

// BenchmarkGangPreemption: a 256-pod gang preempting on 5,000 full nodes running 50,000
// pods in groups of 8 (half disruption mode All, half Single) with priorities spread over
// ten levels. It reports the decision time: the group cycle that places the gang, finds it
// does not fit, and decides victims and nominations.
func BenchmarkGangPreemption(b *testing.B) {
	for _, binary := range []bool{true, false} {
		b.Run(fmt.Sprintf("binarySearch=%v", binary), func(b *testing.B) {
			benchGangPreemption(b, binary)
		})
	}
}

func benchGangPreemption(b *testing.B, binary bool) {
	const nodes, perNode, groupSize, gang = 5000, 10, 8, 256
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		cfg := defaultConfigWithArgs(b, "WorkloadPreemption", fmt.Sprintf(`{"binarySearch": %v}`, binary))
		s, fc, _ := newTestScheduler(b, cfg)
		for i := range nodes {
			s.AddNode(testutil.Node(fmt.Sprintf("node-%04d", i)).Capacity("cpu", "10", "memory", "40Gi").Obj())
		}
		for g := range nodes * perNode / groupSize {
			prio := int32(g%10) * 100
			name := fmt.Sprintf("batch-%04d", g)
			s.AddPodGroup(podGroup(name, groupSize, g%2 == 0, prio))
			for m := range groupSize {
				i := g*groupSize + m
				s.AddPod(testutil.Pod(fmt.Sprintf("%s-%d", name, m)).Labels(v1alpha1.LabelPodGroup, name).
					Priority(prio).Req("cpu", "1", "memory", "1Gi").Node(fmt.Sprintf("node-%04d", i/perNode)).Obj())
			}
		}
		s.AddPodGroup(podGroup("trainer", gang, false, 550))
		for m := range gang {
			s.AddPod(testutil.Pod(fmt.Sprintf("trainer-%03d", m)).Labels(v1alpha1.LabelPodGroup, "trainer").
				Priority(550).Req("cpu", "1", "memory", "1Gi").Obj())
		}
		total += timedCycle(b, s)
		s.DrainInbox()
		if fc.deleted < gang {
			b.Fatalf("%d victims for a gang of %d", fc.deleted, gang)
		}
		if s.cache.Nominations().NumNominated() != gang {
			b.Fatalf("%d members nominated, want %d", s.cache.Nominations().NumNominated(), gang)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/decision")
}

// BenchmarkExactVictimSearch: the exact search at its bound, at scale. 5,000 full nodes
// run pods of priority 1000, except ten nodes whose two pods each (20 candidate units, of
// priorities 1-20 and 2 to 6 cpu) are of lower priority than the gang: four members of
// 2, 4, 5 and 6 cpu, priority 500, that need room on several of them. It reports the
// decision time: the group cycle, the exact branch and bound over the 20 units, and the
// checks of the chosen members' nodes.
func BenchmarkExactVictimSearch(b *testing.B) {
	const nodes = 5000
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		s, fc, _ := newTestScheduler(b, nil)
		for i := range nodes {
			node := fmt.Sprintf("node-%04d", i)
			s.AddNode(testutil.Node(node).Capacity("cpu", "8", "memory", "32Gi").Obj())
			if i%500 != 7 {
				s.AddPod(testutil.Pod(fmt.Sprintf("busy-%04d", i)).Priority(1000).Req("cpu", "8", "memory", "1Gi").Node(node).Obj())
				continue
			}
			k := i / 500
			small := int64(2 + k%3)
			s.AddPod(testutil.Pod(fmt.Sprintf("low-%04d-a", i)).Priority(int32(1+2*k)).Req("cpu", fmt.Sprint(small), "memory", "1Gi").Node(node).Obj())
			s.AddPod(testutil.Pod(fmt.Sprintf("low-%04d-b", i)).Priority(int32(2+2*k)).Req("cpu", fmt.Sprint(8-small), "memory", "1Gi").Node(node).Obj())
		}
		s.AddPodGroup(podGroup("gang", 4, false, 500))
		for m, cpu := range []string{"2", "4", "5", "6"} {
			s.AddPod(testutil.Pod(fmt.Sprintf("gang-%d", m)).Labels(v1alpha1.LabelPodGroup, "gang").
				Priority(500).Req("cpu", cpu, "memory", "1Gi").Obj())
		}
		total += timedCycle(b, s)
		s.DrainInbox()
		wantPreempted(b, s, fc, 4)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
}

// BenchmarkMixedGangPreemption: the exact search on resource vectors at its hardest size.
// 5,000 nodes are full of pods of priority 1000, except 30 whose eight pods each (4, 4,
// 2, 2, 1, 1, 1 and 1 cpu; 240 candidate units, priorities 10 to 100 drawn at random)
// are of lower priority than the gang: 16 members of three kinds (six of 4 cpu, five of 2,
// five of 1), priority 500. It reports the decision time and the victims chosen.
func BenchmarkMixedGangPreemption(b *testing.B) {
	const nodes, lowNodes = 5000, 30
	var total time.Duration
	victims := 0
	for b.Loop() {
		b.StopTimer()
		s, fc, _ := newTestScheduler(b, nil)
		rng := rand.New(rand.NewPCG(20, 22))
		for i := range nodes {
			node := fmt.Sprintf("node-%04d", i)
			s.AddNode(testutil.Node(node).Capacity("cpu", "16", "memory", "64Gi").Obj())
			if i%(nodes/lowNodes) != 3 || i/(nodes/lowNodes) >= lowNodes {
				s.AddPod(testutil.Pod(fmt.Sprintf("busy-%04d", i)).Priority(1000).Req("cpu", "16", "memory", "1Gi").Node(node).Obj())
				continue
			}
			for j, cpu := range []string{"4", "4", "2", "2", "1", "1", "1", "1"} {
				prio := []int32{10, 20, 50, 100}[rng.IntN(4)]
				s.AddPod(testutil.Pod(fmt.Sprintf("low-%04d-%d", i, j)).Priority(prio).Req("cpu", cpu, "memory", "1Gi").Node(node).Obj())
			}
		}
		s.AddPodGroup(podGroup("gang", 16, false, 500))
		for m := range 16 {
			cpu := "1"
			switch {
			case m < 6:
				cpu = "4"
			case m < 11:
				cpu = "2"
			}
			s.AddPod(testutil.Pod(fmt.Sprintf("gang-%02d", m)).Labels(v1alpha1.LabelPodGroup, "gang").
				Priority(500).Req("cpu", cpu, "memory", "1Gi").Obj())
		}
		total += timedCycle(b, s)
		s.DrainInbox()
		wantPreempted(b, s, fc, 16)
		victims += fc.deleted
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
	b.ReportMetric(float64(victims)/float64(b.N), "victims")
}
