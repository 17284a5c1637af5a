package dynamicresources

import (
	"context"
	"strings"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// PreBindReady lets the pod be bound once every device with binding conditions reports
// them True; it waits while one is not (or has no status yet), and fails on a binding
// failure condition or after bindingTimeout, deallocating the claim. Devices without
// binding conditions are bound at once.
func TestPreBindReady(t *testing.T) {
	cond := func(typ string, st metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: "R", Message: "m"}
	}
	for _, tc := range []struct {
		name       string
		conditions bool // the device has binding conditions
		status     []metav1.Condition
		waited     time.Duration
		code       framework.Code
		msg        string
		dealloc    bool
	}{
		{name: "no binding conditions", code: framework.Success},
		{name: "no device status yet", conditions: true, code: framework.Wait, msg: "waiting for binding conditions for device on node n1"},
		{name: "condition false", conditions: true, status: []metav1.Condition{cond("Attached", metav1.ConditionFalse)}, waited: time.Minute, code: framework.Wait},
		{name: "condition true", conditions: true, status: []metav1.Condition{cond("Attached", metav1.ConditionTrue)}, code: framework.Success},
		{name: "failure condition", conditions: true, status: []metav1.Condition{cond("Attached", metav1.ConditionFalse), cond("AttachFailed", metav1.ConditionTrue)},
			code: framework.Error, msg: "device binding failed: claim=gpus, reason=R", dealloc: true},
		{name: "timeout", conditions: true, waited: DefaultBindingTimeout, code: framework.Error,
			msg: "device binding timeout: after 10m0s (devices: gpu.example.com/n1/gpu-0 pending=[Attached] failed=[])", dealloc: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n1").Capacity("cpu", "8").Obj())
			sl := testutil.Slice("n1", driver, "gpu", 1)
			if tc.conditions {
				yes := true
				sl.Spec.Devices[0].BindsToNode = &yes
				sl.Spec.Devices[0].BindingConditions = []string{"Attached"}
				sl.Spec.Devices[0].BindingFailureConditions = []string{"AttachFailed"}
			}
			c.Devices().SetResourceSlice(sl)
			c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", driver))
			fc := &fakeClient{claims: map[string]*resourceapi.ResourceClaim{}}
			h := &testutil.Handle{Cache: c, Client: fc}
			plugin, err := New(nil, h)
			if err != nil {
				t.Fatal(err)
			}
			pl := plugin.(*DynamicResources)
			addClaim(c, fc, testutil.Claim("gpus", "gpu", 1))
			p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
			cs := framework.NewCycleState()
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			if st := pl.Filter(ctx, cs, p, c.Get("n1")); !st.IsSuccess() {
				t.Fatal(st)
			}
			if st := pl.Reserve(ctx, cs, p, "n1"); !st.IsSuccess() {
				t.Fatal(st)
			}
			if st := pl.PreBind(ctx, cs, p, "n1"); !st.IsSuccess() {
				t.Fatal(st)
			}
			cl := fc.claims["default/gpus"]
			if got := len(cl.Status.Allocation.Devices.Results[0].BindingConditions) > 0; got != tc.conditions {
				t.Fatalf("allocation carries binding conditions: %v, want %v", got, tc.conditions)
			}
			if tc.status != nil {
				cl.Status.Devices = []resourceapi.AllocatedDeviceStatus{{Driver: driver, Pool: "n1", Device: "gpu-0", Conditions: tc.status}}
			}
			st := pl.PreBindReady(ctx, cs, p, "n1", tc.waited)
			if st.Code() != tc.code || !strings.Contains(st.Message(), tc.msg) {
				t.Errorf("status %v %q, want %v containing %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
			if got := fc.claims["default/gpus"].Status.Allocation == nil; got != tc.dealloc {
				t.Errorf("claim deallocated: %v, want %v", got, tc.dealloc)
			}
		})
	}
}
