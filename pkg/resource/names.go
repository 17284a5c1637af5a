// Package resource holds resource amounts as fixed-size integer vectors and computes pod
// requests exactly as kube-scheduler does.
//
// Filters compare vectors of int64 instead of resource.Quantity maps: that is what keeps the
// filter loop over thousands of nodes cheap. Every resource name gets a small index, assigned
// once and never reused, so a vector position means the same resource for the whole process.
package resource

import (
	"fmt"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// Fixed indices of the resources every node and pod has.
const (
	CPU              = 0 // millicores
	Memory           = 1 // bytes
	Pods             = 2 // count
	EphemeralStorage = 3 // bytes
	firstExtended    = 4
)

// Max is the number of resource kinds a vector can hold: the four above and up to 28
// extended resources (nvidia.com/gpu, hugepages-2Mi, ...). Real clusters use a handful.
const Max = 32

var registry = struct {
	sync.RWMutex
	index map[v1.ResourceName]int
	names [Max]v1.ResourceName
	count atomic.Int32
}{index: map[v1.ResourceName]int{}}

func init() {
	for i, n := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods, v1.ResourceEphemeralStorage} {
		registry.index[n] = i
		registry.names[i] = n
	}
	registry.count.Store(firstExtended)
}

// ErrTooManyResources is returned when more than Max distinct resource names are seen.
var ErrTooManyResources = fmt.Errorf("phalanx tracks at most %d extended resource kinds", Max-firstExtended)

// Index returns the vector position of a resource name, assigning one on first use.
func Index(name v1.ResourceName) (int, error) {
	registry.RLock()
	i, ok := registry.index[name]
	registry.RUnlock()
	if ok {
		return i, nil
	}
	registry.Lock()
	defer registry.Unlock()
	if i, ok := registry.index[name]; ok {
		return i, nil
	}
	n := int(registry.count.Load())
	if n >= Max {
		return -1, fmt.Errorf("resource %q: %w", name, ErrTooManyResources)
	}
	registry.index[name] = n
	registry.names[n] = name
	registry.count.Store(int32(n + 1))
	return n, nil
}

// Name returns the resource name at a vector position.
func Name(i int) v1.ResourceName {
	registry.RLock()
	defer registry.RUnlock()
	return registry.names[i]
}

// Count is the number of vector positions in use.
func Count() int { return int(registry.count.Load()) }
