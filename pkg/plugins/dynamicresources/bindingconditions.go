package dynamicresources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Device binding conditions (DRADeviceBindingConditions, beta and on in v1.37): a device
// whose slice names bindingConditions must be readied by its driver before the pod is
// bound. The allocator copies the conditions into the allocation's results; after PreBind
// has written the allocation, the binding cycle waits (framework.PreBindWaitPlugin) until
// the claim's status.devices reports every binding condition of each such device True,
// as kube-scheduler's PreBind polls. A binding failure condition True, or bindingTimeout
// passed, fails the binding: the claim is deallocated (when no other consumer holds it)
// and the pod is tried again, where kube-scheduler's next attempt deallocates it in
// PostFilter.

// Binding conditions' outcomes, the status label of kube-scheduler's metrics.
const (
	bcSuccess = "success"
	bcFailed  = "failure"
	bcTimeout = "timeout"
	bcError   = "error"
)

var (
	errBindingTimeout = errors.New("device binding timeout")
	errBindingFailed  = errors.New("device binding failed")
)

// WaitReason implements framework.PreBindWaitPlugin: kube-scheduler's event reason.
func (pl *DynamicResources) WaitReason() string { return "BindingConditionsPending" }

// PreBindReady implements framework.PreBindWaitPlugin: the pod may be bound once every
// device of its claims that has binding conditions reports them True.
func (pl *DynamicResources) PreBindReady(ctx context.Context, cs *framework.CycleState, p *framework.PodInfo, node string, waited time.Duration) *framework.Status {
	s := readState(cs)
	if s == nil || !pl.hasBindingConditions(s) {
		return nil
	}
	client := pl.h.ResourceClient()
	if client == nil {
		return framework.AsStatus(errors.New("no API client for ResourceClaims: the driver cannot write claims"))
	}
	var claims []*resourceapi.ResourceClaim
	ready, err := true, error(nil)
	now := pl.h.Clock().Now()
	for _, key := range readyKeys(s) {
		ns, name, _ := strings.Cut(key, "/")
		cl, gerr := client.GetResourceClaim(ctx, ns, name)
		if gerr != nil {
			err = gerr
			break
		}
		claims = append(claims, cl)
		r, cerr := claimReady(cl)
		if cerr != nil {
			err = cerr
			break
		}
		if !r && pl.timedOut(cl, now) {
			err = fmt.Errorf("%w: claim=%s", errBindingTimeout, cl.Name)
			break
		}
		ready = ready && r
	}
	if err == nil && !ready {
		if waited < pl.bindingTimeout {
			return framework.NewStatus(framework.Wait, "waiting for binding conditions for device on node "+node)
		}
		err = fmt.Errorf("%w: after %s", errBindingTimeout, pl.bindingTimeout)
	}
	label := bcSuccess
	switch {
	case err == nil:
	case errors.Is(err, errBindingTimeout):
		label = bcTimeout
	case errors.Is(err, errBindingFailed):
		label = bcFailed
	default:
		label = bcError
	}
	pl.recordOutcome(p, claims, label, waited)
	if err == nil {
		return nil
	}
	if label == bcTimeout || label == bcFailed {
		// The devices did not become ready: give them back, so that the next attempt
		// allocates afresh (kube-scheduler's PostFilter does it in the next attempt).
		for _, c := range s.claims {
			if derr := deallocate(ctx, client, c.claim.Namespace, c.claim.Name, p); derr != nil {
				err = fmt.Errorf("%w; deallocating ResourceClaim %s: %w", err, c.key, derr)
			}
		}
		// The claim made for extended resources is deleted, as kube-scheduler's
		// Unreserve does: the next attempt makes another.
		if e := s.extended; e != nil && e.created != "" {
			ns, name, _ := strings.Cut(e.created, "/")
			if derr := deleteClaim(ctx, client, ns, name); derr != nil {
				err = fmt.Errorf("%w; deleting ResourceClaim %s: %w", err, e.created, derr)
			}
		}
	}
	return framework.AsStatus(fmt.Errorf("%w (devices: %s)", err, bindingStatusLine(claims)))
}

// readyKeys are the claims (namespace/name) whose binding conditions PreBindReady checks:
// the pod's claims and, as kube-scheduler's PreBind, the claim PreBind made for its
// extended resources backed by devices.
func readyKeys(s *stateData) []string {
	var out []string
	for _, c := range s.claims {
		out = append(out, c.key)
	}
	if e := s.extended; e != nil && e.created != "" {
		out = append(out, e.created)
	}
	return out
}

// timedOut reports, as kube-scheduler's isClaimTimeout, whether a claim allocated on a
// device with binding conditions was allocated (its allocationTimestamp) longer than
// bindingTimeout ago. A claim without the stamp never times out this way.
func (pl *DynamicResources) timedOut(cl *resourceapi.ResourceClaim, now time.Time) bool {
	a := cl.Status.Allocation
	if a == nil || a.AllocationTimestamp == nil {
		return false
	}
	for _, r := range a.Devices.Results {
		if r.BindingConditions != nil && a.AllocationTimestamp.Add(pl.bindingTimeout).Before(now) {
			return true
		}
	}
	return false
}

// bindingBroken reports whether an allocated claim's binding failed (a binding failure
// condition True) or timed out: kube-scheduler's Filter then finds it available on no
// node and its PostFilter deallocates it (a binding that failed before a restart, say).
func (pl *DynamicResources) bindingBroken(cl *resourceapi.ResourceClaim) bool {
	if cl.Status.Allocation == nil {
		return false
	}
	ready, err := claimReady(cl)
	return err != nil || (!ready && pl.timedOut(cl, pl.h.Clock().Now()))
}

// PostFilter implements framework.PostFilterPlugin, as kube-scheduler's: when no node
// fits and Filter found a claim of the pod unavailable (allocated for other nodes, or
// its binding failed or timed out), the first such claim (in the pod's order) that
// nobody else reserves is deallocated, so that the next attempt allocates it afresh;
// else the claim an earlier attempt made for the pod's extended resources is deleted. It
// never succeeds: preemption runs after it.
func (pl *DynamicResources) PostFilter(ctx context.Context, cs *framework.CycleState, p *framework.PodInfo, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	s := readState(cs)
	client := pl.h.ResourceClient()
	if s == nil || client == nil {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	s.mu.Lock()
	unavailable := s.unavailable
	s.mu.Unlock()
	for _, c := range s.claims {
		if !unavailable[c.key] {
			continue
		}
		rf := c.claim.Status.ReservedFor
		if len(rf) == 0 || (len(rf) == 1 && rf[0].UID == p.Pod.UID) {
			if err := deallocate(ctx, client, c.claim.Namespace, c.claim.Name, p); err != nil {
				return nil, framework.AsStatus(fmt.Errorf("deallocating ResourceClaim %s: %w", c.key, err))
			}
			return nil, framework.NewStatus(framework.Unschedulable, "deallocation of ResourceClaim completed")
		}
	}
	if e := s.extended; e != nil && e.leftover != nil {
		if err := deleteClaim(ctx, client, e.leftover.Namespace, e.leftover.Name); err != nil {
			return nil, framework.AsStatus(fmt.Errorf("deleting ResourceClaim %s/%s: %w", e.leftover.Namespace, e.leftover.Name, err))
		}
		return nil, framework.NewStatus(framework.Unschedulable, "deletion of ResourceClaim completed")
	}
	return nil, framework.NewStatus(framework.Unschedulable)
}

// hasBindingConditions reports whether a device of the pod's claims, as allocated when
// the cycle began or by this cycle, or of the claim made for its extended resources, has
// binding conditions.
func (pl *DynamicResources) hasBindingConditions(s *stateData) bool {
	if e := s.extended; e != nil && e.allocation != nil {
		for _, r := range e.allocation.Devices.Results {
			if len(r.BindingConditions) > 0 {
				return true
			}
		}
	}
	for _, c := range s.claims {
		a := c.claim.Status.Allocation
		if d := s.decided[c.key]; d != nil {
			a = d
		}
		if a == nil {
			continue
		}
		for _, r := range a.Devices.Results {
			if len(r.BindingConditions) > 0 {
				return true
			}
		}
	}
	return false
}

// claimReady reports whether every allocated device of a claim that has binding
// conditions reports them all True; an error when a binding failure condition is True or
// the claim lost its allocation.
func claimReady(cl *resourceapi.ResourceClaim) (bool, error) {
	if cl.Status.Allocation == nil {
		return false, fmt.Errorf("claim %s got deallocated elsewhere in the meantime", cl.Name)
	}
	for i := range cl.Status.Allocation.Devices.Results {
		r := &cl.Status.Allocation.Devices.Results[i]
		if len(r.BindingConditions) == 0 {
			continue
		}
		st := deviceStatus(cl, r)
		if st == nil {
			return false, nil
		}
		for _, cond := range r.BindingFailureConditions {
			if c := apimeta.FindStatusCondition(st.Conditions, cond); c != nil && c.Status == metav1.ConditionTrue {
				return false, fmt.Errorf("%w: claim=%s, reason=%s, message=%q", errBindingFailed, cl.Name, c.Reason, c.Message)
			}
		}
		for _, cond := range r.BindingConditions {
			if !apimeta.IsStatusConditionTrue(st.Conditions, cond) {
				return false, nil
			}
		}
	}
	return true, nil
}

// deviceStatus is the status the driver reports of an allocated device, or nil.
func deviceStatus(cl *resourceapi.ResourceClaim, r *resourceapi.DeviceRequestAllocationResult) *resourceapi.AllocatedDeviceStatus {
	for i := range cl.Status.Devices {
		d := &cl.Status.Devices[i]
		if d.Driver == r.Driver && d.Pool == r.Pool && d.Device == r.Device {
			return d
		}
	}
	return nil
}

// bindingStatusLine summarizes the devices with binding conditions, for the failure's
// message: driver/pool/device and the conditions still pending or failed.
func bindingStatusLine(claims []*resourceapi.ResourceClaim) string {
	var parts []string
	for _, cl := range claims {
		if cl.Status.Allocation == nil {
			continue
		}
		for i := range cl.Status.Allocation.Devices.Results {
			r := &cl.Status.Allocation.Devices.Results[i]
			if len(r.BindingConditions) == 0 {
				continue
			}
			st := deviceStatus(cl, r)
			var pending, failed []string
			for _, c := range r.BindingConditions {
				if st == nil || !apimeta.IsStatusConditionTrue(st.Conditions, c) {
					pending = append(pending, c)
				}
			}
			for _, c := range r.BindingFailureConditions {
				if st != nil && apimeta.IsStatusConditionTrue(st.Conditions, c) {
					failed = append(failed, c)
				}
			}
			parts = append(parts, fmt.Sprintf("%s/%s/%s pending=%v failed=%v", r.Driver, r.Pool, r.Device, pending, failed))
		}
	}
	return strings.Join(parts, "; ")
}

// deallocate clears a claim's allocation, reservations and device status when no other
// consumer than the pod holds it, or else only drops the pod's reservation.
func deallocate(ctx context.Context, client framework.ResourceClient, ns, name string, p *framework.PodInfo) error {
	for range conflictRetries {
		cur, err := client.GetResourceClaim(ctx, ns, name)
		if err != nil {
			return err
		}
		if cur.Status.Allocation == nil {
			return nil
		}
		next := cur.DeepCopy()
		others := slices.ContainsFunc(cur.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID != p.Pod.UID })
		next.Status.ReservedFor = slices.DeleteFunc(next.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == p.Pod.UID })
		if !others {
			next.Status.ReservedFor, next.Status.Allocation, next.Status.Devices = nil, nil, nil
		}
		if _, err = client.UpdateResourceClaimStatus(ctx, next); err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("claim kept changing: gave up after %d conflicts", conflictRetries)
}

// deleteClaim removes the scheduler's finalizer from a claim, then deletes it, as
// kube-scheduler's deleteClaim.
func deleteClaim(ctx context.Context, client framework.ResourceClient, ns, name string) error {
	for range conflictRetries {
		cur, err := client.GetResourceClaim(ctx, ns, name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if i := slices.Index(cur.Finalizers, resourceapi.Finalizer); i >= 0 {
			next := cur.DeepCopy()
			next.Finalizers = slices.Delete(next.Finalizers, i, i+1)
			if _, err = client.UpdateResourceClaim(ctx, next); apierrors.IsConflict(err) {
				continue
			} else if err != nil {
				return err
			}
		}
		return client.DeleteClaim(ctx, ns, name)
	}
	return fmt.Errorf("claim kept changing: gave up after %d conflicts", conflictRetries)
}

// recordOutcome records, when a wait ends, kube-scheduler's metrics of it: per device with
// binding conditions, how long the binding waited and one allocation, by driver and
// outcome.
func (pl *DynamicResources) recordOutcome(p *framework.PodInfo, claims []*resourceapi.ResourceClaim, label string, waited time.Duration) {
	m := pl.h.Metrics()
	if m == nil {
		return
	}
	for _, d := range bindingDrivers(claims) {
		m.DRABindingConditionsWaitDuration.WithLabelValues(pl.h.ProfileName(), d, label).Observe(waited.Seconds())
		m.DRABindingConditionsAllocations.WithLabelValues(pl.h.ProfileName(), d, label).Inc()
	}
}

// bindingDrivers are the drivers of the allocated devices with binding conditions, one
// entry per device.
func bindingDrivers(claims []*resourceapi.ResourceClaim) []string {
	var out []string
	for _, cl := range claims {
		if cl.Status.Allocation == nil {
			continue
		}
		for _, r := range cl.Status.Allocation.Devices.Results {
			if len(r.BindingConditions) > 0 {
				out = append(out, r.Driver)
			}
		}
	}
	return out
}
