package cache

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// DeviceStore is the cache's Dynamic Resource Allocation state, kept apart as
// kube-scheduler keeps it in its DRA manager: device classes, resource slices indexed by
// node, claims, and the devices allocated claims take. The event handlers write the API's
// objects into it; framework.DRA is its face for plugins, whose assumed allocations go
// through the undo log. Which pods use which claim is tracked as pods come and go, so that
// a simulation that removes the last pod using a claim frees the claim's devices, and
// rolling it back takes them again.
type DeviceStore struct {
	undo *undoLog
	// groups resolves the claims a pod takes from its PodGroup (spec.resourceClaims).
	groups  groupLookup
	classes map[string]*resourceapi.DeviceClass
	slices  map[string]*resourceapi.ResourceSlice
	claims  map[string]*framework.ClaimInfo
	// extendedClaims are the keys of the claims made for pods' extended resources, by
	// the UID of the pod that owns them.
	extendedClaims map[types.UID]string
	// rules are the DeviceTaintRules (ruleList by name); tainted holds, by slice name,
	// the slices a rule taints devices of, patched (devicetaints.go).
	rules    map[string]*resourceapi.DeviceTaintRule
	ruleList []*resourceapi.DeviceTaintRule
	tainted  map[string]*resourceapi.ResourceSlice
	// podClaims are the claim keys of each pod in the cache, as resolved when it came.
	podClaims map[*framework.PodInfo][]string

	// allocated is the set of devices held, for the allocator; holds counts the claims
	// holding each (admin access and shared devices may be held twice).
	allocated sets.Set[framework.DeviceID]
	holds     map[framework.DeviceID]int
	// shares are the shares of devices that allow multiple allocations, held by claims
	// (shareHolds counts the claims holding each), and consumed the capacity they take
	// per device: the allocator's AllocatedSharedDeviceIDs and AggregatedCapacity
	// (DRAConsumableCapacity).
	shares     sets.Set[framework.SharedDeviceID]
	shareHolds map[framework.SharedDeviceID]int
	consumed   structured.ConsumedCapacityCollection
	// poolVersion counts the changes of each pool's taken devices, by driver and pool.
	// Every slice's pool has a counter from the time the slice is set, never replaced nor
	// removed, so the counters DevicesVersionCounters hands out stay the pools' own.
	poolVersion map[poolKey]*uint64

	generation uint64
	sliceGen   uint64
	domain     *framework.DeviceDomain
	// Derived lists, rebuilt on first use after a change.
	classList []*resourceapi.DeviceClass
	extended  map[string]*resourceapi.DeviceClass
	sliceList []*resourceapi.ResourceSlice
	byNode    map[string][]*resourceapi.ResourceSlice
	shared    []*resourceapi.ResourceSlice
	indexed   bool
}

// groupLookup finds a PodGroup by namespace/name.
type groupLookup interface {
	Group(key string) *framework.GroupInfo
}

func newDeviceStore(undo *undoLog, groups groupLookup) *DeviceStore {
	return &DeviceStore{
		undo:           undo,
		groups:         groups,
		classes:        map[string]*resourceapi.DeviceClass{},
		slices:         map[string]*resourceapi.ResourceSlice{},
		rules:          map[string]*resourceapi.DeviceTaintRule{},
		tainted:        map[string]*resourceapi.ResourceSlice{},
		claims:         map[string]*framework.ClaimInfo{},
		extendedClaims: map[types.UID]string{},
		podClaims:      map[*framework.PodInfo][]string{},
		allocated:      sets.New[framework.DeviceID](),
		holds:          map[framework.DeviceID]int{},
		shares:         sets.New[framework.SharedDeviceID](),
		shareHolds:     map[framework.SharedDeviceID]int{},
		consumed:       structured.NewConsumedCapacityCollection(),
		poolVersion:    map[poolKey]*uint64{},
	}
}

var _ framework.DRA = (*DeviceStore)(nil)

func (d *DeviceStore) Class(name string) *resourceapi.DeviceClass { return d.classes[name] }

func (d *DeviceStore) Classes() []*resourceapi.DeviceClass {
	if d.classList == nil && len(d.classes) > 0 {
		d.classList = sortedValues(d.classes)
	}
	return d.classList
}

func (d *DeviceStore) ExtendedResourceClass(name string) *resourceapi.DeviceClass {
	if d.extended == nil {
		d.extended = map[string]*resourceapi.DeviceClass{}
		for _, dc := range d.Classes() {
			names := []string{resourceapi.ResourceDeviceClassPrefix + dc.Name}
			if dc.Spec.ExtendedResourceName != nil {
				names = append(names, *dc.Spec.ExtendedResourceName)
			}
			for _, n := range names {
				// Classes come by name, so among equally old ones the first name wins.
				if old := d.extended[n]; old == nil || dc.CreationTimestamp.After(old.CreationTimestamp.Time) {
					d.extended[n] = dc
				}
			}
		}
	}
	return d.extended[name]
}

// ExtendedResourceClaim implements framework.DRA.
func (d *DeviceStore) ExtendedResourceClaim(pod *v1.Pod) *framework.ClaimInfo {
	key, ok := d.extendedClaims[pod.UID]
	if !ok || !strings.HasPrefix(key, pod.Namespace+"/") {
		return nil
	}
	ci := d.Claim(key)
	if ci == nil || !extendedClaimOf(ci.Claim, pod) {
		return nil
	}
	return ci
}

// extendedClaimOwner is the UID of the pod a claim made for its extended resources
// belongs to (its controller owner), or "".
func extendedClaimOwner(c *resourceapi.ResourceClaim) types.UID {
	if c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
		return ""
	}
	for _, o := range c.OwnerReferences {
		if o.Kind == "Pod" && o.Controller != nil && *o.Controller {
			return o.UID
		}
	}
	return ""
}

// extendedClaimOf is kube-scheduler's findExtendedResourceClaim for one claim.
func extendedClaimOf(c *resourceapi.ResourceClaim, pod *v1.Pod) bool {
	if c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
		return false
	}
	for _, o := range c.OwnerReferences {
		if o.Name == pod.Name && o.Controller != nil && *o.Controller && o.UID == pod.UID {
			return true
		}
	}
	return false
}

func (d *DeviceStore) Claim(key string) *framework.ClaimInfo {
	if ci := d.claims[key]; ci != nil && ci.Claim != nil {
		return ci
	}
	return nil
}

func (d *DeviceStore) Slices() []*resourceapi.ResourceSlice {
	d.index()
	return d.sliceList
}

func (d *DeviceStore) SlicesFor(node string) []*resourceapi.ResourceSlice {
	d.index()
	local := d.byNode[node]
	if len(d.shared) == 0 {
		return local
	}
	return append(slices.Clip(local), d.shared...)
}

func (d *DeviceStore) Allocated() sets.Set[framework.DeviceID] { return d.allocated }

// AllocatedState implements framework.DRA.
func (d *DeviceStore) AllocatedState() structured.AllocatedState {
	return structured.AllocatedState{AllocatedDevices: d.allocated, AllocatedSharedDeviceIDs: d.shares, AggregatedCapacity: d.consumed}
}
func (d *DeviceStore) Domain() *framework.DeviceDomain      { return d.domain }
func (d *DeviceStore) SetDomain(dd *framework.DeviceDomain) { d.domain = dd }
func (d *DeviceStore) Generation() uint64                   { return d.generation }
func (d *DeviceStore) SlicesVersion() uint64                { return d.sliceGen }

// DevicesVersion implements framework.DRA: the slices' version plus the versions of the
// pools the node can use. Versions only grow, so the sum changes with any of them.
func (d *DeviceStore) DevicesVersion(node string) uint64 {
	d.index()
	v := d.sliceGen
	for _, s := range d.byNode[node] {
		v += *d.poolVersion[poolKey{s.Spec.Driver, s.Spec.Pool.Name}]
	}
	for _, s := range d.shared {
		v += *d.poolVersion[poolKey{s.Spec.Driver, s.Spec.Pool.Name}]
	}
	return v
}

// DevicesVersionCounters implements framework.DRA: the slices' version and the counter of
// the pool of each slice the node can use, the terms DevicesVersion sums. Filter keeps
// them per node, so that it reads a node's version without looking the node or its pools
// up (decision 66).
func (d *DeviceStore) DevicesVersionCounters(node string) framework.VersionCounters {
	d.index()
	local := d.byNode[node]
	out := make(framework.VersionCounters, 0, 1+len(local)+len(d.shared))
	out = append(out, &d.sliceGen)
	for _, s := range local {
		out = append(out, d.poolVersion[poolKey{s.Spec.Driver, s.Spec.Pool.Name}])
	}
	for _, s := range d.shared {
		out = append(out, d.poolVersion[poolKey{s.Spec.Driver, s.Spec.Pool.Name}])
	}
	return out
}

// bumpPool moves the version of a device's pool.
func (d *DeviceStore) bumpPool(id framework.DeviceID) { *d.poolCounter(poolOf(id))++ }

// poolCounter returns a pool's version counter, made on first use.
func (d *DeviceStore) poolCounter(k poolKey) *uint64 {
	c := d.poolVersion[k]
	if c == nil {
		c = new(uint64)
		d.poolVersion[k] = c
	}
	return c
}

// poolKey names a pool: driver and pool name.
type poolKey struct{ driver, pool string }

// poolOf is the pool of a device.
func poolOf(id framework.DeviceID) poolKey { return poolKey{id.Driver.String(), id.Pool.String()} }

func (d *DeviceStore) Empty() bool { return len(d.slices) == 0 && len(d.claims) == 0 }

// index rebuilds the slice lists after a change: node-local slices by node, the others
// (node selector, all nodes, per-device node selection) for every node.
func (d *DeviceStore) index() {
	if d.indexed {
		return
	}
	d.indexed = true
	d.sliceList = sortedValues(d.slices)
	for i, s := range d.sliceList {
		d.sliceList[i] = d.view(s.Name)
	}
	d.byNode = map[string][]*resourceapi.ResourceSlice{}
	d.shared = nil
	for _, s := range d.sliceList {
		if s.Spec.NodeName != nil && *s.Spec.NodeName != "" {
			d.byNode[*s.Spec.NodeName] = append(d.byNode[*s.Spec.NodeName], s)
		} else {
			d.shared = append(d.shared, s)
		}
	}
}

// SetDeviceClass records or replaces a DeviceClass.
func (d *DeviceStore) SetDeviceClass(dc *resourceapi.DeviceClass) {
	d.classes[dc.Name] = dc
	d.classList, d.extended = nil, nil
	d.generation++
}

// RemoveDeviceClass forgets a DeviceClass.
func (d *DeviceStore) RemoveDeviceClass(name string) {
	delete(d.classes, name)
	d.classList, d.extended = nil, nil
	d.generation++
}

// SetResourceSlice records or replaces a ResourceSlice.
func (d *DeviceStore) SetResourceSlice(s *resourceapi.ResourceSlice) {
	d.slices[s.Name] = s
	d.poolCounter(poolKey{s.Spec.Driver, s.Spec.Pool.Name})
	d.setView(s.Name, s, taintSlice(s, d.ruleList))
	d.indexed = false
	d.generation++
	d.sliceGen++
}

// RemoveResourceSlice forgets a ResourceSlice.
func (d *DeviceStore) RemoveResourceSlice(name string) {
	delete(d.slices, name)
	delete(d.tainted, name)
	d.indexed = false
	d.generation++
	d.sliceGen++
}

// SetResourceClaim records a claim as the API reports it. An allocation the scheduler
// assumed gives way once the API shows one.
func (d *DeviceStore) SetResourceClaim(claim *resourceapi.ResourceClaim) {
	key := claim.Namespace + "/" + claim.Name
	ci := d.claims[key]
	if ci == nil {
		ci = &framework.ClaimInfo{Key: key}
		d.claims[key] = ci
	}
	d.release(ci)
	if ci.Claim != nil {
		if uid := extendedClaimOwner(ci.Claim); uid != "" && d.extendedClaims[uid] == key {
			delete(d.extendedClaims, uid)
		}
	}
	if uid := extendedClaimOwner(claim); uid != "" {
		d.extendedClaims[uid] = key
	}
	ci.Claim = claim
	if claim.Status.Allocation != nil {
		ci.Assumed = nil
	}
	d.take(ci)
	d.generation++
}

// RemoveResourceClaim forgets a deleted claim; its devices are free.
func (d *DeviceStore) RemoveResourceClaim(key string) {
	ci := d.claims[key]
	if ci == nil {
		return
	}
	d.release(ci)
	if ci.Claim != nil {
		if uid := extendedClaimOwner(ci.Claim); uid != "" && d.extendedClaims[uid] == key {
			delete(d.extendedClaims, uid)
		}
	}
	ci.Claim, ci.Assumed = nil, nil
	if ci.Users == 0 {
		delete(d.claims, key)
	}
	d.generation++
}

// AssumeAllocation implements framework.DRA.
func (d *DeviceStore) AssumeAllocation(key string, a *resourceapi.AllocationResult) {
	ci := d.claims[key]
	if ci == nil || ci.Claim == nil {
		return
	}
	d.setAssumed(ci, a)
}

// ForgetAllocation implements framework.DRA.
func (d *DeviceStore) ForgetAllocation(key string) {
	if ci := d.claims[key]; ci != nil && ci.Assumed != nil {
		d.setAssumed(ci, nil)
	}
}

func (d *DeviceStore) setAssumed(ci *framework.ClaimInfo, a *resourceapi.AllocationResult) {
	old := ci.Assumed
	d.release(ci)
	ci.Assumed = a
	d.take(ci)
	d.generation++
	d.undo.logRevert(func() {
		d.release(ci)
		ci.Assumed = old
		d.take(ci)
		d.generation++
	})
}

// take and release add and remove a claim's devices from the allocated set when it holds
// them.
func (d *DeviceStore) take(ci *framework.ClaimInfo) {
	if ci.Claim == nil || !ci.Holds() {
		return
	}
	for _, id := range framework.AllocatedDevices(ci.Allocation()) {
		if d.holds[id]++; d.holds[id] == 1 {
			d.allocated.Insert(id)
			d.bumpPool(id)
		}
	}
	for _, sd := range framework.SharedDevices(ci.Allocation()) {
		if d.shareHolds[sd.ID]++; d.shareHolds[sd.ID] == 1 {
			d.shares.Insert(sd.ID)
		}
		if sd.Consumed != nil {
			d.consumed.Insert(*sd.Consumed)
		}
		id := sd.ID.GetDeviceID()
		d.bumpPool(id)
	}
}

func (d *DeviceStore) release(ci *framework.ClaimInfo) {
	if ci.Claim == nil || !ci.Holds() {
		return
	}
	for _, id := range framework.AllocatedDevices(ci.Allocation()) {
		if d.holds[id]--; d.holds[id] <= 0 {
			delete(d.holds, id)
			d.allocated.Delete(id)
			d.bumpPool(id)
		}
	}
	for _, sd := range framework.SharedDevices(ci.Allocation()) {
		if d.shareHolds[sd.ID]--; d.shareHolds[sd.ID] <= 0 {
			delete(d.shareHolds, sd.ID)
			d.shares.Delete(sd.ID)
		}
		if sd.Consumed != nil {
			d.consumed.Remove(*sd.Consumed)
		}
		id := sd.ID.GetDeviceID()
		d.bumpPool(id)
	}
}

// podAdded counts a pod as a user of its claims. A claim a simulation had freed takes its
// devices again.
func (d *DeviceStore) podAdded(pi *framework.PodInfo) {
	if len(pi.Pod.Spec.ResourceClaims) == 0 {
		return
	}
	var g *framework.GroupInfo
	if k := framework.GroupKey(pi); k != "" {
		g = d.groups.Group(k)
	}
	var keys []string
	for _, pc := range framework.ResolvePodClaims(pi.Pod, framework.PodGroupOf(g)) {
		if pc.Name != "" {
			keys = append(keys, pi.Pod.Namespace+"/"+pc.Name)
		}
	}
	if len(keys) == 0 {
		return
	}
	d.podClaims[pi] = keys
	var unfreed []*framework.ClaimInfo
	for _, key := range keys {
		ci := d.claims[key]
		if ci == nil {
			ci = &framework.ClaimInfo{Key: key}
			d.claims[key] = ci
		}
		ci.Users++
		if ci.Freed {
			ci.Freed = false
			d.take(ci)
			unfreed = append(unfreed, ci)
			d.generation++
		}
	}
	d.undo.logRevert(func() {
		delete(d.podClaims, pi)
		for _, ci := range unfreed {
			d.release(ci)
			ci.Freed = true
		}
		for _, key := range keys {
			ci := d.claims[key]
			ci.Users--
			if ci.Users == 0 && ci.Claim == nil {
				delete(d.claims, key)
			}
		}
		d.generation++
	})
}

// podRemoved stops counting a pod as a user of its claims. In a simulation, a claim left
// without users frees its devices when it would really lose them: the ResourceClaim
// controller deletes a claim made for the pod and deallocates one the scheduler allocated
// once nobody reserves it (ClaimInfo.ReleasedWithout), so a preemption victim's devices go
// with it, but not those of a claim allocated outside the scheduler or reserved for a pod
// that stays. A real removal leaves the devices taken until the API says the claim was
// deallocated.
func (d *DeviceStore) podRemoved(pi *framework.PodInfo) {
	keys, ok := d.podClaims[pi]
	if !ok {
		return
	}
	delete(d.podClaims, pi)
	var freed []*framework.ClaimInfo
	simulating := d.undo.simulating()
	for _, key := range keys {
		ci := d.claims[key]
		ci.Users--
		if simulating {
			ci.Gone = append(ci.Gone, pi)
		}
		switch {
		case ci.Users == 0 && simulating && ci.Holds() && ci.ReleasedWithout(ci.Gone):
			d.release(ci)
			ci.Freed = true
			freed = append(freed, ci)
			d.generation++
		case ci.Users == 0 && ci.Claim == nil:
			delete(d.claims, key) // a claim not known yet, used by no pod now
		}
	}
	d.undo.logRevert(func() {
		d.podClaims[pi] = keys
		for _, ci := range freed {
			ci.Freed = false
			d.take(ci)
		}
		for _, key := range keys {
			ci := d.claims[key]
			if ci == nil {
				ci = &framework.ClaimInfo{Key: key}
				d.claims[key] = ci
			}
			ci.Users++
			if simulating && len(ci.Gone) > 0 {
				ci.Gone = ci.Gone[:len(ci.Gone)-1]
			}
		}
		d.generation++
	})
}

// Releasing implements framework.DRA: the claims that hold devices, that no pod in the
// snapshot uses, and that the ResourceClaim controller releases now that gone are gone.
func (d *DeviceStore) Releasing(gone []*framework.PodInfo) []string {
	if len(gone) == 0 {
		return nil
	}
	var keys []string
	for key, ci := range d.claims {
		if ci.Users == 0 && ci.Holds() && usedByAny(ci, gone) && ci.ReleasedWithout(gone) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}

// usedByAny reports whether one of pods owned the claim or is among its consumers, so that
// only claims the pods really held count as theirs.
func usedByAny(ci *framework.ClaimInfo, pods []*framework.PodInfo) bool {
	for _, p := range pods {
		if owner := metav1.GetControllerOfNoCopy(ci.Claim); owner != nil && owner.UID == p.Pod.UID {
			return true
		}
		for _, r := range ci.Claim.Status.ReservedFor {
			if r.UID == p.Pod.UID {
				return true
			}
		}
		if p.Pod.Namespace != ci.Claim.Namespace {
			continue
		}
		for _, st := range p.Pod.Status.ResourceClaimStatuses {
			if st.ResourceClaimName != nil && *st.ResourceClaimName == ci.Claim.Name {
				return true
			}
		}
		for _, rc := range p.Pod.Spec.ResourceClaims {
			if rc.ResourceClaimName != nil && *rc.ResourceClaimName == ci.Claim.Name {
				return true
			}
		}
	}
	return false
}

// FreeReleasing implements framework.DRA; outside a checkpoint it does nothing (the API's
// deletion or deallocation frees the devices for real).
func (d *DeviceStore) FreeReleasing(gone []*framework.PodInfo) {
	if !d.undo.simulating() {
		return
	}
	for _, key := range d.Releasing(gone) {
		ci := d.claims[key]
		d.release(ci)
		ci.Freed = true
		d.generation++
		d.undo.logRevert(func() {
			ci.Freed = false
			d.take(ci)
			d.generation++
		})
	}
}

// ClaimUsers returns the pods in the cache that use a claim, by key, for reports and
// invariant checks.
func (d *DeviceStore) ClaimUsers(key string) []*framework.PodInfo {
	var out []*framework.PodInfo
	for pi, keys := range d.podClaims {
		if slices.Contains(keys, key) {
			out = append(out, pi)
		}
	}
	slices.SortFunc(out, func(a, b *framework.PodInfo) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// sortedValues returns a map's values ordered by key.
func sortedValues[T any](m map[string]*T) []*T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*T, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// verify: the pods recorded as using claims are pods in the cache, every claim's user
// count matches them, and the taken devices are exactly those of the claims that hold
// theirs.
func (d *DeviceStore) verify(pods *NodeStore) error {
	users, err := pods.countUsers(d.podClaims, "claims")
	if err != nil {
		return err
	}
	for k, ci := range d.claims {
		if ci.Users != users[k] {
			return fmt.Errorf("claim %s counts %d users, %d pods use it", k, ci.Users, users[k])
		}
		if ci.Claim == nil && ci.Users == 0 {
			return fmt.Errorf("claim %s kept without object or users", k)
		}
		if ci.Freed && (ci.Users > 0 || !d.undo.simulating()) {
			return fmt.Errorf("claim %s freed with %d users, simulating %v", k, ci.Users, d.undo.simulating())
		}
	}
	if err := d.verifyTaints(); err != nil {
		return err
	}
	want := map[framework.DeviceID]int{}
	for _, ci := range d.claims {
		if ci.Claim != nil && ci.Holds() {
			for _, id := range framework.AllocatedDevices(ci.Allocation()) {
				want[id]++
			}
		}
	}
	if len(want) != len(d.holds) || !sets.KeySet(want).Equal(d.allocated) {
		return fmt.Errorf("%d devices taken, %d held by claims", d.allocated.Len(), len(want))
	}
	for id, n := range want {
		if d.holds[id] != n {
			return fmt.Errorf("device %s held %d times, counted %d", id, d.holds[id], n)
		}
	}
	return d.verifyShares()
}

// verifyShares: the shares held and the capacity they consume are exactly those of the
// claims that hold theirs.
func (d *DeviceStore) verifyShares() error {
	want := map[framework.SharedDeviceID]int{}
	consumed := structured.NewConsumedCapacityCollection()
	for _, ci := range d.claims {
		if ci.Claim == nil || !ci.Holds() {
			continue
		}
		for _, sd := range framework.SharedDevices(ci.Allocation()) {
			want[sd.ID]++
			if sd.Consumed != nil {
				consumed.Insert(*sd.Consumed)
			}
		}
	}
	if len(want) != len(d.shareHolds) || !sets.KeySet(want).Equal(d.shares) {
		return fmt.Errorf("%d device shares taken, %d held by claims", d.shares.Len(), len(want))
	}
	for id, n := range want {
		if d.shareHolds[id] != n {
			return fmt.Errorf("device share %s held %d times, counted %d", id, d.shareHolds[id], n)
		}
	}
	nonzero := func(cc structured.ConsumedCapacityCollection) int {
		n := 0
		for _, c := range cc {
			if !c.Empty() {
				n++
			}
		}
		return n
	}
	if got, want := nonzero(d.consumed), nonzero(consumed); got != want {
		return fmt.Errorf("capacity consumed on %d devices, claims consume it on %d", got, want)
	}
	for id, c := range consumed {
		got := d.consumed[id]
		for name, q := range c {
			if g := got[name]; g == nil || g.Cmp(*q) != 0 {
				return fmt.Errorf("device %s: %s consumed %v, claims consume %s", id, name, g, q)
			}
		}
	}
	return nil
}
