package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A slice with a node selector serves a node by its labels: an allocation kept on the
// node's memo for its old labels must not answer for its new ones, when the node is
// relabelled or comes back under its name with other labels, while no device of its pools
// is taken or freed (which would move its DevicesVersion). The verdict is a fresh
// plugin's, as kube-scheduler computes it every cycle.
func TestFilterAfterRelabel(t *testing.T) {
	zoned := func(zone string) *v1.Node {
		return testutil.Node("n1").Labels("zone", zone).Capacity("cpu", "8").Obj()
	}
	relabel := func(c *cache.Cache, zone string) { c.Nodes().AddNode(zoned(zone)) }
	readd := func(c *cache.Cache, zone string) {
		c.Nodes().RemoveNode("n1")
		c.Nodes().AddNode(zoned(zone))
	}
	for _, tc := range []struct {
		name     string
		from, to string
		change   func(c *cache.Cache, zone string)
		want     framework.Code
	}{
		{name: "relabelled, the slice stops serving it", from: "a", to: "b", change: relabel, want: framework.Unschedulable},
		{name: "relabelled, the slice starts serving it", from: "b", to: "a", change: relabel, want: framework.Success},
		{name: "back with other labels, the slice stops serving it", from: "a", to: "b", change: readd, want: framework.Unschedulable},
		{name: "back with other labels, the slice starts serving it", from: "b", to: "a", change: readd, want: framework.Success},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
			c.Nodes().AddNode(zoned(tc.from))
			s := testutil.Slice("zoned", driver, "gpu", 1)
			s.Spec.NodeName, s.Spec.NodeSelector = nil, &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
			c.Devices().SetResourceSlice(s)
			handle := &testutil.Handle{Cache: c}
			plugin := func() *DynamicResources { return newTestPlugin(t, handle) }
			pl := plugin()
			ctx := context.Background()
			pod := 0
			// filter is a new pod's verdict on n1, with a claim of the same spec each time
			// (so that the allocation kept on the node answers), by pl and a fresh plugin.
			filter := func() (got, fresh *framework.Status) {
				t.Helper()
				name := fmt.Sprintf("gpu-%d", pod)
				c.Devices().SetResourceClaim(testutil.Claim(name, "gpu", 1))
				p := framework.NewPodInfo(testutil.Pod(fmt.Sprintf("p%d", pod)).Claims(name).Obj())
				pod++
				for i, pl := range []*DynamicResources{pl, plugin()} {
					cs := framework.NewCycleState()
					if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
						t.Fatalf("PreFilter: %v", st)
					}
					st := pl.Filter(ctx, cs, p, c.Get("n1"))
					if i == 0 {
						got = st
					} else {
						fresh = st
					}
				}
				return got, fresh
			}
			before, fresh := filter()
			if before.Code() != fresh.Code() || before.Code() == tc.want {
				t.Fatalf("before the change: %v, afresh %v, want the opposite of %v", before, fresh, tc.want)
			}
			tc.change(c, tc.to)
			got, fresh := filter()
			if got.Code() != tc.want || got.Message() != fresh.Message() || fresh.Code() != tc.want {
				t.Errorf("after the change: %v, afresh %v, want %v", got, fresh, tc.want)
			}
		})
	}
}
