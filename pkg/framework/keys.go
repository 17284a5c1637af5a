package framework

import (
	"encoding/json"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// TolerationsKey renders tolerations canonically, as a StaticFilterKey.
func TolerationsKey(ts []v1.Toleration) string {
	if len(ts) == 0 {
		return ""
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		sec := ""
		if t.TolerationSeconds != nil {
			sec = "s"
		}
		parts[i] = t.Key + "\x01" + string(t.Operator) + "\x01" + t.Value + "\x01" + string(t.Effect) + sec
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x02")
}

// NodeSelectionKey renders a pod's node selector and required node affinity canonically,
// as a StaticFilterKey.
func NodeSelectionKey(pod *v1.Pod) string {
	var b strings.Builder
	if len(pod.Spec.NodeSelector) > 0 {
		keys := make([]string, 0, len(pod.Spec.NodeSelector))
		for k := range pod.Spec.NodeSelector {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b.WriteString(k)
			b.WriteByte(1)
			b.WriteString(pod.Spec.NodeSelector[k])
			b.WriteByte(2)
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		// Terms are structured; JSON is canonical enough (term order matters to nobody's
		// verdict, but treating reordered terms as different only costs a cache entry).
		data, _ := json.Marshal(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		b.WriteByte(3)
		b.Write(data)
	}
	return b.String()
}
