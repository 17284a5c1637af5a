package preemption

import "github.com/phalanx-dev/phalanx/pkg/framework"

// SlotHolders keep, in a simulation, the pod slots of the BestEffort victims taken off
// (framework.SlotHolder): such a pod frees nothing but its slot, which it keeps, so its
// removal helps only filters that are not about resources. Both oracles that simulate on
// the snapshot (a pod's, a group's) take pods off and put them back through it.
type SlotHolders map[*framework.PodInfo]*framework.PodInfo

// Track gives a BestEffort unit's pod its holder.
func (h SlotHolders) Track(u *Unit) {
	if u.BestEffort() {
		h[u.Pods[0]] = framework.SlotHolder(u.Pods[0])
	}
}

// TakeOff removes q from node, leaving its holder there if it has one.
func (h SlotHolders) TakeOff(snap framework.Snapshot, q *framework.PodInfo, node string) {
	snap.RemovePod(q)
	if s := h[q]; s != nil {
		snap.AddPod(s, node)
	}
}

// PutBack undoes TakeOff.
func (h SlotHolders) PutBack(snap framework.Snapshot, q *framework.PodInfo, node string) {
	if s := h[q]; s != nil {
		snap.RemovePod(s)
	}
	snap.AddPod(q, node)
}

// Has reports whether q keeps its slot when taken off (it frees nothing else).
func (h SlotHolders) Has(q *framework.PodInfo) bool { return h[q] != nil }
