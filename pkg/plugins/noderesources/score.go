package noderesources

import (
	"math"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// allocationScorer scores a node by how allocated each configured resource would be with
// the pod on it, weighted and averaged, as kube-scheduler's resourceAllocationScorer.
type allocationScorer struct {
	idx      []int
	weights  []int64
	strategy ScoringStrategyType
	shape    []UtilizationShapePoint
}

func newAllocationScorer(s *ScoringStrategy) (*allocationScorer, error) {
	a := &allocationScorer{strategy: s.Type}
	for _, r := range s.Resources {
		i, err := resource.Index(r.Name)
		if err != nil {
			return nil, err
		}
		a.idx = append(a.idx, i)
		a.weights = append(a.weights, r.Weight)
	}
	if s.RequestedToCapacityRatio != nil {
		a.shape = s.RequestedToCapacityRatio.Shape
	}
	return a, nil
}

// requestedAndAllocatable returns what the node would have requested with the pod, and its
// allocatable, for resource i. CPU and memory count request-less containers at the scoring
// defaults. An extended resource the pod does not ask for is skipped (ok false), so that
// GPU nodes do not look empty to CPU-only pods. The pod count is skipped too: kube-scheduler
// has no allocatable for "pods" among the resources it scores, so it never counts.
func requestedAndAllocatable(p *framework.PodInfo, n *framework.NodeInfo, i int) (requested, allocatable int64, ok bool) {
	req := scoredRequest(p, i)
	switch i {
	case resource.CPU:
		return n.NonZeroCPU + req, n.AllocatableAt(i), true
	case resource.Memory:
		return n.NonZeroMemory + req, n.AllocatableAt(i), true
	case resource.Pods:
		return 0, 0, false
	}
	if resource.IsScalar(i) && req == 0 {
		return 0, 0, false
	}
	return n.RequestedAt(i) + req, n.AllocatableAt(i), true
}

// scoredRequest is all the scoring reads of the pod for resource i: its request, with the
// scoring defaults for cpu and memory (none for the pod count, which never scores).
func scoredRequest(p *framework.PodInfo, i int) int64 {
	switch i {
	case resource.CPU:
		return p.Requests.NonZeroCPU
	case resource.Memory:
		return p.Requests.NonZeroMemory
	case resource.Pods:
		return 0
	}
	return p.Requests.Vector[i]
}

func (a *allocationScorer) score(p *framework.PodInfo, n *framework.NodeInfo) int64 {
	var total, weightSum int64
	for k, i := range a.idx {
		req, alloc, ok := requestedAndAllocatable(p, n, i)
		if !ok || alloc == 0 {
			continue
		}
		var s int64
		switch a.strategy {
		case LeastAllocated:
			s = leastAllocated(req, alloc)
		case MostAllocated:
			s = mostAllocated(req, alloc)
		case RequestedToCapacityRatio:
			s = a.ratioScore(req, alloc)
			if s <= 0 {
				// kube-scheduler averages only the resources that score above zero.
				continue
			}
		}
		total += s * a.weights[k]
		weightSum += a.weights[k]
	}
	if weightSum == 0 {
		return 0
	}
	if a.strategy == RequestedToCapacityRatio {
		// kube-scheduler rounds this average; the other strategies truncate.
		return int64(math.Round(float64(total) / float64(weightSum)))
	}
	return total / weightSum
}

func leastAllocated(req, alloc int64) int64 {
	if req > alloc {
		return 0
	}
	return (alloc - req) * framework.MaxNodeScore / alloc
}

func mostAllocated(req, alloc int64) int64 {
	// Requests can exceed allocatable because request-less pods count at the scoring
	// defaults; kube-scheduler caps them.
	return min(req, alloc) * framework.MaxNodeScore / alloc
}

// ratioScore evaluates the piecewise-linear shape at the utilization, scaling shape scores
// (0-10) to node scores (0-100).
func (a *allocationScorer) ratioScore(req, alloc int64) int64 {
	util := int64(100)
	if req < alloc {
		util = req * 100 / alloc
	}
	shape := a.shape
	scale := framework.MaxNodeScore / 10
	if util <= int64(shape[0].Utilization) {
		return int64(shape[0].Score) * scale
	}
	for k := 1; k < len(shape); k++ {
		if util <= int64(shape[k].Utilization) {
			x0, y0 := int64(shape[k-1].Utilization), int64(shape[k-1].Score)*scale
			x1, y1 := int64(shape[k].Utilization), int64(shape[k].Score)*scale
			return y0 + (y1-y0)*(util-x0)/(x1-x0)
		}
	}
	return int64(shape[len(shape)-1].Score) * scale
}
