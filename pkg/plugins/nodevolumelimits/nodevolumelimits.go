// Package nodevolumelimits is kube-scheduler's NodeVolumeLimits plugin for CSI volumes: a
// node's CSINode says how many volumes of each driver it can attach, and a pod whose new
// volumes would exceed that, counted with the distinct volumes its pods already use and
// those VolumeAttachments attach there, does not fit there. A driver whose CSIDriver sets
// preventPodSchedulingIfMissing (VolumeLimitScaling, beta and on in v1.37) must also be
// installed on the node (listed in its CSINode).
package nodevolumelimits

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/volumebinding"
)

// Name is the plugin's name (kube-scheduler's NodeVolumeLimits, which has only CSI limits
// since v1.28).
const Name = "NodeVolumeLimits"

// ErrReasonMaxVolumeCountExceeded is kube-scheduler's reason.
const ErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count"

// NodeVolumeLimits is a PreFilter and Filter plugin.
type NodeVolumeLimits struct{ h framework.Handle }

var (
	_ framework.PreFilterPlugin   = (*NodeVolumeLimits)(nil)
	_ framework.FilterPlugin      = (*NodeVolumeLimits)(nil)
	_ framework.EnqueueExtensions = (*NodeVolumeLimits)(nil)
)

// New builds the plugin; it takes no arguments.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	if err := framework.DecodeArgs(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return &NodeVolumeLimits{h: h}, nil
}

// Name implements framework.Plugin.
func (*NodeVolumeLimits) Name() string { return Name }

const stateKey framework.StateKey = Name

// volumeSet are CSI volumes: a handle per volume, by driver.
type volumeSet map[string]sets.Set[string]

// stateData are the pod's CSI volumes, or what its own volumes give every node.
type stateData struct {
	volumes volumeSet
	// rejected is the Filter status of every node when one of the pod's volumes, the first
	// in its order, has a claim that does not exist or, for a generic ephemeral volume, a
	// claim the pod does not own; nil when none has.
	rejected *framework.Status
}

func (s *stateData) Clone() framework.StateData { return s }

// PreFilter finds the pod's CSI volumes. As in kube-scheduler, a pod that mounts a claim
// (or a generic ephemeral volume, whose claim it names) is never skipped: a claim that
// does not exist, or an ephemeral volume's claim that the pod does not own, rejects every
// node in Filter.
func (pl *NodeVolumeLimits) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	keys := framework.PodPVCs(p.Pod)
	if len(keys) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &stateData{volumes: volumeSet{}}
	s.rejected = pl.csiVolumes(p.Pod, s.volumes, true)
	cs.Write(stateKey, s)
	return nil, nil
}

// csiVolumes adds the CSI volumes a pod's claims use to into, as kube-scheduler counts
// them: a claim bound to a CSI volume by the volume's handle; an unbound claim, or one
// whose volume is gone, by the provisioner of its class and a handle of its own (two pods
// that mount one unbound claim count it once). Inline CSI volumes are not counted (they
// are not attached). As kube-scheduler, it stops at the first volume, in the pod's order,
// whose claim does not exist (for the pod to place: UnschedulableAndUnresolvable; a
// node's pod's is not counted) or is a generic ephemeral volume's claim the pod does not
// own (an error), and returns that status; nil when there is none.
func (pl *NodeVolumeLimits) csiVolumes(pod *v1.Pod, into volumeSet, incoming bool) *framework.Status {
	vols := pl.h.Snapshot().Volumes()
	add := func(driver, handle string) {
		if into[driver] == nil {
			into[driver] = sets.New[string]()
		}
		into[driver].Insert(handle)
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var name string
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(pod, vol)
		default:
			continue
		}
		key := framework.PVCKey(pod.Namespace, name)
		pvc := vols.PVC(key)
		if pvc == nil {
			if incoming {
				return framework.NewStatus(framework.UnschedulableAndUnresolvable,
					fmt.Sprintf("looking up PVC %s/%s: persistentvolumeclaim %q not found", pod.Namespace, name, name))
			}
			continue
		}
		if vol.Ephemeral != nil {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return framework.AsStatus(err)
			}
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			pvName = vols.AssumedVolumeOf(key)
		}
		if pv := vols.PV(pvName); pv != nil {
			if pv.Spec.CSI != nil {
				add(pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle)
			}
			continue
		}
		if class := vols.StorageClass(volumebinding.ClaimClass(pvc)); class != nil {
			add(class.Provisioner, "claim:"+key)
		}
	}
	return nil
}

// PreFilterExtensions returns nil: Filter counts the node's volumes live.
func (*NodeVolumeLimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter counts, per driver with a limit on the node, the distinct volumes the node's pods
// use and those the pod adds, and rejects the node when the pod adds one beyond the limit.
func (pl *NodeVolumeLimits) Filter(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil {
		return nil
	}
	if s.rejected != nil {
		return s.rejected
	}
	if len(s.volumes) == 0 {
		return nil
	}
	vols := pl.h.Snapshot().Volumes()
	csiNode := vols.CSINode(n.Name)
	for _, driver := range slices.Sorted(mapKeys(s.volumes)) {
		if !installed(vols, driver, csiNode) {
			return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s CSI driver is not installed on the node", driver))
		}
	}
	if csiNode == nil || !slices.ContainsFunc(csiNode.Spec.Drivers, hasLimit) {
		return nil
	}
	// As kube-scheduler, the node's pods are read once the node has a limit for any
	// driver (an ephemeral volume's claim a pod there does not own is an error).
	used := volumeSet{}
	for _, q := range n.Pods {
		if st := pl.csiVolumes(q.Pod, used, false); st != nil {
			return st
		}
	}
	var attached volumeSet
	for _, d := range csiNode.Spec.Drivers {
		want := s.volumes[d.Name]
		if len(want) == 0 || !hasLimit(d) {
			continue
		}
		if attached == nil {
			attached = volumeSet{}
			attachedVolumes(vols, n.Name, attached)
		}
		// As kube-scheduler: only a pod that adds a volume of the driver can exceed its
		// limit, even on a node already over it; a volume the pod adds counts though an
		// attachment already attaches it there (kube-scheduler leaves out of the pod's
		// volumes only those the node's pods use).
		added := want.Difference(used[d.Name]).Len()
		count := used[d.Name].Len() + attached[d.Name].Difference(used[d.Name]).Len()
		if added > 0 && count+added > int(*d.Allocatable.Count) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
		}
	}
	return nil
}

// hasLimit: the CSINode gives the driver an attach limit.
func hasLimit(d storagev1.CSINodeDriver) bool {
	return d.Allocatable != nil && d.Allocatable.Count != nil
}

// installed reports whether a driver the pod's volumes use may serve it on the node: yes
// unless its CSIDriver sets preventPodSchedulingIfMissing and the node's CSINode (if any)
// does not list it.
func installed(vols framework.Volumes, driver string, csiNode *storagev1.CSINode) bool {
	d := vols.CSIDriver(driver)
	if d == nil || d.Spec.PreventPodSchedulingIfMissing == nil || !*d.Spec.PreventPodSchedulingIfMissing {
		return true
	}
	if csiNode == nil {
		return false
	}
	return slices.ContainsFunc(csiNode.Spec.Drivers, func(x storagev1.CSINodeDriver) bool { return x.Name == driver })
}

// attachedVolumes adds the CSI volumes VolumeAttachments attach to the node to into, as
// kube-scheduler counts them: by attacher and the handle of the volume attached, when the
// attachment names an attacher and a PersistentVolume that exists and is a CSI volume
// (those of pods just gone, say, still count until they are detached).
func attachedVolumes(vols framework.Volumes, node string, into volumeSet) {
	for _, a := range vols.AttachedVolumes(node) {
		if a.Attacher == "" || a.Volume == "" {
			continue
		}
		pv := vols.PV(a.Volume)
		if pv == nil || pv.Spec.CSI == nil {
			continue
		}
		if into[a.Attacher] == nil {
			into[a.Attacher] = sets.New[string]()
		}
		into[a.Attacher].Insert(pv.Spec.CSI.VolumeHandle)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// EventsToRegister: pods leaving and volumes detached free attachments; CSINodes and
// nodes change limits; CSIDrivers change which drivers must be installed.
func (*NodeVolumeLimits) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Delete},
		{Resource: framework.VolumeAttachment, Action: framework.Delete},
		{Resource: framework.CSIDriver, Action: framework.Add | framework.Update},
		{Resource: framework.CSINode, Action: framework.Add | framework.Update},
		{Resource: framework.Node, Action: framework.Add},
		{Resource: framework.PersistentVolumeClaim, Action: framework.Add | framework.Update},
	}
}
