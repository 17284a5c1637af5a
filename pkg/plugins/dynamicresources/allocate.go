package dynamicresources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// allocate finds an allocation of the claims on a node. The allocator sees only the
// slices the node can use, so its cost follows the node's devices, not the cluster's.
//
// When the claims do not fit beside the devices that earlier members of the pod's group
// took on this node in the same cycle, their claims and the pod's are searched again
// together (the allocator's search is exhaustive over the claims it is given): an earlier
// member's first choice no longer blocks a later member when another assignment serves
// both (kubernetes#138765).
func (pl *DynamicResources) allocate(ctx context.Context, s *stateData, n *framework.NodeInfo, claims []*resourceapi.ResourceClaim, keys []string) (*nodeAllocation, *framework.Status) {
	snap := pl.h.Snapshot()
	dra := snap.DRA()
	want, exact := s.want, s.exact
	if len(claims) != len(s.toAllocate) {
		want, exact = deviceCount(claims) // with the claim for extended resources
	}
	nd := pl.devices.forNode(dra, snap, n)
	if exact && !nd.multi && want > len(nd.ids) {
		// Too few devices at all (none, on most nodes of a large cluster; a placement's
		// domain only takes some away): rejected without reading what is taken, nor the
		// node.
		return nil, statusCannotAlloc
	}
	// The memo counts the devices the allocator sees unless a placement's domain
	// excludes some of the node's.
	counted := nd
	if dra.Domain().ExcludesOn(n.Name) {
		counted = nil
	}
	version := nd.versions.Sum()
	free, total, multi := pl.countDevices(dra, n, counted, version)
	// A device that allows multiple allocations may serve several requests: counting
	// devices proves nothing on a node that has one.
	exact = exact && !multi
	if exact && want > free {
		// Not enough free devices of any kind: no search can succeed.
		return nil, statusCannotAlloc
	}
	na, st := pl.cachedRun(ctx, s, n, nd, claims, keys, version)
	if st != nil || na != nil {
		return na, st
	}
	peerKeys, peerClaims, peerAllocs := pl.peerClaims(s.pod, n)
	if len(peerKeys) == 0 || len(peerKeys) > maxJointPeers {
		return nil, statusCannotAlloc
	}
	var held []framework.DeviceID
	for _, a := range peerAllocs {
		held = append(held, framework.AllocatedDevices(a)...)
	}
	if peerWant, peerExact := deviceCount(peerClaims); exact && peerExact && want+peerWant > min(total, free+len(held)) {
		// The peers' devices and the free ones cannot serve them all: the exhaustive
		// search would only prove it the long way.
		return nil, statusCannotAlloc
	}
	res, st := pl.run(ctx, n, append(peerClaims, claims...), without(dra.AllocatedState(), peerAllocs))
	if st != nil {
		return nil, st
	}
	if res == nil {
		return nil, statusCannotAlloc
	}
	return &nodeAllocation{node: n.Name, keys: append(peerKeys, keys...), results: res}, nil
}

// cachedRun is run for the pod's claims, as an allocation of the node (nil when they do
// not fit). The allocation of the pod's own claims is kept on the node's memo entry (one
// of its own, not the entry nodes without slices share: an allocation names its node):
// the members of a gang, and pods made from one template, have claims of the same specs,
// and a node where the last pod did not land still has the same free devices, so most
// Filter calls reuse an earlier one's allocation instead of searching again. What is kept
// is shared, to be read only: Reserve copies the one it records. version is the node's
// DRA.DevicesVersion.
func (pl *DynamicResources) cachedRun(ctx context.Context, s *stateData, n *framework.NodeInfo, nd *nodeDevices, claims []*resourceapi.ResourceClaim, keys []string, version uint64) (*nodeAllocation, *framework.Status) {
	dra := pl.h.Snapshot().DRA()
	if s.specID == 0 || len(claims) != len(s.toAllocate) {
		res, st := pl.run(ctx, n, claims, dra.AllocatedState())
		if st != nil || res == nil {
			return nil, st
		}
		return &nodeAllocation{node: n.Name, keys: keys, results: res}, nil
	}
	domain := dra.Domain()
	nd = pl.devices.own(dra, nd, n)
	static := nd.staticOf(n)
	if na, ok := nd.result(s.specID, version, static, domain); ok {
		return na, nil
	}
	res, st := pl.run(ctx, n, claims, dra.AllocatedState())
	if st != nil {
		return nil, st
	}
	var na *nodeAllocation
	if res != nil {
		na = &nodeAllocation{node: n.Name, results: res} // keys nil: the pod's own (toKeys)
	}
	nd.keep(static, cachedResult{spec: s.specID, version: version, domain: domain, alloc: na})
	return na, nil
}

// maxSpecIDs bounds the numbers kept for specs; they are forgotten when full.
const maxSpecIDs = 1 << 16

// specID numbers the specs of the claims a pod must allocate (specKey), so that the kept
// results compare a number, not the specs' JSON; 0 when the specs have no key. Numbers
// are never reused, so a forgotten spec's results are never served for another.
func (pl *DynamicResources) specID(key string) uint64 {
	if key == "" {
		return 0
	}
	pl.specMu.Lock()
	defer pl.specMu.Unlock()
	if id, ok := pl.specIDs[key]; ok {
		return id
	}
	if len(pl.specIDs) >= maxSpecIDs {
		clear(pl.specIDs)
	}
	pl.lastSpecID++
	pl.specIDs[key] = pl.lastSpecID
	return pl.lastSpecID
}

// specKey identifies the specs of the claims a pod must allocate, for cachedRun.
func specKey(claims []*resourceapi.ResourceClaim) string {
	var b []byte
	for _, c := range claims {
		js, err := json.Marshal(c.Spec)
		if err != nil {
			return ""
		}
		b = append(append(b, js...), 0)
	}
	return string(b)
}

// maxJointPeers bounds the claims of earlier members a joint search includes: the
// allocator's search is exhaustive, so its cost grows quickly with the claims it is given.
const maxJointPeers = 16

// countDevices returns how many devices a node can use (its slices', less those a
// placement's domain excludes), how many of them are free, and whether one of them allows
// multiple allocations. nd is the node's memo, nil while a placement's domain excludes
// some of its devices; version is the node's DRA.DevicesVersion: the memo's count of free
// devices holds while it does not change.
func (pl *DynamicResources) countDevices(dra framework.DRA, n *framework.NodeInfo, nd *nodeDevices, version uint64) (free, total int, multi bool) {
	if nd != nil {
		return nd.freeAt(version, dra.Allocated()), len(nd.ids), nd.multi
	}
	taken := dra.Allocated()
	for _, s := range pl.slicesFor(dra, n.Name) {
		for i := range s.Spec.Devices {
			total++
			if m := s.Spec.Devices[i].AllowMultipleAllocations; m != nil && *m {
				multi = true
			}
			if !taken.Has(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, s.Spec.Devices[i].Name)) {
				free++
			}
		}
	}
	return free, total, multi
}

// without returns a copy of the allocated state without what the allocations take: the
// devices, shares and capacity a joint search may assign again.
func without(st structured.AllocatedState, allocs []*resourceapi.AllocationResult) structured.AllocatedState {
	out := structured.AllocatedState{AllocatedDevices: st.AllocatedDevices.Clone(), AllocatedSharedDeviceIDs: st.AllocatedSharedDeviceIDs, AggregatedCapacity: st.AggregatedCapacity}
	cloned := false
	for _, a := range allocs {
		for _, id := range framework.AllocatedDevices(a) {
			out.AllocatedDevices.Delete(id)
		}
		for _, sd := range framework.SharedDevices(a) {
			if !cloned {
				out.AllocatedSharedDeviceIDs, out.AggregatedCapacity = st.AllocatedSharedDeviceIDs.Clone(), st.AggregatedCapacity.Clone()
				cloned = true
			}
			out.AllocatedSharedDeviceIDs.Delete(sd.ID)
			if sd.Consumed != nil {
				out.AggregatedCapacity.Remove(*sd.Consumed)
			}
		}
	}
	return out
}

// deviceCount is how many free devices the claims ask for, when every request asks for an
// exact count of them (exact false otherwise: "all", prioritized lists and admin access,
// which may take devices other claims hold, are left to the allocator).
func deviceCount(claims []*resourceapi.ResourceClaim) (n int, exact bool) {
	for _, c := range claims {
		for _, r := range c.Spec.Devices.Requests {
			if r.Exactly == nil || r.Exactly.AllocationMode != resourceapi.DeviceAllocationModeExactCount ||
				(r.Exactly.AdminAccess != nil && *r.Exactly.AdminAccess) {
				return 0, false
			}
			n += int(r.Exactly.Count)
		}
	}
	return n, true
}

// run calls the structured allocator for one node against a set of taken devices. It
// returns nil results when the claims do not fit.
func (pl *DynamicResources) run(ctx context.Context, n *framework.NodeInfo, claims []*resourceapi.ResourceClaim, state structured.AllocatedState) ([]resourceapi.AllocationResult, *framework.Status) {
	dra := pl.h.Snapshot().DRA()
	alloc, err := structured.NewAllocator(ctx, Features, state, classLister{dra}, pl.slicesFor(dra, n.Name), pl.celCache)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	allocCtx := ctx
	if pl.filterTimeout > 0 {
		var cancel context.CancelFunc
		allocCtx, cancel = context.WithTimeout(ctx, pl.filterTimeout)
		defer cancel()
	}
	res, err := alloc.Allocate(allocCtx, n.Node(), claims)
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		// As kube-scheduler: a timeout may be transient (the node's slices, the load), so
		// an error, retried with backoff rather than parked until a cluster event.
		return nil, framework.AsStatus(fmt.Errorf("node %s: timed out trying to allocate devices", n.Name))
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return nil, framework.NewStatus(framework.Unschedulable, err.Error())
	case ctx.Err() != nil:
		return nil, framework.NewStatus(framework.Unschedulable, fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)))
	case err != nil:
		// A claim or class the allocator cannot use (a broken CEL selector, say): an
		// error, retried with backoff, as kube-scheduler does.
		return nil, framework.AsStatus(err)
	case len(res) != len(claims):
		return nil, nil
	}
	return res, nil
}

// peerClaims returns the claims that members of the pod's group, placed on the node earlier
// in this cycle, had allocated by this plugin, with those allocations.
// Claims the group shares are left out: every member relies on where they are.
func (pl *DynamicResources) peerClaims(p *framework.PodInfo, n *framework.NodeInfo) ([]string, []*resourceapi.ResourceClaim, []*resourceapi.AllocationResult) {
	if p.Group == "" {
		return nil, nil, nil
	}
	dra := pl.h.Snapshot().DRA()
	var keys []string
	var claims []*resourceapi.ResourceClaim
	var held []*resourceapi.AllocationResult
	for _, q := range n.Pods {
		if q == p || q.Assumed || q.Pod.Spec.NodeName != "" || !sameGroup(p, q) {
			continue
		}
		owner := pl.ownerState(q)
		if owner == nil {
			continue
		}
		for _, key := range owner.toKeys {
			ci := dra.Claim(key)
			if ci == nil || ci.Claim.Status.Allocation != nil || ci.Assumed == nil || pl.owners[key] != owner {
				continue
			}
			keys = append(keys, key)
			claims = append(claims, ci.Claim)
			held = append(held, ci.Assumed)
		}
	}
	return keys, claims, held
}

// ownerState finds the state of a pod placed in this cycle through the claims it owns.
func (pl *DynamicResources) ownerState(q *framework.PodInfo) *stateData {
	for _, key := range claimKeysOf(q) {
		if o := pl.owners[key]; o != nil && o.pod == q {
			return o
		}
	}
	return nil
}

func claimKeysOf(q *framework.PodInfo) []string {
	var out []string
	for _, pc := range framework.ResolvePodClaims(q.Pod, nil) {
		if pc.Name != "" {
			out = append(out, q.Pod.Namespace+"/"+pc.Name)
		}
	}
	return out
}

func sameGroup(p, q *framework.PodInfo) bool {
	return p.Group == q.Group && p.Pod.Namespace == q.Pod.Namespace
}

// slicesFor returns the slices the allocator may use on a node: all the node can use, or,
// while a placement restricts devices to a domain, copies without the devices it
// excludes (cached for the domain, which lives for one placement's evaluation).
func (pl *DynamicResources) slicesFor(dra framework.DRA, node string) []*resourceapi.ResourceSlice {
	all := dra.SlicesFor(node)
	d := dra.Domain()
	if !d.ExcludesOn(node) {
		return all
	}
	pl.domainMu.Lock()
	defer pl.domainMu.Unlock()
	if pl.domain != d {
		pl.domain, pl.domainSlices = d, map[string][]*resourceapi.ResourceSlice{}
	}
	if out, ok := pl.domainSlices[node]; ok {
		return out
	}
	excluded := func(s *resourceapi.ResourceSlice, dev string) bool {
		id := structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, dev)
		return d.Excluded[node].Has(id) || d.Excluded[""].Has(id)
	}
	out := make([]*resourceapi.ResourceSlice, 0, len(all))
	for _, s := range all {
		if !slices.ContainsFunc(s.Spec.Devices, func(dev resourceapi.Device) bool { return excluded(s, dev.Name) }) {
			out = append(out, s)
			continue
		}
		c := s.DeepCopy()
		c.Spec.Devices = slices.DeleteFunc(c.Spec.Devices, func(dev resourceapi.Device) bool { return excluded(s, dev.Name) })
		out = append(out, c)
	}
	pl.domainSlices[node] = out
	return out
}
