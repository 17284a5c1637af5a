package noderesources

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// BalancedAllocationName is NodeResourcesBalancedAllocation's name.
const BalancedAllocationName = "NodeResourcesBalancedAllocation"

// BalancedAllocation favours nodes whose resources would be used in equal proportions, as
// kube-scheduler v1.36's plugin: it scores how much placing the pod improves the balance.
//
// Unlike NodeResourcesFit's scoring it counts requests as they are (no defaults for
// request-less containers), so requestedAndAllocatable, which fills those defaults in, is
// not used here.
type BalancedAllocation struct {
	idx []int
}

var (
	_ framework.PreScorePlugin = (*BalancedAllocation)(nil)
	_ framework.ScoreKeyPlugin = (*BalancedAllocation)(nil)
)

// NewBalancedAllocation builds NodeResourcesBalancedAllocation. Resources default to cpu and
// memory; weights must be 1 (or unset), as kube-scheduler validates them.
func NewBalancedAllocation(raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	args := &BalancedAllocationArgs{}
	if err := decodeStrict(raw, args); err != nil {
		return nil, err
	}
	specs := args.Resources
	if len(specs) == 0 {
		specs = defaultResources
	}
	b := &BalancedAllocation{}
	seen := map[string]bool{}
	for i, r := range specs {
		if seen[string(r.Name)] {
			return nil, fmt.Errorf("resources[%d].name: duplicate value %q", i, r.Name)
		}
		seen[string(r.Name)] = true
		if r.Weight != 0 && r.Weight != 1 {
			return nil, fmt.Errorf("resources[%d].weight: must be 1", i)
		}
		idx, err := resource.Index(r.Name)
		if err != nil {
			return nil, fmt.Errorf("resources[%d].name: %w", i, err)
		}
		b.idx = append(b.idx, idx)
	}
	return b, nil
}

// Name implements framework.Plugin.
func (*BalancedAllocation) Name() string { return BalancedAllocationName }

// podRequest is what the pod asks of resource i. The pod count is not a request here:
// kube-scheduler's request lists do not include it, so a configured "pods" never scores.
func podRequest(p *framework.PodInfo, i int) int64 {
	if i == resource.Pods {
		return 0
	}
	return p.Requests.Vector[i]
}

// PreScore skips best-effort pods (nothing requested of the scored resources): they would
// otherwise all pile onto the node that happens to be best balanced (kubernetes#129138).
func (b *BalancedAllocation) PreScore(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	if b.bestEffort(p) {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

func (b *BalancedAllocation) bestEffort(p *framework.PodInfo) bool {
	for _, i := range b.idx {
		if podRequest(p, i) != 0 {
			return false
		}
	}
	return true
}

// Score compares the balance of the node with and without the pod. Each balance is
// (1 - standard deviation of the requested/allocatable fractions) * MaxNodeScore, both in
// [MaxNodeScore/2, MaxNodeScore]; their difference is mapped back into that range, so that
// an unchanged balance scores 75, improving it moves towards 100 and worsening it towards
// 50.
func (b *BalancedAllocation) Score(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if b.bestEffort(p) {
		// Only reached when PreScore did not run; kube-scheduler scores 0 then.
		return 0, nil
	}
	// The usual two resources (cpu and memory) fit the arrays on the stack; clearing arrays
	// of resource.Max on every node cost more than the score.
	var withBuf, withoutBuf [4]float64
	with, without := withBuf[:], withoutBuf[:]
	if len(b.idx) > len(withBuf) {
		with, without = make([]float64, len(b.idx)), make([]float64, len(b.idx))
	}
	count := 0
	for _, i := range b.idx {
		req := podRequest(p, i)
		// An extended resource the pod does not ask for stays out of the balance, so that
		// GPU nodes do not look unbalanced to CPU-only pods; so does the pod count.
		if (resource.IsScalar(i) && req == 0) || i == resource.Pods {
			continue
		}
		alloc := n.AllocatableAt(i)
		if alloc == 0 {
			continue
		}
		used := n.RequestedAt(i)
		with[count] = min(float64(used+req)/float64(alloc), 1)
		without[count] = min(float64(used)/float64(alloc), 1)
		count++
	}
	scoreWith := balance(with[:count])
	scoreWithout := balance(without[:count])
	return framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+scoreWith-scoreWithout)/2, nil
}

// ScoreKey implements framework.ScoreKeyPlugin: the score reads, of the pod, only its
// requests of the balanced resources.
func (b *BalancedAllocation) ScoreKey(p *framework.PodInfo) (framework.ScoreKey, bool) {
	var key framework.ScoreKey
	if len(b.idx) > len(key) {
		return key, false
	}
	for k, i := range b.idx {
		key[k] = podRequest(p, i)
	}
	return key, true
}

// balance is (1 - std deviation of the fractions) * MaxNodeScore, truncated. For two
// resources, the usual case, the deviation is half their difference.
func balance(fractions []float64) int64 {
	var std float64
	switch n := len(fractions); {
	case n == 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case n > 2:
		var total float64
		for _, f := range fractions {
			total += f
		}
		mean := total / float64(n)
		var sum float64
		for _, f := range fractions {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(n))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}

// ScoreExtensions implements framework.ScorePlugin; scores are already in range.
func (*BalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }
