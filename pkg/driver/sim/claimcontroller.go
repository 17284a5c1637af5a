package sim

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The ResourceClaim controller, as kube-controller-manager runs it: it makes a claim from
// each of a pod's templates when the pod is created (recording the claim's name in the
// pod's status), and when a pod is gone it drops the pod from its claims' reservations,
// deallocates a claim nobody uses any more, and deletes the claims made for the pod.

// createPodClaims makes the claims of a pod's templates that exist and that its group does
// not share, and names them in the pod's status. It reports whether it made any.
func (s *Simulator) createPodClaims(p *v1.Pod) bool {
	if len(p.Spec.ResourceClaims) == 0 {
		return false
	}
	var g *v1alpha1.PodGroup
	if name := v1alpha1.PodGroupNameOf(p); name != "" {
		g = s.groups[p.Namespace+"/"+name]
	}
	made := false
	for _, pc := range framework.ResolvePodClaims(p, g) {
		e := pc.Entry
		if pc.Group != nil || e.ResourceClaimTemplateName == nil || pc.Err == nil {
			continue // a group claim, a claim by name, or one already made
		}
		t := s.objs.templates[p.Namespace+"/"+*e.ResourceClaimTemplateName]
		if t == nil {
			continue // made when the template appears
		}
		claim := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   p.Namespace,
				Name:        s.objs.generateName(p.Name + "-" + e.Name + "-"),
				Annotations: map[string]string{resourceapi.PodResourceClaimAnnotation: e.Name},
				Labels:      t.Spec.Labels,
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true),
				}},
			},
			Spec: *t.Spec.Spec.DeepCopy(),
		}
		claim.UID = types.UID("sim-" + claim.Namespace + "-" + claim.Name)
		s.putClaim(nil, claim)
		name := claim.Name
		p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: &name})
		made = true
	}
	return made
}

// templateAppeared makes the claims that waited for a template, for the pending pods.
func (s *Simulator) templateAppeared() {
	for _, rec := range s.podOrder {
		if !rec.created || rec.gone || rec.pod.Spec.NodeName != "" {
			continue
		}
		old := rec.pod
		np := old.DeepCopy()
		if s.createPodClaims(np) {
			rec.pod = np
			s.sched.UpdatePod(old, np)
		}
	}
}

// releasePodClaims is the controller's work when a pod is gone: reservations dropped,
// unused claims deallocated, the pod's own claims deleted.
func (s *Simulator) releasePodClaims(p *v1.Pod) {
	if len(p.Spec.ResourceClaims) == 0 && p.Status.ExtendedResourceClaimStatus == nil {
		return
	}
	for _, k := range sortedKeys(s.objs.claims) {
		c := s.objs.claims[k]
		if owner := metav1.GetControllerOfNoCopy(c); owner != nil && owner.UID == p.UID {
			s.deleteClaim(k)
			continue
		}
		if i := slices.IndexFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == p.UID }); i >= 0 {
			next := c.DeepCopy()
			next.Status.ReservedFor = slices.Delete(next.Status.ReservedFor, i, i+1)
			deallocateIfUnused(next)
			s.putClaim(c, next)
		}
	}
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

// devicesTaken says which devices of a claim's new allocation another allocated claim
// already holds ("" when none): the simulator's check that no device is given twice.
func (s *Simulator) devicesTaken(c *resourceapi.ResourceClaim) string {
	mine := framework.AllocatedDevices(c.Status.Allocation)
	if len(mine) == 0 {
		return ""
	}
	for _, k := range sortedKeys(s.objs.claims) {
		o := s.objs.claims[k]
		if o.UID == c.UID || o.Status.Allocation == nil {
			continue
		}
		for _, id := range framework.AllocatedDevices(o.Status.Allocation) {
			if slices.Contains(mine, id) {
				return id.String() + " (held by " + k + ")"
			}
		}
	}
	return ""
}

func ptrTo[T any](v T) *T { return &v }

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// podDevices lists the devices allocated to the claims a pod uses, for the report.
func (s *Simulator) podDevices(p *v1.Pod) []string {
	var g *v1alpha1.PodGroup
	if name := v1alpha1.PodGroupNameOf(p); name != "" {
		g = s.groups[p.Namespace+"/"+name]
	}
	names := []string{}
	for _, pc := range framework.ResolvePodClaims(p, g) {
		if pc.Name != "" {
			names = append(names, pc.Name)
		}
	}
	if st := p.Status.ExtendedResourceClaimStatus; st != nil {
		names = append(names, st.ResourceClaimName)
	}
	var out []string
	for _, n := range names {
		if c := s.objs.claims[p.Namespace+"/"+n]; c != nil && c.Status.Allocation != nil {
			for _, r := range c.Status.Allocation.Devices.Results {
				out = append(out, r.Driver+"/"+r.Pool+"/"+r.Device)
			}
		}
	}
	slices.Sort(out)
	return out
}

// claimReports lists the claims as they stand, by namespace/name.
func (s *Simulator) claimReports() []ClaimReport {
	var out []ClaimReport
	for _, k := range sortedKeys(s.objs.claims) {
		c := s.objs.claims[k]
		cr := ClaimReport{Namespace: c.Namespace, Name: c.Name, Devices: []string{}, ReservedFor: []string{}}
		if a := c.Status.Allocation; a != nil {
			for _, r := range a.Devices.Results {
				cr.Devices = append(cr.Devices, r.Driver+"/"+r.Pool+"/"+r.Device)
			}
		}
		for _, r := range c.Status.ReservedFor {
			kind := "Pod"
			if r.Resource == framework.ConsumerGroupResource {
				kind = "PodGroup"
			}
			cr.ReservedFor = append(cr.ReservedFor, kind+"/"+r.Name)
		}
		out = append(out, cr)
	}
	return out
}

// collectOwnedClaims is the garbage collector: the claims an object owned go with it.
func (s *Simulator) collectOwnedClaims(uid types.UID) {
	for _, k := range sortedKeys(s.objs.claims) {
		if owner := metav1.GetControllerOfNoCopy(s.objs.claims[k]); owner != nil && owner.UID == uid {
			s.deleteClaim(k)
		}
	}
}
