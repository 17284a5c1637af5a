package sim

import (
	"context"
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// objects is the simulator's store of storage and DRA objects: what the API server would
// hold, with resourceVersions so that writes from a stale copy conflict as they would.
type objects struct {
	pvs       map[string]*v1.PersistentVolume
	pvcs      map[string]*v1.PersistentVolumeClaim
	classes   map[string]*storagev1.StorageClass
	claims    map[string]*resourceapi.ResourceClaim
	templates map[string]*resourceapi.ResourceClaimTemplate
	rv        int64
	// names counts generated names per prefix, for generateName.
	names map[string]int
}

func newObjects() objects {
	return objects{
		pvs:       map[string]*v1.PersistentVolume{},
		pvcs:      map[string]*v1.PersistentVolumeClaim{},
		classes:   map[string]*storagev1.StorageClass{},
		claims:    map[string]*resourceapi.ResourceClaim{},
		templates: map[string]*resourceapi.ResourceClaimTemplate{},
		names:     map[string]int{},
	}
}

func (o *objects) nextRV() string { o.rv++; return strconv.FormatInt(o.rv, 10) }

// generateName gives a generated name, deterministic so runs repeat byte for byte.
func (o *objects) generateName(prefix string) string {
	o.names[prefix]++
	return fmt.Sprintf("%s%05d", prefix, o.names[prefix])
}

// planResources puts the storage and DRA objects on the timeline. Classes, slices and
// templates come first at any time, then volumes, then claims.
func (s *Simulator) planResources() {
	r := &s.sc.Resources
	for _, c := range r.StorageClasses {
		s.plan1(&c.ObjectMeta, func() { s.objs.classes[c.Name] = c; s.sched.Resources().UpdateStorageClass(nil, c) },
			func() { delete(s.objs.classes, c.Name); s.sched.Resources().DeleteStorageClass(c) })
	}
	for _, n := range r.CSINodes {
		s.plan1(&n.ObjectMeta, func() { s.sched.Resources().UpdateCSINode(nil, n) }, func() { s.sched.Resources().DeleteCSINode(n) })
	}
	for _, dc := range r.DeviceClasses {
		s.plan1(&dc.ObjectMeta, func() { s.sched.Resources().UpdateDeviceClass(nil, dc) }, func() { s.sched.Resources().DeleteDeviceClass(dc) })
	}
	for _, sl := range r.Slices {
		s.plan1(&sl.ObjectMeta, func() { s.slices[sl.Name] = sl; s.sched.Resources().UpdateResourceSlice(nil, sl) },
			func() { delete(s.slices, sl.Name); s.sched.Resources().DeleteResourceSlice(sl) })
	}
	for _, t := range r.Templates {
		s.plan1(&t.ObjectMeta, func() { s.objs.templates[t.Namespace+"/"+t.Name] = t; s.templateAppeared() },
			func() { delete(s.objs.templates, t.Namespace+"/"+t.Name) })
	}
	for _, pv := range r.PVs {
		s.plan1(&pv.ObjectMeta, func() { s.putPV(nil, pv.DeepCopy()); s.volumeAppeared() }, func() { s.deletePV(pv.Name) })
	}
	for _, pvc := range r.PVCs {
		s.plan1(&pvc.ObjectMeta, func() { s.createPVC(pvc.DeepCopy()) }, func() { s.deletePVC(pvc.Namespace + "/" + pvc.Name) })
	}
	for _, c := range r.Claims {
		s.plan1(&c.ObjectMeta, func() { s.putClaim(nil, c.DeepCopy()) }, func() { s.deleteClaim(c.Namespace + "/" + c.Name) })
	}
}

// plan1 schedules an object's creation and, if it has one, its deletion.
func (s *Simulator) plan1(meta *metav1.ObjectMeta, create, del func()) {
	t, _ := parseTiming(meta)
	s.at(Epoch.Add(t.createAt), create)
	if t.hasDelete {
		s.at(Epoch.Add(t.deleteAt), del)
	}
}

// The simulator is the scheduler's framework.ResourceClient: reads and writes of claims,
// templates, volumes and their claims, with the controllers that react to them.

var _ framework.ResourceClient = (*Simulator)(nil)

func notFound(resource, name string) error {
	return apierrors.NewNotFound(resourceapi.Resource(resource), name)
}

func conflict(resource, name string) error {
	return apierrors.NewConflict(resourceapi.Resource(resource), name, errModified)
}

// GetResourceClaim implements framework.ResourceClient.
func (s *Simulator) GetResourceClaim(_ context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	if c := s.objs.claims[ns+"/"+name]; c != nil {
		return c, nil
	}
	return nil, notFound("resourceclaims", name)
}

// CreateResourceClaim implements framework.ResourceClient.
func (s *Simulator) CreateResourceClaim(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	c = c.DeepCopy()
	if c.Name == "" {
		c.Name = s.objs.generateName(c.GenerateName)
	}
	if s.objs.claims[c.Namespace+"/"+c.Name] != nil {
		return nil, apierrors.NewAlreadyExists(resourceapi.Resource("resourceclaims"), c.Name)
	}
	c.UID = types.UID("sim-" + c.Namespace + "-" + c.Name)
	s.putClaim(nil, c)
	return c, nil
}

// UpdateResourceClaim implements framework.ResourceClient: metadata and spec.
func (s *Simulator) UpdateResourceClaim(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	cur, err := s.claimForWrite(c)
	if err != nil {
		return nil, err
	}
	next := cur.DeepCopy()
	next.ObjectMeta = *c.ObjectMeta.DeepCopy()
	next.Spec = *c.Spec.DeepCopy()
	s.putClaim(cur, next)
	return next, nil
}

// UpdateResourceClaimStatus implements framework.ResourceClient.
func (s *Simulator) UpdateResourceClaimStatus(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	cur, err := s.claimForWrite(c)
	if err != nil {
		return nil, err
	}
	next := cur.DeepCopy()
	next.Status = *c.Status.DeepCopy()
	if next.Status.Allocation != nil && cur.Status.Allocation == nil {
		if msg := s.devicesTaken(next); msg != "" {
			s.violate("claim %s allocated devices already in use: %s", c.Namespace+"/"+c.Name, msg)
		}
	}
	s.putClaim(cur, next)
	return next, nil
}

func (s *Simulator) claimForWrite(c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	cur := s.objs.claims[c.Namespace+"/"+c.Name]
	switch {
	case cur == nil:
		return nil, notFound("resourceclaims", c.Name)
	case c.ResourceVersion != cur.ResourceVersion:
		return nil, conflict("resourceclaims", c.Name)
	}
	return cur, nil
}

// GetResourceClaimTemplate implements framework.ResourceClient.
func (s *Simulator) GetResourceClaimTemplate(_ context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
	if t := s.objs.templates[ns+"/"+name]; t != nil {
		return t, nil
	}
	return nil, notFound("resourceclaimtemplates", name)
}

// PatchPodExtendedResourceClaimStatus implements framework.ResourceClient.
func (s *Simulator) PatchPodExtendedResourceClaimStatus(_ context.Context, pod *v1.Pod, st *v1.PodExtendedResourceClaimStatus) error {
	return s.patchPodStatus(pod, func(ps *v1.PodStatus) { ps.ExtendedResourceClaimStatus = st.DeepCopy() })
}

// putClaim stores a claim (old nil for a new one) and tells the scheduler.
func (s *Simulator) putClaim(old, c *resourceapi.ResourceClaim) {
	c.ResourceVersion = s.objs.nextRV()
	s.objs.claims[c.Namespace+"/"+c.Name] = c
	s.sched.Resources().UpdateResourceClaim(old, c)
}

func (s *Simulator) deleteClaim(key string) {
	if c := s.objs.claims[key]; c != nil {
		delete(s.objs.claims, key)
		s.sched.Resources().DeleteResourceClaim(c)
	}
}
