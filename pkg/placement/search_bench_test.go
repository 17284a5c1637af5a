package placement_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
)

// BenchmarkPlacementSearch times one placement search over racks of 16 GPU nodes (64 cpu,
// 8 GPUs) with the default profile's placement scores; between two searches one rack
// changes (a pod bound or removed), as when the previous gang preempted or was placed
// there. It reports the process's CPU time per search beside the wall clock, which on a
// shared machine measures the neighbours.
//
//   - failed: a wave's gang (8 members of 8 GPUs) over 500 racks whose every node runs a
//     pod of 2 GPUs: every rack is too small, and the search explains why and orders the
//     racks for preemption.
//   - gang64: a gang of 64 members of 2 GPUs in one rack, over 8,125 racks (130,000 nodes)
//     of which the last 8 are free: the busy ones are pruned by capacity, a free one holds
//     the gang.
func BenchmarkPlacementSearch(b *testing.B) {
	b.Run("failed", func(b *testing.B) { benchmarkSearch(b, 500, 0, 8, 8) })
	b.Run("gang64", func(b *testing.B) { benchmarkSearch(b, 8125, 8, 64, 2) })
}

func benchmarkSearch(b *testing.B, racks, free, members, gpus int) {
	const perRack = 16
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range racks * perRack {
		n := "n" + strconv.Itoa(i)
		nodes = append(nodes, testutil.Node(n).Capacity("cpu", "64", "memory", "256Gi", "pods", "110", "nvidia.com/gpu", "8").Obj())
		if i < (racks-free)*perRack {
			pods = append(pods, testutil.Pod(n+"-batch").Req("cpu", "8", "nvidia.com/gpu", "2").Lim("nvidia.com/gpu", "2").Node(n).Obj())
		}
	}
	c := testutil.NewCache(nodes, pods)
	placer := benchPlacer(b, c)
	var list []*framework.Placement
	for r := range racks {
		p := &framework.Placement{Name: "rack" + strconv.Itoa(r)}
		for i := range perRack {
			p.Nodes = append(p.Nodes, c.Get("n"+strconv.Itoa(r*perRack+i)))
		}
		p.Set = framework.NewNodeSet(p.Nodes) // as TopologyPlacement's domains come
		list = append(list, p)
	}
	g := strconv.Itoa(gpus)
	var ms []*framework.PodInfo
	for i := range members {
		ms = append(ms, testutil.Pod("m"+strconv.Itoa(i)).Req("cpu", "1", "nvidia.com/gpu", g).Lim("nvidia.com/gpu", g).Info())
	}
	extra := framework.NewPodInfo(testutil.Pod("extra").Req("cpu", "1").Node("n0").Obj())
	cpu0 := cputime.Process()
	n := 0
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			if err := c.Nodes().AddBoundPod(extra); err != nil {
				b.Fatal(err)
			}
		} else {
			c.Nodes().RemoveBoundPod(extra.Key)
		}
		res, err := placer.For(group(int32(members)), framework.NewCycleState()).Search(context.Background(), ms, members, list)
		if err != nil || (res.Placed != nil) != (free > 0) {
			b.Fatalf("search: %v, placed %v", err, res.Placed)
		}
		n++
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(n)/1e6, "cpu-ms/op")
}

// benchPlacer is a Placer with the default profile over c.
func benchPlacer(b *testing.B, c *cache.Cache) *placement.Placer {
	rnd := rand.New(rand.NewPCG(1, 1))
	fwk, err := fwkruntime.New(config.Profile{SchedulerName: "phalanx"}, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd, Metrics: metrics.New(),
	})
	if err != nil {
		b.Fatal(err)
	}
	finder := podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd})
	return placement.New(placement.Options{Framework: fwk, Pods: finder.For(fwk), Snapshot: c, Rand: rnd,
		Metrics: metrics.New(), FeasiblePlacementsToFind: 1})
}
