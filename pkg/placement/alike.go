package placement

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// alikeKey identifies members whose placement cannot differ: equal requests and equal
// static filter keys, with nothing that ties a member to other pods or to objects of its
// own. "" for a member that has no equivalent.
//
// A member with ResourceClaims or PersistentVolumeClaims is never alike another: two
// members of one template still own different claims, and a claim already allocated, or
// a volume already bound to a node, lets one member onto nodes the other may not use
// (TestAlikeKeyLeavesOutOwnClaims shows a gang that would be refused otherwise). Group
// placement, its capacity bound and preemption all use this one answer.
//
// While a pod with required anti-affinity runs, members alike also carry the same labels:
// its terms may refuse one member for its labels and accept another (TestAlikeKey). The
// labels are left out otherwise, so that members told apart only by an index label (an
// indexed Job's) stay alike.
func (pl *Placer) alikeKey(m *framework.PodInfo) string {
	if m.HasInterPodConstraints() || len(m.HostPorts) > 0 || m.ParseErr != nil || m.Pod.Spec.NodeName != "" || m.UsesClaims() {
		return ""
	}
	key := pl.opts.Framework.StaticFilterKey(framework.NewCycleState(), m) + "\x00" + m.Requests.Vector.String()
	if len(pl.opts.Snapshot.NodesWithRequiredAntiAffinityPods()) > 0 {
		key += "\x00" + labels.Set(m.Pod.Labels).String()
	}
	return key
}
