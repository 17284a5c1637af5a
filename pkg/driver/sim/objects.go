package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/controllers/resourceclaim"
	"github.com/phalanx-dev/phalanx/pkg/controllers/volume"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// objectStore is the simulated API server's store of storage and DRA objects: what the API
// server would hold, with resourceVersions so that writes from a stale copy conflict as
// they would. Every change is told to the scheduler, as its informers would. It is the
// scheduler's framework.ResourceClient, and the API the PersistentVolume and
// ResourceClaim controllers (pkg/controllers) work through; the writes the scheduler makes
// wake the controller that reacts to them, at once.
type objectStore struct {
	pvs       map[string]*v1.PersistentVolume
	pvcs      map[string]*v1.PersistentVolumeClaim
	classes   map[string]*storagev1.StorageClass
	claims    map[string]*resourceapi.ResourceClaim
	templates map[string]*resourceapi.ResourceClaimTemplate
	rv        int64
	// names counts generated names per prefix, for generateName.
	names map[string]int

	sched *scheduler.ResourceEvents
	// volumes and claimController react to the objects' changes.
	volumes         *volume.Controller
	claimController *resourceclaim.Controller
	// The simulator's own state the store reads: nodes and phalanx's PodGroups; and how it
	// patches a pod's status and records a broken invariant.
	node           func(name string) *v1.Node
	podGroup       func(key string) *v1alpha1.PodGroup
	patchPodStatus func(pod *v1.Pod, change func(*v1.PodStatus)) error
	violate        func(format string, args ...any)
	// readyDevices, when set, is given each newly allocated claim whose devices have
	// binding conditions: the simulator's DRA driver readies them (deviceDriver).
	readyDevices func(c *resourceapi.ResourceClaim)
	// later runs fn at the current virtual instant, after what runs now: a claim the
	// scheduler deallocates or deletes from its loop (DynamicResources' PostFilter, in
	// a scheduling cycle whose changes to the cache are rolled back) reaches the
	// scheduler's cache after the cycle, as an informer's event would.
	later func(fn func())
}

func newObjectStore() *objectStore {
	o := &objectStore{
		pvs:       map[string]*v1.PersistentVolume{},
		pvcs:      map[string]*v1.PersistentVolumeClaim{},
		classes:   map[string]*storagev1.StorageClass{},
		claims:    map[string]*resourceapi.ResourceClaim{},
		templates: map[string]*resourceapi.ResourceClaimTemplate{},
		names:     map[string]int{},
	}
	o.volumes = volume.New(o)
	o.claimController = resourceclaim.New(o)
	return o
}

// attach connects the store to the scheduler it tells and to the simulator's state it
// reads (the scheduler is made with the store as its ResourceClient, so after it).
func (o *objectStore) attach(sched *scheduler.ResourceEvents, podGroup func(key string) *v1alpha1.PodGroup,
	node func(name string) *v1.Node, patchPodStatus func(*v1.Pod, func(*v1.PodStatus)) error, violate func(string, ...any)) {
	o.sched, o.podGroup, o.node, o.patchPodStatus, o.violate = sched, podGroup, node, patchPodStatus, violate
}

var (
	_ framework.ResourceClient = (*objectStore)(nil)
	_ volume.API               = (*objectStore)(nil)
	_ resourceclaim.API        = (*objectStore)(nil)
)

var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

func (o *objectStore) nextRV() string { o.rv++; return strconv.FormatInt(o.rv, 10) }

// GenerateName gives a generated name, deterministic so runs repeat byte for byte.
func (o *objectStore) GenerateName(prefix string) string {
	o.names[prefix]++
	return fmt.Sprintf("%s%05d", prefix, o.names[prefix])
}

func notFound(resource, name string) error {
	return apierrors.NewNotFound(resourceapi.Resource(resource), name)
}

func conflict(resource, name string) error {
	return apierrors.NewConflict(resourceapi.Resource(resource), name, errModified)
}

// --- the controllers' API (reads, and writes that tell the scheduler) ---

// Node implements volume.API.
func (o *objectStore) Node(name string) *v1.Node { return o.node(name) }

// PodGroup implements resourceclaim.API.
func (o *objectStore) PodGroup(key string) *v1alpha1.PodGroup { return o.podGroup(key) }

// PersistentVolume implements volume.API.
func (o *objectStore) PersistentVolume(name string) *v1.PersistentVolume { return o.pvs[name] }

// PersistentVolumes implements volume.API.
func (o *objectStore) PersistentVolumes() []*v1.PersistentVolume {
	out := make([]*v1.PersistentVolume, 0, len(o.pvs))
	for _, k := range sortedKeys(o.pvs) {
		out = append(out, o.pvs[k])
	}
	return out
}

// PersistentVolumeClaim implements volume.API.
func (o *objectStore) PersistentVolumeClaim(key string) *v1.PersistentVolumeClaim {
	return o.pvcs[key]
}

// PersistentVolumeClaimKeys implements volume.API.
func (o *objectStore) PersistentVolumeClaimKeys() []string { return sortedKeys(o.pvcs) }

// StorageClass implements volume.API.
func (o *objectStore) StorageClass(name string) *storagev1.StorageClass { return o.classes[name] }

// PutPersistentVolume implements volume.API.
func (o *objectStore) PutPersistentVolume(old, pv *v1.PersistentVolume) {
	put(o, o.pvs, pv.Name, old, pv, o.sched.UpdatePV)
}

// PutPersistentVolumeClaim implements volume.API.
func (o *objectStore) PutPersistentVolumeClaim(old, pvc *v1.PersistentVolumeClaim) {
	put(o, o.pvcs, pvc.Namespace+"/"+pvc.Name, old, pvc, o.sched.UpdatePVC)
}

func (o *objectStore) deletePV(name string) { remove(o.pvs, name, o.sched.DeletePV) }

func (o *objectStore) deletePVC(key string) { remove(o.pvcs, key, o.sched.DeletePVC) }

// put stores an object under key with the next resourceVersion and tells the scheduler.
func put[T metav1.Object](o *objectStore, objs map[string]T, key string, old, obj T, tell func(old, obj T)) {
	obj.SetResourceVersion(o.nextRV())
	objs[key] = obj
	tell(old, obj)
}

// remove deletes the object under key, if there is one, and tells the scheduler.
func remove[T any](objs map[string]T, key string, tell func(T)) {
	if obj, ok := objs[key]; ok {
		delete(objs, key)
		tell(obj)
	}
}

// ResourceClaimTemplate implements resourceclaim.API.
func (o *objectStore) ResourceClaimTemplate(key string) *resourceapi.ResourceClaimTemplate {
	return o.templates[key]
}

// ResourceClaim implements resourceclaim.API.
func (o *objectStore) ResourceClaim(key string) *resourceapi.ResourceClaim { return o.claims[key] }

// ResourceClaimKeys implements resourceclaim.API.
func (o *objectStore) ResourceClaimKeys() []string { return sortedKeys(o.claims) }

// PutResourceClaim implements resourceclaim.API: it stores a claim (old nil for a new one)
// and tells the scheduler.
func (o *objectStore) PutResourceClaim(old, c *resourceapi.ResourceClaim) {
	put(o, o.claims, c.Namespace+"/"+c.Name, old, c, o.sched.UpdateResourceClaim)
}

// DeleteResourceClaim implements resourceclaim.API.
func (o *objectStore) DeleteResourceClaim(key string) {
	remove(o.claims, key, o.sched.DeleteResourceClaim)
}

// --- framework.ResourceClient: the scheduler's reads and writes ---

// GetResourceClaim implements framework.ResourceClient.
func (o *objectStore) GetResourceClaim(_ context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	if c := o.claims[ns+"/"+name]; c != nil {
		return c, nil
	}
	return nil, notFound("resourceclaims", name)
}

// CreateResourceClaim implements framework.ResourceClient.
func (o *objectStore) CreateResourceClaim(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	c = c.DeepCopy()
	if c.Name == "" {
		c.Name = o.GenerateName(c.GenerateName)
	}
	if o.claims[c.Namespace+"/"+c.Name] != nil {
		return nil, apierrors.NewAlreadyExists(resourceapi.Resource("resourceclaims"), c.Name)
	}
	c.UID = types.UID("sim-" + c.Namespace + "-" + c.Name)
	o.PutResourceClaim(nil, c)
	return c, nil
}

// DeleteClaim implements framework.ResourceClient.
func (o *objectStore) DeleteClaim(_ context.Context, ns, name string) error {
	key := ns + "/" + name
	c, ok := o.claims[key]
	if !ok {
		return nil
	}
	if o.later == nil {
		o.DeleteResourceClaim(key)
		return nil
	}
	delete(o.claims, key)
	o.later(func() { o.sched.DeleteResourceClaim(c) })
	return nil
}

// UpdateResourceClaim implements framework.ResourceClient: metadata and spec.
func (o *objectStore) UpdateResourceClaim(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	cur, err := o.claimForWrite(c)
	if err != nil {
		return nil, err
	}
	next := cur.DeepCopy()
	next.ObjectMeta = *c.ObjectMeta.DeepCopy()
	next.Spec = *c.Spec.DeepCopy()
	o.PutResourceClaim(cur, next)
	return next, nil
}

// UpdateResourceClaimStatus implements framework.ResourceClient. With invariant checks on,
// an allocation of devices another claim holds is a violation.
func (o *objectStore) UpdateResourceClaimStatus(_ context.Context, c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	cur, err := o.claimForWrite(c)
	if err != nil {
		return nil, err
	}
	next := cur.DeepCopy()
	next.Status = *c.Status.DeepCopy()
	allocated := next.Status.Allocation != nil && cur.Status.Allocation == nil
	if allocated {
		if msg := o.devicesTaken(next); msg != "" {
			o.violate("claim %s allocated devices already in use: %s", c.Namespace+"/"+c.Name, msg)
		}
	}
	if next.Status.Allocation == nil && cur.Status.Allocation != nil && o.later != nil {
		next.SetResourceVersion(o.nextRV())
		o.claims[c.Namespace+"/"+c.Name] = next
		o.later(func() { o.sched.UpdateResourceClaim(cur, next) })
		return next, nil
	}
	o.PutResourceClaim(cur, next)
	if allocated && o.readyDevices != nil && hasBindingConditions(next.Status.Allocation) {
		o.readyDevices(next)
	}
	return next, nil
}

// hasBindingConditions reports whether a device of an allocation must be readied by its
// driver before a pod using it is bound.
func hasBindingConditions(a *resourceapi.AllocationResult) bool {
	return slices.ContainsFunc(a.Devices.Results, func(r resourceapi.DeviceRequestAllocationResult) bool { return len(r.BindingConditions) > 0 })
}

// readyClaimDevices is the simulator's DRA driver readying the devices of a claim's
// allocation (when the claim still has it): every device with binding conditions reports
// them True in status.devices, as a driver that attached it would.
func (o *objectStore) readyClaimDevices(key string, uid types.UID, alloc *resourceapi.AllocationResult) {
	cur := o.claims[key]
	if cur == nil || cur.UID != uid || cur.Status.Allocation == nil || !apiequality.Semantic.DeepEqual(cur.Status.Allocation.Devices.Results, alloc.Devices.Results) {
		return
	}
	next := cur.DeepCopy()
	for _, r := range alloc.Devices.Results {
		if len(r.BindingConditions) == 0 {
			continue
		}
		i := slices.IndexFunc(next.Status.Devices, func(d resourceapi.AllocatedDeviceStatus) bool {
			return d.Driver == r.Driver && d.Pool == r.Pool && d.Device == r.Device
		})
		if i < 0 {
			next.Status.Devices = append(next.Status.Devices, resourceapi.AllocatedDeviceStatus{Driver: r.Driver, Pool: r.Pool, Device: r.Device, ShareID: (*string)(r.ShareID)})
			i = len(next.Status.Devices) - 1
		}
		for _, cond := range r.BindingConditions {
			apimeta.SetStatusCondition(&next.Status.Devices[i].Conditions, metav1.Condition{
				Type: cond, Status: metav1.ConditionTrue, Reason: "DeviceReady", Message: "readied by the simulated driver", ObservedGeneration: next.Generation,
			})
		}
	}
	o.PutResourceClaim(cur, next)
}

func (o *objectStore) claimForWrite(c *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	cur := o.claims[c.Namespace+"/"+c.Name]
	switch {
	case cur == nil:
		return nil, notFound("resourceclaims", c.Name)
	case c.ResourceVersion != cur.ResourceVersion:
		return nil, conflict("resourceclaims", c.Name)
	}
	return cur, nil
}

// devicesTaken says which devices of a claim's new allocation another allocated claim
// already holds ("" when none): the simulator's check that no device is given twice.
func (o *objectStore) devicesTaken(c *resourceapi.ResourceClaim) string {
	mine := framework.AllocatedDevices(c.Status.Allocation)
	if len(mine) == 0 {
		return ""
	}
	for _, k := range sortedKeys(o.claims) {
		other := o.claims[k]
		if other.UID == c.UID || other.Status.Allocation == nil {
			continue
		}
		for _, id := range framework.AllocatedDevices(other.Status.Allocation) {
			if slices.Contains(mine, id) {
				return id.String() + " (held by " + k + ")"
			}
		}
	}
	return ""
}

// GetResourceClaimTemplate implements framework.ResourceClient.
func (o *objectStore) GetResourceClaimTemplate(_ context.Context, ns, name string) (*resourceapi.ResourceClaimTemplate, error) {
	if t := o.templates[ns+"/"+name]; t != nil {
		return t, nil
	}
	return nil, notFound("resourceclaimtemplates", name)
}

// PatchPodExtendedResourceClaimStatus implements framework.ResourceClient.
func (o *objectStore) PatchPodExtendedResourceClaimStatus(_ context.Context, pod *v1.Pod, st *v1.PodExtendedResourceClaimStatus) error {
	return o.patchPodStatus(pod, func(ps *v1.PodStatus) { ps.ExtendedResourceClaimStatus = st.DeepCopy() })
}

// GetPersistentVolume implements framework.ResourceClient.
func (o *objectStore) GetPersistentVolume(_ context.Context, name string) (*v1.PersistentVolume, error) {
	if pv := o.pvs[name]; pv != nil {
		return pv, nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), name)
}

// UpdatePersistentVolume implements framework.ResourceClient: the scheduler points a volume
// at a claim, and the controller completes the binding.
func (o *objectStore) UpdatePersistentVolume(_ context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	cur := o.pvs[pv.Name]
	switch {
	case cur == nil:
		return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), pv.Name)
	case cur.ResourceVersion != pv.ResourceVersion:
		return nil, apierrors.NewConflict(v1.Resource("persistentvolumes"), pv.Name, errModified)
	}
	next := pv.DeepCopy()
	o.PutPersistentVolume(cur, next)
	o.volumes.VolumePointedAtClaim(next)
	return o.pvs[pv.Name], nil
}

// GetPersistentVolumeClaim implements framework.ResourceClient.
func (o *objectStore) GetPersistentVolumeClaim(_ context.Context, ns, name string) (*v1.PersistentVolumeClaim, error) {
	if pvc := o.pvcs[ns+"/"+name]; pvc != nil {
		return pvc, nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), name)
}

// UpdatePersistentVolumeClaim implements framework.ResourceClient: the scheduler names the
// node to provision on, and the provisioner acts.
func (o *objectStore) UpdatePersistentVolumeClaim(_ context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	k := pvc.Namespace + "/" + pvc.Name
	cur := o.pvcs[k]
	switch {
	case cur == nil:
		return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), pvc.Name)
	case cur.ResourceVersion != pvc.ResourceVersion:
		return nil, apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), pvc.Name, errModified)
	}
	o.PutPersistentVolumeClaim(cur, pvc.DeepCopy())
	o.volumes.SyncClaim(k)
	return o.pvcs[k], nil
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
