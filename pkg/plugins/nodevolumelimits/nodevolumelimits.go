// Package nodevolumelimits is kube-scheduler's NodeVolumeLimits plugin for CSI volumes: a
// node's CSINode says how many volumes of each driver it can attach, and a pod whose new
// volumes would exceed that, counted with the distinct volumes its pods already use, does
// not fit there.
package nodevolumelimits

import (
	"context"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

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

// stateData are the pod's CSI volumes: a handle per volume, by driver.
type stateData map[string]sets.Set[string]

func (s stateData) Clone() framework.StateData { return s }

// PreFilter finds the pod's CSI volumes.
func (pl *NodeVolumeLimits) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	if len(p.Pod.Spec.Volumes) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := stateData{}
	pl.csiVolumes(p.Pod, s, true)
	if len(s) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(stateKey, s)
	return nil, nil
}

// csiVolumes adds a pod's CSI volumes to into: bound claims by their volume's handle,
// unbound ones (when pending is set) by the provisioner of their class, and inline CSI
// volumes.
func (pl *NodeVolumeLimits) csiVolumes(pod *v1.Pod, into stateData, pending bool) {
	vols := pl.h.Snapshot().Volumes()
	add := func(driver, handle string) {
		if into[driver] == nil {
			into[driver] = sets.New[string]()
		}
		into[driver].Insert(handle)
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if vol.CSI != nil {
			add(vol.CSI.Driver, pod.Namespace+"/"+pod.Name+"/"+vol.Name)
		}
	}
	for _, key := range framework.PodPVCs(pod) {
		pvc := vols.PVC(key)
		if pvc == nil {
			continue
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
		if pending {
			if class := vols.StorageClass(volumebinding.ClaimClass(pvc)); class != nil {
				add(class.Provisioner, key)
			}
		}
	}
}

// PreFilterExtensions returns nil: Filter counts the node's volumes live.
func (*NodeVolumeLimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter counts, per driver with a limit on the node, the distinct volumes the node's pods
// use and those the pod adds.
func (pl *NodeVolumeLimits) Filter(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, _ := cs.Read(stateKey).(stateData)
	if len(s) == 0 {
		return nil
	}
	csiNode := pl.h.Snapshot().Volumes().CSINode(n.Name)
	if csiNode == nil {
		return nil
	}
	var used stateData
	for _, d := range csiNode.Spec.Drivers {
		want := s[d.Name]
		if len(want) == 0 || d.Allocatable == nil || d.Allocatable.Count == nil {
			continue
		}
		if used == nil {
			used = stateData{}
			for _, q := range n.Pods {
				pl.csiVolumes(q.Pod, used, false)
			}
		}
		if used[d.Name].Union(want).Len() > int(*d.Allocatable.Count) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
		}
	}
	return nil
}

// EventsToRegister: pods leaving free attachments; CSINodes and nodes change limits.
func (*NodeVolumeLimits) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Delete},
		{Resource: framework.CSINode, Action: framework.Add | framework.Update},
		{Resource: framework.Node, Action: framework.Add},
		{Resource: framework.PersistentVolumeClaim, Action: framework.Add | framework.Update},
	}
}
