package framework

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Volumes is the storage state of the snapshot: PersistentVolumes and their claims,
// StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities and VolumeAttachments, with the bindings the scheduler chose in this cycle and not
// yet written (a PV matched to a claim, a claim to be provisioned on a node). Those go
// through Assume* and are undone by the snapshot's Rollback.
type Volumes interface {
	// PVC returns a claim by namespace/name, or nil.
	PVC(key string) *v1.PersistentVolumeClaim
	// PV returns a volume by name, or nil.
	PV(name string) *v1.PersistentVolume
	// PVsOfClass returns the volumes of a StorageClass ("" for none), by name.
	PVsOfClass(class string) []*v1.PersistentVolume
	// StorageClass returns a class by name, or nil.
	StorageClass(name string) *storagev1.StorageClass
	// CSINode returns a node's CSINode, or nil.
	CSINode(node string) *storagev1.CSINode
	// CSIDriver returns a CSI driver's CSIDriver object by driver name, or nil.
	CSIDriver(name string) *storagev1.CSIDriver
	// StorageCapacities returns the CSIStorageCapacity objects of a StorageClass, by
	// namespace/name.
	StorageCapacities(class string) []*storagev1.CSIStorageCapacity
	// AttachedVolumes returns, by VolumeAttachment name, the attachments to a node:
	// each attacher (CSI driver) with the volume it attaches.
	AttachedVolumes(node string) []Attachment
	// PVCUsers counts the pods in the snapshot that use a claim (namespace/name).
	PVCUsers(key string) int
	// AssumedClaimOf returns the claim a volume was matched to in this cycle ("" for none).
	AssumedClaimOf(pv string) string
	// AssumedVolumeOf returns the volume a claim was matched to in this cycle ("" for none).
	AssumedVolumeOf(pvc string) string
	// AssumedNodeOf returns the node a claim is to be provisioned on ("" for none).
	AssumedNodeOf(pvc string) string
	// AssumeBinding matches a volume to a claim; AssumeProvisioning picks the node a claim
	// is provisioned on. ForgetClaim drops either for a claim.
	AssumeBinding(pvc, pv string)
	AssumeProvisioning(pvc, node string)
	ForgetClaim(pvc string)
	// Empty reports that there are no claims: no pod can use a persistent volume.
	Empty() bool
}

// PVCKey is the namespace/name of a claim.
func PVCKey(namespace, name string) string { return namespace + "/" + name }

// PodPVCs returns the keys of the PersistentVolumeClaims a pod's volumes use, including
// the claims of generic ephemeral volumes (named <pod>-<volume>), in volume order.
func PodPVCs(pod *v1.Pod) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		switch {
		case vol.PersistentVolumeClaim != nil:
			out = append(out, PVCKey(pod.Namespace, vol.PersistentVolumeClaim.ClaimName))
		case vol.Ephemeral != nil:
			out = append(out, PVCKey(pod.Namespace, pod.Name+"-"+vol.Name))
		}
	}
	return out
}

// Attachment is one VolumeAttachment to a node: its CSI driver (spec.attacher) and the
// PersistentVolume it attaches ("" for an inline volume, which names none).
type Attachment struct {
	Name     string
	Attacher string
	Volume   string
}
