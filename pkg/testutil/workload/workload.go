// Package workload generates synthetic clusters and pending pods for benchmarks: nodes in
// zones and pools (some with GPUs behind a taint), and pods of mixed sizes, some pinned to a
// pool by node selector, some spread across zones and hosts, some asking for GPUs.
// Generation is deterministic for a seed.
package workload

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Spec sizes a workload.
type Spec struct {
	Nodes int
	Pods  int
	// Zones is the number of topology.kubernetes.io/zone values (default 50).
	Zones int
	// Apps is the number of Deployments-like label sets pods belong to (default 200).
	Apps int
	Seed uint64
}

// Labels and taints the generator uses.
const (
	LabelZone = "topology.kubernetes.io/zone"
	LabelPool = "example.com/pool"
	TaintGPU  = "nvidia.com/gpu"
	GPU       = v1.ResourceName("nvidia.com/gpu")
)

var pools = []struct {
	name     string
	cpu, mem string
}{{"general", "32", "128Gi"}, {"compute", "64", "128Gi"}, {"memory", "32", "256Gi"}, {"small", "16", "64Gi"}}

// Nodes returns the nodes: 10% GPU nodes (8 GPUs, tainted), the rest spread over pools.
// Every zone gets its share of each kind, so zone spreading is always satisfiable.
func Nodes(s Spec) []*v1.Node {
	s = s.defaulted()
	out := make([]*v1.Node, 0, s.Nodes)
	for i := range s.Nodes {
		zone := fmt.Sprintf("zone-%02d", i%s.Zones)
		name := fmt.Sprintf("node-%05d", i)
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname: name, LabelZone: zone,
		}}}
		alloc := v1.ResourceList{v1.ResourcePods: apiresource.MustParse("110")}
		if (i/s.Zones)%10 == 9 {
			n.Labels[LabelPool] = "gpu"
			alloc[v1.ResourceCPU] = apiresource.MustParse("96")
			alloc[v1.ResourceMemory] = apiresource.MustParse("512Gi")
			alloc[GPU] = apiresource.MustParse("8")
			n.Spec.Taints = []v1.Taint{{Key: TaintGPU, Value: "present", Effect: v1.TaintEffectNoSchedule}}
		} else {
			p := pools[(i/s.Zones)%len(pools)]
			n.Labels[LabelPool] = p.name
			alloc[v1.ResourceCPU] = apiresource.MustParse(p.cpu)
			alloc[v1.ResourceMemory] = apiresource.MustParse(p.mem)
		}
		n.Status.Allocatable = alloc
		n.Status.Capacity = alloc
		out = append(out, n)
	}
	return out
}

var sizes = []struct{ cpu, mem string }{{"250m", "512Mi"}, {"500m", "1Gi"}, {"1", "2Gi"}, {"2", "4Gi"}, {"4", "8Gi"}}

// Pods returns pending pods. Every pod belongs to an app; per app, the kind is fixed:
// 40% plain, 25% with a node selector on a pool, 25% spread by zone (DoNotSchedule) and
// host (ScheduleAnyway), 10% GPU pods that tolerate the GPU taint.
func Pods(s Spec) []*v1.Pod {
	s = s.defaulted()
	rng := rand.New(rand.NewPCG(s.Seed, 42))
	out := make([]*v1.Pod, 0, s.Pods)
	for i := range s.Pods {
		app := i % s.Apps
		appName := fmt.Sprintf("app-%03d", app)
		size := sizes[rng.IntN(len(sizes))]
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%05d", appName, i), Namespace: "bench",
				Labels: map[string]string{"app": appName}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse(size.cpu), v1.ResourceMemory: apiresource.MustParse(size.mem)},
			}}}},
		}
		switch kind := app % 20; {
		case kind < 8:
		case kind < 13:
			p.Spec.NodeSelector = map[string]string{LabelPool: pools[app%len(pools)].name}
		case kind < 18:
			sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": appName}}
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: LabelZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel},
				{MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: sel},
			}
		default:
			p.Spec.Containers[0].Resources.Requests[GPU] = apiresource.MustParse(fmt.Sprint(1 + rng.IntN(2)))
			p.Spec.Containers[0].Resources.Limits = v1.ResourceList{GPU: p.Spec.Containers[0].Resources.Requests[GPU]}
			p.Spec.Tolerations = []v1.Toleration{{Key: TaintGPU, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
		}
		out = append(out, p)
	}
	return out
}

func (s Spec) defaulted() Spec {
	if s.Zones == 0 {
		s.Zones = 50
	}
	if s.Apps == 0 {
		s.Apps = 200
	}
	return s
}
