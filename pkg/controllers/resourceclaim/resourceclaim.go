// Package resourceclaim models the ResourceClaim controller, as kube-controller-manager
// runs it: it makes a claim from each of a pod's templates when the pod is created
// (recording the claim's name in the pod's status), and when a pod is gone it drops the pod
// from its claims' reservations, deallocates a claim nobody uses any more, and deletes the
// claims made for the pod. With it, the garbage collector's part for claims: the claims an
// object owned go with it.
//
// It is pure: it reads and writes objects through API, which the simulator's in-memory
// API server implements.
package resourceclaim

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// API is what the controller reads and writes, as the API server holds it.
type API interface {
	// PodGroup is phalanx's PodGroup of that namespace/name (a group's claims are its own).
	PodGroup(key string) *v1alpha1.PodGroup
	ResourceClaimTemplate(key string) *resourceapi.ResourceClaimTemplate
	ResourceClaim(key string) *resourceapi.ResourceClaim
	// ResourceClaimKeys are every claim's namespace/name, sorted.
	ResourceClaimKeys() []string
	// GenerateName completes a generateName prefix, as the API server does on create.
	GenerateName(prefix string) string
	// PutResourceClaim stores a claim (old is nil for a new one).
	PutResourceClaim(old, c *resourceapi.ResourceClaim)
	DeleteResourceClaim(key string)
}

// Controller is the ResourceClaim controller.
type Controller struct {
	api API
}

// New is a controller working through api.
func New(api API) *Controller { return &Controller{api: api} }

// CreatePodClaims makes the claims of a pod's templates that exist and that its group does
// not share, and names them in the pod's status (p is changed in place: the caller gives a
// copy of a pod the scheduler knows). It reports whether it made any; a claim whose
// template does not exist yet is made when it appears.
func (c *Controller) CreatePodClaims(p *v1.Pod) bool {
	if len(p.Spec.ResourceClaims) == 0 {
		return false
	}
	var g *v1alpha1.PodGroup
	if name := v1alpha1.PodGroupNameOf(p); name != "" {
		g = c.api.PodGroup(p.Namespace + "/" + name)
	}
	made := false
	yes := true
	for _, pc := range framework.ResolvePodClaims(p, g) {
		e := pc.Entry
		if pc.Group != nil || e.ResourceClaimTemplateName == nil || pc.Err == nil {
			continue // a group claim, a claim by name, or one already made
		}
		t := c.api.ResourceClaimTemplate(p.Namespace + "/" + *e.ResourceClaimTemplateName)
		if t == nil {
			continue
		}
		claim := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   p.Namespace,
				Name:        c.api.GenerateName(p.Name + "-" + e.Name + "-"),
				Annotations: map[string]string{resourceapi.PodResourceClaimAnnotation: e.Name},
				Labels:      t.Spec.Labels,
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: &yes, BlockOwnerDeletion: &yes,
				}},
			},
			Spec: *t.Spec.Spec.DeepCopy(),
		}
		claim.UID = types.UID("sim-" + claim.Namespace + "-" + claim.Name)
		c.api.PutResourceClaim(nil, claim)
		name := claim.Name
		p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: &name})
		made = true
	}
	return made
}

// Released says what ReleasePodClaims did: the claims deleted, and those whose reservation
// for the pod was dropped (deallocated: left without reservations, their devices freed).
type Released struct {
	Deleted, Unreserved, Deallocated []string
}

// Empty reports that nothing was done.
func (r Released) Empty() bool {
	return len(r.Deleted) == 0 && len(r.Unreserved) == 0
}

// ReleasePodClaims is the controller's work when a pod is gone: reservations dropped,
// unused claims deallocated, the pod's own claims deleted.
func (c *Controller) ReleasePodClaims(p *v1.Pod) Released {
	var done Released
	if len(p.Spec.ResourceClaims) == 0 && p.Status.ExtendedResourceClaimStatus == nil {
		return done
	}
	for _, k := range c.api.ResourceClaimKeys() {
		claim := c.api.ResourceClaim(k)
		if owner := metav1.GetControllerOfNoCopy(claim); owner != nil && owner.UID == p.UID {
			c.api.DeleteResourceClaim(k)
			done.Deleted = append(done.Deleted, k)
			continue
		}
		if i := slices.IndexFunc(claim.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == p.UID }); i >= 0 {
			next := claim.DeepCopy()
			next.Status.ReservedFor = slices.Delete(next.Status.ReservedFor, i, i+1)
			deallocateIfUnused(next)
			c.api.PutResourceClaim(claim, next)
			done.Unreserved = append(done.Unreserved, k)
			if claim.Status.Allocation != nil && next.Status.Allocation == nil {
				done.Deallocated = append(done.Deallocated, k)
			}
		}
	}
	return done
}

// deallocateIfUnused clears the allocation of a claim nobody reserves, and the finalizer
// that protected it, as the controller does for claims the scheduler allocated.
func deallocateIfUnused(c *resourceapi.ResourceClaim) {
	if len(c.Status.ReservedFor) > 0 {
		return
	}
	if i := slices.Index(c.Finalizers, resourceapi.Finalizer); i >= 0 {
		c.Status.Allocation = nil
		c.Finalizers = slices.Delete(c.Finalizers, i, i+1)
	}
}

// DeleteOwnedBy is the garbage collector: the claims an object (of uid) owned go with it.
func (c *Controller) DeleteOwnedBy(uid types.UID) {
	for _, k := range c.api.ResourceClaimKeys() {
		if owner := metav1.GetControllerOfNoCopy(c.api.ResourceClaim(k)); owner != nil && owner.UID == uid {
			c.api.DeleteResourceClaim(k)
		}
	}
}
