package kube

import (
	"context"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The Client is also framework.ResourceClient: the reads and writes of ResourceClaims,
// PersistentVolumes and their claims that PreBind plugins (DynamicResources,
// VolumeBinding) and the group claims' lifecycle make. Reads go to the API server, not
// the informers' caches: they serve retries after a conflict and the wait for the PV
// controller, which want the latest object. They are the first half of a binding, so they
// go through the dispatcher in the binding class: bounded in flight, one at a time per
// object, with the request timeout counted from the moment each is sent.

var _ framework.ResourceClient = (*Client)(nil)

// resourceCall runs one ResourceClient call through the dispatcher.
func resourceCall[T any](ctx context.Context, c *Client, object string, fn func(context.Context) (T, error)) (T, error) {
	var out T
	err := c.calls.Do(ctx, &dispatch.Call{Class: dispatch.Bind, Object: object}, func(ctx context.Context) error {
		var err error
		out, err = fn(ctx)
		return err
	})
	return out, err
}

// GetResourceClaim implements framework.ResourceClient.
func (c *Client) GetResourceClaim(ctx context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	return resourceCall(ctx, c, "resourceclaims/"+ns+"/"+name, func(ctx context.Context) (*resourceapi.ResourceClaim, error) {
		return c.core.ResourceV1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

// CreateResourceClaim implements framework.ResourceClient.
func (c *Client) CreateResourceClaim(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return resourceCall(ctx, c, "resourceclaims/"+claim.Namespace+"/"+claim.Name, func(ctx context.Context) (*resourceapi.ResourceClaim, error) {
		return c.core.ResourceV1().ResourceClaims(claim.Namespace).Create(ctx, claim, metav1.CreateOptions{})
	})
}

// UpdateResourceClaim implements framework.ResourceClient.
func (c *Client) UpdateResourceClaim(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return resourceCall(ctx, c, "resourceclaims/"+claim.Namespace+"/"+claim.Name, func(ctx context.Context) (*resourceapi.ResourceClaim, error) {
		return c.core.ResourceV1().ResourceClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{})
	})
}

// UpdateResourceClaimStatus implements framework.ResourceClient.
func (c *Client) UpdateResourceClaimStatus(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return resourceCall(ctx, c, "resourceclaims/"+claim.Namespace+"/"+claim.Name, func(ctx context.Context) (*resourceapi.ResourceClaim, error) {
		return c.core.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
	})
}

// DeleteClaim implements framework.ResourceClient.
func (c *Client) DeleteClaim(ctx context.Context, ns, name string) error {
	_, err := resourceCall(ctx, c, "resourceclaims/"+ns+"/"+name, func(ctx context.Context) (struct{}, error) {
		err := c.core.ResourceV1().ResourceClaims(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		return struct{}{}, err
	})
	return err
}

// GetResourceClaimTemplate implements framework.ResourceClient.
func (c *Client) GetResourceClaimTemplate(ctx context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
	return resourceCall(ctx, c, "resourceclaimtemplates/"+ns+"/"+name, func(ctx context.Context) (*resourceapi.ResourceClaimTemplate, error) {
		return c.core.ResourceV1().ResourceClaimTemplates(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

// PatchPodExtendedResourceClaimStatus implements framework.ResourceClient with a merge
// patch of the pod's status that names only the field, on the pod's UID.
func (c *Client) PatchPodExtendedResourceClaimStatus(ctx context.Context, pod *v1.Pod, st *v1.PodExtendedResourceClaimStatus) error {
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": pod.UID},
		"status":   map[string]any{"extendedResourceClaimStatus": st},
	})
	if err != nil {
		return err
	}
	_, err = resourceCall(ctx, c, objectOf(pod), func(ctx context.Context) (*v1.Pod, error) {
		return c.core.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, body, metav1.PatchOptions{}, "status")
	})
	return err
}

// GetPersistentVolume implements framework.ResourceClient.
func (c *Client) GetPersistentVolume(ctx context.Context, name string) (*v1.PersistentVolume, error) {
	return resourceCall(ctx, c, "persistentvolumes/"+name, func(ctx context.Context) (*v1.PersistentVolume, error) {
		return c.core.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
	})
}

// UpdatePersistentVolume implements framework.ResourceClient.
func (c *Client) UpdatePersistentVolume(ctx context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	return resourceCall(ctx, c, "persistentvolumes/"+pv.Name, func(ctx context.Context) (*v1.PersistentVolume, error) {
		return c.core.CoreV1().PersistentVolumes().Update(ctx, pv, metav1.UpdateOptions{})
	})
}

// GetPersistentVolumeClaim implements framework.ResourceClient.
func (c *Client) GetPersistentVolumeClaim(ctx context.Context, ns, name string) (*v1.PersistentVolumeClaim, error) {
	return resourceCall(ctx, c, "persistentvolumeclaims/"+ns+"/"+name, func(ctx context.Context) (*v1.PersistentVolumeClaim, error) {
		return c.core.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

// UpdatePersistentVolumeClaim implements framework.ResourceClient.
func (c *Client) UpdatePersistentVolumeClaim(ctx context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	return resourceCall(ctx, c, "persistentvolumeclaims/"+pvc.Namespace+"/"+pvc.Name, func(ctx context.Context) (*v1.PersistentVolumeClaim, error) {
		return c.core.CoreV1().PersistentVolumeClaims(pvc.Namespace).Update(ctx, pvc, metav1.UpdateOptions{})
	})
}
