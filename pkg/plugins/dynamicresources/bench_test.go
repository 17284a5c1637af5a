package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// BenchmarkFilterAtScale is one cycle of a pod with a claim of one device, PreFilter and
// a pass of Filter over every node, as a scan that does not stop early makes it: half the
// nodes publish a slice of 8 devices, of which every fourth has all 8 taken by an
// allocated claim (rejected by the count), the others have free ones (searched once, then
// served from the allocations kept per node).
func BenchmarkFilterAtScale(b *testing.B) {
	for _, nodes := range []int{20000, 130000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c, pl := scaleCluster(b, nodes)
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
			if want := nodes / 2 * 3 / 4; fit != want {
				b.Fatalf("%d nodes fit, want %d", fit, want)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				cs := framework.NewCycleState()
				pl.PreFilter(ctx, cs, p)
				for _, n := range infos {
					pl.Filter(ctx, cs, p, n)
				}
			}
		})
	}
}

// scaleCluster makes the cluster of BenchmarkFilterAtScale, with the pod's claim "gpu".
func scaleCluster(b *testing.B, nodes int) (*cache.Cache, *DynamicResources) {
	b.Helper()
	c := cache.New()
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		c.Nodes().AddNode(testutil.Node(name).Capacity("cpu", "64").Obj())
		if i%2 == 1 {
			continue
		}
		s := testutil.Slice(name, driver, "gpu", 8)
		c.Devices().SetResourceSlice(s)
		if i%8 != 0 {
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
