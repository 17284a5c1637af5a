package preemption

import (
	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var qosRank = map[v1.PodQOSClass]int{v1.PodQOSGuaranteed: 2, v1.PodQOSBurstable: 1, v1.PodQOSBestEffort: 0}

// moreImportant orders pods from the most important: higher priority, then better QoS
// class, then earlier start, then name (so the order is total and deterministic).
func moreImportant(a, b *framework.PodInfo) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if qa, qb := qosRank[a.QOS], qosRank[b.QOS]; qa != qb {
		return qa > qb
	}
	if ta, tb := a.StartTime(), b.StartTime(); !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.Key < b.Key
}
