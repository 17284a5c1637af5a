package cache_test

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func taintRule(name string, sel *resourceapi.DeviceTaintSelector, effect resourceapi.DeviceTaintEffect) *resourceapi.DeviceTaintRule {
	return &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: sel, Taint: resourceapi.DeviceTaint{
			Key: "example.com/" + name, Value: "v", Effect: effect, TimeAdded: &metav1.Time{},
		}},
	}
}

// deviceTaints lists the taint keys of every device the cache hands plugins, by
// slice/device.
func deviceTaints(c *cache.Cache) map[string][]string {
	out := map[string][]string{}
	for _, s := range c.DRA().Slices() {
		for _, d := range s.Spec.Devices {
			for _, t := range d.Taints {
				out[s.Name+"/"+d.Name] = append(out[s.Name+"/"+d.Name], t.Key)
			}
		}
	}
	return out
}

func equalTaints(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w := b[k]
		if len(v) != len(w) {
			return false
		}
		for i := range v {
			if v[i] != w[i] {
				return false
			}
		}
	}
	return true
}

// A DeviceTaintRule taints the devices its selector matches, by driver, pool and device
// name, after the slice's own taints, as kube-scheduler's slice tracker does.
func TestDeviceTaintRuleSelects(t *testing.T) {
	const other = "nic.example.com"
	noSched := resourceapi.DeviceTaintEffectNoSchedule
	for _, tc := range []struct {
		name  string
		rules []*resourceapi.DeviceTaintRule
		want  map[string][]string
	}{
		{name: "no selector selects nothing", rules: []*resourceapi.DeviceTaintRule{taintRule("r", nil, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own"}}},
		{name: "empty selector selects every device", rules: []*resourceapi.DeviceTaintRule{taintRule("r", &resourceapi.DeviceTaintSelector{}, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own", "example.com/r"}, "n1-" + gpuDriver + "/gpu-1": {"example.com/r"},
				"n2-" + gpuDriver + "/gpu-0": {"example.com/r"}, "n1-" + other + "/nic-0": {"example.com/r"}}},
		{name: "driver", rules: []*resourceapi.DeviceTaintRule{taintRule("r", &resourceapi.DeviceTaintSelector{Driver: ptrTo(other)}, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own"}, "n1-" + other + "/nic-0": {"example.com/r"}}},
		{name: "pool across drivers", rules: []*resourceapi.DeviceTaintRule{taintRule("r", &resourceapi.DeviceTaintSelector{Pool: ptrTo("n1")}, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own", "example.com/r"}, "n1-" + gpuDriver + "/gpu-1": {"example.com/r"},
				"n1-" + other + "/nic-0": {"example.com/r"}}},
		{name: "driver, pool and device", rules: []*resourceapi.DeviceTaintRule{taintRule("r", &resourceapi.DeviceTaintSelector{Driver: ptrTo(gpuDriver), Pool: ptrTo("n1"), Device: ptrTo("gpu-1")}, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own"}, "n1-" + gpuDriver + "/gpu-1": {"example.com/r"}}},
		{name: "device name in every pool", rules: []*resourceapi.DeviceTaintRule{taintRule("r", &resourceapi.DeviceTaintSelector{Device: ptrTo("gpu-0")}, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own", "example.com/r"}, "n2-" + gpuDriver + "/gpu-0": {"example.com/r"}}},
		{name: "unknown pool", rules: []*resourceapi.DeviceTaintRule{taintRule("r", &resourceapi.DeviceTaintSelector{Pool: ptrTo("n3")}, noSched)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own"}}},
		{name: "rules in name order, any effect", rules: []*resourceapi.DeviceTaintRule{
			taintRule("b", &resourceapi.DeviceTaintSelector{Device: ptrTo("gpu-1"), Pool: ptrTo("n1")}, resourceapi.DeviceTaintEffectNone),
			taintRule("a", &resourceapi.DeviceTaintSelector{Device: ptrTo("gpu-1"), Pool: ptrTo("n1")}, resourceapi.DeviceTaintEffectNoExecute)},
			want: map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own"}, "n1-" + gpuDriver + "/gpu-1": {"example.com/a", "example.com/b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			own := testutil.Slice("n1", gpuDriver, "gpu", 2)
			own.Spec.Devices[0].Taints = []resourceapi.DeviceTaint{{Key: "own", Effect: noSched}}
			c.Devices().SetResourceSlice(own)
			c.Devices().SetResourceSlice(testutil.Slice("n2", gpuDriver, "gpu", 1))
			// Rules before and after a slice come: both are patched.
			for _, r := range tc.rules {
				c.Devices().SetDeviceTaintRule(r)
			}
			c.Devices().SetResourceSlice(testutil.Slice("n1", other, "nic", 1))
			verify(t, c)
			if got := deviceTaints(c); !equalTaints(got, tc.want) {
				t.Errorf("taints %v, want %v", got, tc.want)
			}
			if n := len(c.DRA().SlicesFor("n1")[0].Spec.Devices[0].Taints); n != len(tc.want["n1-"+gpuDriver+"/gpu-0"]) {
				t.Errorf("SlicesFor(n1): gpu-0 has %d taints, want %d", n, len(tc.want["n1-"+gpuDriver+"/gpu-0"]))
			}
			if len(own.Spec.Devices[0].Taints) != 1 || own.Spec.Devices[1].Taints != nil {
				t.Error("the slice as the API has it was changed")
			}
			for _, r := range tc.rules {
				c.Devices().RemoveDeviceTaintRule(r.Name)
			}
			verify(t, c)
			if got, want := deviceTaints(c), map[string][]string{"n1-" + gpuDriver + "/gpu-0": {"own"}}; !equalTaints(got, want) {
				t.Errorf("rules removed: taints %v, want %v", got, want)
			}
		})
	}
}

// A rule's change reports (and versions) a change of the devices only when some device's
// taints change, as the tracker sends slice updates only then.
func TestDeviceTaintRuleChanges(t *testing.T) {
	c := cache.New()
	d := c.Devices()
	d.SetResourceSlice(testutil.Slice("n1", gpuDriver, "gpu", 2))
	sel := &resourceapi.DeviceTaintSelector{Pool: ptrTo("n1"), Device: ptrTo("gpu-0")}
	r := taintRule("r", sel, resourceapi.DeviceTaintEffectNoSchedule)
	steps := []struct {
		name   string
		do     func() bool
		change bool
	}{
		{"rule added", func() bool { return d.SetDeviceTaintRule(r) }, true},
		{"same rule again", func() bool { return d.SetDeviceTaintRule(r.DeepCopy()) }, false},
		{"effect changed", func() bool {
			r2 := r.DeepCopy()
			r2.Spec.Taint.Effect = resourceapi.DeviceTaintEffectNoExecute
			return d.SetDeviceTaintRule(r2)
		}, true},
		{"rule selecting nothing added", func() bool {
			return d.SetDeviceTaintRule(taintRule("none", &resourceapi.DeviceTaintSelector{Pool: ptrTo("n9")}, resourceapi.DeviceTaintEffectNoSchedule))
		}, false},
		{"unknown rule removed", func() bool { return d.RemoveDeviceTaintRule("unknown") }, false},
		{"rule removed", func() bool { return d.RemoveDeviceTaintRule("r") }, true},
	}
	for _, st := range steps {
		v := c.DRA().DevicesVersion("n1")
		if got := st.do(); got != st.change {
			t.Errorf("%s: changed %v, want %v", st.name, got, st.change)
		}
		if moved := c.DRA().DevicesVersion("n1") != v; moved != st.change {
			t.Errorf("%s: devices version moved %v, want %v", st.name, moved, st.change)
		}
		verify(t, c)
	}
}
