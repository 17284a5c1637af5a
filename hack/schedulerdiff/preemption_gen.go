package schedulerdiff

import (
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PreemptorPriority is the priority of the pod to place in a preemption case: above every
// bound pod's.
const PreemptorPriority = 1000

// HigherPriority is the priority of the bound pods of a plain case that are no victims.
const HigherPriority = 2000

// plainBound makes a bound pod neither leaving, nor BestEffort, nor anti-affine.
func plainBound(p *v1.Pod) {
	p.DeletionTimestamp = nil
	for i := range p.Spec.Containers {
		ct := &p.Spec.Containers[i]
		if len(ct.Resources.Requests) == 0 && len(ct.Resources.Limits) == 0 {
			ct.Resources.Requests = v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(100, resource.DecimalSI)}
		}
	}
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
	}
}

// GeneratePreemption makes the preemption case of a seed: the case Generate makes, with a
// priority (0, 100 or 200) on every bound pod and PreemptorPriority on the pod to place,
// whose first container asks for a third to all of some node's allocatable CPU, so that it
// often fits nowhere until lower-priority pods are gone. The same seed always gives the
// same case.
//
// Half of the cases are plain, so that many avoid every listed difference of the
// preemption scope: no bound pod is being deleted or BestEffort (a container without
// requests asks for 100m CPU), none has required anti-affinity, the pod to place has
// neither required anti-affinity nor hard spreading, and in half of them a node keeps one
// pod of lower priority than the pod to place, the others above it (HigherPriority).
func GeneratePreemption(seed uint64) *Case {
	c := Generate(seed)
	r := rand.New(rand.NewPCG(seed, 0x9e3e))
	plain, single := r.IntN(2) == 0, r.IntN(2) == 0
	seen := map[string]bool{}
	for _, p := range c.Pods {
		prio := int32(r.IntN(3) * 100)
		if plain && single && seen[p.Spec.NodeName] {
			prio = HigherPriority
		}
		seen[p.Spec.NodeName] = true
		p.Spec.Priority = &prio
		if plain {
			plainBound(p)
		}
	}
	if plain {
		if a := c.Pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}
		var soft []v1.TopologySpreadConstraint
		for _, tsc := range c.Pod.Spec.TopologySpreadConstraints {
			if tsc.WhenUnsatisfiable != v1.DoNotSchedule {
				soft = append(soft, tsc)
			}
		}
		c.Pod.Spec.TopologySpreadConstraints = soft
	}
	prio := int32(PreemptorPriority)
	c.Pod.Spec.Priority = &prio
	n := c.Nodes[r.IntN(len(c.Nodes))]
	cpu := n.Status.Allocatable.Cpu().MilliValue()
	want := cpu/3 + r.Int64N(2*cpu/3+1)
	ct := &c.Pod.Spec.Containers[0]
	if ct.Resources.Requests == nil {
		ct.Resources.Requests = v1.ResourceList{}
	}
	ct.Resources.Requests[v1.ResourceCPU] = *resource.NewMilliQuantity(want, resource.DecimalSI)
	if rs := c.Pod.Spec.Resources; rs != nil && rs.Requests.Cpu().MilliValue() < podCPU(c.Pod) {
		// Pod-level requests stay at least what the containers ask, as validation wants.
		rs.Requests[v1.ResourceCPU] = *resource.NewMilliQuantity(podCPU(c.Pod), resource.DecimalSI)
	}
	return c
}

func podCPU(p *v1.Pod) int64 {
	var sum int64
	for _, c := range p.Spec.Containers {
		sum += c.Resources.Requests.Cpu().MilliValue()
	}
	return sum
}
