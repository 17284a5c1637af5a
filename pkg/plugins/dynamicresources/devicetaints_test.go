package dynamicresources

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A device a DeviceTaintRule taints is allocated only to a request that tolerates the
// taint, as kube-scheduler's allocator treats the taints its slice tracker adds; removing
// the rule untaints it.
func TestDeviceTaintRules(t *testing.T) {
	str := func(s string) *string { return &s }
	rule := func(sel *resourceapi.DeviceTaintSelector, effect resourceapi.DeviceTaintEffect) *resourceapi.DeviceTaintRule {
		return &resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "maintenance"},
			Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: sel,
				Taint: resourceapi.DeviceTaint{Key: "maintenance", Value: "soon", Effect: effect, TimeAdded: &metav1.Time{}}}}
	}
	exists := func(effect resourceapi.DeviceTaintEffect) []resourceapi.DeviceToleration {
		return []resourceapi.DeviceToleration{{Key: "maintenance", Operator: resourceapi.DeviceTolerationOpExists, Effect: effect}}
	}
	noSched, noExec := resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute
	// n1 has one GPU, n2 two; the claim asks for two.
	for _, tc := range []struct {
		name        string
		rule        *resourceapi.DeviceTaintRule
		tolerations []resourceapi.DeviceToleration
		n2          bool // whether n2 fits
	}{
		{name: "no rule", n2: true},
		{name: "NoSchedule on the pool", rule: rule(&resourceapi.DeviceTaintSelector{Pool: str("n2")}, noSched)},
		{name: "NoSchedule on the driver", rule: rule(&resourceapi.DeviceTaintSelector{Driver: str(driver)}, noSched)},
		{name: "NoSchedule on one device", rule: rule(&resourceapi.DeviceTaintSelector{Driver: str(driver), Pool: str("n2"), Device: str("gpu-1")}, noSched)},
		{name: "NoExecute on one device", rule: rule(&resourceapi.DeviceTaintSelector{Device: str("gpu-0")}, noExec)},
		{name: "another driver's devices", rule: rule(&resourceapi.DeviceTaintSelector{Driver: str("nic.example.com")}, noSched), n2: true},
		{name: "no selector", rule: rule(nil, noSched), n2: true},
		{name: "effect None", rule: rule(&resourceapi.DeviceTaintSelector{}, resourceapi.DeviceTaintEffectNone), n2: true},
		{name: "NoSchedule tolerated", rule: rule(&resourceapi.DeviceTaintSelector{Pool: str("n2")}, noSched), tolerations: exists(noSched), n2: true},
		{name: "any effect tolerated", rule: rule(&resourceapi.DeviceTaintSelector{Pool: str("n2")}, noExec), tolerations: exists(""), n2: true},
		{name: "NoExecute not tolerated by NoSchedule", rule: rule(&resourceapi.DeviceTaintSelector{Pool: str("n2")}, noExec), tolerations: exists(noSched)},
		{name: "value must match", rule: rule(&resourceapi.DeviceTaintSelector{Pool: str("n2")}, noSched),
			tolerations: []resourceapi.DeviceToleration{{Key: "maintenance", Operator: resourceapi.DeviceTolerationOpEqual, Value: "later"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, fc := cluster(t)
			if tc.rule != nil {
				c.Devices().SetDeviceTaintRule(tc.rule)
			}
			cl := testutil.Claim("gpus", "gpu", 2)
			cl.Spec.Devices.Requests[0].Exactly.Tolerations = tc.tolerations
			addClaim(c, fc, cl)
			p := framework.NewPodInfo(testutil.Pod("p").Claims("gpus").Obj())
			filter := func() bool {
				cs := framework.NewCycleState()
				if _, st := pl.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
					t.Fatal(st)
				}
				st := pl.Filter(context.Background(), cs, p, c.Get("n2"))
				if !st.IsSuccess() && (st.Code() != framework.Unschedulable || st.Message() != msgCannotAlloc) {
					t.Fatalf("n2: %v %q", st.Code(), st.Message())
				}
				return st.IsSuccess()
			}
			if got := filter(); got != tc.n2 {
				t.Errorf("n2 fits %v, want %v", got, tc.n2)
			}
			if tc.rule != nil {
				c.Devices().RemoveDeviceTaintRule(tc.rule.Name)
				if !filter() {
					t.Error("rule removed: n2 does not fit")
				}
			}
		})
	}
}
