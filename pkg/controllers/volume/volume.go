// Package volume models the PersistentVolume controller and a provisioner, as
// kube-controller-manager and a CSI external-provisioner run them, and the ephemeral volume
// controller: a claim with Immediate binding is bound to the smallest matching volume (or
// provisioned) at once; a WaitForFirstConsumer claim waits for the scheduler, which either
// points a volume at it (the controller then completes the binding) or names the node to
// provision on (the provisioner then makes a volume reachable from that node: its zone when
// the node has one, else the node itself). The ephemeral volume controller makes the claims
// of a pod's generic ephemeral volumes.
//
// It is pure: it reads and writes objects through API, which the simulator's in-memory
// API server implements.
package volume

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/storage/ephemeral"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// API is what the controllers read and write: volumes, their claims, StorageClasses and
// nodes, as the API server holds them.
type API interface {
	PersistentVolume(name string) *v1.PersistentVolume
	// PersistentVolumes are every volume, ordered by name.
	PersistentVolumes() []*v1.PersistentVolume
	PersistentVolumeClaim(key string) *v1.PersistentVolumeClaim
	// PersistentVolumeClaimKeys are every claim's namespace/name, sorted.
	PersistentVolumeClaimKeys() []string
	StorageClass(name string) *storagev1.StorageClass
	Node(name string) *v1.Node
	// PutPersistentVolume and PutPersistentVolumeClaim store an object (old is nil for a
	// new one); the API server gives it its resourceVersion.
	PutPersistentVolume(old, pv *v1.PersistentVolume)
	PutPersistentVolumeClaim(old, pvc *v1.PersistentVolumeClaim)
}

// ProvisionedZoneLabel is the node label a provisioned volume's reach follows.
const ProvisionedZoneLabel = "topology.kubernetes.io/zone"

// Controller is the PersistentVolume controller with a provisioner.
type Controller struct {
	api API
}

// New is a controller working through api.
func New(api API) *Controller { return &Controller{api: api} }

// CreateClaim stores a new claim (with a UID if it has none) and acts on it.
func (c *Controller) CreateClaim(pvc *v1.PersistentVolumeClaim) {
	if pvc.UID == "" {
		pvc.UID = types.UID("sim-" + pvc.Namespace + "-" + pvc.Name)
	}
	c.api.PutPersistentVolumeClaim(nil, pvc)
	c.SyncClaim(pvc.Namespace + "/" + pvc.Name)
}

// SyncClaim is the controller's reaction to a claim: bind it when it can.
func (c *Controller) SyncClaim(key string) {
	pvc := c.api.PersistentVolumeClaim(key)
	// A claim is bound once the controller has completed the binding (its annotation);
	// one that names its volume without it (pre-bound, or written bound by hand) is
	// completed here, as kube-controller-manager's controller does.
	if pvc == nil || pvc.Spec.VolumeName != "" && pvc.Status.Phase == v1.ClaimBound &&
		metav1.HasAnnotation(pvc.ObjectMeta, volumehelpers.AnnBindCompleted) {
		return
	}
	if pvc.Spec.VolumeName != "" {
		if pv := c.api.PersistentVolume(pvc.Spec.VolumeName); pv != nil {
			c.bind(pv, pvc)
		}
		return
	}
	class := c.api.StorageClass(volumehelpers.GetPersistentVolumeClaimClass(pvc))
	delayed := class != nil && class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	pv, err := volumehelpers.FindMatchingVolume(pvc, c.api.PersistentVolumes(), nil, nil, delayed, false)
	switch {
	case err != nil:
		return
	case pv != nil:
		c.bind(pv, pvc)
	case class == nil || class.Provisioner == volumehelpers.NotSupportedProvisioner:
		// Nothing to provision with: the claim stays pending until a volume appears.
	case !delayed:
		c.provision(pvc, class, nil)
	default:
		if node := pvc.Annotations[volumehelpers.AnnSelectedNode]; node != "" {
			c.provision(pvc, class, c.api.Node(node))
		}
	}
}

// VolumeAppeared binds the pending claims a new volume may serve.
func (c *Controller) VolumeAppeared() {
	for _, k := range c.api.PersistentVolumeClaimKeys() {
		c.SyncClaim(k)
	}
}

// VolumePointedAtClaim completes a binding the scheduler started by pointing a volume at
// a claim that names no volume yet.
func (c *Controller) VolumePointedAtClaim(pv *v1.PersistentVolume) {
	if ref := pv.Spec.ClaimRef; ref != nil {
		if pvc := c.api.PersistentVolumeClaim(ref.Namespace + "/" + ref.Name); pvc != nil && pvc.Spec.VolumeName == "" {
			c.bind(pv, pvc)
		}
	}
}

// provision makes a volume for a claim, reachable from the node's zone (or the node) when
// the scheduler chose one, and binds them.
func (c *Controller) provision(pvc *v1.PersistentVolumeClaim, class *storagev1.StorageClass, node *v1.Node) {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "pvc-" + string(pvc.UID),
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": class.Provisioner},
		},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: pvc.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			StorageClassName:              class.Name,
			VolumeMode:                    pvc.Spec.VolumeMode,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	if node != nil {
		key, value := v1.LabelHostname, node.Name
		if z, ok := node.Labels[ProvisionedZoneLabel]; ok {
			key, value = ProvisionedZoneLabel, z
		} else if h, ok := node.Labels[v1.LabelHostname]; ok {
			value = h
		}
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}},
		}}}}
	}
	if c.api.PersistentVolume(pv.Name) != nil {
		return
	}
	c.bind(pv, pvc)
}

// bind completes a binding: the volume points at the claim, the claim at the volume, both
// Bound.
func (c *Controller) bind(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) {
	old := c.api.PersistentVolume(pv.Name)
	bound, _, err := volumehelpers.GetBindVolumeToClaim(pv, pvc)
	if err != nil {
		return
	}
	bound.Status.Phase = v1.VolumeBound
	c.api.PutPersistentVolume(old, bound)
	oldPVC := c.api.PersistentVolumeClaim(pvc.Namespace + "/" + pvc.Name)
	next := oldPVC.DeepCopy()
	next.Spec.VolumeName = pv.Name
	metav1.SetMetaDataAnnotation(&next.ObjectMeta, volumehelpers.AnnBindCompleted, "yes")
	next.Status.Phase = v1.ClaimBound
	next.Status.AccessModes = pv.Spec.AccessModes
	next.Status.Capacity = pv.Spec.Capacity
	c.api.PutPersistentVolumeClaim(oldPVC, next)
}

// CreateEphemeralClaims is the ephemeral volume controller: a claim for each generic
// ephemeral volume of a new pod, owned by the pod.
func (c *Controller) CreateEphemeralClaims(p *v1.Pod) {
	for i := range p.Spec.Volumes {
		vol := &p.Spec.Volumes[i]
		if vol.Ephemeral == nil || vol.Ephemeral.VolumeClaimTemplate == nil {
			continue
		}
		name := ephemeral.VolumeClaimName(p, vol)
		if c.api.PersistentVolumeClaim(p.Namespace+"/"+name) != nil {
			continue
		}
		t := vol.Ephemeral.VolumeClaimTemplate
		yes := true
		pvc := &v1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: p.Namespace, Labels: t.Labels, Annotations: t.Annotations,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: &yes}},
			},
			Spec:   *t.Spec.DeepCopy(),
			Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
		}
		c.CreateClaim(pvc)
	}
}
