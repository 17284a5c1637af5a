package kube

import (
	"context"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The Client is also framework.ResourceClient: the reads and writes of ResourceClaims,
// PersistentVolumes and their claims that PreBind plugins (DynamicResources,
// VolumeBinding) and the group claims' lifecycle make. Reads go to the API server, not
// the informers' caches: they serve retries after a conflict and the wait for the PV
// controller, which want the latest object. Each call has the actuator's 30 s bound.

var _ framework.ResourceClient = (*Client)(nil)

// GetResourceClaim implements framework.ResourceClient.
func (c *Client) GetResourceClaim(ctx context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.ResourceV1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
}

// CreateResourceClaim implements framework.ResourceClient.
func (c *Client) CreateResourceClaim(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.ResourceV1().ResourceClaims(claim.Namespace).Create(ctx, claim, metav1.CreateOptions{})
}

// UpdateResourceClaim implements framework.ResourceClient.
func (c *Client) UpdateResourceClaim(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.ResourceV1().ResourceClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{})
}

// UpdateResourceClaimStatus implements framework.ResourceClient.
func (c *Client) UpdateResourceClaimStatus(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
}

// GetResourceClaimTemplate implements framework.ResourceClient.
func (c *Client) GetResourceClaimTemplate(ctx context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.ResourceV1().ResourceClaimTemplates(ns).Get(ctx, name, metav1.GetOptions{})
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
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = c.core.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, body, metav1.PatchOptions{}, "status")
	return err
}

// GetPersistentVolume implements framework.ResourceClient.
func (c *Client) GetPersistentVolume(ctx context.Context, name string) (*v1.PersistentVolume, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
}

// UpdatePersistentVolume implements framework.ResourceClient.
func (c *Client) UpdatePersistentVolume(ctx context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.CoreV1().PersistentVolumes().Update(ctx, pv, metav1.UpdateOptions{})
}

// GetPersistentVolumeClaim implements framework.ResourceClient.
func (c *Client) GetPersistentVolumeClaim(ctx context.Context, ns, name string) (*v1.PersistentVolumeClaim, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
}

// UpdatePersistentVolumeClaim implements framework.ResourceClient.
func (c *Client) UpdatePersistentVolumeClaim(ctx context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.core.CoreV1().PersistentVolumeClaims(pvc.Namespace).Update(ctx, pvc, metav1.UpdateOptions{})
}
