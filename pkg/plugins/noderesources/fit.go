package noderesources

import (
	"context"
	"encoding/json"
	"strings"

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
	scorer        *allocationScorer
}

// NewFit builds NodeResourcesFit.
func NewFit(raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	args, err := parseFitArgs(raw)
	if err != nil {
		return nil, err
	}
	f := &Fit{ignored: make([]bool, resource.Max)}
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
	var reasons []string
	unresolvable := false
	if n.Requested[resource.Pods]+1 > n.Allocatable[resource.Pods] {
		reasons = append(reasons, "Too many pods")
	}
	for _, i := range p.RequestIdx {
		idx := int(i)
		if idx == resource.Pods || f.isIgnored(idx) {
			continue
		}
		req := p.Requests.Vector[idx]
		if req <= n.Free(idx) {
			continue
		}
		reasons = append(reasons, "Insufficient "+string(resource.Name(idx)))
		if req > n.Allocatable[idx] {
			unresolvable = true
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	if unresolvable {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	}
	return framework.NewStatus(framework.Unschedulable, reasons...)
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
