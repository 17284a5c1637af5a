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
// allocatable is UnschedulableAndUnresolvable: preempting cannot make room there.
func (f *Fit) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	var reasons []string
	unresolvable := false
	for _, i := range p.RequestIdx {
		idx := int(i)
		if f.isIgnored(idx) {
			continue
		}
		req := p.Requests.Vector[idx]
		if req <= n.Free(idx) {
			continue
		}
		if idx == resource.Pods {
			reasons = append(reasons, "Too many pods")
		} else {
			reasons = append(reasons, "Insufficient "+string(resource.Name(idx)))
		}
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

func (f *Fit) isIgnored(i int) bool {
	if !resource.IsScalar(i) {
		return false
	}
	if f.ignored[i] {
		return true
	}
	if len(f.ignoredGroups) > 0 {
		name := string(resource.Name(i))
		if slash := strings.IndexByte(name, '/'); slash > 0 {
			for _, g := range f.ignoredGroups {
				if name[:slash] == g {
					return true
				}
			}
		}
	}
	return false
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
