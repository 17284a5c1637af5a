package snapshot

import (
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// Snapshot is what the scheduler sees of a cluster, stripped, each kind in a fixed order:
// by namespace and name, pods by creation (the order their scheduler met them in) then
// namespace and name.
type Snapshot struct {
	Namespaces      []*v1.Namespace
	PriorityClasses []*schedulingv1.PriorityClass
	Nodes           []*v1.Node
	StorageClasses  []*storagev1.StorageClass
	CSINodes        []*storagev1.CSINode
	CSIDrivers      []*storagev1.CSIDriver
	// StorageCapacities are the CSIStorageCapacity objects; VolumeAttachments those that
	// attach a PersistentVolume (the only ones the scheduler counts).
	StorageCapacities []*storagev1.CSIStorageCapacity
	VolumeAttachments []*storagev1.VolumeAttachment
	PVs               []*v1.PersistentVolume
	PVCs              []*v1.PersistentVolumeClaim
	DeviceClasses     []*resourceapi.DeviceClass
	ResourceSlices    []*resourceapi.ResourceSlice
	// TaintRules are the DeviceTaintRules, whose taints the scheduler adds to the devices
	// they select.
	TaintRules     []*resourceapi.DeviceTaintRule
	ClaimTemplates []*resourceapi.ResourceClaimTemplate
	Claims         []*resourceapi.ResourceClaim
	Composites     []*v1alpha1.CompositePodGroup
	PodGroups      []*v1alpha1.PodGroup
	// NativeWorkloads and NativePodGroups are Kubernetes' own scheduling.k8s.io kinds, in
	// the version the cluster serves; NativeComposites its v1alpha3 CompositePodGroups.
	NativeWorkloads  []runtime.Object
	NativeComposites []runtime.Object
	NativePodGroups  []runtime.Object
	PDBs             []*policyv1.PodDisruptionBudget
	Pods             []*v1.Pod
	// QueuedJobs are the suspended Jobs not finished: a queue such as Kueue holds a Job
	// suspended until it admits it, and it has no pods yet. The simulator makes no pods
	// for them; `phalanx whatif --admit` asks what one would do if admitted now.
	QueuedJobs []*batchv1.Job
	// Notes say what was left out and why (an API the cluster does not serve, pods of
	// nodes that are gone).
	Notes []string
}

// Objects are the snapshot's objects in the order they are written: what others refer to
// before what refers to it.
func (s *Snapshot) Objects() []runtime.Object {
	var out []runtime.Object
	out = appendAll(out, s.Namespaces)
	out = appendAll(out, s.PriorityClasses)
	out = appendAll(out, s.Nodes)
	out = appendAll(out, s.StorageClasses)
	out = appendAll(out, s.CSINodes)
	out = appendAll(out, s.CSIDrivers)
	out = appendAll(out, s.StorageCapacities)
	out = appendAll(out, s.PVs)
	out = appendAll(out, s.PVCs)
	out = appendAll(out, s.VolumeAttachments)
	out = appendAll(out, s.DeviceClasses)
	out = appendAll(out, s.ResourceSlices)
	out = appendAll(out, s.TaintRules)
	out = appendAll(out, s.ClaimTemplates)
	out = appendAll(out, s.Claims)
	out = appendAll(out, s.Composites)
	out = appendAll(out, s.PodGroups)
	out = append(out, s.NativeWorkloads...)
	out = append(out, s.NativeComposites...)
	out = append(out, s.NativePodGroups...)
	out = appendAll(out, s.PDBs)
	out = appendAll(out, s.Pods)
	return appendAll(out, s.QueuedJobs)
}

func appendAll[T runtime.Object](out []runtime.Object, objs []T) []runtime.Object {
	for _, o := range objs {
		out = append(out, o)
	}
	return out
}
