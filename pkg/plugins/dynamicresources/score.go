package dynamicresources

import (
	"context"
	"slices"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var (
	_ framework.ScorePlugin     = (*DynamicResources)(nil)
	_ framework.ScoreExtensions = (*DynamicResources)(nil)
)

// Score prefers the nodes where the pod's prioritized lists (firstAvailable) are served by
// their earlier alternatives, as kube-scheduler v1.37's DynamicResources scores: for each
// request with firstAvailable, the allocated subrequest at index i adds
// FirstAvailableDeviceRequestMaxSize - i. Only nodes where Filter searched devices for the
// pod are scored (others get 0), claims allocated earlier counting with their allocation.
func (pl *DynamicResources) Score(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	s := readState(cs)
	if s == nil {
		return 0, nil
	}
	na := s.perNode.load(n.Index, n.Name)
	if na == nil {
		return 0, nil
	}
	dra := pl.h.Snapshot().DRA()
	var score int64
	for _, c := range s.claims {
		var alloc *resourceapi.AllocationResult
		for i, key := range na.claimKeys(s) {
			if key == c.key {
				alloc = &na.results[i]
				break
			}
		}
		if alloc == nil {
			if ci := dra.Claim(c.key); ci != nil {
				alloc = ci.Allocation()
			}
		}
		score += firstAvailableScore(c.claim, alloc)
	}
	return score, nil
}

// firstAvailableScore is a claim's part of Score.
func firstAvailableScore(claim *resourceapi.ResourceClaim, alloc *resourceapi.AllocationResult) int64 {
	if alloc == nil || !slices.ContainsFunc(claim.Spec.Devices.Requests, func(r resourceapi.DeviceRequest) bool { return len(r.FirstAvailable) > 0 }) {
		return 0 // nothing to score: no map built for every node scored
	}
	allocated := map[string]bool{}
	for _, r := range alloc.Devices.Results {
		allocated[r.Request] = true
	}
	var score int64
	for _, req := range claim.Spec.Devices.Requests {
		for i, sub := range req.FirstAvailable {
			if allocated[req.Name+"/"+sub.Name] {
				score += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
			}
		}
	}
	return score
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *DynamicResources) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the scores onto [0, MaxNodeScore] relative to the highest, as
// kube-scheduler's DefaultNormalizeScore; all zero stays all zero.
func (*DynamicResources) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	framework.DefaultNormalizeScore(false, scores)
	return nil
}
