// Package placementscore scores a pod group's feasible placements (KEP-5732):
// PlacementBinPacking prefers the placement the group fills most tightly, so large domains
// stay whole for large groups; PlacementPodCount prefers the placement that holds the most
// members.
package placementscore

import (
	"context"
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// Names of the plugins.
const (
	BinPackingName = "PlacementBinPacking"
	PodCountName   = "PlacementPodCount"
)

// BinPacking scores a placement by how full its nodes would be, in aggregate, with the
// group in it: the mean, over the resources the group requests, of requested over
// allocatable.
type BinPacking struct{ h framework.Handle }

// NewBinPacking builds PlacementBinPacking.
func NewBinPacking(_ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	return &BinPacking{h: h}, nil
}

// Name implements framework.Plugin.
func (*BinPacking) Name() string { return BinPackingName }

// ScorePlacement implements framework.PlacementScorePlugin.
func (pl *BinPacking) ScorePlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, p *framework.Placement, placed *framework.GroupPlacement, _ int) (int64, *framework.Status) {
	return Utilization(p.Nodes, placed), nil
}

// Utilization is the aggregate fill of nodes, from 0 to MaxNodeScore, once the placed
// members are added to what the snapshot holds: the mean over the resources the members
// request (cpu, memory, extended resources) of requested over allocatable.
func Utilization(nodes []*framework.NodeInfo, placed *framework.GroupPlacement) int64 {
	var used, alloc resource.Vector
	var want [resource.Max]bool
	for _, a := range placed.Assignments {
		for _, i := range a.Pod.RequestIdx {
			want[i] = true
		}
		for i := range used {
			used[i] += a.Pod.Requests.Vector[i]
		}
	}
	// The pod count is a limit, not a resource to pack: 110 slots per node would dilute
	// the mean.
	want[resource.Pods] = false
	// Only the resources the members request count: nothing placed (a placement the
	// search pruned, scored to order preemption's candidates) scores 0 without reading
	// the nodes.
	var idx []int
	for i := range want {
		if want[i] {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0
	}
	for _, n := range nodes {
		for _, i := range idx {
			used[i] += n.Requested[i]
			alloc[i] += n.Allocatable[i]
		}
	}
	var sum float64
	count := 0
	for _, i := range idx {
		if alloc[i] <= 0 {
			continue
		}
		sum += min(1, float64(used[i])/float64(alloc[i]))
		count++
	}
	if count == 0 {
		return 0
	}
	return int64(sum / float64(count) * float64(framework.MaxNodeScore))
}

// PodCount scores a placement by the share of the pending members it holds.
type PodCount struct{}

// NewPodCount builds PlacementPodCount.
func NewPodCount(json.RawMessage, framework.Handle) (framework.Plugin, error) { return PodCount{}, nil }

// Name implements framework.Plugin.
func (PodCount) Name() string { return PodCountName }

// ScorePlacement implements framework.PlacementScorePlugin.
func (PodCount) ScorePlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, _ *framework.Placement, placed *framework.GroupPlacement, pending int) (int64, *framework.Status) {
	if pending == 0 {
		return 0, nil
	}
	return int64(len(placed.Assignments)) * framework.MaxNodeScore / int64(pending), nil
}

var (
	_ framework.PlacementScorePlugin = (*BinPacking)(nil)
	_ framework.PlacementScorePlugin = PodCount{}
)
