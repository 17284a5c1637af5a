package resource

import (
	"errors"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Defaults that kube-scheduler's scoring assumes for containers without requests, so that
// spreading by score does not pile request-less pods onto one node.
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

var nonZeroDefaults = v1.ResourceList{
	v1.ResourceCPU:    *apiresource.NewMilliQuantity(DefaultMilliCPURequest, apiresource.DecimalSI),
	v1.ResourceMemory: *apiresource.NewQuantity(DefaultMemoryRequest, apiresource.BinarySI),
}

// PodRequests is what a pod occupies on a node, as kube-scheduler computes it: init and
// sidecar containers, pod overhead, pod-level resources and in-place resized status all
// follow k8s.io/component-helpers. The pod itself counts one against the node's pods.
type PodRequests struct {
	Vector
	// NonZeroCPU and NonZeroMemory fill in the defaults above for containers that ask for
	// nothing; scoring uses them, filters do not.
	NonZeroCPU, NonZeroMemory int64
}

// ForPod computes a pod's requests. A pod that asks for more than MaxAmount of something
// gets its requests clamped (what it takes on a node it is bound to) and a *TooLargeError
// (it cannot be placed).
func ForPod(pod *v1.Pod) (PodRequests, error) {
	// The status resources are read (the larger of spec, allocated and actuated, as
	// kube-scheduler does) only when the status has some: otherwise upstream's allocated
	// and actuated requests fall back to the spec's, and the result is the spec's, at a
	// third of the work (TestForPodStatusShortcut holds the two to each other).
	status := statusResourcesMatter(pod)
	if !status && len(pod.Spec.InitContainers) == 0 && !resourcehelper.IsPodLevelRequestsSet(pod) {
		return containerSums(pod)
	}
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: status}
	vec, err := FromList(resourcehelper.PodRequests(pod, opts))
	var tooLarge *TooLargeError
	if err != nil && !errors.As(err, &tooLarge) {
		return PodRequests{}, err
	}
	vec[Pods] = 1
	opts.NonMissingContainerRequests = nonZeroDefaults
	nz := resourcehelper.PodRequests(pod, opts)
	nzCPU, _ := Amount(CPU, *nz.Cpu())
	nzMem, _ := Amount(Memory, *nz.Memory())
	return PodRequests{Vector: vec, NonZeroCPU: nzCPU, NonZeroMemory: nzMem}, err
}

// containerSums is ForPod for the common pod, whose requests upstream computes as the sum
// of its containers' requests and its overhead: no init or sidecar containers, no
// pod-level requests, no status resources. The sums are the same exact quantities,
// converted once, as upstream's; they take one map instead of upstream's dozen
// (TestForPodMatchesUpstream holds the two to each other on generated pods).
func containerSums(pod *v1.Pod) (PodRequests, error) {
	sum := make(v1.ResourceList, 4)
	var nzCPU, nzMem apiresource.Quantity
	add := func(reqs v1.ResourceList, defaults bool) {
		for name, q := range reqs {
			if s, ok := sum[name]; ok {
				s.Add(q)
				sum[name] = s
			} else {
				sum[name] = q.DeepCopy()
			}
		}
		if q, ok := reqs[v1.ResourceCPU]; ok {
			nzCPU.Add(q)
		} else if defaults {
			nzCPU.Add(nonZeroDefaults[v1.ResourceCPU])
		}
		if q, ok := reqs[v1.ResourceMemory]; ok {
			nzMem.Add(q)
		} else if defaults {
			nzMem.Add(nonZeroDefaults[v1.ResourceMemory])
		}
	}
	for i := range pod.Spec.Containers {
		add(pod.Spec.Containers[i].Resources.Requests, true)
	}
	add(pod.Spec.Overhead, false)
	vec, err := FromList(sum)
	var tooLarge *TooLargeError
	if err != nil && !errors.As(err, &tooLarge) {
		return PodRequests{}, err
	}
	vec[Pods] = 1
	cpu, _ := Amount(CPU, nzCPU)
	mem, _ := Amount(Memory, nzMem)
	return PodRequests{Vector: vec, NonZeroCPU: cpu, NonZeroMemory: mem}, err
}

// statusResourcesMatter says whether a pod's status can make its requests differ from its
// spec's: a container status with allocated or actuated resources, or a resize the kubelet
// found infeasible (then upstream counts only what the status says).
func statusResourcesMatter(pod *v1.Pod) bool {
	if resourcehelper.IsPodResizeInfeasible(pod) {
		return true
	}
	for _, statuses := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range statuses {
			if cs := &statuses[i]; cs.AllocatedResources != nil || (cs.Resources != nil && cs.Resources.Requests != nil) {
				return true
			}
		}
	}
	return false
}

// QOSClass computes the pod's QoS class as the kubelet does (GetPodQOS), for pods whose status
// does not carry it yet, such as manifests in the simulator. Pod-level resources take
// precedence over container resources.
func QOSClass(pod *v1.Pod) v1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	var lists [][2]v1.ResourceList
	if resourcehelper.IsPodLevelResourcesSet(pod) {
		lists = append(lists, [2]v1.ResourceList{pod.Spec.Resources.Requests, pod.Spec.Resources.Limits})
	} else {
		for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for i := range cs {
				lists = append(lists, [2]v1.ResourceList{cs[i].Resources.Requests, cs[i].Resources.Limits})
			}
		}
	}
	requests, limits := v1.ResourceList{}, v1.ResourceList{}
	guaranteed := true
	for _, rl := range lists {
		for _, n := range qosResources {
			if q, ok := rl[0][n]; ok && q.Sign() > 0 {
				sum := requests[n]
				sum.Add(q)
				requests[n] = sum
			}
		}
		found := 0
		for _, n := range qosResources {
			if q, ok := rl[1][n]; ok && q.Sign() > 0 {
				found++
				sum := limits[n]
				sum.Add(q)
				limits[n] = sum
			}
		}
		if found < len(qosResources) {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return v1.PodQOSBestEffort
	}
	if guaranteed {
		for n, req := range requests {
			if lim, ok := limits[n]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return v1.PodQOSGuaranteed
	}
	return v1.PodQOSBurstable
}

var qosResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}
