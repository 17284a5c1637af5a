package preemption

import (
	v1 "k8s.io/api/core/v1"
)

// qosRank orders QoS classes by importance (the preemption design): Guaranteed >
// Burstable > BestEffort. Units compare by it after priority and group (moreImportantUnit).
var qosRank = map[v1.PodQOSClass]int{v1.PodQOSGuaranteed: 2, v1.PodQOSBurstable: 1, v1.PodQOSBestEffort: 0}
