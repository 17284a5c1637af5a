package framework

import "slices"

// RequestPrefixes bound what any k of a set of pods can ask for, resource by resource:
// Sums[j][k] is the sum of the k smallest requests of resource Idx[j] among the pods. Group
// placement and preemption use it to rule out domains before simulating anything.
type RequestPrefixes struct {
	Idx  []int8
	Sums [][]int64
}

// NewRequestPrefixes computes the prefixes for pods, over every resource any of them asks
// for, in resource order.
func NewRequestPrefixes(pods []*PodInfo) RequestPrefixes {
	var rp RequestPrefixes
	seen := map[int8]bool{}
	for _, p := range pods {
		for _, i := range p.RequestIdx {
			if !seen[i] {
				seen[i] = true
				rp.Idx = append(rp.Idx, i)
			}
		}
	}
	slices.Sort(rp.Idx)
	reqs := make([]int64, len(pods))
	rp.Sums = make([][]int64, len(rp.Idx))
	for j, i := range rp.Idx {
		for k, p := range pods {
			reqs[k] = p.Requests.Vector[i]
		}
		slices.Sort(reqs)
		sums := make([]int64, len(pods)+1)
		for k, r := range reqs {
			sums[k+1] = sums[k] + r
		}
		rp.Sums[j] = sums
	}
	return rp
}
