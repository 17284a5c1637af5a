// Package volumezone is the VolumeZone plugin: a pod's bound volumes carrying zone or
// region labels may only be used from nodes in those zones or regions, as kube-scheduler
// decides. Unbound WaitForFirstConsumer claims are VolumeBinding's.
package volumezone

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/volumebinding"
)

// Name is the plugin's name.
const Name = "VolumeZone"

// ErrReasonConflict is kube-scheduler's reason.
const ErrReasonConflict = "node(s) had no available volume zone"

// topologyLabels are the labels compared, the beta ones mapped to their GA names.
var topologyLabels = []string{v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion, v1.LabelTopologyZone, v1.LabelTopologyRegion}

func gaLabel(l string) string {
	switch l {
	case v1.LabelFailureDomainBetaZone:
		return v1.LabelTopologyZone
	case v1.LabelFailureDomainBetaRegion:
		return v1.LabelTopologyRegion
	}
	return l
}

// VolumeZone is a PreFilter and Filter plugin.
type VolumeZone struct{ h framework.Handle }

var (
	_ framework.PreFilterPlugin   = (*VolumeZone)(nil)
	_ framework.FilterPlugin      = (*VolumeZone)(nil)
	_ framework.EnqueueExtensions = (*VolumeZone)(nil)
)

// New builds the plugin; it takes no arguments.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	if err := framework.DecodeArgs(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return &VolumeZone{h: h}, nil
}

// Name implements framework.Plugin.
func (*VolumeZone) Name() string { return Name }

const stateKey framework.StateKey = Name

// topology is one label a volume requires, with the values it allows ("a__b" lists
// several zones).
type topology struct {
	key    string
	values sets.Set[string]
}

type stateData []topology

func (s stateData) Clone() framework.StateData { return s }

// PreFilter collects the zone and region labels of the pod's bound volumes.
func (pl *VolumeZone) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	keys := framework.PodPVCs(p.Pod)
	if len(keys) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	vols := pl.h.Snapshot().Volumes()
	var s stateData
	for _, key := range keys {
		pvc := vols.PVC(key)
		if pvc == nil {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", key[strings.IndexByte(key, '/')+1:]))
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			pvName = vols.AssumedVolumeOf(key)
		}
		if pvName == "" {
			class := vols.StorageClass(volumebinding.ClaimClass(pvc))
			if class != nil && class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
				continue // VolumeBinding's
			}
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "PersistentVolume had no name")
		}
		pv := vols.PV(pvName)
		if pv == nil {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolume %q not found", pvName))
		}
		for _, l := range topologyLabels {
			if v, ok := pv.Labels[l]; ok {
				s = append(s, topology{key: l, values: sets.New(strings.Split(v, "__")...)})
			}
		}
	}
	if len(s) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(stateKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil.
func (*VolumeZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node outside a volume's zone or region. A node with no topology labels
// at all passes (a single-zone cluster), as in kube-scheduler.
func (pl *VolumeZone) Filter(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, _ := cs.Read(stateKey).(stateData)
	if len(s) == 0 {
		return nil
	}
	labels := n.Node().Labels
	constrained := false
	for _, l := range topologyLabels {
		if _, ok := labels[l]; ok {
			constrained = true
			break
		}
	}
	if !constrained {
		return nil
	}
	for _, t := range s {
		v, ok := labels[t.key]
		if !ok {
			v, ok = labels[gaLabel(t.key)]
		}
		if !ok || !t.values.Has(v) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
		}
	}
	return nil
}

// EventsToRegister: nodes labelled into a zone, volumes bound or relabelled.
func (*VolumeZone) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeLabel},
		{Resource: framework.PersistentVolumeClaim, Action: framework.Add | framework.Update},
		{Resource: framework.PersistentVolume, Action: framework.Add | framework.Update},
		{Resource: framework.StorageClass, Action: framework.Add},
	}
}
