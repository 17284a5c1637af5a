package dynamicresources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// conflictRetries bounds the re-reads after a write conflict (another member of the
// group, or the ResourceClaim controller, wrote the claim first).
const conflictRetries = 8

// PreBind writes what the cycle decided, claim by claim, as kube-scheduler's plugin does:
// the allocation finalizer, then the allocation and the reservation for the pod (or its
// group) in one status update. A claim another member of the group already wrote is only
// reserved. The claim for extended resources is created first, and the pod's status
// names it.
func (pl *DynamicResources) PreBind(ctx context.Context, cs *framework.CycleState, p *framework.PodInfo, _ string) *framework.Status {
	s := readState(cs)
	if s == nil {
		return framework.NewStatus(framework.Skip)
	}
	client := pl.h.ResourceClient()
	if client == nil {
		return framework.AsStatus(errors.New("no API client for ResourceClaims: the driver cannot write claims"))
	}
	now := pl.h.Clock().Now()
	for _, c := range s.claims {
		if err := bindClaim(ctx, client, c.claim.Namespace, c.claim.Name, s.decided[c.key], c.pc.Consumer(p.Pod), now); err != nil {
			return framework.AsStatus(fmt.Errorf("binding ResourceClaim %s: %w", c.key, err))
		}
		if !slices.Contains(s.reserved, c.key) {
			s.reserved = append(s.reserved, c.key)
		}
	}
	if e := s.extended; e != nil && e.allocation != nil {
		if err := pl.bindExtended(ctx, client, p.Pod, e); err != nil {
			return framework.AsStatus(fmt.Errorf("extended resources of pod %s: %w", p.Key, err))
		}
	}
	return nil
}

// bindClaim makes the claim allocated with want (when it is not allocated yet) and
// reserved for the consumer, re-reading it after a conflict.
func bindClaim(ctx context.Context, client framework.ResourceClient, ns, name string, want *resourceapi.AllocationResult, consumer resourceapi.ResourceClaimConsumerReference, now time.Time) error {
	for range conflictRetries {
		cur, err := client.GetResourceClaim(ctx, ns, name)
		if err != nil {
			return err
		}
		err = writeClaim(ctx, client, cur, want, consumer, now)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("claim kept changing: gave up after %d conflicts", conflictRetries)
}

func writeClaim(ctx context.Context, client framework.ResourceClient, cur *resourceapi.ResourceClaim, want *resourceapi.AllocationResult, consumer resourceapi.ResourceClaimConsumerReference, now time.Time) error {
	switch {
	case cur.DeletionTimestamp != nil:
		return errors.New("the claim is being deleted")
	case cur.Status.Allocation == nil && want == nil:
		return errors.New("the claim is not allocated any more")
	case cur.Status.Allocation != nil && want != nil && !apiequality.Semantic.DeepEqual(cur.Status.Allocation.Devices.Results, want.Devices.Results):
		return errors.New("the claim was allocated other devices in the meantime")
	}
	allocate := cur.Status.Allocation == nil
	if allocate && !slices.Contains(cur.Finalizers, resourceapi.Finalizer) {
		next := cur.DeepCopy()
		next.Finalizers = append(next.Finalizers, resourceapi.Finalizer)
		var err error
		if cur, err = client.UpdateResourceClaim(ctx, next); err != nil {
			return err
		}
	}
	if !allocate && framework.ReservedFor(cur, consumer) {
		return nil
	}
	next := cur.DeepCopy()
	if allocate {
		next.Status.Allocation = want.DeepCopy()
	}
	if !framework.ReservedFor(next, consumer) {
		next.Status.ReservedFor = append(next.Status.ReservedFor, consumer)
	}
	// As kube-scheduler v1.37 (DRADeviceBindingConditions with
	// DRAResourceClaimDeviceStatus): the allocation is stamped when the scheduler writes
	// it; the binding timeout counts from it. kube-scheduler also stamps a claim someone
	// else allocated unstamped when it first reserves it, which the API server refuses
	// (status.allocation is immutable once set): phalanx leaves such a claim as it is
	// (decision 45).
	if allocate && next.Status.Allocation.AllocationTimestamp == nil {
		next.Status.Allocation.AllocationTimestamp = &metav1.Time{Time: now}
	}
	_, err := client.UpdateResourceClaimStatus(ctx, next)
	return err
}

// unreserveClaim drops the pod's reservation of a claim, its allocation kept.
func unreserveClaim(ctx context.Context, client framework.ResourceClient, ns, name string, uid types.UID) error {
	mine := func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == uid }
	for range conflictRetries {
		cur, err := client.GetResourceClaim(ctx, ns, name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(cur.Status.ReservedFor, mine) {
			return nil
		}
		next := cur.DeepCopy()
		next.Status.ReservedFor = slices.DeleteFunc(next.Status.ReservedFor, mine)
		if _, err = client.UpdateResourceClaimStatus(ctx, next); err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("claim kept changing: gave up after %d conflicts", conflictRetries)
}

// bindExtended creates the pod's claim for its extended resources, writes its allocation
// and reservation, and records it in the pod's status.
func (pl *DynamicResources) bindExtended(ctx context.Context, client framework.ResourceClient, pod *v1.Pod, e *extendedClaim) error {
	tmpl := e.claim.claim.DeepCopy()
	tmpl.Name = ""
	created, err := client.CreateResourceClaim(ctx, tmpl)
	if err != nil {
		return fmt.Errorf("creating its ResourceClaim: %w", err)
	}
	consumer := resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID}
	if err := bindClaim(ctx, client, created.Namespace, created.Name, e.allocation, consumer, pl.h.Clock().Now()); err != nil {
		return err
	}
	e.created = created.Namespace + "/" + created.Name
	return client.PatchPodExtendedResourceClaimStatus(ctx, pod, &v1.PodExtendedResourceClaimStatus{
		ResourceClaimName: created.Name, RequestMappings: e.claim.mappings,
	})
}
