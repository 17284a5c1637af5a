// Package dynamicresources is the DynamicResources plugin: pods with ResourceClaims
// (resource.k8s.io/v1, structured parameters) are placed only where their claims can be
// allocated, using the upstream structured allocator on the snapshot's devices. Reserve
// records the allocation in the snapshot (so later cycles, and later members of a group,
// count the devices as taken), and PreBind writes it with the claim's reservation, as
// kube-scheduler's plugin of the same name does. Claims a PodGroup shares (KEP-5729) are
// allocated once and reserved for the group; a member that fails where earlier members of
// its group hold devices gets their allocations searched again together with its own, so a
// gang's devices are assigned as a whole rather than first come, first served.
package dynamicresources

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "DynamicResources"

// Features are the allocator features phalanx enables: those kube-scheduler v1.37 enables
// by default (AllocatorFeatures of its plugin with the default feature gates). Consumable
// capacity (DRAConsumableCapacity and DRAFractionalCapacityRange) lets claims share a
// device that allows multiple allocations, up to its capacity; device binding and status
// (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus) allows devices with
// binding conditions, which PreBind waits for. With them the allocator is upstream's
// "incubating" implementation, as in kube-scheduler.
var Features = structured.Features{
	AdminAccess:             true,
	PrioritizedList:         true,
	PartitionableDevices:    true,
	DeviceTaints:            true,
	ConsumableCapacity:      true,
	FractionalCapacityRange: true,
	DeviceBindingAndStatus:  true,
}

// Messages, kube-scheduler's where it has one.
const (
	msgNotAvailable = "resourceclaim not available on the node"
	msgCannotAlloc  = "cannot allocate all claims"
	msgCannotFit    = "cannot fit resource"
	msgLeftover     = "cannot schedule extended resource claim"
)

// statusCannotAlloc is the rejection of a node whose devices cannot serve the claims, built
// once: Filter returns it for most nodes of a large cluster.
var statusCannotAlloc = framework.NewStatus(framework.Unschedulable, msgCannotAlloc).WithPlugin(Name)

// DynamicResources is a PreFilter, Filter, Reserve and PreBind plugin.
type DynamicResources struct {
	h        framework.Handle
	celCache *cel.Cache
	// bindingTimeout bounds the wait for devices' binding conditions.
	bindingTimeout time.Duration
	// filterTimeout bounds one node's allocation search in Filter (0: none).
	filterTimeout time.Duration
	// owners maps a claim allocated in a cycle to the state of the pod whose Reserve chose
	// its allocation, so that a later member of the same group that searches devices
	// together with it can update what that pod's PreBind will write. Only the scheduling
	// loop touches it.
	owners map[string]*stateData
	// ownersLimit is the size of owners at which it is next pruned of claims whose
	// allocation the API shows (their PreBind is done).
	ownersLimit int

	// domainSlices caches the node's slices without the devices the placement's domain
	// excludes, for the domain being evaluated.
	domainMu     sync.Mutex
	domain       *framework.DeviceDomain
	domainSlices map[string][]*resourceapi.ResourceSlice

	// devices memoizes, per node, the device IDs of its slices (countDevices), its
	// DevicesVersion's counters and the allocations found there (cachedRun).
	devices deviceMemo

	// specIDs numbers the claims' specs the kept allocations are for (lastSpecID the last
	// number given).
	specMu     sync.Mutex
	specIDs    map[string]uint64
	lastSpecID uint64
}

var (
	_ framework.PreFilterPlugin   = (*DynamicResources)(nil)
	_ framework.FilterPlugin      = (*DynamicResources)(nil)
	_ framework.ReservePlugin     = (*DynamicResources)(nil)
	_ framework.PreBindPlugin     = (*DynamicResources)(nil)
	_ framework.PreBindWaitPlugin = (*DynamicResources)(nil)
	_ framework.PostFilterPlugin  = (*DynamicResources)(nil)
	_ framework.EnqueueExtensions = (*DynamicResources)(nil)
)

// Args are the plugin's arguments, kube-scheduler's DynamicResourcesArgs that phalanx
// honours.
type Args struct {
	// BindingTimeout bounds PreBind's wait for the binding conditions of the pod's devices
	// (default 600 s, at least 1 s), as kube-scheduler's bindingTimeout.
	BindingTimeout *metav1.Duration `json:"bindingTimeout,omitempty"`
	// FilterTimeout bounds the allocator's search for one node (default 10 s, 0: none),
	// as kube-scheduler's filterTimeout (DRASchedulerFilterTimeout, beta and on): a
	// search that takes longer fails the node with an error, and the pod is retried
	// with backoff.
	FilterTimeout *metav1.Duration `json:"filterTimeout,omitempty"`
}

// DefaultBindingTimeout is kube-scheduler's default bindingTimeout.
const DefaultBindingTimeout = 600 * time.Second

// DefaultFilterTimeout is kube-scheduler's default filterTimeout. A search as long as
// this is rare (the allocator gives up on hard cases far sooner on the inputs seen); a
// simulation that hits it depends on the machine's speed.
const DefaultFilterTimeout = 10 * time.Second

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	var args Args
	if err := framework.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	timeout := DefaultBindingTimeout
	if t := args.BindingTimeout; t != nil {
		if t.Duration < time.Second {
			return nil, fmt.Errorf("bindingTimeout: Invalid value: %q: must be at least 1 second", t.Duration)
		}
		timeout = t.Duration
	}
	filterTimeout := DefaultFilterTimeout
	if t := args.FilterTimeout; t != nil {
		if t.Duration < 0 {
			return nil, fmt.Errorf("filterTimeout: Invalid value: %q: must be zero or positive", t.Duration)
		}
		filterTimeout = t.Duration
	}
	return &DynamicResources{
		h:              h,
		bindingTimeout: timeout,
		filterTimeout:  filterTimeout,
		celCache:       cel.NewCache(1000, cel.Features{}),
		owners:         map[string]*stateData{},
		specIDs:        map[string]uint64{},
	}, nil
}

// Name implements framework.Plugin.
func (pl *DynamicResources) Name() string { return Name }

// stateKey is where the pod's claims live in the CycleState.
const stateKey framework.StateKey = Name

// claimState is one of the pod's claims in this cycle.
type claimState struct {
	pc  framework.PodClaim
	key string
	// claim is the object when the cycle began.
	claim *resourceapi.ResourceClaim
	// availableOn is the node selector of a claim already allocated (nil: any node).
	availableOn *nodeaffinity.NodeSelector
	// skipsNodeOperations says the claim's allocation has a device whose node operations
	// are skipped (skipNodeOperations, KEP-5729's DRAOptionalNodeOperations): only a node
	// that declares the feature can serve it, as in kube-scheduler.
	skipsNodeOperations bool
	// allocate says the claim has no allocation yet: the cycle must find one.
	allocate bool
	// bindingBroken says the claim is allocated on devices whose binding failed (a
	// binding failure condition True) or timed out (not ready bindingTimeout after its
	// allocationTimestamp): it is available on no node, and PostFilter deallocates it.
	bindingBroken bool
}

// nodeAllocation is what Filter found on a node: an allocation for each claim in keys.
// When the search included claims of earlier members of the group (a joint search), keys
// holds theirs too.
type nodeAllocation struct {
	node string
	// keys nil stands for the pod's own claims to allocate (stateData.toKeys): such an
	// entry is one the node's memo keeps for every pod of the same specs (cachedRun).
	keys    []string
	results []resourceapi.AllocationResult
	// owned says results are this node allocation's own: Reserve records pointers into
	// them. Filter's entries are not (shared with the memo, to be read only): Reserve
	// records a copy.
	owned bool
}

// claimKeys are the claims results are for, in order.
func (na *nodeAllocation) claimKeys(s *stateData) []string {
	if na.keys == nil {
		return s.toKeys
	}
	return na.keys
}

// stateData is the pod's DRA state for one cycle, and what PreBind writes.
type stateData struct {
	pod    *framework.PodInfo
	claims []claimState
	// toAllocate are the claims to allocate, in claims order.
	toAllocate []*resourceapi.ResourceClaim
	toKeys     []string
	// want and exact are deviceCount(toAllocate).
	want  int
	exact bool
	// readsNode says a claim's availability depends on the node (an allocation's node
	// selector, skipped node operations, a broken binding): Filter reads the Node only then.
	readsNode bool
	// specID identifies the specs of toAllocate, for the per-node result cache (0: none).
	specID uint64
	// extended is the claim made for extended resources backed by DRA, if any.
	extended *extendedClaim

	perNode *nodeAllocations
	mu      sync.Mutex
	// unavailable are the claims (keys) Filter found unavailable on some node, for
	// PostFilter, as kube-scheduler's unavailableClaims.
	unavailable map[string]bool

	// decided are the allocations PreBind writes, by claim key: chosen in Reserve (or
	// changed by a later member's joint search) and those of shared claims allocated
	// earlier in the group's cycle. Written on the loop before binding starts.
	decided map[string]*resourceapi.AllocationResult
	// reserved are the claims (keys) PreBind reserved for the pod, whose reservation
	// Unreserve drops when the binding fails after it.
	reserved []string
}

// Clone returns the state itself: preemption's dry runs only add per-node results.
func (s *stateData) Clone() framework.StateData { return s }

func readState(cs *framework.CycleState) *stateData {
	s, _ := cs.Read(stateKey).(*stateData)
	return s
}

// PreFilter resolves the pod's claims and says which must be allocated. A pod waits
// (unresolvable until a claim or pod event) while a claim is missing, being deleted, not
// created from its template yet, or being allocated for another pod.
func (pl *DynamicResources) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	ext, st := pl.preFilterExtended(p)
	if st != nil {
		return nil, st
	}
	if len(p.Pod.Spec.ResourceClaims) == 0 && ext == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	dra := pl.h.Snapshot().DRA()
	pl.pruneOwners(dra)
	var g *framework.GroupInfo
	if k := framework.GroupKey(p); k != "" {
		g = pl.h.Snapshot().Group(k)
	}
	s := &stateData{pod: p, perNode: newNodeAllocations(len(pl.h.Snapshot().NodeInfos())), extended: ext}
	for _, pc := range framework.ResolvePodClaims(p.Pod, framework.PodGroupOf(g)) {
		if pc.Err != nil {
			return nil, unresolvable(pc.Err.Error())
		}
		if pc.Name == "" {
			continue // intentionally not created: nothing to allocate
		}
		key := p.Pod.Namespace + "/" + pc.Name
		ci := dra.Claim(key)
		if ci == nil {
			return nil, unresolvable(fmt.Sprintf("resourceclaim %q not found", pc.Name))
		}
		claim := ci.Claim
		if claim.DeletionTimestamp != nil {
			return nil, unresolvable(fmt.Sprintf("resourceclaim %q is being deleted", pc.Name))
		}
		if err := pc.CheckClaimOwner(p.Pod, claim); err != nil {
			return nil, unresolvable(err.Error())
		}
		c := claimState{pc: pc, key: key, claim: claim}
		consumer := pc.Consumer(p.Pod)
		switch alloc := ci.Allocation(); {
		case alloc == nil:
			if st := pl.checkClasses(claim); st != nil {
				return nil, st
			}
			c.allocate = true
			s.toAllocate = append(s.toAllocate, claim)
			s.toKeys = append(s.toKeys, key)
		case claim.Status.Allocation == nil && !pl.sharesAssumed(p, key, pc):
			return nil, unresolvable(fmt.Sprintf("resource claim %s is in the process of being allocated", key))
		default:
			if !framework.ReservedFor(claim, consumer) && len(claim.Status.ReservedFor) >= resourceapi.ResourceClaimReservedForMaxSize {
				return nil, unresolvable(fmt.Sprintf("resourceclaim %q in use", pc.Name))
			}
			if alloc.NodeSelector != nil {
				sel, err := nodeaffinity.NewNodeSelector(alloc.NodeSelector)
				if err != nil {
					return nil, framework.AsStatus(err)
				}
				c.availableOn = sel
			}
			c.skipsNodeOperations = skipsNodeOperations(alloc)
			c.bindingBroken = pl.bindingBroken(claim)
			s.readsNode = s.readsNode || c.availableOn != nil || c.skipsNodeOperations || c.bindingBroken
		}
		s.claims = append(s.claims, c)
	}
	if len(s.claims) == 0 && ext == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	if len(s.toAllocate) > 0 {
		s.specID = pl.specID(specKey(s.toAllocate))
		s.want, s.exact = deviceCount(s.toAllocate)
	}
	// The nodes with slices are found here, on one thread, when the slices or the nodes
	// changed, not by the first Filter calls of the cycle's workers.
	snap := pl.h.Snapshot()
	pl.devices.sliceHolders(dra, snap, dra.SlicesVersion(), snap.LayoutVersion())
	cs.Write(stateKey, s)
	return nil, nil
}

// pruneOwners forgets, once owners has grown, the claims whose allocation the API shows or
// that are gone: their PreBind is done, and no joint search may change them any more.
func (pl *DynamicResources) pruneOwners(dra framework.DRA) {
	if len(pl.owners) < max(pl.ownersLimit, 1024) {
		return
	}
	for key := range pl.owners {
		if ci := dra.Claim(key); ci == nil || ci.Claim.Status.Allocation != nil {
			delete(pl.owners, key)
		}
	}
	pl.ownersLimit = 2 * len(pl.owners)
}

// sharesAssumed reports whether the pod may use an allocation another pod's Reserve chose
// and PreBind has not written yet: a claim its group shares, or one a member of its group
// allocated. Any other pod waits for the allocation to be written.
func (pl *DynamicResources) sharesAssumed(p *framework.PodInfo, key string, pc framework.PodClaim) bool {
	if pc.Group != nil {
		return true
	}
	owner := pl.owners[key]
	return owner != nil && p.Group != "" && framework.GroupKey(owner.pod) == framework.GroupKey(p)
}

// checkClasses makes a claim whose device class does not exist wait for one.
func (pl *DynamicResources) checkClasses(claim *resourceapi.ResourceClaim) *framework.Status {
	dra := pl.h.Snapshot().DRA()
	check := func(class, request string) *framework.Status {
		if class == "" {
			return framework.AsStatus(fmt.Errorf("request %s: unsupported request type", request))
		}
		if dra.Class(class) == nil {
			return unresolvable(fmt.Sprintf("request %s: device class %s does not exist", request, class))
		}
		return nil
	}
	for _, r := range claim.Spec.Devices.Requests {
		switch {
		case r.Exactly != nil:
			if st := check(r.Exactly.DeviceClassName, r.Name); st != nil {
				return st
			}
		case len(r.FirstAvailable) > 0:
			for _, sub := range r.FirstAvailable {
				if st := check(sub.DeviceClassName, r.Name+"/"+sub.Name); st != nil {
					return st
				}
			}
		default:
			return unresolvable(fmt.Sprintf("resource claim %s, request %s: unknown request type", claim.Name, r.Name))
		}
	}
	return nil
}

// PreFilterExtensions returns nil: Filter reads the snapshot's taken devices live, so it
// sees devices a simulation freed by removing pods.
func (pl *DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks that the claims already allocated are available on the node, and that the
// others can be allocated from the devices the node can use.
func (pl *DynamicResources) Filter(ctx context.Context, cs *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s := readState(cs)
	if s == nil {
		return nil
	}
	claims, keys := s.toAllocate, s.toKeys
	if s.extended != nil && s.extended.leftover != nil {
		return unresolvable(msgLeftover)
	}
	if s.extended != nil {
		ec, st := s.extended.forNode(pl.h.Snapshot().DRA(), n)
		if st != nil {
			return st
		}
		if ec != nil {
			claims, keys = append(claims[:len(claims):len(claims)], ec), append(keys[:len(keys):len(keys)], extendedKey)
		}
	}
	// As kube-scheduler: a claim allocated elsewhere rejects the node, but only once the
	// claims to allocate were searched for, whose failure is what the node reports.
	// A claim whose binding failed or timed out is available on no node.
	var unavailable []string
	if s.readsNode {
		node := n.Node()
		for _, c := range s.claims {
			if c.bindingBroken || (c.availableOn != nil && !c.availableOn.Match(node)) ||
				(c.skipsNodeOperations && !slices.Contains(node.Status.DeclaredFeatures, draoptionalnodeoperations.DRAOptionalNodeOperationsFeatureGate)) {
				unavailable = append(unavailable, c.key)
			}
		}
	}
	if len(claims) > 0 {
		na, st := pl.allocate(ctx, s, n, claims, keys)
		if st != nil {
			return st
		}
		if len(unavailable) == 0 {
			s.perNode.store(n.Index, na)
			return nil
		}
	}
	if len(unavailable) == 0 {
		return nil
	}
	s.mu.Lock()
	if s.unavailable == nil {
		s.unavailable = map[string]bool{}
	}
	for _, k := range unavailable {
		s.unavailable[k] = true
	}
	s.mu.Unlock()
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNotAvailable)
}

// skipsNodeOperations reports whether an allocation has a device whose node operations
// are skipped, as kube-scheduler's allocationResultRequiresDRAOptionalNodeOperations.
func skipsNodeOperations(alloc *resourceapi.AllocationResult) bool {
	for _, r := range alloc.Devices.Results {
		if len(r.SkipNodeOperations) > 0 {
			return true
		}
	}
	return false
}

// Reserve records the allocation Filter found on the node in the snapshot, and what
// PreBind must write.
func (pl *DynamicResources) Reserve(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, node string) *framework.Status {
	s := readState(cs)
	if s == nil {
		return nil
	}
	dra := pl.h.Snapshot().DRA()
	s.decided = map[string]*resourceapi.AllocationResult{}
	index := -1 // a node the snapshot does not have: none
	if n := pl.h.Snapshot().Get(node); n != nil {
		index = n.Index
	}
	na := s.perNode.load(index, node)
	// A node that has the pod's extended resources from a device plugin needs no claim
	// for them (Filter computed nothing there).
	if na == nil && (len(s.toAllocate) > 0 || s.extended.needed() && needsClaim(dra, s.extended, pl.h.Snapshot().Get(node))) {
		return framework.AsStatus(fmt.Errorf("no device allocation was computed for node %s", node))
	}
	if na != nil {
		if !na.owned {
			// The copy replaces Filter's entry: a repeated Reserve of this state records
			// the same pointers.
			na = &nodeAllocation{node: na.node, keys: na.claimKeys(s), results: slices.Clone(na.results), owned: true}
			s.perNode.store(index, na)
		}
		for i, key := range na.keys {
			res := &na.results[i]
			if key == extendedKey {
				s.extended.allocation = res
				s.extended.claim = s.extended.nodeClaim(dra, pl.h.Snapshot().Get(node))
				continue
			}
			dra.AssumeAllocation(key, res)
			// A joint search also re-allocated claims of earlier members: what their
			// PreBind writes changes with it.
			owner := s
			if !slices.Contains(s.toKeys, key) {
				owner = pl.owners[key]
			}
			if owner != nil && owner.decided != nil {
				owner.decided[key] = res
				pl.owners[key] = owner
			}
		}
	}
	// Shared claims allocated earlier in the cycle: this pod's PreBind writes them too
	// (whichever member's binding comes first does it; the others find it done).
	for _, c := range s.claims {
		if _, ok := s.decided[c.key]; ok || c.allocate {
			continue
		}
		if ci := dra.Claim(c.key); ci != nil && ci.Claim.Status.Allocation == nil && ci.Assumed != nil {
			s.decided[c.key] = ci.Assumed
		}
	}
	return nil
}

// needsClaim reports whether the pod needs a claim for its extended resources on the
// node (an unknown node: it does).
func needsClaim(dra framework.DRA, e *extendedClaim, n *framework.NodeInfo) bool {
	return n == nil || e.nodeClaim(dra, n) != nil
}

// Unreserve drops the allocations this pod's Reserve assumed and, when the binding failed
// after PreBind, the pod's reservations PreBind wrote and the claim it made for the pod's
// extended resources (deleted), as kube-scheduler's Unreserve does (a deletion that fails leaves it to the next attempt,
// which finds it by its owner and deletes it in PostFilter).
func (pl *DynamicResources) Unreserve(ctx context.Context, cs *framework.CycleState, p *framework.PodInfo, node string) {
	s := readState(cs)
	if s == nil {
		return
	}
	dra := pl.h.Snapshot().DRA()
	if client := pl.h.ResourceClient(); client != nil {
		// As kube-scheduler's Unreserve: a failed binding gives up the pod's reservations
		// (not the allocations); one that fails to be dropped is the ResourceClaim
		// controller's to clean once the pod is gone.
		for _, key := range s.reserved {
			ns, name, _ := strings.Cut(key, "/")
			_ = unreserveClaim(ctx, client, ns, name, p.Pod.UID)
		}
	}
	s.reserved = nil
	for _, key := range s.toKeys {
		if pl.owners[key] == s {
			delete(pl.owners, key)
		}
		if ci := dra.Claim(key); ci != nil && ci.Assumed != nil && ci.Assumed == s.decided[key] {
			dra.ForgetAllocation(key)
		}
	}
	if e := s.extended; e != nil {
		if client := pl.h.ResourceClient(); e.created != "" && client != nil {
			ns, name, _ := strings.Cut(e.created, "/")
			_ = deleteClaim(ctx, client, ns, name)
		}
		e.allocation, e.claim, e.created = nil, nil, ""
	}
	// s.decided is kept: a simulation may roll the snapshot back to before this Unreserve
	// (the allocation assumed again) and call Unreserve again, which must then forget it
	// again. The next Reserve starts afresh.
}

// EventsToRegister: claims created, allocated, freed or deleted; devices published; classes
// created; nodes added.
func (pl *DynamicResources) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.ResourceClaim, Action: framework.Add | framework.Update | framework.Delete},
		{Resource: framework.ResourceSlice, Action: framework.Add | framework.Update},
		{Resource: framework.DeviceClass, Action: framework.Add | framework.Update},
		{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeLabel},
		{Resource: framework.AssignedPod, Action: framework.Delete},
	}
}

func unresolvable(msg string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
}

// classLister serves the snapshot's device classes to the allocator.
type classLister struct{ dra framework.DRA }

func (l classLister) List() ([]*resourceapi.DeviceClass, error) { return l.dra.Classes(), nil }
func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	if c := l.dra.Class(name); c != nil {
		return c, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

var _ structured.DeviceClassLister = classLister{}
