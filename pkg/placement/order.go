package placement

import (
	"cmp"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// largestFirst orders members by the share of the largest node that their largest
// request takes, then by the sum of those shares (stable: equal members keep their
// order), so that the hardest to fit go first.
func largestFirst(members []*framework.PodInfo, nodes []*framework.NodeInfo) []*framework.PodInfo {
	// The largest node's allocatable, of the resources the members ask for.
	var asked resource.Vector
	var idx []int8
	for _, m := range members {
		for _, i := range m.RequestIdx {
			if asked[i] == 0 && i != resource.Pods {
				asked[i] = 1
				idx = append(idx, i)
			}
		}
	}
	var biggest resource.Vector
	for _, n := range nodes {
		for _, i := range idx {
			biggest[i] = max(biggest[i], n.Allocatable[i])
		}
	}
	type sized struct {
		m             *framework.PodInfo
		dominant, sum float64
	}
	list := make([]sized, len(members))
	for k, m := range members {
		list[k].m = m
		for _, i := range m.RequestIdx {
			if i == resource.Pods || biggest[i] <= 0 {
				continue
			}
			share := float64(m.Requests.Vector[i]) / float64(biggest[i])
			list[k].dominant = max(list[k].dominant, share)
			list[k].sum += share
		}
	}
	slices.SortStableFunc(list, func(a, b sized) int {
		if c := cmp.Compare(b.dominant, a.dominant); c != 0 {
			return c
		}
		return cmp.Compare(b.sum, a.sum)
	})
	out := make([]*framework.PodInfo, len(list))
	for k, x := range list {
		out[k] = x.m
	}
	return out
}
