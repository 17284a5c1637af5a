// Package volumerestrictions is the VolumeRestrictions plugin, with kube-scheduler's
// rules: a ReadWriteOncePod claim is used by one pod in the whole cluster, and two pods on
// one node may not mount the same GCE PD, AWS EBS volume, RBD image or iSCSI LUN unless
// both do so read-only (where the volume type allows it).
package volumerestrictions

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "VolumeRestrictions"

// kube-scheduler's reasons.
const (
	ErrReasonDiskConflict             = "node(s) had no available disk"
	ErrReasonReadWriteOncePodConflict = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

// claimNotFound is the API server's NotFound message for a claim, which kube-scheduler
// reports as it is.
func claimNotFound(name string) string {
	return fmt.Sprintf("persistentvolumeclaim %q not found", name)
}

// VolumeRestrictions is a PreFilter and Filter plugin.
type VolumeRestrictions struct{ h framework.Handle }

var (
	_ framework.PreFilterPlugin   = (*VolumeRestrictions)(nil)
	_ framework.FilterPlugin      = (*VolumeRestrictions)(nil)
	_ framework.EnqueueExtensions = (*VolumeRestrictions)(nil)
)

// New builds the plugin; it takes no arguments.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	if err := framework.DecodeArgs(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return &VolumeRestrictions{h: h}, nil
}

// Name implements framework.Plugin.
func (*VolumeRestrictions) Name() string { return Name }

const stateKey framework.StateKey = Name

type stateData struct {
	// rwop are the pod's ReadWriteOncePod claims.
	rwop []string
	// disks are the pod's volumes that conflict with other pods' on the same node.
	disks []*v1.Volume
}

func (s *stateData) Clone() framework.StateData { return s }

// PreFilter finds the pod's ReadWriteOncePod claims and conflict-prone inline volumes. A
// claim that does not exist rejects the pod here, as in kube-scheduler, whose
// VolumeRestrictions looks every claim up first (so its message is the one a pod with a
// missing claim shows).
func (pl *VolumeRestrictions) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	s := &stateData{}
	vols := pl.h.Snapshot().Volumes()
	for i := range p.Pod.Spec.Volumes {
		vol := &p.Pod.Spec.Volumes[i]
		switch {
		case vol.PersistentVolumeClaim != nil:
			key := framework.PVCKey(p.Pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
			pvc := vols.PVC(key)
			if pvc == nil {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, claimNotFound(vol.PersistentVolumeClaim.ClaimName))
			}
			if hasMode(pvc, v1.ReadWriteOncePod) {
				s.rwop = append(s.rwop, key)
			}
		case vol.GCEPersistentDisk != nil || vol.AWSElasticBlockStore != nil || vol.RBD != nil || vol.ISCSI != nil:
			s.disks = append(s.disks, vol)
		}
	}
	if len(s.rwop) == 0 && len(s.disks) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	cs.Write(stateKey, s)
	return nil, nil
}

func hasMode(pvc *v1.PersistentVolumeClaim, m v1.PersistentVolumeAccessMode) bool {
	for _, am := range pvc.Spec.AccessModes {
		if am == m {
			return true
		}
	}
	return false
}

// PreFilterExtensions returns nil: Filter reads who uses a claim live from the snapshot,
// so it sees pods a simulation removes (preempting the pod that holds a ReadWriteOncePod
// claim frees it).
func (*VolumeRestrictions) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects every node while another pod uses one of the pod's ReadWriteOncePod
// claims, and a node whose pods mount one of the pod's disks in a conflicting way.
func (pl *VolumeRestrictions) Filter(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil {
		return nil
	}
	// The disks first, as kube-scheduler checks them: a pod with both conflicts is told
	// about its disk.
	for _, vol := range s.disks {
		for _, q := range n.Pods {
			for i := range q.Pod.Spec.Volumes {
				if conflicts(vol, &q.Pod.Spec.Volumes[i]) {
					return framework.NewStatus(framework.Unschedulable, ErrReasonDiskConflict)
				}
			}
		}
	}
	vols := pl.h.Snapshot().Volumes()
	for _, key := range s.rwop {
		if vols.PVCUsers(key) > 0 {
			return framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
		}
	}
	return nil
}

// conflicts is kube-scheduler's isVolumeConflict: the same disk mounted twice, unless
// both mounts are read-only (GCE PD, RBD, iSCSI; never for EBS).
func conflicts(a, b *v1.Volume) bool {
	switch {
	case a.GCEPersistentDisk != nil && b.GCEPersistentDisk != nil:
		x, y := a.GCEPersistentDisk, b.GCEPersistentDisk
		return x.PDName == y.PDName && !(x.ReadOnly && y.ReadOnly)
	case a.AWSElasticBlockStore != nil && b.AWSElasticBlockStore != nil:
		return a.AWSElasticBlockStore.VolumeID == b.AWSElasticBlockStore.VolumeID
	case a.ISCSI != nil && b.ISCSI != nil:
		x, y := a.ISCSI, b.ISCSI
		return x.IQN == y.IQN && x.Lun == y.Lun && !(x.ReadOnly && y.ReadOnly)
	case a.RBD != nil && b.RBD != nil:
		x, y := a.RBD, b.RBD
		return shareMonitor(x.CephMonitors, y.CephMonitors) && x.RBDPool == y.RBDPool && x.RBDImage == y.RBDImage && !(x.ReadOnly && y.ReadOnly)
	}
	return false
}

func shareMonitor(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// EventsToRegister: pods leaving free disks and claims.
func (*VolumeRestrictions) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Delete},
		{Resource: framework.Node, Action: framework.Add},
		{Resource: framework.PersistentVolumeClaim, Action: framework.Add | framework.Update},
	}
}
