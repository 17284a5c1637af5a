package framework

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// testGPU is an extended resource, so that vectors hold more than the fixed kinds.
const testGPU v1.ResourceName = "example.com/gpu"

// podSpec describes a test pod compactly.
type podSpec struct {
	name string
	// cpu in millicores and mem in bytes; 0 leaves the request unset (non-zero defaults
	// then apply to the NonZero sums).
	cpu, mem, gpu int64
	ports         []v1.ContainerPort
	// affinity adds a preferred pod affinity term (the pod lands in PodsWithAffinity only);
	// anti adds a required anti-affinity term (both affinity slices).
	affinity, anti bool
}

func (s podSpec) pod() *v1.Pod {
	req := v1.ResourceList{}
	if s.cpu != 0 {
		req[v1.ResourceCPU] = *apiresource.NewMilliQuantity(s.cpu, apiresource.DecimalSI)
	}
	if s.mem != 0 {
		req[v1.ResourceMemory] = *apiresource.NewQuantity(s.mem, apiresource.BinarySI)
	}
	if s.gpu != 0 {
		req[testGPU] = *apiresource.NewQuantity(s.gpu, apiresource.DecimalSI)
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: "default", Labels: map[string]string{"app": s.name}},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name:      "c",
			Ports:     s.ports,
			Resources: v1.ResourceRequirements{Requests: req, Limits: limitsFor(req, s.gpu)},
		}}},
	}
	term := v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
		TopologyKey:   v1.LabelHostname,
	}
	if s.affinity || s.anti {
		pod.Spec.Affinity = &v1.Affinity{}
	}
	if s.affinity {
		pod.Spec.Affinity.PodAffinity = &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}},
		}
	}
	if s.anti {
		pod.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term},
		}
	}
	return pod
}

// limitsFor sets extended resource limits equal to their requests, as the API requires.
func limitsFor(req v1.ResourceList, gpu int64) v1.ResourceList {
	if gpu == 0 {
		return nil
	}
	return v1.ResourceList{testGPU: req[testGPU]}
}

func (s podSpec) info() *PodInfo {
	p := NewPodInfo(s.pod())
	if p.ParseErr != nil {
		panic(fmt.Sprintf("test pod %s: %v", s.name, p.ParseErr))
	}
	return p
}

// nodeState is everything observable about a NodeInfo's pods, for exact comparisons.
type nodeState struct {
	pods, affinity, anti []string
	requested            resource.Vector
	nzCPU, nzMem         int64
	ports                map[HostPort]int32
}

func stateOf(n *NodeInfo) nodeState {
	keys := func(ps []*PodInfo) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Pod.Name
		}
		return out
	}
	ports := map[HostPort]int32{}
	for _, e := range n.UsedPorts.entries {
		ports[e.HostPort] += e.count
	}
	return nodeState{keys(n.Pods), keys(n.PodsWithAffinity), keys(n.PodsWithRequiredAntiAffinity),
		n.Requested, n.NonZeroCPU, n.NonZeroMemory, ports}
}

func (s nodeState) equal(o nodeState) bool {
	if !slices.Equal(s.pods, o.pods) || !slices.Equal(s.affinity, o.affinity) || !slices.Equal(s.anti, o.anti) ||
		s.requested != o.requested || s.nzCPU != o.nzCPU || s.nzMem != o.nzMem || len(s.ports) != len(o.ports) {
		return false
	}
	for k, v := range s.ports {
		if o.ports[k] != v {
			return false
		}
	}
	return true
}

func (s nodeState) String() string {
	return fmt.Sprintf("pods %v affinity %v anti %v requested %s non-zero %d/%d ports %v",
		s.pods, s.affinity, s.anti, s.requested.String(), s.nzCPU, s.nzMem, s.ports)
}

func testNode(name string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU:    apiresource.MustParse("8"),
			v1.ResourceMemory: apiresource.MustParse("16Gi"),
			v1.ResourcePods:   apiresource.MustParse("110"),
			testGPU:           apiresource.MustParse("4"),
		}},
	}
}

func tcp(port int32) v1.ContainerPort { return v1.ContainerPort{ContainerPort: port, HostPort: port} }
