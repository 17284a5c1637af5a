package placement_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// BenchmarkPlacementSearch times one failed placement search of a wave's gang (8 members
// of 8 GPUs, one a node) over 500 racks of 16 GPU nodes, each running a pod of 2 GPUs, so
// that every rack is too small and the search explains why and ranks the racks for
// preemption, with the default profile's placement scores. Between two searches one rack
// changes (a pod bound or removed), as when the previous gang preempted there.
func BenchmarkPlacementSearch(b *testing.B) {
	const racks, perRack = 500, 16
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range racks * perRack {
		n := "n" + strconv.Itoa(i)
		nodes = append(nodes, testutil.Node(n).Capacity("cpu", "64", "memory", "256Gi", "pods", "110", "nvidia.com/gpu", "8").Obj())
		pods = append(pods, testutil.Pod(n+"-batch").Req("cpu", "8", "nvidia.com/gpu", "2").Lim("nvidia.com/gpu", "2").Node(n).Obj())
	}
	c := testutil.NewCache(nodes, pods)
	rnd := rand.New(rand.NewPCG(1, 1))
	fwk, err := fwkruntime.New(config.Profile{SchedulerName: "phalanx"}, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd, Metrics: metrics.New(),
	})
	if err != nil {
		b.Fatal(err)
	}
	finder := podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd})
	placer := placement.New(placement.Options{Framework: fwk, Pods: finder.For(fwk), Snapshot: c, Rand: rnd,
		Metrics: metrics.New(), FeasiblePlacementsToFind: 1})
	var list []*framework.Placement
	for r := range racks {
		p := &framework.Placement{Name: "rack" + strconv.Itoa(r)}
		for i := range perRack {
			p.Nodes = append(p.Nodes, c.Get("n"+strconv.Itoa(r*perRack+i)))
		}
		list = append(list, p)
	}
	var members []*framework.PodInfo
	for i := range 8 {
		members = append(members, testutil.Pod("m"+strconv.Itoa(i)).Req("cpu", "8", "nvidia.com/gpu", "8").Lim("nvidia.com/gpu", "8").Info())
	}
	extra := framework.NewPodInfo(testutil.Pod("extra").Req("cpu", "1").Node("n0").Obj())
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			if err := c.Nodes().AddBoundPod(extra); err != nil {
				b.Fatal(err)
			}
		} else {
			c.Nodes().RemoveBoundPod(extra.Key)
		}
		res, err := placer.For(group(8), framework.NewCycleState()).Search(context.Background(), members, 8, list)
		if err != nil || res.Placed != nil || len(res.Candidates.List) != racks {
			b.Fatalf("search: %v, placed %v", err, res.Placed)
		}
	}
}
