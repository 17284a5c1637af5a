package scheduler

import (
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// dropDeviceBacked leaves out of a capacity bound the extended resources a DeviceClass
// backs: on nodes without them in their allocatable, DynamicResources serves them from
// devices, which resource vectors cannot bound, and leaving them out never underestimates.
// prefix, when not nil, holds the per-resource sums that go with idx.
func (s *Scheduler) dropDeviceBacked(idx []int8, prefix [][]int64) ([]int8, [][]int64) {
	dra := s.cache.DRA()
	if len(dra.Classes()) == 0 {
		return idx, prefix
	}
	var outIdx []int8
	var outPrefix [][]int64
	for j, i := range idx {
		if resource.IsScalar(int(i)) && dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil {
			continue
		}
		outIdx = append(outIdx, i)
		if prefix != nil {
			outPrefix = append(outPrefix, prefix[j])
		}
	}
	return slices.Clip(outIdx), outPrefix
}
