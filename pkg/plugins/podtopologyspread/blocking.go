package podtopologyspread

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// BlockingPods implements framework.BlockingPodsPlugin: for a skew rejection of node n,
// the pods counted in n's domain of each hard constraint (the pods whose removal lowers
// that domain's count), on any node of the domain. Removing some of them may bring the
// skew within bounds; preemption decides which. The pods come sorted by key, so that the
// choice is deterministic.
func (pl *PodTopologySpread) BlockingPods(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo, st *framework.Status) []*framework.PodInfo {
	if !IsSkewRejection(st) || n.Node() == nil {
		return nil
	}
	cons, err := pl.constraints(p.Pod, v1.DoNotSchedule)
	if err != nil {
		return nil
	}
	snap := pl.handle.Snapshot()
	seen := map[*framework.PodInfo]bool{}
	var out []*framework.PodInfo
	for i := range cons {
		c := &cons[i]
		value, ok := n.Node().Labels[c.TopologyKey]
		if !ok || !c.counts() {
			continue
		}
		sameNS := func(ns string) bool { return ns == p.Pod.Namespace }
		snap.ForEachPodMatching(sameNS, c.Selector, func(q *framework.PodInfo) bool {
			on := snap.Get(q.NodeName)
			if on == nil || on.Node().Labels[c.TopologyKey] != value || seen[q] {
				return true
			}
			seen[q] = true
			out = append(out, q)
			return true
		})
	}
	slices.SortFunc(out, func(a, b *framework.PodInfo) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out
}

var _ framework.BlockingPodsPlugin = (*PodTopologySpread)(nil)
