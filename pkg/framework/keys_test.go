package framework

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestTolerationsKey(t *testing.T) {
	secs := int64(30)
	a := v1.Toleration{Key: "a", Operator: v1.TolerationOpEqual, Value: "1", Effect: v1.TaintEffectNoSchedule}
	b := v1.Toleration{Key: "b", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}
	c := v1.Toleration{Operator: v1.TolerationOpExists}
	with := func(t v1.Toleration, f func(*v1.Toleration)) v1.Toleration { f(&t); return t }

	equal := []struct {
		name string
		x, y []v1.Toleration
	}{
		{"nil and empty", nil, []v1.Toleration{}},
		{"order", []v1.Toleration{a, b, c}, []v1.Toleration{c, a, b}},
		{"reversed pair", []v1.Toleration{a, b}, []v1.Toleration{b, a}},
	}
	for _, tt := range equal {
		t.Run("equal/"+tt.name, func(t *testing.T) {
			if kx, ky := TolerationsKey(tt.x), TolerationsKey(tt.y); kx != ky {
				t.Errorf("keys differ: %q vs %q", kx, ky)
			}
		})
	}
	if TolerationsKey(nil) != "" {
		t.Errorf("TolerationsKey(nil) = %q, want empty", TolerationsKey(nil))
	}

	distinct := []struct {
		name string
		x, y []v1.Toleration
	}{
		{"none vs one", nil, []v1.Toleration{c}},
		{"key", []v1.Toleration{a}, []v1.Toleration{with(a, func(t *v1.Toleration) { t.Key = "z" })}},
		{"value", []v1.Toleration{a}, []v1.Toleration{with(a, func(t *v1.Toleration) { t.Value = "2" })}},
		{"operator", []v1.Toleration{b}, []v1.Toleration{with(b, func(t *v1.Toleration) { t.Operator = v1.TolerationOpEqual })}},
		{"effect", []v1.Toleration{a}, []v1.Toleration{with(a, func(t *v1.Toleration) { t.Effect = v1.TaintEffectNoExecute })}},
		{"all effects", []v1.Toleration{a}, []v1.Toleration{with(a, func(t *v1.Toleration) { t.Effect = "" })}},
		{"toleration seconds", []v1.Toleration{b}, []v1.Toleration{with(b, func(t *v1.Toleration) { t.TolerationSeconds = &secs })}},
		{"subset", []v1.Toleration{a, b}, []v1.Toleration{a}},
		{"fields not shifted between key and value", []v1.Toleration{{Key: "ab", Value: "c"}}, []v1.Toleration{{Key: "a", Value: "bc"}}},
		{"split across tolerations", []v1.Toleration{{Key: "a"}, {Key: "b"}}, []v1.Toleration{{Key: "a", Value: "b"}}},
	}
	for _, tt := range distinct {
		t.Run("distinct/"+tt.name, func(t *testing.T) {
			if kx, ky := TolerationsKey(tt.x), TolerationsKey(tt.y); kx == ky {
				t.Errorf("different tolerations share the key %q", kx)
			}
		})
	}
}

func TestNodeSelectionKey(t *testing.T) {
	pod := func(sel map[string]string, terms ...v1.NodeSelectorTerm) *v1.Pod {
		p := &v1.Pod{Spec: v1.PodSpec{NodeSelector: sel}}
		if terms != nil {
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
			}}
		}
		return p
	}
	term := func(key string, op v1.NodeSelectorOperator, vals ...string) v1.NodeSelectorTerm {
		return v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}}}
	}
	zoneA := term("zone", v1.NodeSelectorOpIn, "a")
	preferred := pod(nil)
	preferred.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 1, Preference: zoneA}},
	}}

	// Many insertion orders of the same selector: Go maps iterate in random order, so a key
	// built by iterating the map would differ between runs.
	big := map[string]string{}
	for _, k := range []string{"z", "a", "m", "b", "y", "c", "x", "d"} {
		big[k] = k + "-v"
	}
	bigKey := NodeSelectionKey(pod(big))
	for range 20 {
		copied := map[string]string{}
		for k, v := range big {
			copied[k] = v
		}
		if got := NodeSelectionKey(pod(copied)); got != bigKey {
			t.Fatalf("the same node selector gave %q and %q", got, bigKey)
		}
	}

	equal := []struct {
		name string
		x, y *v1.Pod
	}{
		{"nothing", pod(nil), pod(map[string]string{})},
		{"preferred affinity does not count", pod(nil), preferred},
		{"affinity without required terms", pod(nil), &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}}}},
		{"same selector and terms", pod(map[string]string{"a": "1", "b": "2"}, zoneA), pod(map[string]string{"b": "2", "a": "1"}, zoneA)},
	}
	for _, tt := range equal {
		t.Run("equal/"+tt.name, func(t *testing.T) {
			if kx, ky := NodeSelectionKey(tt.x), NodeSelectionKey(tt.y); kx != ky {
				t.Errorf("keys differ: %q vs %q", kx, ky)
			}
		})
	}

	distinct := []struct {
		name string
		x, y *v1.Pod
	}{
		{"selector value", pod(map[string]string{"a": "1"}), pod(map[string]string{"a": "2"})},
		{"selector key", pod(map[string]string{"a": "1"}), pod(map[string]string{"b": "1"})},
		{"selector subset", pod(map[string]string{"a": "1", "b": "2"}), pod(map[string]string{"a": "1"})},
		{"key and value boundaries", pod(map[string]string{"ab": "c"}), pod(map[string]string{"a": "bc"})},
		{"entry boundaries", pod(map[string]string{"a": "b", "c": "d"}), pod(map[string]string{"a": "bc", "": "d"})},
		{"affinity added", pod(nil), pod(nil, zoneA)},
		{"affinity value", pod(nil, zoneA), pod(nil, term("zone", v1.NodeSelectorOpIn, "b"))},
		{"affinity operator", pod(nil, zoneA), pod(nil, term("zone", v1.NodeSelectorOpNotIn, "a"))},
		{"one term vs two", pod(nil, zoneA), pod(nil, zoneA, term("rack", v1.NodeSelectorOpExists))},
		{"selector vs the same as affinity", pod(map[string]string{"zone": "a"}), pod(nil, zoneA)},
		{"match fields vs match expressions", pod(nil, zoneA), pod(nil, v1.NodeSelectorTerm{MatchFields: zoneA.MatchExpressions})},
	}
	for _, tt := range distinct {
		t.Run("distinct/"+tt.name, func(t *testing.T) {
			if kx, ky := NodeSelectionKey(tt.x), NodeSelectionKey(tt.y); kx == ky {
				t.Errorf("different node selections share the key %q", kx)
			}
		})
	}
}
