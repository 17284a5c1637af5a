// Package volumebinding is the VolumeBinding plugin, with kube-scheduler's semantics: a
// pod's bound claims must be usable on the node (their volumes' node affinity; an in-tree
// volume's in its CSI form where the node's CSINode names its plugin migrated, decision
// 43), and its
// unbound WaitForFirstConsumer claims must either match an available volume the node can
// use or be provisionable there. Reserve records the choice in the snapshot; PreBind
// points each matched volume at its claim and names the node on each claim to provision,
// then waits for the PersistentVolume controller to complete the bindings before the pod
// is bound; a failure undoes the reservation and the pod is tried again.
package volumebinding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-helpers/storage/ephemeral"

	"github.com/phalanx-dev/phalanx/pkg/csimigration"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "VolumeBinding"

// kube-scheduler's reasons.
const (
	ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind"
	ErrReasonNodeConflict = "node(s) didn't match PersistentVolume's node affinity"
	// ErrReasonNotEnoughSpace: no CSIStorageCapacity the node can reach has room for a
	// claim to provision (a CSI driver that opts into storage capacity tracking).
	ErrReasonNotEnoughSpace = "node(s) did not have enough free storage"
	ErrReasonPVNotExist     = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	errUnboundImmediate     = "pod has unbound immediate PersistentVolumeClaims"
)

// DefaultBindTimeoutSeconds is how long PreBind waits for the PV controller, as in
// kube-scheduler.
const DefaultBindTimeoutSeconds = 600

// Args are the plugin's arguments.
type Args struct {
	// BindTimeoutSeconds bounds the wait for volumes to be bound in PreBind.
	BindTimeoutSeconds *int64 `json:"bindTimeoutSeconds,omitempty"`
	// Shape is the scoring function (see UtilizationShapePoint); kube-scheduler's default
	// when empty.
	Shape []UtilizationShapePoint `json:"shape,omitempty"`
}

// VolumeBinding is a PreFilter, Filter, Score, Reserve and PreBind plugin.
type VolumeBinding struct {
	h       framework.Handle
	timeout time.Duration
	shape   []UtilizationShapePoint
}

var (
	_ framework.PreFilterPlugin   = (*VolumeBinding)(nil)
	_ framework.FilterPlugin      = (*VolumeBinding)(nil)
	_ framework.PreScorePlugin    = (*VolumeBinding)(nil)
	_ framework.ScorePlugin       = (*VolumeBinding)(nil)
	_ framework.ReservePlugin     = (*VolumeBinding)(nil)
	_ framework.PreBindPlugin     = (*VolumeBinding)(nil)
	_ framework.EnqueueExtensions = (*VolumeBinding)(nil)
)

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args := Args{}
	if err := framework.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	timeout := int64(DefaultBindTimeoutSeconds)
	if t := args.BindTimeoutSeconds; t != nil {
		if *t <= 0 {
			return nil, fmt.Errorf("bindTimeoutSeconds: Invalid value: %d: must be positive", *t)
		}
		timeout = *t
	}
	shape := args.Shape
	if len(shape) == 0 {
		shape = defaultShape
	}
	if err := validateShape(shape); err != nil {
		return nil, err
	}
	return &VolumeBinding{h: h, timeout: time.Duration(timeout) * time.Second, shape: shape}, nil
}

// Name implements framework.Plugin.
func (*VolumeBinding) Name() string { return Name }

const stateKey framework.StateKey = Name

// claim is an unbound WaitForFirstConsumer claim of the pod.
type claim struct {
	key   string
	pvc   *v1.PersistentVolumeClaim
	class *storagev1.StorageClass
	// onNode is the node a claim is already being provisioned on by another pod of this
	// cycle (a group member sharing it).
	onNode string
	// order is the claim's place among the pod's volumes.
	order int
}

// bindings is what the pod's claims need on one node.
type bindings struct {
	static    map[string]string // claim key -> volume
	provision []string          // claim keys
	// provisioned are the claims to provision (those another pod of the cycle provisions
	// too), with the CSIStorageCapacity that admitted each, for Score.
	provisioned []provisioned
}

// provisioned is a claim to provision on the node and the storage capacity that has room
// for it (nil when its driver does not track capacity or it asks no size).
type provisioned struct {
	class    string
	request  int64
	capacity *storagev1.CSIStorageCapacity
}

type stateData struct {
	// bound are the volumes of the claims already bound (or matched in this cycle), in
	// the pod's order; nil for a claim whose volume does not exist.
	bound []*v1.PersistentVolume
	// unbound are the WaitForFirstConsumer claims, smallest request first (the order
	// kube-scheduler matches them to volumes in, so each gets the same volume).
	unbound []claim
	node    string

	mu      sync.Mutex
	perNode map[string]*bindings
	// decided is what Reserve chose, for PreBind.
	decided *bindings
}

func (s *stateData) Clone() framework.StateData { return s }

// PreFilter sorts the pod's claims: bound ones (whose volumes must fit the node), unbound
// WaitForFirstConsumer ones (to match or provision per node), and immediate ones not yet
// bound, which make the pod wait for the PV controller.
func (pl *VolumeBinding) PreFilter(_ context.Context, cs *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	keys := framework.PodPVCs(p.Pod)
	if len(keys) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	vols := pl.h.Snapshot().Volumes()
	if st := usableClaims(p.Pod, vols); st != nil {
		return nil, st
	}
	s := &stateData{perNode: map[string]*bindings{}}
	for _, key := range keys {
		pvc := vols.PVC(key)
		if pvc.Spec.VolumeName != "" && !metav1.HasAnnotation(pvc.ObjectMeta, annBindCompleted) {
			// Pre-bound: the claim names its volume, but the PV controller has not
			// completed the binding. kube-scheduler waits for it, as for an immediate
			// claim (the claim's update brings the pod back).
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, errUnboundImmediate)
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			pvName = vols.AssumedVolumeOf(key)
		}
		if pvName != "" {
			s.bound = append(s.bound, vols.PV(pvName))
			continue
		}
		className := ClaimClass(pvc)
		class := vols.StorageClass(className)
		if class == nil && className != "" {
			// kube-scheduler treats the claim as immediate and says only that; naming the
			// class that is missing says what to fix.
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("%s (persistentvolumeclaim %q names StorageClass %q, which does not exist)", errUnboundImmediate, pvc.Name, className))
		}
		if class == nil || class.VolumeBindingMode == nil || *class.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, errUnboundImmediate)
		}
		s.unbound = append(s.unbound, claim{key: key, pvc: pvc, class: class, onNode: vols.AssumedNodeOf(key), order: len(s.unbound)})
	}
	slices.SortStableFunc(s.unbound, func(a, b claim) int {
		x, y := a.pvc.Spec.Resources.Requests[v1.ResourceStorage], b.pvc.Spec.Resources.Requests[v1.ResourceStorage]
		return x.Cmp(y)
	})
	cs.Write(stateKey, s)
	return nil, nil
}

// usableClaims checks, as kube-scheduler does first, every claim the pod's volumes name,
// in their order, and rejects the pod (UnschedulableAndUnresolvable) at the first that
// does not exist (a generic ephemeral volume's: until the ephemeral volume controller
// makes it), is lost (bound to a volume that no longer exists), is being deleted, or is
// an ephemeral volume's claim the pod does not own; nil when all are usable.
func usableClaims(pod *v1.Pod, vols framework.Volumes) *framework.Status {
	reject := func(msg string) *framework.Status {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var name string
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(pod, vol)
		default:
			continue
		}
		pvc := vols.PVC(framework.PVCKey(pod.Namespace, name))
		switch {
		case pvc == nil && vol.Ephemeral != nil:
			return reject(fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name))
		case pvc == nil:
			return reject(fmt.Sprintf("persistentvolumeclaim %q not found", name))
		case pvc.Status.Phase == v1.ClaimLost:
			return reject(fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName))
		case pvc.DeletionTimestamp != nil:
			return reject(fmt.Sprintf("persistentvolumeclaim %q is being deleted", pvc.Name))
		}
		if vol.Ephemeral != nil {
			if err := ephemeral.VolumeIsForPod(pod, pvc); err != nil {
				return reject(err.Error())
			}
		}
	}
	return nil
}

// PreFilterExtensions returns nil: bindings do not depend on other pods.
func (*VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks the bound volumes' node affinity and finds, for each unbound claim, a
// volume to match or a way to provision on the node. As kube-scheduler, it checks both
// kinds of claims and gives every reason that applies, in its order.
func (pl *VolumeBinding) Filter(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil {
		return nil
	}
	node := n.Node()
	boundFit, boundExist := true, true
	for _, pv := range s.bound {
		if pv == nil {
			boundExist = false
			break
		}
		pv, err := pl.migrated(pv, n.Name)
		if err != nil {
			return framework.AsStatus(err)
		}
		if !NodeAffinityMatches(pv, node) {
			boundFit = false
			break
		}
	}
	var b *bindings
	unboundFit, enoughSpace := true, true
	if len(s.unbound) > 0 {
		var reason string
		b, reason = pl.findBindings(s, n)
		unboundFit, enoughSpace = reason != ErrReasonBindConflict, reason != ErrReasonNotEnoughSpace
	}
	var reasons []string
	if !boundFit {
		reasons = append(reasons, ErrReasonNodeConflict)
	}
	if !unboundFit {
		reasons = append(reasons, ErrReasonBindConflict)
	}
	if !enoughSpace {
		reasons = append(reasons, ErrReasonNotEnoughSpace)
	}
	if !boundExist {
		reasons = append(reasons, ErrReasonPVNotExist)
	}
	if len(reasons) > 0 {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	}
	if b != nil {
		s.mu.Lock()
		s.perNode[n.Name] = b
		s.mu.Unlock()
	}
	return nil
}

// migrated is a bound volume as kube-scheduler checks its node affinity on a node: an
// in-tree volume whose plugin kube-scheduler migrates (csimigration.MigrationOn) and the
// node's CSINode lists in its migrated-plugins annotation is translated to CSI, its zone
// topology then under the driver's key (which the node's labels must carry); any other
// volume as it is.
func (pl *VolumeBinding) migrated(pv *v1.PersistentVolume, node string) (*v1.PersistentVolume, error) {
	plugin := csimigration.PluginOfPV(pv)
	if plugin == "" || !csimigration.MigrationOn(plugin) {
		return pv, nil
	}
	if !csimigration.MigratedOnNode(plugin, pl.h.Snapshot().Volumes().CSINode(node)) {
		return pv, nil
	}
	t, err := csimigration.TranslatePV(pv)
	if err != nil {
		return nil, fmt.Errorf("could not translate pv: %v", err)
	}
	return t, nil
}

// findBindings finds what the pod's unbound claims need on the node: a volume for each it
// can match (smallest claim first, each volume used once), provisioning for the others.
// When one can be neither it returns nil and kube-scheduler's reason: the first claim to
// provision (those another pod provisions first, in the pod's order, then the others,
// smallest first) that its class cannot provision on the node gives ErrReasonBindConflict,
// one whose driver's storage capacities have no room for it there ErrReasonNotEnoughSpace.
func (pl *VolumeBinding) findBindings(s *stateData, n *framework.NodeInfo) (*bindings, string) {
	for _, c := range s.unbound {
		// Another pod of the cycle provisions it on a node: only that node will do.
		if c.onNode != "" && c.onNode != n.Name {
			return nil, ErrReasonBindConflict
		}
	}
	vols := pl.h.Snapshot().Volumes()
	node := n.Node()
	b := &bindings{static: map[string]string{}}
	taken := func(pv string) bool {
		for _, chosen := range b.static {
			if chosen == pv {
				return true
			}
		}
		return vols.AssumedClaimOf(pv) != ""
	}
	var provision []claim
	for _, c := range s.unbound {
		if c.onNode != "" {
			provision = append(provision, c)
		}
	}
	slices.SortStableFunc(provision, func(a, b claim) int { return a.order - b.order })
	for _, c := range s.unbound {
		if c.onNode != "" {
			continue
		}
		if pv := findMatchingVolume(c.pvc, vols.PVsOfClass(ClaimClass(c.pvc)), node, taken); pv != nil {
			b.static[c.key] = pv.Name
			continue
		}
		provision = append(provision, c)
	}
	for _, c := range provision {
		if c.class.Provisioner == "" || c.class.Provisioner == notSupportedProvision || !allowedTopology(c.class, node) {
			return nil, ErrReasonBindConflict
		}
		capacity, ok := enoughCapacity(vols, c, node)
		if !ok {
			return nil, ErrReasonNotEnoughSpace
		}
		if c.onNode == "" {
			b.provision = append(b.provision, c.key)
		}
		q := c.pvc.Spec.Resources.Requests[v1.ResourceStorage]
		b.provisioned = append(b.provisioned, provisioned{class: c.class.Name, request: q.Value(), capacity: capacity})
	}
	return b, ""
}

// enoughCapacity is kube-scheduler's storage capacity check for a claim to provision on a
// node: when its class's provisioner is a CSI driver whose CSIDriver opts into capacity
// tracking (spec.storageCapacity) and the claim asks a size, some CSIStorageCapacity of
// the class that the node reaches (its nodeTopology selects the node's labels; none
// selects no node) must offer that much in one volume (maximumVolumeSize, else capacity;
// neither: nothing). It returns the first such capacity, by namespace/name; a driver
// without a CSIDriver object, or not opting in, is not checked.
func enoughCapacity(vols framework.Volumes, c claim, node *v1.Node) (*storagev1.CSIStorageCapacity, bool) {
	q, asks := c.pvc.Spec.Resources.Requests[v1.ResourceStorage]
	if !asks {
		return nil, true
	}
	d := vols.CSIDriver(c.class.Provisioner)
	if d == nil || d.Spec.StorageCapacity == nil || !*d.Spec.StorageCapacity {
		return nil, true
	}
	size := q.Value()
	for _, sc := range vols.StorageCapacities(c.class.Name) {
		limit := sc.MaximumVolumeSize
		if limit == nil {
			limit = sc.Capacity
		}
		if limit == nil || limit.Value() < size || sc.NodeTopology == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(sc.NodeTopology)
		if err == nil && sel.Matches(labels.Set(node.Labels)) {
			return sc, true
		}
	}
	return nil, false
}

// allowedTopology reports whether a class's allowedTopologies admit the node (no list:
// every node).
func allowedTopology(class *storagev1.StorageClass, node *v1.Node) bool {
	if len(class.AllowedTopologies) == 0 {
		return true
	}
	for _, term := range class.AllowedTopologies {
		ok := true
		for _, e := range term.MatchLabelExpressions {
			if !slices.Contains(e.Values, node.Labels[e.Key]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Reserve records the node's bindings in the snapshot: matched volumes are taken, claims to
// provision are tied to the node.
func (pl *VolumeBinding) Reserve(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, node string) *framework.Status {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil || len(s.unbound) == 0 {
		return nil
	}
	s.mu.Lock()
	b := s.perNode[node]
	s.mu.Unlock()
	if b == nil {
		return framework.AsStatus(fmt.Errorf("no volume bindings were computed for node %s", node))
	}
	vols := pl.h.Snapshot().Volumes()
	for _, key := range slices.Sorted(mapKeys(b.static)) {
		vols.AssumeBinding(key, b.static[key])
	}
	for _, key := range b.provision {
		vols.AssumeProvisioning(key, node)
	}
	s.decided, s.node = b, node
	return nil
}

// Unreserve forgets the bindings Reserve assumed.
func (pl *VolumeBinding) Unreserve(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, _ string) {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil || s.decided == nil {
		return
	}
	vols := pl.h.Snapshot().Volumes()
	for key := range s.decided.static {
		vols.ForgetClaim(key)
	}
	for _, key := range s.decided.provision {
		vols.ForgetClaim(key)
	}
	s.decided = nil
}

// PreBind writes the bindings and waits until the PV controller has bound every claim.
func (pl *VolumeBinding) PreBind(ctx context.Context, cs *framework.CycleState, p *framework.PodInfo, node string) *framework.Status {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil || len(s.unbound) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	client := pl.h.ResourceClient()
	if client == nil {
		return framework.AsStatus(errors.New("no API client for volumes: the driver cannot bind them"))
	}
	if s.decided != nil {
		for _, key := range slices.Sorted(mapKeys(s.decided.static)) {
			if err := bindVolume(ctx, client, key, s.decided.static[key]); err != nil {
				return framework.AsStatus(fmt.Errorf("binding volume %s to claim %s: %w", s.decided.static[key], key, err))
			}
		}
		for _, key := range s.decided.provision {
			if err := selectNode(ctx, client, key, node); err != nil {
				return framework.AsStatus(fmt.Errorf("provisioning claim %s on %s: %w", key, node, err))
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, pl.timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, c := range s.unbound {
			pvc, err := client.GetPersistentVolumeClaim(ctx, c.pvc.Namespace, c.pvc.Name)
			if err != nil {
				return false, err
			}
			if pvc.Spec.VolumeName == "" || pvc.Annotations[annBindCompleted] == "" {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return framework.AsStatus(fmt.Errorf("waiting for the volumes of pod %s to be bound: %w", p.Key, err))
	}
	return nil
}

// bindVolume points a volume at the claim (claimRef, bound-by-controller), as
// kube-scheduler does; the PV controller completes the binding.
func bindVolume(ctx context.Context, client framework.ResourceClient, claimKey, pvName string) error {
	ns, name := splitKey(claimKey)
	for range 8 {
		pv, err := client.GetPersistentVolume(ctx, pvName)
		if err != nil {
			return err
		}
		pvc, err := client.GetPersistentVolumeClaim(ctx, ns, name)
		if err != nil {
			return err
		}
		if r := pv.Spec.ClaimRef; r != nil {
			if r.Namespace == ns && r.Name == name {
				return nil
			}
			return fmt.Errorf("volume is bound to %s/%s", r.Namespace, r.Name)
		}
		next := pv.DeepCopy()
		next.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: ns, Name: name,
			UID: pvc.UID, ResourceVersion: pvc.ResourceVersion}
		metav1.SetMetaDataAnnotation(&next.ObjectMeta, annBoundByController, "yes")
		if _, err = client.UpdatePersistentVolume(ctx, next); !apierrors.IsConflict(err) {
			return err
		}
	}
	return errors.New("the volume kept changing")
}

// selectNode names the node on a claim, so the provisioner makes its volume there.
func selectNode(ctx context.Context, client framework.ResourceClient, claimKey, node string) error {
	ns, name := splitKey(claimKey)
	for range 8 {
		pvc, err := client.GetPersistentVolumeClaim(ctx, ns, name)
		if err != nil {
			return err
		}
		if pvc.Annotations[annSelectedNode] == node || pvc.Spec.VolumeName != "" {
			return nil
		}
		next := pvc.DeepCopy()
		metav1.SetMetaDataAnnotation(&next.ObjectMeta, annSelectedNode, node)
		if _, err = client.UpdatePersistentVolumeClaim(ctx, next); !apierrors.IsConflict(err) {
			return err
		}
	}
	return errors.New("the claim kept changing")
}

// EventsToRegister: volumes and claims created or changed, classes created, CSINodes and
// nodes that may now serve a volume, CSIDrivers changed and storage capacities created or
// changed (room to provision).
func (*VolumeBinding) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.PersistentVolume, Action: framework.Add | framework.Update},
		{Resource: framework.PersistentVolumeClaim, Action: framework.Add | framework.Update},
		{Resource: framework.StorageClass, Action: framework.Add | framework.Update},
		{Resource: framework.CSINode, Action: framework.Add | framework.Update},
		{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeLabel},
		{Resource: framework.CSIDriver, Action: framework.Update},
		{Resource: framework.CSIStorageCapacity, Action: framework.Add | framework.Update},
	}
}

func splitKey(key string) (string, string) {
	for i := range key {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
