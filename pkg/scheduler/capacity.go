package scheduler

import (
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// capacityEstimator bounds, on resource vectors alone, how many of a group's pending
// members a set of nodes can take: the cheap check of KEP-5732's pre-filtering, made
// before any pod-level work. It never underestimates, so pruning on it loses no feasible
// placement.
type capacityEstimator struct {
	// rep is set when the members are alike (one equivalence class): each node then
	// takes as many as fit in its free room, and only nodes the static filters accept
	// count.
	rep      *framework.PodInfo
	eligible func(*framework.NodeInfo) bool
	idx      []int8
	// prefix[i][k] is the sum of the k smallest requests of resource idx[i] among the
	// members, for groups whose members differ.
	prefix  [][]int64
	members int
}

func (s *Scheduler) newCapacityEstimator(ctx context.Context, fwk *fwkruntime.Framework, pending []*framework.PodInfo, need int) (*capacityEstimator, error) {
	est := &capacityEstimator{members: len(pending), eligible: func(*framework.NodeInfo) bool { return true }}
	if len(pending) == 0 {
		return est, nil
	}
	alike := equivalenceKey(fwk, pending[0]) != ""
	for _, m := range pending[1:] {
		if !alike {
			break
		}
		alike = m.Requests == pending[0].Requests && equivalenceKey(fwk, m) == equivalenceKey(fwk, pending[0])
	}
	if alike {
		rep := pending[0]
		est.rep, est.idx = rep, rep.RequestIdx
		est.idx, _ = s.dropDeviceBacked(est.idx, nil)
		if fwk.HasStaticFilters() {
			state := framework.NewCycleState()
			if _, st := fwk.RunPreFilterPlugins(ctx, state, rep); st.Code() == framework.Error {
				return nil, st.AsError()
			} else if st.IsSuccess() {
				if rep.StaticFilterKey == "" {
					rep.StaticFilterKey = fwk.StaticFilterKey(state, rep)
				}
				v := s.static.get(rep.StaticFilterKey, s.cache.LayoutVersion(), s.cache.NumNodes())
				if err := v.refresh(ctx, s.parallelizer, fwk, state, rep, s.cache.NodeInfos()); err != nil {
					return nil, err
				}
				est.eligible = func(n *framework.NodeInfo) bool { return v.status[n.Index] == nil }
			}
		}
		return est, nil
	}
	rp := framework.NewRequestPrefixes(pending)
	est.idx, est.prefix = s.dropDeviceBacked(rp.Idx, rp.Sums)
	return est, nil
}

// capacity bounds how many members the nodes can take.
func (est *capacityEstimator) capacity(nodes []*framework.NodeInfo) int {
	if est.rep != nil {
		total := 0
		for _, n := range nodes {
			if !est.eligible(n) {
				continue
			}
			k := fitsOn(n, est.rep, est.idx)
			if k < 0 || total+k >= est.members {
				return est.members
			}
			total += k
		}
		return total
	}
	var free resource.Vector
	for _, n := range nodes {
		for _, i := range est.idx {
			free[i] += n.Allocatable[i] - n.Requested[i]
		}
	}
	count := est.members
	for j, i := range est.idx {
		// The most members whose smallest requests fit in the room left.
		k, _ := slices.BinarySearch(est.prefix[j], free[i]+1)
		count = min(count, k-1)
	}
	return max(count, 0)
}

// fitsOn is how many copies of p fit in n's free room (-1: p requests nothing there).
func fitsOn(n *framework.NodeInfo, p *framework.PodInfo, idx []int8) int {
	k := -1
	for _, i := range idx {
		r := p.Requests.Vector[i]
		if r <= 0 {
			continue
		}
		c := 0
		if free := n.Allocatable[i] - n.Requested[i]; free > 0 {
			c = int(free / r)
		}
		if k < 0 || c < k {
			k = c
		}
	}
	return k
}
