package dynamicresources

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A claim allocated on a device whose node operations are skipped (skipNodeOperations)
// can be used only on a node that declares DRAOptionalNodeOperations, as kube-scheduler's
// Filter says (its TestPlugin's allocated-skip-node-operations-* cases): elsewhere the
// claim is not available, and PostFilter deallocates it.
func TestFilterSkipNodeOperations(t *testing.T) {
	for _, tc := range []struct {
		name     string
		skip     []resourceapi.SkipNodeOperation
		declared []string
		want     string
	}{
		{name: "no skipped operations", want: "Success"},
		{name: "skipped, node does not declare the feature", skip: []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll},
			want: "UnschedulableAndUnresolvable: " + msgNotAvailable},
		{name: "skipped, node declares another feature", skip: []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}, declared: []string{"Other"},
			want: "UnschedulableAndUnresolvable: " + msgNotAvailable},
		{name: "skipped, node declares the feature", skip: []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}, declared: []string{"DRAOptionalNodeOperations"},
			want: "Success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := cluster(t)
			n := testutil.Node("n3").Capacity("cpu", "8").Obj()
			n.Status.DeclaredFeatures = tc.declared
			c.Nodes().AddNode(n)
			c.Devices().SetResourceSlice(testutil.Slice("n3", driver, "gpu", 1))
			cl := testutil.Claim("gpus", "gpu", 1)
			cl.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
				{Request: "devices", Driver: driver, Pool: "n3", Device: "gpu-0", SkipNodeOperations: tc.skip},
			}}}
			addClaim(c, fc, cl)
			p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
			cs := framework.NewCycleState()
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := pl.Filter(ctx, cs, p, c.Get("n3"))
			got := st.Code().String()
			if msg := st.Message(); msg != "" {
				got += ": " + msg
			}
			if got != tc.want {
				t.Errorf("Filter: %s, want %s", got, tc.want)
			}
		})
	}
}
