package framework

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// Verify checks a NodeInfo's internal consistency: every pod knows its position, the sums
// match the pods. Tests and the simulator's invariant checks call it.
func (n *NodeInfo) Verify() error {
	var req resource.Vector
	var nzCPU, nzMem int64
	ports := HostPortSet{}
	for i, p := range n.Pods {
		if int(p.nodePos) != i {
			return fmt.Errorf("node %s: pod %s at %d thinks it is at %d", n.Name, p.Key, i, p.nodePos)
		}
		if p.NodeName != n.Name {
			return fmt.Errorf("node %s: pod %s thinks it is on %q", n.Name, p.Key, p.NodeName)
		}
		req.Add(&p.Requests.Vector)
		nzCPU += p.Requests.NonZeroCPU
		nzMem += p.Requests.NonZeroMemory
		for _, hp := range p.HostPorts {
			ports.add(hp, 1)
		}
	}
	if req != n.Requested || nzCPU != n.NonZeroCPU || nzMem != n.NonZeroMemory {
		return fmt.Errorf("node %s: requested %s (non-zero %d/%d) but pods sum to %s (%d/%d)",
			n.Name, n.Requested.String(), n.NonZeroCPU, n.NonZeroMemory, req.String(), nzCPU, nzMem)
	}
	for i, free := range n.free {
		if free != n.Allocatable[i]-n.Requested[i] {
			return fmt.Errorf("node %s: free %s is %d but allocatable %d minus requested %d is %d",
				n.Name, resource.Name(i), free, n.Allocatable[i], n.Requested[i], n.Allocatable[i]-n.Requested[i])
		}
	}
	for i, alloc := range n.alloc {
		if alloc != n.Allocatable[i] {
			return fmt.Errorf("node %s: allocatable %s is %d but the vector says %d", n.Name, resource.Name(i), alloc, n.Allocatable[i])
		}
	}
	if !ports.Equal(&n.UsedPorts) {
		return fmt.Errorf("node %s: used ports %v but pods use %v", n.Name, n.UsedPorts.entries, ports.entries)
	}
	for i, p := range n.PodsWithAffinity {
		if int(p.affinityPos) != i || !p.HasAffinityTerms() {
			return fmt.Errorf("node %s: affinity pod %s at %d thinks it is at %d", n.Name, p.Key, i, p.affinityPos)
		}
	}
	for i, p := range n.PodsWithRequiredAntiAffinity {
		if int(p.antiAffinityPos) != i || len(p.RequiredAntiAffinity) == 0 {
			return fmt.Errorf("node %s: anti-affinity pod %s at %d thinks it is at %d", n.Name, p.Key, i, p.antiAffinityPos)
		}
	}
	return nil
}

// Equal compares two port sets as multisets.
func (s *HostPortSet) Equal(o *HostPortSet) bool {
	count := func(set *HostPortSet) map[HostPort]int32 {
		m := map[HostPort]int32{}
		for _, e := range set.entries {
			if e.count != 0 {
				m[e.HostPort] += e.count
			}
		}
		return m
	}
	a, b := count(s), count(o)
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
