package framework

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// PreBindPlugin runs in the binding cycle, off the scheduling loop, before Bind: it makes
// the API writes a pod needs before it may be bound (its claims allocated and reserved, its
// volumes bound). It must not read the snapshot, which the loop owns; what it needs from
// the cycle travels in the CycleState, and it reads the cluster through the
// ResourceClient. A failure undoes the pod's assumption and requeues it.
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, state *CycleState, p *PodInfo, node string) *Status
}

// ResourceClient is the API of storage and DRA objects as PreBind plugins and the
// scheduler use it. The driver implements it (the kube driver with API calls, the
// simulator on its in-memory cluster); the plugin decides what to write. Gets read the
// driver's current view (an informer's cache in a real cluster), for waiting on
// controllers and retrying after a conflict.
type ResourceClient interface {
	GetResourceClaim(ctx context.Context, namespace, name string) (*resourceapi.ResourceClaim, error)
	CreateResourceClaim(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error)
	// UpdateResourceClaim writes metadata and spec (the allocation finalizer);
	// UpdateResourceClaimStatus writes the allocation and reservedFor.
	UpdateResourceClaim(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error)
	UpdateResourceClaimStatus(ctx context.Context, claim *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error)
	// DeleteClaim deletes a claim (the one made for a pod's extended resources in an
	// earlier attempt); a claim already gone is no error.
	DeleteClaim(ctx context.Context, namespace, name string) error
	GetResourceClaimTemplate(ctx context.Context, namespace, name string) (*resourceapi.ResourceClaimTemplate, error)
	// PatchPodExtendedResourceClaimStatus records, in the pod's status, the claim made
	// for its extended resources backed by DRA and which request serves which container.
	PatchPodExtendedResourceClaimStatus(ctx context.Context, pod *v1.Pod, st *v1.PodExtendedResourceClaimStatus) error

	GetPersistentVolume(ctx context.Context, name string) (*v1.PersistentVolume, error)
	UpdatePersistentVolume(ctx context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error)
	GetPersistentVolumeClaim(ctx context.Context, namespace, name string) (*v1.PersistentVolumeClaim, error)
	UpdatePersistentVolumeClaim(ctx context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error)
}

// PreBindWaitPlugin is a PreBind plugin whose pod, once PreBind has made its writes, may
// have to wait before it is bound, for something the cluster reports (a device readied
// by its driver: DynamicResources' binding conditions). The binding cycle asks
// PreBindReady right after PreBind and then every PreBindPollInterval, off the loop,
// without holding a goroutine between the asks (the simulator's virtual time passes
// meanwhile); the pod stays assumed. PreBindReady returns Success when the pod may be
// bound, Wait (its message the note of a Normal event with reason WaitReason, the first
// time) while it must wait, and anything else to fail the binding (the pod is tried
// again). waited is the time since the first ask: the plugin bounds its own wait.
type PreBindWaitPlugin interface {
	PreBindPlugin
	PreBindReady(ctx context.Context, state *CycleState, p *PodInfo, node string, waited time.Duration) *Status
	WaitReason() string
}

// PreBindPollInterval is how often the binding cycle asks PreBindWaitPlugins again:
// kube-scheduler's DynamicResources polls its binding conditions every 5 s.
const PreBindPollInterval = 5 * time.Second
