package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
)

// BenchmarkFilterAtScale is one cycle of a pod with a claim of one device, PreFilter and
// a pass of Filter over every node, as a scan that does not stop early makes it: one node
// in every (two, or eight as in bench-scale's cluster, where most nodes have no devices)
// publishes a slice of 8 devices, of which every fourth has all 8 taken by an allocated
// claim (rejected by the count), the others have free ones (searched once, then served
// from the allocations kept per node).
func BenchmarkFilterAtScale(b *testing.B) {
	for _, nodes := range []int{20000, 130000} {
		for _, every := range []int{2, 8} {
			b.Run(fmt.Sprintf("nodes=%d/devices=1in%d", nodes, every), func(b *testing.B) { benchmarkFilterAtScale(b, nodes, every) })
		}
	}
}

func benchmarkFilterAtScale(b *testing.B, nodes, every int) {
	c, pl := scaleCluster(b, nodes, every)
	p := framework.NewPodInfo(testutil.Pod("p").Claims("gpu").Obj())
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		b.Fatal(st)
	}
	infos := c.NodeInfos()
	fit := 0
	for _, n := range infos {
		if pl.Filter(ctx, cs, p, n).IsSuccess() {
			fit++
		}
	}
	if want := nodes / every * 3 / 4; fit != want {
		b.Fatalf("%d nodes fit, want %d", fit, want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for range b.N {
		cs := framework.NewCycleState()
		pl.PreFilter(ctx, cs, p)
		for _, n := range infos {
			pl.Filter(ctx, cs, p, n)
		}
	}
	// The process's CPU, garbage collection's included: on a shared machine the wall
	// clock measures the neighbours.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// scaleCluster makes the cluster of BenchmarkFilterAtScale, with the pod's claim "gpu".
func scaleCluster(b *testing.B, nodes, every int) (*cache.Cache, *DynamicResources) {
	b.Helper()
	c := cache.New()
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		c.Nodes().AddNode(testutil.Node(name).Capacity("cpu", "64").Obj())
		if i%every != 0 {
			continue
		}
		s := testutil.Slice(name, driver, "gpu", 8)
		c.Devices().SetResourceSlice(s)
		if i%(4*every) != 0 {
			continue
		}
		full := testutil.Claim("full-"+name, "gpu", 8)
		full.Status.Allocation = &resourceapi.AllocationResult{}
		for _, d := range s.Spec.Devices {
			full.Status.Allocation.Devices.Results = append(full.Status.Allocation.Devices.Results,
				resourceapi.DeviceRequestAllocationResult{Request: "devices", Driver: driver, Pool: name, Device: d.Name})
		}
		c.Devices().SetResourceClaim(full)
	}
	c.Devices().SetResourceClaim(testutil.Claim("gpu", "gpu", 1))
	pl, err := New(nil, &testutil.Handle{Cache: c})
	if err != nil {
		b.Fatal(err)
	}
	return c, pl.(*DynamicResources)
}
