package admission

import (
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

// A DeviceTaintRule is refused as the API server refuses it (v1.37's
// ValidateDeviceTaintRule).
func TestDeviceTaintRuleErrors(t *testing.T) {
	str := func(s string) *string { return &s }
	ok := resourceapi.DeviceTaint{Key: "example.com/maintenance", Value: "planned", Effect: resourceapi.DeviceTaintEffectNoSchedule}
	for _, tc := range []struct {
		name  string
		sel   *resourceapi.DeviceTaintSelector
		taint resourceapi.DeviceTaint
		want  []string // one substring per error, in order
	}{
		{name: "valid", sel: &resourceapi.DeviceTaintSelector{Driver: str("gpu.example.com"), Pool: str("zone-a/node-1"), Device: str("gpu-0")}, taint: ok},
		{name: "no selector", taint: ok},
		{name: "effect None", sel: &resourceapi.DeviceTaintSelector{}, taint: resourceapi.DeviceTaint{Key: "k", Effect: resourceapi.DeviceTaintEffectNone}},
		{name: "empty driver", sel: &resourceapi.DeviceTaintSelector{Driver: str("")}, taint: ok, want: []string{"spec.deviceSelector.driver: Required value"}},
		{name: "driver not a DNS subdomain", sel: &resourceapi.DeviceTaintSelector{Driver: str("gpu_example")}, taint: ok, want: []string{"spec.deviceSelector.driver: Invalid value"}},
		{name: "driver too long", sel: &resourceapi.DeviceTaintSelector{Driver: str(strings.Repeat("a", 64))}, taint: ok, want: []string{"spec.deviceSelector.driver: Invalid value", "must be no more than 63"}},
		{name: "empty pool", sel: &resourceapi.DeviceTaintSelector{Pool: str("")}, taint: ok, want: []string{"spec.deviceSelector.pool: Required value"}},
		{name: "pool part empty", sel: &resourceapi.DeviceTaintSelector{Pool: str("a//b")}, taint: ok, want: []string{"spec.deviceSelector.pool: Invalid value"}},
		{name: "device not a DNS label", sel: &resourceapi.DeviceTaintSelector{Device: str("gpu.0")}, taint: ok, want: []string{"spec.deviceSelector.device: Invalid value"}},
		{name: "no key", taint: resourceapi.DeviceTaint{Effect: resourceapi.DeviceTaintEffectNoSchedule}, want: []string{"spec.taint.key"}},
		{name: "bad value", taint: resourceapi.DeviceTaint{Key: "k", Value: "a b", Effect: resourceapi.DeviceTaintEffectNoSchedule}, want: []string{"spec.taint.value: Invalid value"}},
		{name: "no effect", taint: resourceapi.DeviceTaint{Key: "k"}, want: []string{"spec.taint.effect: Required value"}},
		{name: "unknown effect", taint: resourceapi.DeviceTaint{Key: "k", Effect: "NoAdmit"}, want: []string{`spec.taint.effect: Unsupported value: "NoAdmit"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &resourceapi.DeviceTaintRule{Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: tc.sel, Taint: tc.taint}}
			errs := deviceTaintRuleErrors(r)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(tc.want) == 0 && len(errs) > 0 || len(tc.want) > 0 && len(errs) == 0 {
				t.Fatalf("errors %q, want %q", got, tc.want)
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("errors %q do not contain %q", got, w)
				}
			}
		})
	}
}
