// Package testutil builds pods, nodes and caches for tests with little ceremony:
//
//	pod := testutil.Pod("web-1").Namespace("prod").Labels("app", "web").Req("cpu", "500m").Obj()
//	node := testutil.Node("n1").Labels("zone", "a").Capacity("cpu", "4", "memory", "8Gi").Obj()
package testutil

import (
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// PodBuilder builds a pod.
type PodBuilder struct{ p *v1.Pod }

// Pod starts a pod in namespace "default" with one container named "c".
func Pod(name string) *PodBuilder {
	return &PodBuilder{p: &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: apitypes.UID("uid-" + name)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c"}}},
	}}
}

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.p.Namespace = ns; return b }

// Labels adds labels given as key, value pairs.
func (b *PodBuilder) Labels(kv ...string) *PodBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.p.Labels[kv[i]] = kv[i+1]
	}
	return b
}

// Req adds requests (name, quantity pairs) to the first container.
func (b *PodBuilder) Req(kv ...string) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Resources.Requests[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
	}
	return b
}

// Lim adds limits (name, quantity pairs) to the first container, and the same requests
// where none are set, as the API server's defaulting does.
func (b *PodBuilder) Lim(kv ...string) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	if c.Resources.Limits == nil {
		c.Resources.Limits = v1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		name := v1.ResourceName(kv[i])
		c.Resources.Limits[name] = apiresource.MustParse(kv[i+1])
		if _, ok := c.Resources.Requests[name]; !ok {
			c.Resources.Requests[name] = apiresource.MustParse(kv[i+1])
		}
	}
	return b
}

// Priority sets spec.priority.
func (b *PodBuilder) Priority(p int32) *PodBuilder { b.p.Spec.Priority = &p; return b }

// Node binds the pod to a node (spec.nodeName).
func (b *PodBuilder) Node(n string) *PodBuilder { b.p.Spec.NodeName = n; return b }

// HostPort adds a container port bound on the host.
func (b *PodBuilder) HostPort(port int32) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	c.Ports = append(c.Ports, v1.ContainerPort{ContainerPort: port, HostPort: port})
	return b
}

// NodeSelector sets spec.nodeSelector from key, value pairs.
func (b *PodBuilder) NodeSelector(kv ...string) *PodBuilder {
	if b.p.Spec.NodeSelector == nil {
		b.p.Spec.NodeSelector = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.p.Spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return b
}

// Toleration adds a toleration.
func (b *PodBuilder) Toleration(t v1.Toleration) *PodBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, t)
	return b
}

// Affinity sets spec.affinity.
func (b *PodBuilder) Affinity(a *v1.Affinity) *PodBuilder { b.p.Spec.Affinity = a; return b }

// SpreadConstraint adds a topology spread constraint.
func (b *PodBuilder) SpreadConstraint(c v1.TopologySpreadConstraint) *PodBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, c)
	return b
}

// PodAntiAffinity adds a required anti-affinity term on matchLabels and a topology key.
func (b *PodBuilder) PodAntiAffinity(topologyKey string, matchLabels map[string]string) *PodBuilder {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &v1.Affinity{}
	}
	if b.p.Spec.Affinity.PodAntiAffinity == nil {
		b.p.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a := b.p.Spec.Affinity.PodAntiAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution,
		v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}, TopologyKey: topologyKey})
	return b
}

// PodAffinity adds a required affinity term on matchLabels and a topology key.
func (b *PodBuilder) PodAffinity(topologyKey string, matchLabels map[string]string) *PodBuilder {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &v1.Affinity{}
	}
	if b.p.Spec.Affinity.PodAffinity == nil {
		b.p.Spec.Affinity.PodAffinity = &v1.PodAffinity{}
	}
	a := b.p.Spec.Affinity.PodAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution,
		v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}, TopologyKey: topologyKey})
	return b
}

// Obj returns the pod.
func (b *PodBuilder) Obj() *v1.Pod { return b.p }

// Info returns the pod as a PodInfo.
func (b *PodBuilder) Info() *framework.PodInfo { return framework.NewPodInfo(b.p) }

// NodeBuilder builds a node.
type NodeBuilder struct{ n *v1.Node }

// Node starts a node with room for 110 pods.
func Node(name string) *NodeBuilder {
	return &NodeBuilder{n: &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourcePods: apiresource.MustParse("110"),
		}},
	}}
}

// Labels adds labels from key, value pairs.
func (b *NodeBuilder) Labels(kv ...string) *NodeBuilder {
	for i := 0; i+1 < len(kv); i += 2 {
		b.n.Labels[kv[i]] = kv[i+1]
	}
	return b
}

// Capacity sets allocatable amounts from name, quantity pairs.
func (b *NodeBuilder) Capacity(kv ...string) *NodeBuilder {
	for i := 0; i+1 < len(kv); i += 2 {
		b.n.Status.Allocatable[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
	}
	return b
}

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect v1.TaintEffect) *NodeBuilder {
	b.n.Spec.Taints = append(b.n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Unschedulable cordons the node.
func (b *NodeBuilder) Unschedulable() *NodeBuilder { b.n.Spec.Unschedulable = true; return b }

// Obj returns the node.
func (b *NodeBuilder) Obj() *v1.Node { return b.n }

// NewCache builds a cache with the nodes and the bound pods (pods must have spec.nodeName).
func NewCache(nodes []*v1.Node, pods []*v1.Pod) *cache.Cache {
	c := cache.New()
	for _, n := range nodes {
		c.Nodes().AddNode(n)
	}
	for _, p := range pods {
		if err := c.Nodes().AddBoundPod(framework.NewPodInfo(p)); err != nil {
			panic(err) // a test fixture mistake
		}
	}
	return c
}

// Handle is a framework.Handle over a cache, for plugin unit tests. It runs no other
// plugins: RunFilterPlugins and the extensions return success.
type Handle struct {
	Cache    *cache.Cache
	Actuator framework.PreemptionActuator
	// Client is what ResourceClient returns (nil by default).
	Client framework.ResourceClient
	// Now is what Clock returns (nil: the wall clock).
	Now     framework.Clock
	rng     *rand.Rand
	metrics *metrics.Metrics
}

// Snapshot implements framework.Handle.
func (h *Handle) Snapshot() framework.Snapshot { return h.Cache }

// Nominator implements framework.Handle.
func (h *Handle) Nominator() framework.Nominator { return h.Cache.Nominations() }

// Parallelizer implements framework.Handle.
func (h *Handle) Parallelizer() framework.Parallelizer { return framework.NewParallelizer(2) }

// Binder implements framework.Handle.
func (h *Handle) Binder() framework.Binder { return nil }

// ResourceClient implements framework.Handle.
func (h *Handle) ResourceClient() framework.ResourceClient { return h.Client }

// Clock implements framework.Handle: Now when set, else the wall clock.
func (h *Handle) Clock() framework.Clock {
	if h.Now != nil {
		return h.Now
	}
	return framework.WallClock{}
}

// ProfileName implements framework.Handle: the default profile's.
func (h *Handle) ProfileName() string { return "default-scheduler" }

// Preemption implements framework.Handle.
func (h *Handle) Preemption() framework.PreemptionActuator { return h.Actuator }

// GroupPreemption implements framework.Handle.
func (h *Handle) GroupPreemption() framework.GroupPreemptionActuator { return nil }

// Rand implements framework.Handle: a fixed seed.
func (h *Handle) Rand() *rand.Rand {
	if h.rng == nil {
		h.rng = rand.New(rand.NewPCG(1, 2))
	}
	return h.rng
}

// Metrics implements framework.Handle.
func (h *Handle) Metrics() *metrics.Metrics {
	if h.metrics == nil {
		h.metrics = metrics.New()
	}
	return h.metrics
}
