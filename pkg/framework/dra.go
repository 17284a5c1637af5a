package framework

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured/schedulerapi"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// DeviceID names one device: driver, pool and device, as the structured allocator does.
type DeviceID = schedulerapi.DeviceID

// ClaimInfo is a ResourceClaim as the scheduler accounts it.
type ClaimInfo struct {
	// Claim is the object as the API server last reported it.
	Claim *resourceapi.ResourceClaim
	// Key is namespace/name.
	Key string
	// Assumed is an allocation the scheduler chose that the API does not show yet (nil when
	// there is none, or once the API has an allocation).
	Assumed *resourceapi.AllocationResult
	// Users counts the pods in the snapshot (bound, assumed, or placed by a simulation) that
	// use the claim.
	Users int
	// Freed is set while a simulation has removed every pod that used the claim and the
	// claim would then really be deallocated (ReleasedWithout): its devices count as
	// free (preemption sees that removing a victim frees them).
	Freed bool
	// Gone are the pods that used the claim and that a simulation removed, newest last.
	Gone []*PodInfo
}

// ReleasedWithout reports whether the claim loses its allocation once its users in gone
// are gone, as the ResourceClaim controller (or phalanx, for a group's claims) acts:
// a claim made for one of them (owned by it) is deleted; otherwise it is deallocated only
// when the scheduler allocated it (the delete-protection finalizer, or an allocation
// phalanx assumed and has yet to write) and nobody else still reserves it: every pod
// consumer is among gone, and a PodGroup consumer's members are gone with them (the
// caller counts no user left). A claim allocated outside the scheduler, or reserved for
// a pod that stays, keeps its devices: preempting for them would free nothing.
func (c *ClaimInfo) ReleasedWithout(gone []*PodInfo) bool {
	if c.Claim == nil {
		return c.Assumed != nil
	}
	isGone := func(uid types.UID) bool {
		for _, p := range gone {
			if p.Pod.UID == uid {
				return true
			}
		}
		return false
	}
	if owner := metav1.GetControllerOfNoCopy(c.Claim); owner != nil && owner.Kind == "Pod" && isGone(owner.UID) {
		return true
	}
	if c.Claim.Status.Allocation != nil && !slices.Contains(c.Claim.Finalizers, resourceapi.Finalizer) {
		return false
	}
	for _, r := range c.Claim.Status.ReservedFor {
		if r.Resource == "pods" && r.APIGroup == "" && !isGone(r.UID) {
			return false
		}
	}
	return true
}

// Allocation is the allocation in effect: the API's, else the one the scheduler assumed.
func (c *ClaimInfo) Allocation() *resourceapi.AllocationResult {
	if c.Claim != nil && c.Claim.Status.Allocation != nil {
		return c.Claim.Status.Allocation
	}
	return c.Assumed
}

// Holds reports whether the claim takes its devices: it exists, is allocated and a
// simulation has not freed it.
func (c *ClaimInfo) Holds() bool { return c.Claim != nil && !c.Freed && c.Allocation() != nil }

// DRA is the Dynamic Resource Allocation state of the snapshot: device classes, resource
// slices, claims and the devices their allocations take. Allocations the scheduler makes
// in a cycle go through AssumeAllocation and are undone by the snapshot's Rollback.
type DRA interface {
	// Class returns a DeviceClass by name, or nil.
	Class(name string) *resourceapi.DeviceClass
	// Classes returns every DeviceClass, by name.
	Classes() []*resourceapi.DeviceClass
	// ExtendedResourceClass returns the DeviceClass that backs an extended resource name
	// (its spec.extendedResourceName, or the implicit deviceclass.resource.kubernetes.io/
	// <class>), or nil. Of two classes naming the same resource, the newer wins, as in
	// kube-scheduler.
	ExtendedResourceClass(name string) *resourceapi.DeviceClass
	// Claim returns a claim by namespace/name, or nil.
	Claim(key string) *ClaimInfo
	// ExtendedResourceClaim returns the claim the scheduler made for a pod's extended
	// resources backed by devices (annotated resource.kubernetes.io/extended-resource-claim,
	// the pod its controller owner), or nil.
	ExtendedResourceClaim(pod *v1.Pod) *ClaimInfo
	// SlicesFor returns the ResourceSlices whose devices a node may use: those of the node
	// and those that are not node-local (a node selector, all nodes, or per device). As
	// kube-scheduler's ListWithDeviceTaintRules, their devices carry the taints of the
	// DeviceTaintRules that select them; read them, never change them.
	SlicesFor(node string) []*resourceapi.ResourceSlice
	// Slices returns every ResourceSlice, by name, with the rules' taints as SlicesFor.
	Slices() []*resourceapi.ResourceSlice
	// Allocated is the set of devices held by allocated claims. It is the snapshot's own
	// set: read it, never change it; it changes with AssumeAllocation and with pods added
	// and removed. Devices that allow multiple allocations are not in it: their shares are
	// in AllocatedState.
	Allocated() sets.Set[DeviceID]
	// AllocatedState is what the structured allocator needs of the taken devices: the
	// devices held whole (Allocated), the shares of devices that allow multiple
	// allocations, and the capacity the shares consume per device (DRAConsumableCapacity).
	// Its sets are the snapshot's own: read them, never change them.
	AllocatedState() schedulerapi.AllocatedState
	// AssumeAllocation records an allocation the scheduler chose for a claim (the API
	// will have it once PreBind writes it).
	AssumeAllocation(key string, a *resourceapi.AllocationResult)
	// ForgetAllocation drops an assumed allocation.
	ForgetAllocation(key string)
	// Generation changes whenever classes, slices or claims change, so plugins can tell
	// their derived data is stale.
	Generation() uint64
	// SlicesVersion changes whenever the ResourceSlices change.
	SlicesVersion() uint64
	// DevicesVersion changes whenever a device a node can use is taken or freed, or the
	// slices change: an allocation computed for the node stays valid while it does not.
	DevicesVersion(node string) uint64
	// DevicesVersionCounters returns the counters whose sum is DevicesVersion(node), for a
	// caller that reads the version of many nodes often: it keeps them per node and sums
	// them without looking the node up. They are the node's while SlicesVersion does not
	// change; read them, never change them.
	DevicesVersionCounters(node string) VersionCounters
	// Empty reports that there are no slices and no claims: no pod can use devices.
	Empty() bool
	// Releasing are the claims (namespace/name, sorted) that still hold devices although
	// the pods in gone, which have left the cluster, were their only users: no pod in the
	// snapshot uses them and the ResourceClaim controller will delete or deallocate them
	// (ReleasedWithout), but has not yet. A preemption's freed room includes their devices.
	Releasing(gone []*PodInfo) []string
	// FreeReleasing frees, under a checkpoint only (Rollback takes them again), the
	// devices of the claims Releasing names for gone: the snapshot as it will be once the
	// controller has acted.
	FreeReleasing(gone []*PodInfo)
	// Domain is the device domain a placement being evaluated restricts allocations to
	// (nil: none); SetDomain sets or clears it.
	Domain() *DeviceDomain
	SetDomain(*DeviceDomain)
}

// VersionCounters are counters whose sum is a version (DRA.DevicesVersionCounters).
type VersionCounters []*uint64

// Sum is the version the counters make now.
func (c VersionCounters) Sum() uint64 {
	var v uint64
	for _, p := range c {
		v += *p
	}
	return v
}

// DeviceDomain is a set of devices that belong together (one NVLink clique, one pool).
// While a placement with a domain is evaluated, the devices it excludes count as taken:
// Excluded lists them by the node whose slices hold them ("" for slices that are not
// node-local). Devices outside the domain's kind (without the attribute, of another
// driver) are not excluded.
type DeviceDomain struct {
	Name     string
	Excluded map[string]sets.Set[DeviceID]
}

// ExcludesOn reports whether the domain takes away any device a node can use.
func (d *DeviceDomain) ExcludesOn(node string) bool {
	return d != nil && (len(d.Excluded[node]) > 0 || len(d.Excluded[""]) > 0)
}

// ConsumerGroupResource is the resource of a PodGroup in a claim's reservedFor.
const ConsumerGroupResource = "podgroups"

// GroupConsumer is the reservedFor entry of a PodGroup: in its own API group, so that
// upstream's ResourceClaim controller recognises the native groups it manages.
func GroupConsumer(pg *v1alpha1.PodGroup) resourceapi.ResourceClaimConsumerReference {
	group := v1alpha1.GroupName
	if nativegroup.IsNative(pg) {
		group = nativegroup.GroupName
	}
	return resourceapi.ResourceClaimConsumerReference{APIGroup: group, Resource: ConsumerGroupResource, Name: pg.Name, UID: pg.UID}
}

// PodClaim is one entry of a pod's spec.resourceClaims resolved to its ResourceClaim.
type PodClaim struct {
	// Entry is the pod's spec.resourceClaims entry.
	Entry *v1.PodResourceClaim
	// Name is the ResourceClaim's name; "" when it is not known yet (Err says why) or
	// when the claim was intentionally not created (Err is nil).
	Name string
	// Group is the PodGroup that shares the claim when the entry matches one of its
	// spec.resourceClaims: the claim is then reserved for the group.
	Group *v1alpha1.PodGroup
	// OwnerCheck says the claim was made from a template and must be controlled by its
	// owner (the pod, or the group for a group claim) to be the right one.
	OwnerCheck bool
	// Err says why the claim cannot be named yet (the ResourceClaim controller has not
	// created the pod's claim from its template).
	Err error
}

// ResolvePodClaims names the ResourceClaims a pod uses, as kube-scheduler's
// DynamicResources plugin does (resourceclaim.Name), with KEP-5729's group claims: an entry
// equal to one of the group's (same name, same source) is the group's claim. g may be nil.
func ResolvePodClaims(pod *v1.Pod, g *v1alpha1.PodGroup) []PodClaim {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil
	}
	out := make([]PodClaim, 0, len(pod.Spec.ResourceClaims))
	for i := range pod.Spec.ResourceClaims {
		e := &pod.Spec.ResourceClaims[i]
		pc := PodClaim{Entry: e}
		if gc := groupClaimFor(e, g); gc != nil {
			pc.Group = g
			pc.Name, pc.OwnerCheck, pc.Err = groupClaimName(g, gc)
		} else {
			pc.Name, pc.OwnerCheck, pc.Err = podClaimName(pod, e)
		}
		out = append(out, pc)
	}
	return out
}

func groupClaimFor(e *v1.PodResourceClaim, g *v1alpha1.PodGroup) *v1alpha1.PodGroupResourceClaim {
	if g == nil {
		return nil
	}
	for i := range g.Spec.ResourceClaims {
		gc := &g.Spec.ResourceClaims[i]
		if gc.Name == e.Name && equalPtr(gc.ResourceClaimName, e.ResourceClaimName) &&
			equalPtr(gc.ResourceClaimTemplateName, e.ResourceClaimTemplateName) {
			return gc
		}
	}
	return nil
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func podClaimName(pod *v1.Pod, e *v1.PodResourceClaim) (string, bool, error) {
	switch {
	case e.ResourceClaimName != nil:
		return *e.ResourceClaimName, false, nil
	case e.ResourceClaimTemplateName != nil:
		for _, st := range pod.Status.ResourceClaimStatuses {
			if st.Name == e.Name {
				if st.ResourceClaimName == nil {
					return "", false, nil // intentionally not created
				}
				return *st.ResourceClaimName, true, nil
			}
		}
		return "", false, fmt.Errorf("pod %q: waiting for the ResourceClaim of %q to be created from template %q", pod.Name, e.Name, *e.ResourceClaimTemplateName)
	}
	return "", false, fmt.Errorf("pod %q: claim %q names neither a ResourceClaim nor a template", pod.Name, e.Name)
}

func groupClaimName(g *v1alpha1.PodGroup, gc *v1alpha1.PodGroupResourceClaim) (string, bool, error) {
	if gc.ResourceClaimName != nil {
		return *gc.ResourceClaimName, false, nil
	}
	for _, st := range g.Status.ResourceClaimStatuses {
		if st.Name == gc.Name && st.ResourceClaimName != nil {
			return *st.ResourceClaimName, true, nil
		}
	}
	return "", false, fmt.Errorf("pod group %q: waiting for the ResourceClaim of %q to be created from template %q", g.Name, gc.Name, *gc.ResourceClaimTemplateName)
}

// CheckClaimOwner verifies that a claim made from a template belongs to its owner: the pod,
// or the group for a group claim.
func (pc *PodClaim) CheckClaimOwner(pod *v1.Pod, claim *resourceapi.ResourceClaim) error {
	if !pc.OwnerCheck {
		return nil
	}
	owner := metav1.GetControllerOfNoCopy(claim)
	if pc.Group != nil {
		if owner == nil || owner.UID != pc.Group.UID {
			return fmt.Errorf("ResourceClaim %s/%s was not created for PodGroup %s (PodGroup is not owner)", claim.Namespace, claim.Name, pc.Group.Name)
		}
		return nil
	}
	if owner == nil || owner.UID != pod.UID {
		return fmt.Errorf("ResourceClaim %s/%s was not created for Pod %s/%s (Pod is not owner)", claim.Namespace, claim.Name, pod.Namespace, pod.Name)
	}
	return nil
}

// Consumer is the reservedFor entry for the claim: the group for a group claim, else the
// pod.
func (pc *PodClaim) Consumer(pod *v1.Pod) resourceapi.ResourceClaimConsumerReference {
	if pc.Group != nil {
		return GroupConsumer(pc.Group)
	}
	return resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID}
}

// ReservedFor reports whether the claim is reserved for the consumer.
func ReservedFor(claim *resourceapi.ResourceClaim, c resourceapi.ResourceClaimConsumerReference) bool {
	for _, r := range claim.Status.ReservedFor {
		if r.UID == c.UID && r.Resource == c.Resource && r.APIGroup == c.APIGroup {
			return true
		}
	}
	return false
}

// AllocatedDevices lists the devices an allocation takes whole. Devices allocated with
// admin access are not taken: they stay available to others, as the allocator counts them;
// shares of devices that allow multiple allocations are SharedDevices.
func AllocatedDevices(a *resourceapi.AllocationResult) []DeviceID {
	if a == nil {
		return nil
	}
	out := make([]DeviceID, 0, len(a.Devices.Results))
	for _, r := range a.Devices.Results {
		if (r.AdminAccess != nil && *r.AdminAccess) || r.ShareID != nil {
			continue
		}
		out = append(out, schedulerapi.MakeDeviceID(r.Driver, r.Pool, r.Device))
	}
	return out
}

// SharedDevice is one share of a device that allows multiple allocations
// (DRAConsumableCapacity): the share's ID and the capacity it consumes (nil when the
// result names none).
type SharedDevice struct {
	ID       SharedDeviceID
	Consumed *DeviceConsumedCapacity
}

// SharedDeviceID names one share of a device, as the structured allocator does.
type SharedDeviceID = schedulerapi.SharedDeviceID

// DeviceConsumedCapacity is the capacity a share consumes of its device.
type DeviceConsumedCapacity = schedulerapi.DeviceConsumedCapacity

// SharedDevices returns the shares of devices an allocation takes: its results with a
// share ID (the allocator gives one to every allocation of a device that allows multiple
// allocations), as kube-scheduler's DynamicResources accounts them. Results with admin
// access take nothing.
func SharedDevices(a *resourceapi.AllocationResult) []SharedDevice {
	if a == nil {
		return nil
	}
	var out []SharedDevice
	for _, r := range a.Devices.Results {
		if (r.AdminAccess != nil && *r.AdminAccess) || r.ShareID == nil {
			continue
		}
		id := schedulerapi.MakeDeviceID(r.Driver, r.Pool, r.Device)
		sd := SharedDevice{ID: schedulerapi.MakeSharedDeviceID(id, r.ShareID)}
		if r.ConsumedCapacity != nil {
			c := schedulerapi.NewDeviceConsumedCapacity(id, r.ConsumedCapacity)
			sd.Consumed = &c
		}
		out = append(out, sd)
	}
	return out
}
