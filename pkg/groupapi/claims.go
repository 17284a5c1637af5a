package groupapi

import (
	"context"
	"errors"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// The ResourceClaims a PodGroup shares (spec.resourceClaims, KEP-5729) have a lifecycle of
// their own, which upstream's ResourceClaim controller runs for scheduling.k8s.io groups
// and phalanx runs for its own: a claim is made from each template of the group (owned by
// the PodGroup, so the garbage collector deletes it with the group) and named in the
// group's status; and when no member of the group is bound any more, or the group is
// deleted, the group's reservation is dropped and a claim nobody else reserves is
// deallocated, so its devices are free again (a preempted gang's, say).

// upstreamClaims reports whether upstream's ResourceClaim controller runs the lifecycle of
// this group's claims: for Kubernetes' own PodGroups on a real cluster (the simulator,
// which has no such controller for groups, leaves it to phalanx).
func (w *Writer) upstreamClaims(pg *v1alpha1.PodGroup) bool {
	return w.opts.NativeClaimsUpstream && nativegroup.IsNative(pg)
}

// groupClaimName is the name of the claim made from a template for a group: fixed, so that
// a restarted phalanx finds the claim it made instead of making another.
func groupClaimName(pg *v1alpha1.PodGroup, entry string) string { return pg.Name + "-" + entry }

// EnsureClaims makes the claims of a group's templates that its status does not name yet.
func (w *Writer) EnsureClaims(g *framework.GroupInfo) {
	pg := g.PodGroup
	if len(pg.Spec.ResourceClaims) == 0 || w.opts.Resources == nil || g.Invalid != "" || w.upstreamClaims(pg) {
		return
	}
	for _, gc := range pg.Spec.ResourceClaims {
		if gc.ResourceClaimTemplateName == nil || slices.ContainsFunc(pg.Status.ResourceClaimStatuses, func(st v1alpha1.PodGroupResourceClaimStatus) bool {
			return st.Name == gc.Name && st.ResourceClaimName != nil
		}) {
			continue
		}
		inflight := g.Key + "/" + gc.Name
		if w.claimsMaking[inflight] {
			continue
		}
		w.claimsMaking[inflight] = true
		entry, tmpl, name := gc.Name, *gc.ResourceClaimTemplateName, groupClaimName(pg, gc.Name)
		w.opts.Actuator.Async(func(ctx context.Context) error {
			return w.makeClaim(ctx, pg, entry, tmpl, name)
		}, func(err error) {
			delete(w.claimsMaking, inflight)
			if err != nil {
				w.opts.Logger.V(2).Info("Could not make the ResourceClaim of a PodGroup", "podgroup", g.Key, "claim", entry, "err", err)
				w.opts.Actuator.Event(pg, nil, v1.EventTypeWarning, "FailedResourceClaimCreation", "Scheduling", "creating ResourceClaim "+name+": "+err.Error())
				return
			}
			cur := w.opts.Groups.Group(g.Key)
			if cur == nil || cur.PodGroup.UID != pg.UID {
				return
			}
			w.updateStatus(cur.PodGroup, func(st *v1alpha1.PodGroupStatus) {
				if !slices.ContainsFunc(st.ResourceClaimStatuses, func(c v1alpha1.PodGroupResourceClaimStatus) bool { return c.Name == entry }) {
					n := name
					st.ResourceClaimStatuses = append(st.ResourceClaimStatuses, v1alpha1.PodGroupResourceClaimStatus{Name: entry, ResourceClaimName: &n})
				}
			})
			w.opts.ClaimMade(w.opts.Groups.Group(g.Key).PodGroup)
		})
	}
}

// makeClaim creates the group's claim from its template, or accepts the one an earlier run
// made.
func (w *Writer) makeClaim(ctx context.Context, pg *v1alpha1.PodGroup, entry, tmplName, name string) error {
	tmpl, err := w.opts.Resources.GetResourceClaimTemplate(ctx, pg.Namespace, tmplName)
	if err != nil {
		return err
	}
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   pg.Namespace,
			Name:        name,
			Labels:      tmpl.Spec.Labels,
			Annotations: map[string]string{resourceapi.PodResourceClaimAnnotation: entry},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodGroup", Name: pg.Name, UID: pg.UID,
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: *tmpl.Spec.Spec.DeepCopy(),
	}
	_, err = w.opts.Resources.CreateResourceClaim(ctx, claim)
	if apierrors.IsAlreadyExists(err) {
		cur, gerr := w.opts.Resources.GetResourceClaim(ctx, pg.Namespace, name)
		if gerr != nil {
			return gerr
		}
		if owner := metav1.GetControllerOfNoCopy(cur); owner == nil || owner.UID != pg.UID {
			return errors.New("a ResourceClaim of that name exists and does not belong to the PodGroup")
		}
		return nil
	}
	return err
}

// ReleaseClaims drops the group's reservation of its claims, when no member of the group
// is bound any more or the group is gone.
func (w *Writer) ReleaseClaims(pg *v1alpha1.PodGroup) {
	if len(pg.Spec.ResourceClaims) == 0 || w.opts.Resources == nil || w.upstreamClaims(pg) {
		return
	}
	consumer := framework.GroupConsumer(pg)
	for _, pc := range framework.ResolvePodClaims(podUsingAll(pg), pg) {
		if pc.Name == "" {
			continue
		}
		ci := w.opts.Claims.Claim(pg.Namespace + "/" + pc.Name)
		if ci == nil || !framework.ReservedFor(ci.Claim, consumer) {
			continue
		}
		ns, name := pg.Namespace, pc.Name
		w.opts.Actuator.Async(func(ctx context.Context) error {
			return unreserveClaim(ctx, w.opts.Resources, ns, name, consumer)
		}, func(err error) {
			if err != nil && !apierrors.IsNotFound(err) {
				w.opts.Logger.V(2).Info("Could not release a PodGroup's ResourceClaim", "podgroup", pg.Namespace+"/"+pg.Name, "claim", name, "err", err)
			}
		})
	}
}

// podUsingAll is a pod that names every claim of the group, to resolve them all.
func podUsingAll(pg *v1alpha1.PodGroup) *v1.Pod {
	p := &v1.Pod{}
	p.Namespace = pg.Namespace
	for _, gc := range pg.Spec.ResourceClaims {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{
			Name: gc.Name, ResourceClaimName: gc.ResourceClaimName, ResourceClaimTemplateName: gc.ResourceClaimTemplateName,
		})
	}
	return p
}

// unreserveClaim removes a consumer from a claim's reservations and, when nobody else
// reserves it, deallocates it and drops the finalizer that protected the allocation, as
// the ResourceClaim controller does.
func unreserveClaim(ctx context.Context, client framework.ResourceClient, ns, name string, consumer resourceapi.ResourceClaimConsumerReference) error {
	for range 8 {
		cur, err := client.GetResourceClaim(ctx, ns, name)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(cur.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == consumer.UID })
		if i < 0 {
			return nil
		}
		next := cur.DeepCopy()
		next.Status.ReservedFor = slices.Delete(next.Status.ReservedFor, i, i+1)
		if len(next.Status.ReservedFor) == 0 {
			next.Status.Allocation = nil
		}
		if next, err = client.UpdateResourceClaimStatus(ctx, next); apierrors.IsConflict(err) {
			continue
		} else if err != nil {
			return err
		}
		if f := slices.Index(next.Finalizers, resourceapi.Finalizer); f >= 0 && next.Status.Allocation == nil {
			next = next.DeepCopy()
			next.Finalizers = slices.Delete(next.Finalizers, f, f+1)
			if _, err := client.UpdateResourceClaim(ctx, next); err != nil && !apierrors.IsConflict(err) {
				return err
			}
		}
		return nil
	}
	return errors.New("the claim kept changing")
}
