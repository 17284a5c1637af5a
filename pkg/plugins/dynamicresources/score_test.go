package dynamicresources

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// Score counts, per request with a prioritized list, 8 minus the index of the alternative
// allocated on the node (kube-scheduler v1.37's computeScore); NormalizeScore scales onto
// [0, 100]. Nodes where Filter searched no devices, and requests without alternatives,
// score 0.
func TestScore(t *testing.T) {
	c := cache.New()
	for _, n := range []struct{ name, model string }{{"big", "h100"}, {"small", "t4"}, {"none", ""}} {
		c.Nodes().AddNode(testutil.Node(n.name).Capacity("cpu", "8").Obj())
		if n.model != "" {
			c.Devices().SetResourceSlice(testutil.Slice(n.name, driver, "gpu", 1, "model", n.model))
		}
	}
	c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
	fc := &fakeClient{claims: map[string]*resourceapi.ResourceClaim{}}
	plugin, err := New(nil, &testutil.Handle{Cache: c, Client: fc})
	if err != nil {
		t.Fatal(err)
	}
	pl := plugin.(*DynamicResources)
	sel := func(model string) []resourceapi.DeviceSelector {
		return []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["` + driver + `"].model == "` + model + `"`}}}
	}
	cl := testutil.Claim("gpus", "gpu", 1)
	cl.Spec.Devices.Requests = append(cl.Spec.Devices.Requests, resourceapi.DeviceRequest{Name: "pick", FirstAvailable: []resourceapi.DeviceSubRequest{
		{Name: "big", DeviceClassName: "gpu", Selectors: sel("h100"), AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1},
		{Name: "small", DeviceClassName: "gpu", Selectors: sel("t4"), AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1},
	}})
	cl.Spec.Devices.Requests = cl.Spec.Devices.Requests[1:] // only the prioritized list
	addClaim(c, fc, cl)
	p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
	cs := framework.NewCycleState()
	ctx := context.Background()
	if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
		t.Fatal(st)
	}
	var nodes []*framework.NodeInfo
	var scores []int64
	for _, n := range []string{"big", "small"} {
		if st := pl.Filter(ctx, cs, p, c.Get(n)); !st.IsSuccess() {
			t.Fatalf("%s: %v", n, st)
		}
		s, st := pl.Score(ctx, cs, p, c.Get(n))
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		nodes = append(nodes, c.Get(n))
		scores = append(scores, s)
	}
	if s, _ := pl.Score(ctx, cs, p, c.Get("none")); s != 0 {
		t.Errorf("a node Filter did not search scores %d, want 0", s)
	}
	if scores[0] != 8 || scores[1] != 7 {
		t.Errorf("scores %v, want big 8 (the first alternative), small 7", scores)
	}
	if st := pl.NormalizeScore(ctx, cs, p, nodes, scores); !st.IsSuccess() {
		t.Fatal(st)
	}
	if scores[0] != 100 || scores[1] != 87 {
		t.Errorf("normalized %v, want big 100, small 87", scores)
	}
}
