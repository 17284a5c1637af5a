package volumebinding

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// The volume matching of k8s.io/component-helpers/storage/volume, which the PV controller
// and kube-scheduler share. That package imports client-go (listers, the scheme), so the
// scheduling core, which must not, keeps this port of the functions it needs; a test
// checks it against the library on the same inputs.

// Annotations of the binding protocol between the scheduler and the PV controller.
const (
	annSelectedNode       = "volume.kubernetes.io/selected-node"
	annBindCompleted      = "pv.kubernetes.io/bind-completed"
	annBoundByController  = "pv.kubernetes.io/bound-by-controller"
	annBetaStorageClass   = "volume.beta.kubernetes.io/storage-class"
	notSupportedProvision = "kubernetes.io/no-provisioner"
)

// ClaimClass is the claim's StorageClass name: the beta annotation, else the field.
func ClaimClass(pvc *v1.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations[annBetaStorageClass]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

// volumeClass is the volume's StorageClass name: the beta annotation, else the field.
func volumeClass(pv *v1.PersistentVolume) string {
	if c, ok := pv.Annotations[annBetaStorageClass]; ok {
		return c
	}
	return pv.Spec.StorageClassName
}

// NodeAffinityMatches reports whether a volume's required node affinity admits a node.
func NodeAffinityMatches(pv *v1.PersistentVolume, node *v1.Node) bool {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return true
	}
	ok, err := corev1helpers.MatchNodeSelectorTerms(&v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: node.Labels}}, pv.Spec.NodeAffinity.Required)
	return err == nil && ok
}

// boundToClaim reports whether a volume is bound, or pre-bound, to the claim.
func boundToClaim(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) bool {
	r := pv.Spec.ClaimRef
	return r != nil && r.Name == pvc.Name && r.Namespace == pvc.Namespace && (r.UID == "" || r.UID == pvc.UID)
}

// findMatchingVolume is FindMatchingVolume on the scheduler's path (a node given, no
// delayed binding, no VolumeAttributesClass): a volume pre-bound to the claim when it fits
// the node, else the smallest available volume of the claim's class and volume mode, large
// enough, with the claim's access modes and labels, whose node affinity admits the node.
// excluded names volumes already taken in this cycle.
func findMatchingVolume(pvc *v1.PersistentVolumeClaim, pvs []*v1.PersistentVolume, node *v1.Node, excluded func(string) bool) *v1.PersistentVolume {
	requested := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	class := ClaimClass(pvc)
	var selector labels.Selector
	if pvc.Spec.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(pvc.Spec.Selector)
		if err != nil {
			return nil
		}
		selector = sel
	}
	var best *v1.PersistentVolume
	for _, pv := range pvs {
		if excluded(pv.Name) || pv.Spec.ClaimRef != nil && !boundToClaim(pv, pvc) {
			continue
		}
		size := pv.Spec.Capacity[v1.ResourceStorage]
		if size.Cmp(requested) < 0 || modeMismatch(pvc, pv) || pv.DeletionTimestamp != nil ||
			pv.Spec.VolumeAttributesClassName != nil && *pv.Spec.VolumeAttributesClassName != "" {
			continue
		}
		fits := NodeAffinityMatches(pv, node)
		if boundToClaim(pv, pvc) {
			if !fits {
				return nil
			}
			return pv
		}
		if pv.Status.Phase != v1.VolumeAvailable || selector != nil && !selector.Matches(labels.Set(pv.Labels)) ||
			volumeClass(pv) != class || !fits || !accessModesMatch(pvc, pv) {
			continue
		}
		if best == nil {
			best = pv
		} else if bs := best.Spec.Capacity[v1.ResourceStorage]; bs.Cmp(size) > 0 {
			best = pv
		}
	}
	return best
}

func modeMismatch(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) bool {
	want, have := v1.PersistentVolumeFilesystem, v1.PersistentVolumeFilesystem
	if pvc.Spec.VolumeMode != nil {
		want = *pvc.Spec.VolumeMode
	}
	if pv.Spec.VolumeMode != nil {
		have = *pv.Spec.VolumeMode
	}
	return want != have
}

func accessModesMatch(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) bool {
	for _, m := range pvc.Spec.AccessModes {
		found := false
		for _, h := range pv.Spec.AccessModes {
			if h == m {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
