// Package schedulerdiff holds phalanx's plugins to kube-scheduler v1.37.2's own code: it
// generates clusters and pods from a seed, runs both schedulers' plugins on them and
// compares what they say, node by node. It is a module of its own so that the product
// never depends on k8s.io/kubernetes.
package schedulerdiff

import (
	"fmt"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Case is one generated input: a cluster (nodes and the pods bound to them) and the pod to
// place.
type Case struct {
	Seed  uint64
	Nodes []*v1.Node
	Pods  []*v1.Pod
	Pod   *v1.Pod
	// Namespaces, when set, replace the fixed Namespaces in phalanx's cache (the upstream
	// test tables that name their own; kube-scheduler's side then runs on an Upstream made
	// by NewUpstreamIn with the same).
	Namespaces []*v1.Namespace
	// Storage, when not nil, replaces the fixed storage universe (volumes.go) in both
	// schedulers (the upstream test tables that bring their own storage objects).
	Storage []runtime.Object
	// Slices and Claims are the case's ResourceSlices and ResourceClaims (devices.go);
	// the DeviceClasses are fixed unless Classes is not nil (an upstream test table's own).
	Classes []*resourceapi.DeviceClass
	Slices  []*resourceapi.ResourceSlice
	Claims  []*resourceapi.ResourceClaim
	// Rules are the case's DeviceTaintRules (devices_extra.go).
	Rules []*resourceapi.DeviceTaintRule
}

// deletedAt is when objects being deleted were: a fixed time, so that a seed always gives
// the same case.
var deletedAt = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// The label keys and values the generator draws from: few, so that selectors, affinity
// terms and spreading constraints often match something.
const (
	zoneKey     = v1.LabelTopologyZone
	hostnameKey = v1.LabelHostname
	rackKey     = "example.com/rack"
	gpuResource = "example.com/gpu"
)

var (
	zones       = []string{"z0", "z1", "z2"}
	racks       = []string{"r0", "r1"}
	tiers       = []string{"a", "b", "c"}
	apps        = []string{"web", "db", "cache"}
	topoKeys    = []string{zoneKey, hostnameKey, rackKey}
	taintKeys   = []string{"dedicated", "gpu", "spot"}
	taintValues = []string{"x", "y", ""}
	effects     = []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute}
	hostPorts   = []int32{80, 443, 8080}
	images      = []string{"registry.example/train:v1", "registry.example/serve:v2", "busybox:latest"}
)

// Namespaces are fixed for every case (upstream's plugins read them through informers made
// once per test): their labels are what namespace selectors match.
var Namespaces = []*v1.Namespace{
	{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"team": "a"}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "other", Labels: map[string]string{"team": "b"}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "third", Labels: map[string]string{"team": "a", "env": "prod"}}},
}

var namespaceNames = []string{"default", "other", "third"}

type gen struct {
	r *rand.Rand
}

// Generate makes the case of a seed; the same seed always gives the same case.
func Generate(seed uint64) *Case {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed))}
	c := &Case{Seed: seed}
	nNodes := 1 + g.r.IntN(8)
	for i := range nNodes {
		c.Nodes = append(c.Nodes, g.node(i))
	}
	nPods := g.r.IntN(14)
	for i := range nPods {
		p := g.pod(fmt.Sprintf("bound-%d", i), false)
		p.Spec.NodeName = c.Nodes[g.r.IntN(nNodes)].Name
		if g.chance(0.05) {
			// A pod being deleted: it still holds its node until the kubelet is done. A
			// fixed time, so that a seed always gives the same case.
			at := metav1.NewTime(deletedAt)
			p.DeletionTimestamp = &at
		}
		c.Pods = append(c.Pods, p)
	}
	c.Pod = g.pod("incoming", true)
	// Volumes from a stream of their own: the cases drawn before volumes were generated
	// are the same, with claims added.
	vr := rand.New(rand.NewPCG(seed, 0x701))
	for _, p := range c.Pods {
		volumes(vr, p, false)
	}
	volumes(vr, c.Pod, true)
	// In-tree volumes migrated to CSI, from a stream of their own too.
	inTree(seed, c)
	// Devices and claims from a stream of their own too.
	devices(seed, c)
	if g.chance(0.1) {
		// Sometimes a node that does not exist, sometimes one that does.
		if g.chance(0.3) {
			c.Pod.Spec.NodeName = "missing"
		} else {
			c.Pod.Spec.NodeName = c.Nodes[g.r.IntN(nNodes)].Name
		}
	}
	return c
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) node(i int) *v1.Node {
	name := fmt.Sprintf("node-%d", i)
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{}}}
	if !g.chance(0.05) {
		n.Labels[hostnameKey] = name
	}
	if !g.chance(0.1) {
		n.Labels[zoneKey] = g.pick(zones)
	}
	if g.chance(0.6) {
		n.Labels[rackKey] = g.pick(racks)
	}
	if g.chance(0.5) {
		n.Labels["tier"] = g.pick(tiers)
	}
	if g.chance(0.3) {
		n.Labels["size"] = fmt.Sprint(1 + g.r.IntN(8))
	}
	for range g.r.IntN(3) {
		if g.chance(0.5) {
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: g.pick(taintKeys), Value: g.pick(taintValues), Effect: effects[g.r.IntN(len(effects))]})
		}
	}
	n.Spec.Unschedulable = g.chance(0.08)
	if n.Spec.Unschedulable && g.chance(0.5) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
	}
	capacity := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewMilliQuantity(int64(1000*(1+g.r.IntN(8))), resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(int64(1+g.r.IntN(16))<<30, resource.BinarySI),
		v1.ResourcePods:             *resource.NewQuantity(int64(2+g.r.IntN(10)), resource.DecimalSI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(int64(10+g.r.IntN(90))<<30, resource.BinarySI),
	}
	if g.chance(0.3) {
		capacity[gpuResource] = *resource.NewQuantity(int64(g.r.IntN(5)), resource.DecimalSI)
	}
	if g.chance(0.2) {
		delete(capacity, v1.ResourceEphemeralStorage)
	}
	n.Status.Capacity = capacity
	n.Status.Allocatable = capacity.DeepCopy()
	if g.chance(0.3) {
		// Allocatable below capacity, as the kubelet reports with reservations.
		n.Status.Allocatable[v1.ResourceCPU] = *resource.NewMilliQuantity(capacity.Cpu().MilliValue()-int64(100*g.r.IntN(5)), resource.DecimalSI)
	}
	for _, img := range images {
		if g.chance(0.3) {
			n.Status.Images = append(n.Status.Images, v1.ContainerImage{Names: []string{img}, SizeBytes: int64(1+g.r.IntN(2000)) << 20})
		}
	}
	return n
}

func (g *gen) pod(name string, incoming bool) *v1.Pod {
	ns := "default"
	if g.chance(0.3) {
		ns = g.pick(namespaceNames)
	}
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + ns + "-" + name), Labels: map[string]string{}}}
	if !g.chance(0.1) {
		p.Labels["app"] = g.pick(apps)
	}
	if g.chance(0.4) {
		p.Labels["tier"] = g.pick(tiers)
	}
	nContainers := 1 + g.r.IntN(2)
	for i := range nContainers {
		p.Spec.Containers = append(p.Spec.Containers, g.container(fmt.Sprintf("c%d", i)))
	}
	if g.chance(0.15) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, g.container("init"))
		if g.chance(0.4) {
			always := v1.ContainerRestartPolicyAlways
			p.Spec.InitContainers[0].RestartPolicy = &always // a sidecar
		}
	}
	if g.chance(0.08) {
		// Pod-level requests (PodLevelResources): at least what the containers ask.
		var cpu, mem int64
		for _, c := range p.Spec.Containers {
			cpu += c.Resources.Requests.Cpu().MilliValue()
			mem += c.Resources.Requests.Memory().Value()
		}
		p.Spec.Resources = &v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(cpu+int64(100*g.r.IntN(10)), resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(mem+int64(g.r.IntN(8))<<27, resource.BinarySI),
		}}
	}
	if g.chance(0.05) {
		p.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(int64(50*(1+g.r.IntN(4))), resource.DecimalSI)}
	}
	if g.chance(0.3) {
		port := v1.ContainerPort{ContainerPort: 8000, HostPort: hostPorts[g.r.IntN(len(hostPorts))]}
		if g.chance(0.3) {
			port.Protocol = v1.ProtocolUDP
		} else {
			port.Protocol = v1.ProtocolTCP
		}
		if g.chance(0.3) {
			port.HostIP = []string{"10.0.0.1", "10.0.0.2", "0.0.0.0"}[g.r.IntN(3)]
		}
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, port)
	}
	for range g.r.IntN(3) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, g.toleration())
	}
	if incoming && g.chance(0.3) {
		p.Spec.NodeSelector = map[string]string{}
		for range 1 + g.r.IntN(2) {
			switch g.r.IntN(3) {
			case 0:
				p.Spec.NodeSelector[zoneKey] = g.pick(zones)
			case 1:
				p.Spec.NodeSelector["tier"] = g.pick(tiers)
			default:
				p.Spec.NodeSelector[rackKey] = g.pick(racks)
			}
		}
	}
	aff := &v1.Affinity{}
	if incoming && g.chance(0.4) {
		aff.NodeAffinity = g.nodeAffinity()
	}
	if g.chance(incomingOr(incoming, 0.5, 0.25)) {
		aff.PodAffinity = &v1.PodAffinity{}
		for range g.r.IntN(2) {
			aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.podAffinityTerm())
		}
		for range g.r.IntN(3) {
			aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				v1.WeightedPodAffinityTerm{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: g.podAffinityTerm()})
		}
	}
	if g.chance(incomingOr(incoming, 0.5, 0.25)) {
		aff.PodAntiAffinity = &v1.PodAntiAffinity{}
		for range g.r.IntN(2) {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.podAffinityTerm())
		}
		for range g.r.IntN(3) {
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				v1.WeightedPodAffinityTerm{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: g.podAffinityTerm()})
		}
	}
	if aff.NodeAffinity != nil || aff.PodAffinity != nil || aff.PodAntiAffinity != nil {
		p.Spec.Affinity = aff
		mergeMatchLabelKeys(p)
	}
	if incoming && g.chance(0.5) {
		for range 1 + g.r.IntN(2) {
			p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, g.spread())
		}
	}
	if g.chance(0.3) {
		prio := int32(g.r.IntN(3) * 100)
		p.Spec.Priority = &prio
	}
	return p
}

func incomingOr(incoming bool, a, b float64) float64 {
	if incoming {
		return a
	}
	return b
}

func (g *gen) container(name string) v1.Container {
	c := v1.Container{Name: name, Image: images[g.r.IntN(len(images))]}
	if g.chance(0.85) {
		c.Resources.Requests = v1.ResourceList{}
		if g.chance(0.9) {
			c.Resources.Requests[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(100*g.r.IntN(30)), resource.DecimalSI)
		}
		if g.chance(0.8) {
			c.Resources.Requests[v1.ResourceMemory] = *resource.NewQuantity(int64(g.r.IntN(40))<<27, resource.BinarySI)
		}
		if g.chance(0.1) {
			c.Resources.Requests[v1.ResourceEphemeralStorage] = *resource.NewQuantity(int64(g.r.IntN(20))<<30, resource.BinarySI)
		}
		if g.chance(0.1) {
			q := *resource.NewQuantity(int64(g.r.IntN(3)), resource.DecimalSI)
			c.Resources.Requests[gpuResource] = q
			c.Resources.Limits = v1.ResourceList{gpuResource: q}
		}
	}
	return c
}

func (g *gen) toleration() v1.Toleration {
	t := v1.Toleration{}
	switch g.r.IntN(4) {
	case 0:
		t.Operator = v1.TolerationOpExists
		if g.chance(0.7) {
			t.Key = g.pick(taintKeys)
		}
	case 1:
		t.Operator = v1.TolerationOpEqual
		t.Key = g.pick(taintKeys)
		t.Value = g.pick(taintValues)
	default:
		t.Key = g.pick(taintKeys)
		t.Value = g.pick(taintValues)
	}
	if g.chance(0.6) {
		t.Effect = effects[g.r.IntN(len(effects))]
	}
	if g.chance(0.05) {
		t.Key = v1.TaintNodeUnschedulable
		t.Operator = v1.TolerationOpExists
		t.Value = ""
	}
	return t
}

func (g *gen) nodeSelectorTerm() v1.NodeSelectorTerm {
	var t v1.NodeSelectorTerm
	for range 1 + g.r.IntN(2) {
		var r v1.NodeSelectorRequirement
		switch g.r.IntN(6) {
		case 0:
			r = v1.NodeSelectorRequirement{Key: zoneKey, Operator: v1.NodeSelectorOpIn, Values: []string{g.pick(zones), g.pick(zones)}}
		case 1:
			r = v1.NodeSelectorRequirement{Key: "tier", Operator: v1.NodeSelectorOpNotIn, Values: []string{g.pick(tiers)}}
		case 2:
			r = v1.NodeSelectorRequirement{Key: rackKey, Operator: v1.NodeSelectorOpExists}
		case 3:
			r = v1.NodeSelectorRequirement{Key: "tier", Operator: v1.NodeSelectorOpDoesNotExist}
		case 4:
			op := v1.NodeSelectorOpGt
			if g.chance(0.5) {
				op = v1.NodeSelectorOpLt
			}
			r = v1.NodeSelectorRequirement{Key: "size", Operator: op, Values: []string{fmt.Sprint(g.r.IntN(9))}}
		default:
			r = v1.NodeSelectorRequirement{Key: hostnameKey, Operator: v1.NodeSelectorOpIn, Values: []string{fmt.Sprintf("node-%d", g.r.IntN(8))}}
		}
		t.MatchExpressions = append(t.MatchExpressions, r)
	}
	if g.chance(0.15) {
		t.MatchFields = []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{fmt.Sprintf("node-%d", g.r.IntN(8))}}}
		if g.chance(0.5) {
			t.MatchExpressions = nil
		}
	}
	return t
}

func (g *gen) nodeAffinity() *v1.NodeAffinity {
	a := &v1.NodeAffinity{}
	if g.chance(0.6) {
		sel := &v1.NodeSelector{}
		for range 1 + g.r.IntN(2) {
			sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, g.nodeSelectorTerm())
		}
		a.RequiredDuringSchedulingIgnoredDuringExecution = sel
	}
	for range g.r.IntN(3) {
		t := g.nodeSelectorTerm()
		t.MatchFields = nil // not allowed in preferred terms by validation
		if len(t.MatchExpressions) == 0 {
			t = v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: rackKey, Operator: v1.NodeSelectorOpExists}}}
		}
		a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
			v1.PreferredSchedulingTerm{Weight: int32(1 + g.r.IntN(100)), Preference: t})
	}
	return a
}

func (g *gen) labelSelector() *metav1.LabelSelector {
	s := &metav1.LabelSelector{}
	switch g.r.IntN(4) {
	case 0:
		s.MatchLabels = map[string]string{"app": g.pick(apps)}
	case 1:
		s.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{g.pick(apps), g.pick(apps)}}}
	case 2:
		s.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}
	default:
		s.MatchLabels = map[string]string{"app": g.pick(apps), "tier": g.pick(tiers)}
	}
	return s
}

func (g *gen) podAffinityTerm() v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{TopologyKey: topoKeys[g.r.IntN(len(topoKeys))], LabelSelector: g.labelSelector()}
	switch g.r.IntN(5) {
	case 0:
		t.Namespaces = []string{g.pick(namespaceNames)}
	case 1:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	case 2:
		t.NamespaceSelector = &metav1.LabelSelector{} // every namespace
	}
	if g.chance(0.1) {
		t.MatchLabelKeys = []string{"tier"}
	}
	return t
}

func (g *gen) spread() v1.TopologySpreadConstraint {
	c := v1.TopologySpreadConstraint{
		MaxSkew:           int32(1 + g.r.IntN(2)),
		TopologyKey:       topoKeys[g.r.IntN(len(topoKeys))],
		WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector:     g.labelSelector(),
	}
	if g.chance(0.5) {
		c.WhenUnsatisfiable = v1.ScheduleAnyway
	}
	if c.WhenUnsatisfiable == v1.DoNotSchedule && g.chance(0.2) {
		m := int32(1 + g.r.IntN(4))
		c.MinDomains = &m
	}
	if g.chance(0.2) {
		honor := v1.NodeInclusionPolicyHonor
		if g.chance(0.5) {
			honor = v1.NodeInclusionPolicyIgnore
		}
		c.NodeAffinityPolicy = &honor
	}
	if g.chance(0.2) {
		honor := v1.NodeInclusionPolicyHonor
		if g.chance(0.5) {
			honor = v1.NodeInclusionPolicyIgnore
		}
		c.NodeTaintsPolicy = &honor
	}
	if g.chance(0.1) {
		c.MatchLabelKeys = []string{"tier"}
	}
	return c
}

// mergeMatchLabelKeys does what the API server does to a pod's affinity terms when it is
// created (MatchLabelKeysInPodAffinity, GA): each key of matchLabelKeys that the pod has a
// label for becomes a requirement "key In (value)" of the term's selector. kube-scheduler
// reads the merged selector only; a pod that reached a scheduler has been through this.
func mergeMatchLabelKeys(p *v1.Pod) {
	merge := func(t *v1.PodAffinityTerm) {
		for _, k := range t.MatchLabelKeys {
			if v, ok := p.Labels[k]; ok {
				if t.LabelSelector == nil {
					t.LabelSelector = &metav1.LabelSelector{}
				}
				t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
					metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
			}
		}
	}
	if a := p.Spec.Affinity.PodAffinity; a != nil {
		for i := range a.RequiredDuringSchedulingIgnoredDuringExecution {
			merge(&a.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
		for i := range a.PreferredDuringSchedulingIgnoredDuringExecution {
			merge(&a.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
	}
	if a := p.Spec.Affinity.PodAntiAffinity; a != nil {
		for i := range a.RequiredDuringSchedulingIgnoredDuringExecution {
			merge(&a.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
		for i := range a.PreferredDuringSchedulingIgnoredDuringExecution {
			merge(&a.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
	}
}
