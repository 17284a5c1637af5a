package sim

import (
	"context"
	"errors"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/storage/ephemeral"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// The PersistentVolume controller and a provisioner, as kube-controller-manager and a CSI
// external-provisioner would run them: a claim with Immediate binding is bound to the
// smallest matching volume (or provisioned) at once; a WaitForFirstConsumer claim waits
// for the scheduler, which either points a volume at it (the controller then completes
// the binding) or names the node to provision on (the provisioner then makes a volume
// reachable from that node: its zone when the node has one, else the node itself). The
// ephemeral volume controller makes the claims of a pod's generic ephemeral volumes.

var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

// provisionedZoneLabel is the node label a provisioned volume's reach follows.
const provisionedZoneLabel = "topology.kubernetes.io/zone"

// putPV stores a volume (old nil for a new one) and tells the scheduler.
func (s *Simulator) putPV(old, pv *v1.PersistentVolume) {
	pv.ResourceVersion = s.objs.nextRV()
	s.objs.pvs[pv.Name] = pv
	s.sched.Resources().UpdatePV(old, pv)
}

func (s *Simulator) deletePV(name string) {
	if pv := s.objs.pvs[name]; pv != nil {
		delete(s.objs.pvs, name)
		s.sched.Resources().DeletePV(pv)
	}
}

func (s *Simulator) putPVC(old, pvc *v1.PersistentVolumeClaim) {
	pvc.ResourceVersion = s.objs.nextRV()
	s.objs.pvcs[pvc.Namespace+"/"+pvc.Name] = pvc
	s.sched.Resources().UpdatePVC(old, pvc)
}

// createPVC adds a claim and lets the controller act on it.
func (s *Simulator) createPVC(pvc *v1.PersistentVolumeClaim) {
	if pvc.UID == "" {
		pvc.UID = types.UID("sim-" + pvc.Namespace + "-" + pvc.Name)
	}
	s.putPVC(nil, pvc)
	s.syncClaim(pvc.Namespace + "/" + pvc.Name)
}

func (s *Simulator) deletePVC(key string) {
	if pvc := s.objs.pvcs[key]; pvc != nil {
		delete(s.objs.pvcs, key)
		s.sched.Resources().DeletePVC(pvc)
	}
}

// syncClaim is the controller's reaction to a claim: bind it when it can.
func (s *Simulator) syncClaim(key string) {
	pvc := s.objs.pvcs[key]
	if pvc == nil || pvc.Spec.VolumeName != "" && pvc.Status.Phase == v1.ClaimBound {
		return
	}
	if pvc.Spec.VolumeName != "" {
		if pv := s.objs.pvs[pvc.Spec.VolumeName]; pv != nil {
			s.bindVolume(pv, pvc)
		}
		return
	}
	class := s.objs.classes[volumehelpers.GetPersistentVolumeClaimClass(pvc)]
	delayed := class != nil && class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	pvs := make([]*v1.PersistentVolume, 0, len(s.objs.pvs))
	for _, k := range sortedKeys(s.objs.pvs) {
		pvs = append(pvs, s.objs.pvs[k])
	}
	pv, err := volumehelpers.FindMatchingVolume(pvc, pvs, nil, nil, delayed, false)
	switch {
	case err != nil:
		return
	case pv != nil:
		s.bindVolume(pv, pvc)
	case class == nil || class.Provisioner == volumehelpers.NotSupportedProvisioner:
		// Nothing to provision with: the claim stays pending until a volume appears.
	case !delayed:
		s.provision(pvc, class, nil)
	default:
		if node := pvc.Annotations[volumehelpers.AnnSelectedNode]; node != "" {
			s.provision(pvc, class, s.nodes[node])
		}
	}
}

// volumeAppeared binds the pending claims a new volume may serve.
func (s *Simulator) volumeAppeared() {
	for _, k := range sortedKeys(s.objs.pvcs) {
		s.syncClaim(k)
	}
}

// provision makes a volume for a claim, reachable from the node's zone (or the node) when
// the scheduler chose one, and binds them.
func (s *Simulator) provision(pvc *v1.PersistentVolumeClaim, class *storagev1.StorageClass, node *v1.Node) {
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
		if z, ok := node.Labels[provisionedZoneLabel]; ok {
			key, value = provisionedZoneLabel, z
		} else if h, ok := node.Labels[v1.LabelHostname]; ok {
			value = h
		}
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}},
		}}}}
	}
	if s.objs.pvs[pv.Name] != nil {
		return
	}
	s.bindVolume(pv, pvc)
}

// bindVolume completes a binding: the volume points at the claim, the claim at the volume,
// both Bound.
func (s *Simulator) bindVolume(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) {
	old := s.objs.pvs[pv.Name]
	bound, _, err := volumehelpers.GetBindVolumeToClaim(pv, pvc)
	if err != nil {
		return
	}
	bound.Status.Phase = v1.VolumeBound
	s.putPV(old, bound)
	oldPVC := s.objs.pvcs[pvc.Namespace+"/"+pvc.Name]
	next := oldPVC.DeepCopy()
	next.Spec.VolumeName = pv.Name
	metav1.SetMetaDataAnnotation(&next.ObjectMeta, volumehelpers.AnnBindCompleted, "yes")
	next.Status.Phase = v1.ClaimBound
	next.Status.AccessModes = pv.Spec.AccessModes
	next.Status.Capacity = pv.Spec.Capacity
	s.putPVC(oldPVC, next)
}

// createEphemeralClaims is the ephemeral volume controller: a claim for each generic
// ephemeral volume of a new pod, owned by the pod.
func (s *Simulator) createEphemeralClaims(p *v1.Pod) {
	for i := range p.Spec.Volumes {
		vol := &p.Spec.Volumes[i]
		if vol.Ephemeral == nil || vol.Ephemeral.VolumeClaimTemplate == nil {
			continue
		}
		name := ephemeral.VolumeClaimName(p, vol)
		if s.objs.pvcs[p.Namespace+"/"+name] != nil {
			continue
		}
		t := vol.Ephemeral.VolumeClaimTemplate
		pvc := &v1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: p.Namespace, Labels: t.Labels, Annotations: t.Annotations,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptrTo(true)}},
			},
			Spec:   *t.Spec.DeepCopy(),
			Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
		}
		s.createPVC(pvc)
	}
}

// GetPersistentVolume implements framework.ResourceClient.
func (s *Simulator) GetPersistentVolume(_ context.Context, name string) (*v1.PersistentVolume, error) {
	if pv := s.objs.pvs[name]; pv != nil {
		return pv, nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), name)
}

// UpdatePersistentVolume implements framework.ResourceClient: the scheduler points a volume
// at a claim, and the controller completes the binding.
func (s *Simulator) UpdatePersistentVolume(_ context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	cur := s.objs.pvs[pv.Name]
	switch {
	case cur == nil:
		return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), pv.Name)
	case cur.ResourceVersion != pv.ResourceVersion:
		return nil, apierrors.NewConflict(v1.Resource("persistentvolumes"), pv.Name, errModified)
	}
	next := pv.DeepCopy()
	s.putPV(cur, next)
	if ref := next.Spec.ClaimRef; ref != nil {
		if pvc := s.objs.pvcs[ref.Namespace+"/"+ref.Name]; pvc != nil && pvc.Spec.VolumeName == "" {
			s.bindVolume(next, pvc)
		}
	}
	return s.objs.pvs[pv.Name], nil
}

// GetPersistentVolumeClaim implements framework.ResourceClient.
func (s *Simulator) GetPersistentVolumeClaim(_ context.Context, ns, name string) (*v1.PersistentVolumeClaim, error) {
	if pvc := s.objs.pvcs[ns+"/"+name]; pvc != nil {
		return pvc, nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), name)
}

// UpdatePersistentVolumeClaim implements framework.ResourceClient: the scheduler names the
// node to provision on, and the provisioner acts.
func (s *Simulator) UpdatePersistentVolumeClaim(_ context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	k := pvc.Namespace + "/" + pvc.Name
	cur := s.objs.pvcs[k]
	switch {
	case cur == nil:
		return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), pvc.Name)
	case cur.ResourceVersion != pvc.ResourceVersion:
		return nil, apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), pvc.Name, errModified)
	}
	s.putPVC(cur, pvc.DeepCopy())
	s.syncClaim(k)
	return s.objs.pvcs[k], nil
}

// boundVolumes lists "claim=volume" for the claims a pod uses, for the report.
func (s *Simulator) boundVolumes(p *v1.Pod) []string {
	var out []string
	for i := range p.Spec.Volumes {
		vol := &p.Spec.Volumes[i]
		name := ""
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(p, vol)
		default:
			continue
		}
		if pvc := s.objs.pvcs[p.Namespace+"/"+name]; pvc != nil && pvc.Spec.VolumeName != "" {
			out = append(out, name+"="+pvc.Spec.VolumeName)
		}
	}
	return slices.Clip(out)
}
