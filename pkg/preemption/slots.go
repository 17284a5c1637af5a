package preemption

import "github.com/phalanx-dev/phalanx/pkg/framework"

// slotHolders keep, in a simulation, the pod slots of the BestEffort victims taken off
// (framework.SlotHolder): such a pod frees nothing but its slot, which it keeps, so its
// removal helps only filters that are not about resources. Both oracles that simulate on
// the snapshot (a pod's, a group's) take pods off and put them back through it.
type slotHolders map[*framework.PodInfo]*framework.PodInfo

// track gives a BestEffort unit's pod its holder.
func (h slotHolders) track(u *unit) {
	if u.bestEffort() {
		h[u.pods[0]] = framework.SlotHolder(u.pods[0])
	}
}

// takeOff removes q from node, leaving its holder there if it has one.
func (h slotHolders) takeOff(snap framework.Snapshot, q *framework.PodInfo, node string) {
	snap.RemovePod(q)
	if s := h[q]; s != nil {
		snap.AddPod(s, node)
	}
}

// putBack undoes takeOff.
func (h slotHolders) putBack(snap framework.Snapshot, q *framework.PodInfo, node string) {
	if s := h[q]; s != nil {
		snap.RemovePod(s)
	}
	snap.AddPod(q, node)
}

// has reports whether q keeps its slot when taken off (it frees nothing else).
func (h slotHolders) has(q *framework.PodInfo) bool { return h[q] != nil }
