// Package nodevolumelimits is kube-scheduler's NodeVolumeLimits plugin for CSI volumes: a
// node's CSINode says how many volumes of each driver it can attach, and a pod whose new
// volumes would exceed that, counted with the distinct volumes its pods already use and
// those VolumeAttachments attach there, does not fit there. A driver whose CSIDriver sets
// preventPodSchedulingIfMissing (VolumeLimitScaling, beta and on in v1.37) must also be
// installed on the node (listed in its CSINode). In-tree volumes (awsElasticBlockStore,
// gcePersistentDisk, azureDisk, cinder, portworxVolume) count under the CSI driver that
// replaces their plugin on nodes with a CSINode, translated by pkg/csimigration as
// kube-scheduler translates them with k8s.io/csi-translation-lib (decision 43).
package nodevolumelimits

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/phalanx-dev/phalanx/pkg/csimigration"
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

func (v volumeSet) add(driver, handle string) {
	if v[driver] == nil {
		v[driver] = sets.New[string]()
	}
	v[driver].Insert(handle)
}

// podVolumes are the pod's CSI volumes on nodes of one kind, or why Filter fails there.
type podVolumes struct {
	volumes volumeSet
	// failure is the first of the pod's volumes that fails Filter: a claim that does not
	// exist, an inline in-tree volume that cannot be translated.
	failure *framework.Status
}

// stateData are the pod's volumes as counted on a node without a CSINode (CSI volumes
// only: kube-scheduler migrates no in-tree volume there) and on a node with one (in-tree
// volumes migrated to CSI counted under their driver).
type stateData struct {
	plain, migrated podVolumes
}

func (s *stateData) Clone() framework.StateData { return s }

// PreFilter finds the pod's CSI volumes. As in kube-scheduler, a pod that mounts a claim
// (or a generic ephemeral volume, whose claim it names) or an inline in-tree volume with a
// CSI migration is never skipped: a claim that does not exist rejects every node in Filter.
func (pl *NodeVolumeLimits) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	if !countsVolumes(p.Pod) {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &stateData{plain: podVolumes{volumes: volumeSet{}}, migrated: podVolumes{volumes: volumeSet{}}}
	s.plain.failure = pl.csiVolumes(p.Pod, false, true, s.plain.volumes)
	s.migrated.failure = pl.csiVolumes(p.Pod, true, true, s.migrated.volumes)
	cs.Write(stateKey, s)
	return nil, nil
}

// countsVolumes reports whether a pod has a volume the plugin may count: a claim, a
// generic ephemeral volume, an inline in-tree volume with a CSI migration.
func countsVolumes(pod *v1.Pod) bool {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if vol.PersistentVolumeClaim != nil || vol.Ephemeral != nil || csimigration.PluginOfVolume(vol) != "" {
			return true
		}
	}
	return false
}

// csiVolumes adds the CSI volumes a pod uses to into, in the order of its volumes, as
// kube-scheduler counts them on a node with a CSINode (migrated) or without one:
//
//   - a claim bound to a CSI volume by the volume's handle; to an in-tree volume, on a node
//     with a CSINode and when kube-scheduler migrates its plugin (csimigration.MigrationOn),
//     by its driver and handle once translated (one that cannot be is not counted);
//   - an unbound claim, or one whose volume is gone, by the provisioner of its class (an
//     in-tree plugin's driver, on the same terms) and a handle of its own (two pods that
//     mount one unbound claim count it once);
//   - an inline in-tree volume, on the same terms, by its driver and handle once
//     translated. Inline CSI volumes are not counted (they are not attached).
//
// It returns, for the pod to place (newPod), the Filter failure of the first volume that
// fails: a claim that does not exist, a generic ephemeral volume's claim the pod does not
// own (an error), an inline volume that cannot be translated; for a pod on the node, a
// claim that does not exist is not counted, but the other two fail Filter all the same
// (nil: none fails).
func (pl *NodeVolumeLimits) csiVolumes(pod *v1.Pod, migrated, newPod bool, into volumeSet) *framework.Status {
	vols := pl.h.Snapshot().Volumes()
	migrates := func(plugin string) bool { return migrated && csimigration.MigrationOn(plugin) }
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var key string
		switch {
		case vol.PersistentVolumeClaim != nil:
			key = framework.PVCKey(pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
		case vol.Ephemeral != nil:
			key = framework.PVCKey(pod.Namespace, ephemeral.VolumeClaimName(pod, vol))
		default:
			plugin := csimigration.PluginOfVolume(vol)
			if plugin == "" || !migrates(plugin) {
				continue
			}
			driver, handle, err := csimigration.TranslateInline(vol)
			if err != nil {
				return framework.AsStatus(fmt.Errorf("converting volume(%s) from inline to csi: %w", vol.Name, err))
			}
			into.add(driver, handle)
			continue
		}
		pvc := vols.PVC(key)
		if pvc == nil {
			if newPod {
				ns, name, _ := strings.Cut(key, "/")
				return framework.NewStatus(framework.UnschedulableAndUnresolvable,
					fmt.Sprintf("looking up PVC %s/%s: persistentvolumeclaim %q not found", ns, name, name))
			}
			continue
		}
		if vol.Ephemeral != nil {
			// A generic ephemeral volume's claim the pod does not own is an error, for
			// the pod to place and for a pod on the node alike, as in kube-scheduler.
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return framework.AsStatus(err)
			}
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			pvName = vols.AssumedVolumeOf(key)
		}
		if pv := vols.PV(pvName); pv != nil {
			switch plugin := csimigration.PluginOfPV(pv); {
			case pv.Spec.CSI != nil:
				into.add(pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle)
			case plugin != "" && migrates(plugin):
				if t, err := csimigration.TranslatePV(pv); err == nil {
					into.add(t.Spec.CSI.Driver, t.Spec.CSI.VolumeHandle)
				}
			}
			continue
		}
		class := vols.StorageClass(volumebinding.ClaimClass(pvc))
		switch {
		case class == nil:
		case !csimigration.IsPlugin(class.Provisioner):
			into.add(class.Provisioner, "claim:"+key)
		case migrates(class.Provisioner):
			into.add(csimigration.Driver(class.Provisioner), "claim:"+key)
		}
	}
	return nil
}

// PreFilterExtensions returns nil: Filter counts the node's volumes live.
func (*NodeVolumeLimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter counts, per driver with a limit on the node, the distinct volumes the node's pods
// use and those the pod adds, and rejects the node when the pod adds one beyond the limit.
// In-tree volumes count under their CSI driver on a node with a CSINode (kube-scheduler
// reads no migrated-plugins annotation here: the CSINode is enough).
func (pl *NodeVolumeLimits) Filter(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil {
		return nil
	}
	vols := pl.h.Snapshot().Volumes()
	csiNode := vols.CSINode(n.Name)
	pod := s.plain
	if csiNode != nil {
		pod = s.migrated
	}
	if pod.failure != nil {
		return pod.failure
	}
	if len(pod.volumes) == 0 {
		return nil
	}
	for _, driver := range slices.Sorted(mapKeys(pod.volumes)) {
		if !installed(vols, driver, csiNode) {
			return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s CSI driver is not installed on the node", driver))
		}
	}
	if csiNode == nil || !slices.ContainsFunc(csiNode.Spec.Drivers, hasLimit) {
		return nil
	}
	// As kube-scheduler, the node's pods are counted once some driver has a limit there
	// (an inline volume of theirs that cannot be translated fails the node).
	used := volumeSet{}
	for _, q := range n.Pods {
		if st := pl.csiVolumes(q.Pod, true, false, used); st != nil {
			return st
		}
	}
	attached := volumeSet{}
	attachedVolumes(vols, n.Name, attached)
	for _, d := range csiNode.Spec.Drivers {
		want := pod.volumes[d.Name]
		if len(want) == 0 || !hasLimit(d) {
			continue
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
