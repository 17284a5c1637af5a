package main

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// The generated AI cluster: 64-cpu nodes, 16 to a rack, 8 racks to a block, blocks in 8
// zones; every other node has 8 GPUs. In every fourth block the GPUs are published through
// Dynamic Resource Allocation (a ResourceSlice of 8 devices) instead of the extended
// resource. Outside those blocks, every other rack is busy: each of its GPU nodes runs two
// low-priority batch pods of 4 GPUs, the victims of the preemption wave. Every node runs
// Background low-priority pods of 2 cpu besides.
const (
	nodesPerRack  = 16
	racksPerBlock = 8
	zones         = 8
	namespace     = "bench"

	labelZone  = "topology.kubernetes.io/zone"
	labelRack  = "example.com/rack"
	labelBlock = "example.com/block"
	gpu        = v1.ResourceName("nvidia.com/gpu")
	draDriver  = "gpu.example.com"
	draClass   = "gpu.example.com"

	// minNodes is the smallest cluster: four blocks, so that one has DRA devices.
	minNodes = 4 * racksPerBlock * nodesPerRack

	// Priorities: what runs already, what arrives, the wave.
	prioLow, prioMid, prioHigh = 0, 100, 1000
)

// Spec sizes the workload; zero fields take their defaults for the number of nodes.
type Spec struct {
	Nodes int
	// Background is the number of low-priority 2-cpu pods bound on every node.
	Background int
	// Pods is the number of plain pending pods (DRA pods come on top: one per 40).
	Pods int
	// Gangs is the number of pending gangs (default one per 100 nodes), in turn 64 pods of
	// 1 GPU in one rack, 8 pods of 8 GPUs in one rack, 16 pods of 8 GPUs in one block
	// (one rack preferred).
	Gangs int
	// Wave is the number of high-priority gangs of 8 pods of 8 GPUs, each in one rack,
	// that arrive once the rest is bound (default one per two racks): more than the free
	// racks can hold, so most preempt a busy rack's batch pods.
	Wave int
}

func (s Spec) defaulted() Spec {
	if s.Background == 0 {
		s.Background = 4
	}
	if s.Pods == 0 {
		s.Pods = 20000
	}
	if s.Gangs == 0 {
		s.Gangs = max(3, s.Nodes/100)
	}
	if s.Wave == 0 {
		s.Wave = max(1, s.racks()/2)
	}
	return s
}

func (s Spec) racks() int { return (s.Nodes + nodesPerRack - 1) / nodesPerRack }

// node is node i's place in the cluster.
type node struct {
	i, rack, block int
	gpu, dra, busy bool
}

func place(i int) node {
	n := node{i: i, rack: i / nodesPerRack, gpu: i%2 == 1}
	n.block = n.rack / racksPerBlock
	n.dra = n.block%4 == 3
	n.busy = !n.dra && n.rack%2 == 0
	return n
}

func nodeName(i int) string { return fmt.Sprintf("n-%06d", i) }

var (
	cpu64  = apiresource.MustParse("64")
	mem512 = apiresource.MustParse("512Gi")
	pods   = apiresource.MustParse("110")
	gpu8   = apiresource.MustParse("8")
)

// Node returns node i.
func Node(i int) *v1.Node {
	p := place(i)
	name := nodeName(i)
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{
		v1.LabelHostname: name,
		labelZone:        fmt.Sprintf("zone-%d", p.block%zones),
		labelRack:        fmt.Sprintf("r%05d", p.rack),
		labelBlock:       fmt.Sprintf("b%04d", p.block),
	}}}
	alloc := v1.ResourceList{v1.ResourceCPU: cpu64, v1.ResourceMemory: mem512, v1.ResourcePods: pods}
	if p.gpu && !p.dra {
		alloc[gpu] = gpu8
	}
	n.Status.Allocatable, n.Status.Capacity = alloc, alloc
	n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	return n
}

// Slice returns node i's ResourceSlice, nil when its GPUs are no DRA devices.
func Slice(i int) *resourceapi.ResourceSlice {
	p := place(i)
	if !p.gpu || !p.dra {
		return nil
	}
	name := nodeName(i)
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-" + draDriver},
		Spec: resourceapi.ResourceSliceSpec{Driver: draDriver, NodeName: &name,
			Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}},
	}
	model := "h100"
	for d := range 8 {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", d),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: &model}}})
	}
	return s
}

// DeviceClass is the class of the DRA GPUs.
func DeviceClass() *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: draClass},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", draDriver)}}}}}
}

// Namespace is the namespace of every pod.
func Namespace() *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: map[string]string{"kubernetes.io/metadata.name": namespace}}}
}

func pod(name string, prio int32, cpu, memGi int64) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{}},
		Spec: v1.PodSpec{Priority: &prio, SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{Name: "main",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU:    *apiresource.NewQuantity(cpu, apiresource.DecimalSI),
				v1.ResourceMemory: *apiresource.NewQuantity(memGi<<30, apiresource.BinarySI),
			}}}}},
	}
}

func withGPUs(p *v1.Pod, n int64) *v1.Pod {
	q := *apiresource.NewQuantity(n, apiresource.DecimalSI)
	p.Spec.Containers[0].Resources.Requests[gpu] = q
	p.Spec.Containers[0].Resources.Limits = v1.ResourceList{gpu: q}
	return p
}

// Bound returns the pods running on node i: Background 2-cpu pods, and on a busy rack's
// GPU nodes two batch pods of 4 GPUs.
func Bound(s Spec, i int) []*v1.Pod {
	p := place(i)
	name := nodeName(i)
	var out []*v1.Pod
	for j := range s.Background {
		bg := pod(fmt.Sprintf("bg-%06d-%d", i, j), prioLow, 2, 4)
		bg.Labels["app"] = fmt.Sprintf("bg-%d", (i+j)%100)
		out = append(out, bg)
	}
	if p.gpu && p.busy {
		for j := range 2 {
			out = append(out, withGPUs(pod(fmt.Sprintf("batch-%06d-%d", i, j), prioLow, 8, 32), 4))
		}
	}
	for _, b := range out {
		b.Spec.NodeName = name
		b.Status.Phase = v1.PodRunning
	}
	return out
}

// Zones is the number of zones the cluster's blocks are in (fewer than 8 when it has
// fewer blocks).
func (s Spec) Zones() int {
	return min(zones, (s.racks()+racksPerBlock-1)/racksPerBlock)
}

// Plain returns plain pending pod k: 1-4 cpu, one of 200 apps; every fifth with a zone
// nodeSelector, every seventh spread over zones, every eleventh with a required
// anti-affinity to its kind on other hosts.
func Plain(s Spec, k int) *v1.Pod {
	app := fmt.Sprintf("app-%03d", k%200)
	cpu := int64(1 + k%4)
	p := pod(fmt.Sprintf("p-%06d", k), prioMid, cpu, 2*cpu)
	p.Labels["app"] = app
	if k%5 == 0 {
		p.Spec.NodeSelector = map[string]string{labelZone: fmt.Sprintf("zone-%d", k%s.Zones())}
	}
	if k%7 == 0 {
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: labelZone,
			WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	}
	if k%11 == 0 {
		anti := fmt.Sprintf("anti-%02d", k%50)
		p.Labels["anti"] = anti
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: v1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"anti": anti}}}},
		}}
	}
	return p
}

// DRA returns DRA pod k and its claim of one GPU device.
func DRA(k int) (*v1.Pod, *resourceapi.ResourceClaim) {
	name := fmt.Sprintf("d-%06d", k)
	claim := &resourceapi.ResourceClaim{
		// kube-scheduler's claim cache needs a resourceVersion; client-go's fake API sets
		// none on objects added to it.
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name + "-gpu", UID: types.UID("uid-" + name + "-gpu"), ResourceVersion: "1"},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "gpu",
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: draClass, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}}},
	}
	p := pod(name, prioMid, 2, 8)
	p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim.Name}}
	p.Spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: "gpu"}}
	return p, claim
}

// Gang is a pending gang: its PodGroup and members.
type Gang struct {
	Group   *v1alpha1.PodGroup
	Members []*v1.Pod
}

// PendingGangKinds are the burst's kinds of gang, in PendingGang's turn, as GangKind
// names them: 64 pods of 1 GPU in one rack, 8 of 8 GPUs in one rack, 16 of 8 GPUs in one
// block.
var PendingGangKinds = [3]string{"g64", "g8", "g16"}

// GangKind is the kind of the gang of this PodGroup name (PendingGangKinds, or "w" for
// the wave's).
func GangKind(name string) string {
	kind, _, _ := strings.Cut(name, "-")
	return kind
}

// PendingGang returns gang g: 64 pods of 1 GPU in one rack, 8 pods of 8 GPUs in one
// rack, or 16 pods of 8 GPUs in one block (one rack preferred), in turn.
func PendingGang(g int) Gang {
	switch g % 3 {
	case 0:
		return gang(fmt.Sprintf("g64-%05d", g), 64, 1, 1, prioMid, []v1alpha1.TopologyConstraint{{Key: labelRack}})
	case 1:
		return gang(fmt.Sprintf("g8-%05d", g), 8, 8, 8, prioMid, []v1alpha1.TopologyConstraint{{Key: labelRack}})
	default:
		return gang(fmt.Sprintf("g16-%05d", g), 16, 8, 8, prioMid, []v1alpha1.TopologyConstraint{
			{Key: labelBlock}, {Key: labelRack, Mode: v1alpha1.TopologyModePreferred}})
	}
}

// WaveGang returns gang w of the preemption wave: 8 pods of 8 GPUs in one rack.
func WaveGang(w int) Gang {
	return gang(fmt.Sprintf("w-%05d", w), 8, 8, 8, prioHigh, []v1alpha1.TopologyConstraint{{Key: labelRack}})
}

func gang(name string, size int, gpus, cpu int64, prio int32, topology []v1alpha1.TopologyConstraint) Gang {
	pg := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name)},
		Spec: v1alpha1.PodGroupSpec{
			SchedulingPolicy:      v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: int32(size)}},
			Priority:              &prio,
			SchedulingConstraints: &v1alpha1.PodGroupSchedulingConstraints{Topology: topology},
		},
	}
	g := Gang{Group: pg}
	for m := range size {
		p := withGPUs(pod(fmt.Sprintf("%s-%02d", name, m), prio, cpu, 4*cpu), gpus)
		p.Labels[v1alpha1.LabelPodGroup] = name
		g.Members = append(g.Members, p)
	}
	return g
}

// forEachPending calls fn for each pending pod (with its claim, for a DRA pod) and each
// gang, in creation order: a gang after every pods/gangs plain pods, a DRA pod after every
// 40 plain pods.
func forEachPending(spec Spec, fn func(p *v1.Pod, cl *resourceapi.ResourceClaim, g *Gang)) {
	every := max(1, spec.Pods/max(1, spec.Gangs))
	g, d := 0, 0
	for k := range spec.Pods {
		fn(Plain(spec, k), nil, nil)
		if k%40 == 39 {
			p, cl := DRA(d)
			d++
			fn(p, cl, nil)
		}
		if k%every == every-1 && g < spec.Gangs {
			gg := PendingGang(g)
			g++
			fn(nil, nil, &gg)
		}
	}
	for ; g < spec.Gangs; g++ {
		gg := PendingGang(g)
		fn(nil, nil, &gg)
	}
}
