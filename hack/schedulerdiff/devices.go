package schedulerdiff

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/cache"
)

// Dynamic Resource Allocation in the generated cases (decision 37). DeviceClasses are one
// fixed set, as the storage classes are; ResourceSlices and ResourceClaims are drawn per
// case, from a random stream of their own (so that the cases drawn before devices were
// generated are the same, with devices added): node-local GPU and NIC pools, some nodes
// without any, now and then a pool of fabric devices that several nodes reach through a
// node selector or all nodes; claims of bound pods allocated on their node and reserved
// for them (some with admin access, some a share of a device that allows multiple
// allocations); and the pod to place referring to claims to allocate, to claims allocated
// already (shared with a bound pod, or reserved for nobody), to a claim made from a
// template (named in its status, or not yet), to a claim being deleted or missing.
// DeviceTaintRules, binding conditions and an earlier attempt's claim for extended
// resources come from a third stream (devices_extra.go, decision 45).
const (
	gpuDriver    = "gpu.example.com"
	nicDriver    = "nic.example.com"
	fabricDriver = "fabric.example.com"
)

// Device class names: every class the claims may ask for, and one that does not exist.
const (
	classGPU      = "gpu"
	classGPULarge = "gpu-large" // memory capacity of at least 40Gi
	classGPUModel = "gpu-model-a"
	classNIC      = "nic"
	classFabric   = "fabric"
	classNothing  = "nothing" // matches no device
	classMissing  = "missing" // no such class
	// classGPUExt backs the extended resource draGPU: a pod that asks for it gets GPUs
	// through a claim the scheduler makes, on a node that does not list it in its
	// allocatable (a node that does serves it by its device plugin).
	classGPUExt = "gpu-ext"
	draGPU      = "example.com/dra-gpu"
)

// requestClasses are the classes requests draw from, GPUs most often (every node has
// them now and then), some that few nodes have, and one that matches nothing.
var requestClasses = []string{classGPU, classGPU, classGPU, classGPU, classGPULarge, classGPUModel, classNIC, classFabric, classNothing}

func celSelector(expr string) []resourceapi.DeviceSelector {
	return []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}}
}

// deviceClasses are the fixed classes. Their selectors test the driver first, so that an
// attribute another driver's devices lack is never read (CEL's && is false on a false
// side, whatever the other says).
func deviceClasses() []*resourceapi.DeviceClass {
	class := func(name, expr string) *resourceapi.DeviceClass {
		return &resourceapi.DeviceClass{
			ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
			Spec:       resourceapi.DeviceClassSpec{Selectors: celSelector(expr)},
		}
	}
	return []*resourceapi.DeviceClass{
		class(classGPU, `device.driver == "gpu.example.com"`),
		class(classGPULarge, `device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`),
		class(classGPUModel, `device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a"`),
		class(classNIC, `device.driver == "nic.example.com"`),
		class(classFabric, `device.driver == "fabric.example.com"`),
		class(classNothing, `device.driver == "none.example.com"`),
		func() *resourceapi.DeviceClass {
			dc := class(classGPUExt, `device.driver == "gpu.example.com"`)
			dc.Spec.ExtendedResourceName = pointerTo(draGPU)
			return dc
		}(),
	}
}

// classesOf are a case's DeviceClasses: its own, or the fixed ones.
func classesOf(c *Case) []*resourceapi.DeviceClass {
	if c.Classes != nil {
		return c.Classes
	}
	return deviceClasses()
}

// setDevices puts the case's classes and a case's slices and claims in phalanx's cache.
func setDevices(c *cache.Cache, cs *Case) {
	d := c.Devices()
	for _, dc := range classesOf(cs) {
		d.SetDeviceClass(dc)
	}
	for _, s := range cs.Slices {
		d.SetResourceSlice(s)
	}
	for _, cl := range cs.Claims {
		d.SetResourceClaim(cl)
	}
	for _, r := range cs.Rules {
		d.SetDeviceTaintRule(r)
	}
}

// devGen draws a case's devices and claims.
type devGen struct {
	r *rand.Rand
	c *Case
	// taken are the devices the claims of bound pods hold whole.
	taken sets.Set[string]
	// slices of each node, for the claims of its pods.
	local map[string][]*resourceapi.ResourceSlice
}

func (g *devGen) chance(p float64) bool { return g.r.Float64() < p }

// devices adds ResourceSlices, claims of bound pods and the pod to place's claims to a case.
func devices(seed uint64, c *Case) {
	g := &devGen{r: rand.New(rand.NewPCG(seed, 0xd7a)), c: c, taken: sets.New[string](), local: map[string][]*resourceapi.ResourceSlice{}}
	if !g.chance(0.45) {
		return // most cases have no devices at all
	}
	for _, n := range c.Nodes {
		if g.chance(0.8) {
			g.addSlice(g.gpuSlice(n.Name), n.Name)
		}
		if g.chance(0.3) {
			g.addSlice(g.nicSlice(n.Name), n.Name)
		}
	}
	if g.chance(0.25) {
		c.Slices = append(c.Slices, g.fabricSlice())
	}
	for _, p := range c.Pods {
		if g.chance(0.3) {
			g.boundClaim(p)
		}
	}
	if g.chance(0.8) {
		g.incomingClaims()
	}
	if g.chance(0.2) {
		g.extendedResource()
	}
	deviceExtras(seed, g)
}

// extendedResource makes the pod to place ask for the extended resource a class backs,
// and gives some nodes a device plugin's count of it.
func (g *devGen) extendedResource() {
	q := *resource.NewQuantity(int64(1+g.r.IntN(2)), resource.DecimalSI)
	ct := &g.c.Pod.Spec.Containers[0]
	if ct.Resources.Requests == nil {
		ct.Resources.Requests = v1.ResourceList{}
	}
	if ct.Resources.Limits == nil {
		ct.Resources.Limits = v1.ResourceList{}
	}
	ct.Resources.Requests[draGPU], ct.Resources.Limits[draGPU] = q, q
	for _, n := range g.c.Nodes {
		if g.chance(0.15) {
			n.Status.Capacity[draGPU] = *resource.NewQuantity(2, resource.DecimalSI)
			n.Status.Allocatable[draGPU] = *resource.NewQuantity(2, resource.DecimalSI)
		}
	}
}

func (g *devGen) addSlice(s *resourceapi.ResourceSlice, node string) {
	g.c.Slices = append(g.c.Slices, s)
	g.local[node] = append(g.local[node], s)
}

func slice(name, driver, pool string) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: driver,
			Pool:   resourceapi.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: 1},
		},
	}
}

var gpuMemory = []string{"16Gi", "40Gi", "80Gi"}

// gpuSlice is a node's GPUs: one to four, of model a or b, with 16 to 80Gi of memory;
// now and then one tainted, or one that allows multiple allocations (a share of its
// memory each, DRAConsumableCapacity).
func (g *devGen) gpuSlice(node string) *resourceapi.ResourceSlice {
	s := slice(node+"-gpu", gpuDriver, node)
	s.Spec.NodeName = pointerTo(node)
	for i := range 1 + g.r.IntN(4) {
		model := "a"
		if g.chance(0.4) {
			model = "b"
		}
		mem := resource.MustParse(gpuMemory[g.r.IntN(len(gpuMemory))])
		d := resourceapi.Device{
			Name: fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"model": {StringValue: pointerTo(model)},
				"index": {IntValue: pointerTo(int64(i))},
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: mem}},
		}
		switch {
		case g.chance(0.1):
			d.Taints = []resourceapi.DeviceTaint{{Key: "maintenance", Value: "soon", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
		case g.chance(0.12):
			d.AllowMultipleAllocations = pointerTo(true)
			step := resource.MustParse("8Gi")
			d.Capacity["memory"] = resourceapi.DeviceCapacity{Value: mem, RequestPolicy: &resourceapi.CapacityRequestPolicy{
				Default:    pointerTo(resource.MustParse("8Gi")),
				ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: pointerTo(resource.MustParse("8Gi")), Step: &step},
			}}
		}
		s.Spec.Devices = append(s.Spec.Devices, d)
	}
	return s
}

// nicSlice is a node's NICs: one or two.
func (g *devGen) nicSlice(node string) *resourceapi.ResourceSlice {
	s := slice(node+"-nic", nicDriver, node+"-nic")
	s.Spec.NodeName = pointerTo(node)
	for i := range 1 + g.r.IntN(2) {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{
			Name:       fmt.Sprintf("nic-%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: pointerTo("a")}, "index": {IntValue: pointerTo(int64(i))}},
		})
	}
	return s
}

// fabricSlice is a pool of two fabric devices that the nodes of a zone (or all nodes)
// reach.
func (g *devGen) fabricSlice() *resourceapi.ResourceSlice {
	s := slice("fabric", fabricDriver, "fabric")
	if g.chance(0.5) {
		s.Spec.AllNodes = pointerTo(true)
	} else {
		s.Spec.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: zoneKey, Operator: v1.NodeSelectorOpIn, Values: []string{zones[g.r.IntN(len(zones))]}}},
		}}}
	}
	for i := range 2 {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{
			Name:       fmt.Sprintf("fabric-%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: pointerTo("a")}, "index": {IntValue: pointerTo(int64(i))}},
		})
	}
	return s
}

func claimObject(ns, name string) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-claim-" + ns + "-" + name), ResourceVersion: "1"}}
}

func nodeSelectorFor(node string) *v1.NodeSelector {
	return &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
	}}}
}

// boundClaim gives a bound pod a claim for one GPU of its node, allocated there and
// reserved for it, as the scheduler and the API left it: a device no other claim holds
// whole (with admin access, one any claim may hold too), or a share of a device that
// allows multiple allocations. The claim is made from a template for the pod, or
// allocated by the scheduler, or allocated by someone else (without the scheduler's
// finalizer): what the devices become when the pod is preempted differs.
func (g *devGen) boundClaim(p *v1.Pod) {
	node := p.Spec.NodeName
	var gpus *resourceapi.ResourceSlice
	for _, s := range g.local[node] {
		if s.Spec.Driver == gpuDriver {
			gpus = s
		}
	}
	if gpus == nil {
		return
	}
	d := gpus.Spec.Devices[g.r.IntN(len(gpus.Spec.Devices))]
	id := gpus.Spec.Pool.Name + "/" + d.Name
	admin := g.chance(0.1)
	shared := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
	if !admin && !shared && g.taken.Has(id) {
		return
	}
	name := p.Name + "-gpu"
	cl := claimObject(p.Namespace, name)
	req := resourceapi.DeviceRequest{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: classGPU, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}
	res := resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: gpuDriver, Pool: gpus.Spec.Pool.Name, Device: d.Name}
	switch {
	case admin:
		req.Exactly.AdminAccess = pointerTo(true)
		res.AdminAccess = pointerTo(true)
	case shared:
		q := resource.MustParse("8Gi")
		if g.chance(0.5) {
			q = resource.MustParse("16Gi")
		}
		req.Exactly.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": q}}
		res.ShareID = pointerTo(types.UID(fmt.Sprintf("%05x", g.r.IntN(1<<20))))
		res.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"memory": q}
	default:
		g.taken.Insert(id)
	}
	cl.Spec.Devices.Requests = []resourceapi.DeviceRequest{req}
	cl.Status.Allocation = &resourceapi.AllocationResult{
		Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{res}},
		NodeSelector: nodeSelectorFor(node),
	}
	cl.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
	pc := v1.PodResourceClaim{Name: "gpu", ResourceClaimName: pointerTo(name)}
	switch k := g.r.IntN(3); {
	case k == 0:
		// Made from a template for the pod, which owns it: the ResourceClaim controller
		// deletes it once the pod is gone.
		cl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: pointerTo(true)}}
		cl.Finalizers = []string{resourceapi.Finalizer}
		pc = v1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: pointerTo("template")}
		p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: pointerTo(name)}}
	case k == 1:
		// Allocated by the scheduler (its finalizer): deallocated once nobody reserves it.
		cl.Finalizers = []string{resourceapi.Finalizer}
	}
	g.c.Claims = append(g.c.Claims, cl)
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, pc)
}

// incomingClaims gives the pod to place one or two claims of several kinds.
func (g *devGen) incomingClaims() {
	p := g.c.Pod
	n := 1
	if g.chance(0.3) {
		n = 2
	}
	for i := range n {
		entry := fmt.Sprintf("claim-%d", i)
		name := fmt.Sprintf("incoming-%d", i)
		pc := v1.PodResourceClaim{Name: entry}
		switch k := g.r.IntN(40); {
		case k < 28: // a claim to allocate
			cl := claimObject(p.Namespace, name)
			cl.Spec = g.claimSpec()
			g.c.Claims = append(g.c.Claims, cl)
			pc.ResourceClaimName = pointerTo(name)
		case k < 32: // made from a template for the pod, named in its status, or not yet
			cl := claimObject(p.Namespace, name+"-x7k2p")
			cl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: pointerTo(true)}}
			if g.chance(0.15) {
				cl.OwnerReferences[0].UID = "uid-someone-else"
			}
			cl.Spec = g.claimSpec()
			g.c.Claims = append(g.c.Claims, cl)
			pc.ResourceClaimTemplateName = pointerTo("template")
			if !g.chance(0.15) {
				p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: entry, ResourceClaimName: pointerTo(cl.Name)})
			}
		case k < 36: // a claim of a bound pod, allocated: shared with it
			var shared []*resourceapi.ResourceClaim
			for _, cl := range g.c.Claims {
				if cl.Namespace == p.Namespace && cl.Status.Allocation != nil {
					shared = append(shared, cl)
				}
			}
			if len(shared) == 0 {
				continue
			}
			pc.ResourceClaimName = pointerTo(shared[g.r.IntN(len(shared))].Name)
		case k < 38: // allocated on some node earlier, reserved for nobody
			node := g.c.Nodes[g.r.IntN(len(g.c.Nodes))].Name
			cl := claimObject(p.Namespace, name)
			cl.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: classGPU, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
			cl.Status.Allocation = &resourceapi.AllocationResult{
				Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "gpu", Driver: gpuDriver, Pool: node, Device: "gpu-9"}}},
				NodeSelector: nodeSelectorFor(node),
			}
			g.c.Claims = append(g.c.Claims, cl)
			pc.ResourceClaimName = pointerTo(name)
		case k < 39: // being deleted
			cl := claimObject(p.Namespace, name)
			cl.Spec = g.claimSpec()
			at := metav1.NewTime(deletedAt)
			cl.DeletionTimestamp = &at
			cl.Finalizers = []string{"resource.kubernetes.io/delete-protection"}
			g.c.Claims = append(g.c.Claims, cl)
			pc.ResourceClaimName = pointerTo(name)
		default: // no such claim
			pc.ResourceClaimName = pointerTo("missing")
		}
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, pc)
	}
}

// claimSpec is a claim's requests: one or two, each of exactly some devices (a count, or
// all) of a class, with a selector, tolerations, admin access or a capacity now and then,
// or a prioritized list of subrequests; sometimes a constraint that the devices share a
// model.
func (g *devGen) claimSpec() resourceapi.ResourceClaimSpec {
	var spec resourceapi.ResourceClaimSpec
	n := 1
	if g.chance(0.3) {
		n = 2
	}
	for i := range n {
		name := fmt.Sprintf("req-%d", i)
		if g.chance(0.35) {
			// The first alternatives ask for more than the later ones, so that nodes
			// differ in which they serve, and so in score.
			r := resourceapi.DeviceRequest{Name: name}
			for j := range 2 + g.r.IntN(2) {
				e := g.exact()
				if j == 0 && g.chance(0.6) {
					e.Count = 2 + int64(g.r.IntN(2))
					e.AllocationMode = resourceapi.DeviceAllocationModeExactCount
				}
				r.FirstAvailable = append(r.FirstAvailable, resourceapi.DeviceSubRequest{
					Name: fmt.Sprintf("sub-%d", j), DeviceClassName: e.DeviceClassName, Selectors: e.Selectors,
					AllocationMode: e.AllocationMode, Count: e.Count, Tolerations: e.Tolerations, Capacity: e.Capacity,
				})
			}
			spec.Devices.Requests = append(spec.Devices.Requests, r)
			continue
		}
		e := g.exact()
		if g.chance(0.04) {
			e.AdminAccess = pointerTo(true)
		}
		spec.Devices.Requests = append(spec.Devices.Requests, resourceapi.DeviceRequest{Name: name, Exactly: e})
	}
	if n > 1 && g.chance(0.3) {
		spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: pointerTo(resourceapi.FullyQualifiedName(gpuDriver + "/model"))}}
	}
	return spec
}

func (g *devGen) exact() *resourceapi.ExactDeviceRequest {
	class := requestClasses[g.r.IntN(len(requestClasses))]
	if g.chance(0.02) {
		class = classMissing
	}
	e := &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(1 + g.r.IntN(2))}
	if g.chance(0.08) {
		e.AllocationMode, e.Count = resourceapi.DeviceAllocationModeAll, 0
	}
	if g.chance(0.25) {
		switch g.r.IntN(3) {
		case 0:
			e.Selectors = celSelector(`device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "b"`)
		case 1:
			e.Selectors = celSelector(`device.attributes["gpu.example.com"].index >= 1 || device.driver != "gpu.example.com"`)
		default:
			e.Selectors = celSelector(`device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) == 0`)
		}
	}
	if g.chance(0.3) {
		e.Tolerations = []resourceapi.DeviceToleration{{Key: "maintenance", Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoSchedule}}
	}
	if class == classGPU && g.chance(0.3) {
		q := []string{"8Gi", "16Gi", "20Gi", "48Gi"}[g.r.IntN(4)]
		e.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse(q)}}
	}
	return e
}
