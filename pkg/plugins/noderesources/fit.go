package noderesources

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// FitName is NodeResourcesFit's name.
const FitName = "NodeResourcesFit"

// Fit checks that a node has room for a pod's requests and scores nodes by allocation.
type Fit struct {
	ignored       []bool // by resource index
	ignoredGroups []string
	// statuses caches rejection statuses by insufficient-resource set.
	statuses sync.Map
	// dra finds the DeviceClasses that back extended resources with devices: a node
	// without such a resource in its allocatable may still get it through DRA, which
	// DynamicResources checks.
	dra    framework.DRA
	scorer *allocationScorer
}

// NewFit builds NodeResourcesFit.
func NewFit(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := parseFitArgs(raw)
	if err != nil {
		return nil, err
	}
	f := &Fit{ignored: make([]bool, resource.Max)}
	if h != nil && h.Snapshot() != nil {
		f.dra = h.Snapshot().DRA()
	}
	for _, name := range args.IgnoredResources {
		if !isExtendedResourceName(name) {
			continue
		}
		if i, err := resource.Index(v1.ResourceName(name)); err == nil {
			f.ignored[i] = true
		}
	}
	f.ignoredGroups = args.IgnoredResourceGroups
	f.scorer, err = newAllocationScorer(args.ScoringStrategy)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Name implements framework.Plugin.
func (*Fit) Name() string { return FitName }

// Filter rejects a node without room for the pod. A request larger than the node's whole
// allocatable is UnschedulableAndUnresolvable: preempting cannot make room there. The pod
// count is checked first and never counts as unresolvable, as in kube-scheduler (whose
// reasons come in that order: pods, cpu, memory, ephemeral-storage, then the others).
func (f *Fit) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	var insufficient uint64 // bit i: resource i does not fit
	unresolvable := false
	// Free, not Allocatable and Requested: it reads one cache line of the node, where the
	// two vectors take two (this runs on every node a scan visits).
	if n.Free(resource.Pods) < 1 {
		insufficient |= 1 << resource.Pods
	}
	for _, i := range p.RequestIdx {
		idx := int(i)
		if idx == resource.Pods {
			continue
		}
		req := p.Requests.Vector[idx]
		if req <= n.Free(idx) || f.isIgnored(idx) || f.backedByDRA(idx, n) {
			continue
		}
		insufficient |= 1 << idx
		if req > n.AllocatableAt(idx) {
			unresolvable = true
		}
	}
	if insufficient == 0 {
		return nil
	}
	return f.status(insufficient, unresolvable)
}

// QueueingHint implements framework.QueueingHintPlugin: a node that appeared or changed
// can only undo this plugin's rejection if it has room for the pod now, as kube-scheduler's
// isSchedulableAfterNodeChange decides.
func (f *Fit) QueueingHint(_ framework.ClusterEvent, p *framework.PodInfo, n *framework.NodeInfo) bool {
	return f.Filter(context.Background(), nil, p, n).IsSuccess()
}

// StaticFilterKey implements framework.StaticPrecheckPlugin: the extended resources the pod
// asks for, and how much.
func (f *Fit) StaticFilterKey(p *framework.PodInfo) string {
	var b strings.Builder
	for _, i := range p.RequestIdx {
		if idx := int(i); resource.IsScalar(idx) {
			b.WriteString(strconv.Itoa(idx))
			b.WriteByte('=')
			b.WriteString(strconv.FormatInt(p.Requests.Vector[idx], 10))
			b.WriteByte(',')
		}
	}
	return b.String()
}

// StaticPrecheck rejects a node whose allocatable of an extended resource is smaller than
// the pod's request: no amount of preemption or waiting makes a GPU appear on a CPU node.
// Filter rejects such a node too, with this reason among its own.
func (f *Fit) StaticPrecheck(_ context.Context, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	var insufficient uint64
	for _, i := range p.RequestIdx {
		idx := int(i)
		if resource.IsScalar(idx) && p.Requests.Vector[idx] > n.Allocatable[idx] && !f.isIgnored(idx) && !f.backedByDRA(idx, n) {
			insufficient |= 1 << idx
		}
	}
	if insufficient == 0 {
		return nil
	}
	return f.status(insufficient, true)
}

// status returns the (shared, immutable) status for a set of insufficient resources, so
// that rejecting thousands of nodes allocates nothing.
func (f *Fit) status(insufficient uint64, unresolvable bool) *framework.Status {
	key := insufficient << 1
	if unresolvable {
		key |= 1
	}
	if st, ok := f.statuses.Load(key); ok {
		return st.(*framework.Status)
	}
	var reasons []string
	if insufficient&(1<<resource.Pods) != 0 {
		reasons = append(reasons, "Too many pods")
	}
	for i := range resource.Max {
		if i != resource.Pods && insufficient&(1<<i) != 0 {
			reasons = append(reasons, "Insufficient "+string(resource.Name(i)))
		}
	}
	code := framework.Unschedulable
	if unresolvable {
		code = framework.UnschedulableAndUnresolvable
	}
	st, _ := f.statuses.LoadOrStore(key, framework.NewStatus(code, reasons...).WithPlugin(FitName))
	return st.(*framework.Status)
}

// isIgnored reports whether the args exclude resource i from the check. Only extended
// resources (example.com/foo) can be ignored, as in kube-scheduler: naming hugepages-2Mi
// or cpu in ignoredResources has no effect.
func (f *Fit) isIgnored(i int) bool {
	if !resource.IsScalar(i) {
		return false
	}
	if f.ignored[i] {
		return true
	}
	if len(f.ignoredGroups) > 0 {
		name := string(resource.Name(i))
		if !isExtendedResourceName(name) {
			return false
		}
		// An extended resource name has a "/".
		prefix := name[:strings.IndexByte(name, '/')]
		for _, g := range f.ignoredGroups {
			if prefix == g {
				return true
			}
		}
	}
	return false
}

// backedByDRA reports whether an extended resource the node does not have at all is one a
// DeviceClass provides through DRA (kube-scheduler's DRAExtendedResource): DynamicResources
// then allocates devices for it. A node with the resource in its allocatable (a device
// plugin) is checked here as usual.
func (f *Fit) backedByDRA(i int, n *framework.NodeInfo) bool {
	return f.dra != nil && resource.IsScalar(i) && n.Allocatable[i] == 0 &&
		f.dra.ExtendedResourceClass(string(resource.Name(i))) != nil
}

// isExtendedResourceName is kube-scheduler's v1helper.IsExtendedResourceName for the names
// the API server admits: a name with a "/" outside the kubernetes.io/ namespace, not one
// of the quota "requests." names. (The qualified-name syntax check is left to API
// validation: phalanx only sees names of admitted objects.)
func isExtendedResourceName(name string) bool {
	return strings.Contains(name, "/") && !strings.Contains(name, v1.ResourceDefaultNamespacePrefix) &&
		!strings.HasPrefix(name, v1.DefaultResourceRequestsPrefix)
}

// Score rates the node by the configured strategy.
func (f *Fit) Score(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return f.scorer.score(p, n), nil
}

// ScoreKey implements framework.ScoreKeyPlugin: the score reads, of the pod, only its
// requests of the scored resources (cpu and memory with their scoring defaults).
func (f *Fit) ScoreKey(p *framework.PodInfo) (framework.ScoreKey, bool) {
	var key framework.ScoreKey
	if len(f.scorer.idx) > len(key) {
		return key, false
	}
	for k, i := range f.scorer.idx {
		key[k] = scoredRequest(p, i)
	}
	return key, true
}

// ScoreExtensions implements framework.ScorePlugin; scores are already in range.
func (*Fit) ScoreExtensions() framework.ScoreExtensions { return nil }

// EventsToRegister: room appears when pods leave or shrink, or nodes are added or grow.
func (*Fit) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Delete | framework.UpdatePodScaleDown},
		{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeAllocatable},
		{Resource: framework.UnscheduledPod, Action: framework.Update},
	}
}

var (
	_ framework.StaticPrecheckPlugin = (*Fit)(nil)
	_ framework.ScoreKeyPlugin       = (*Fit)(nil)
	_ framework.QueueingHintPlugin   = (*Fit)(nil)
)
