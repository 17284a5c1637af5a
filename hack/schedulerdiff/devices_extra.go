package schedulerdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What decision 45 added to the device cases, from a random stream of its own (so that
// the cases drawn before are the same, with these added): devices with binding conditions
// and claims allocated on them whose device status reports the conditions (pending, met,
// failed) with an allocation time long past or not yet reached; DeviceTaintRules selecting
// devices by driver, pool and device; and the claim an earlier attempt made for the pod's
// extended resources backed by devices (owned by the pod, named in its status or not).
const (
	condAttached = "example.com/attached"
	condFailed   = "example.com/failed"
)

// allocatedLongAgo is an allocation time whose binding timeout has passed; allocatedLater
// one it will not reach while the test runs: fixed times, so that a seed always gives the
// same case and the same verdict.
var (
	allocatedLongAgo = deletedAt
	allocatedLater   = time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)
)

func deviceExtras(seed uint64, g *devGen) {
	x := &devGen{r: rand.New(rand.NewPCG(seed, 0xd7b)), c: g.c, taken: g.taken, local: g.local}
	x.bindingConditions()
	x.taintRules()
	x.leftoverExtendedClaim()
}

// bindingConditions gives some GPU and fabric devices binding conditions, copies them
// into the results of the claims allocated on them with a device status and an allocation
// time, and now and then gives the pod to place a claim allocated on such a device in an
// earlier attempt and reserved for nobody.
func (g *devGen) bindingConditions() {
	if !g.chance(0.4) {
		return
	}
	with := map[string]bool{} // pool/device
	for _, s := range g.c.Slices {
		if s.Spec.Driver == nicDriver {
			continue
		}
		for i := range s.Spec.Devices {
			if g.chance(0.2) {
				d := &s.Spec.Devices[i]
				d.BindingConditions = []string{condAttached}
				d.BindingFailureConditions = []string{condFailed}
				if s.Spec.NodeName == nil && g.chance(0.5) {
					d.BindsToNode = pointerTo(true)
				}
				with[s.Spec.Pool.Name+"/"+d.Name] = true
			}
		}
	}
	for _, cl := range g.c.Claims {
		if cl.Status.Allocation == nil {
			continue
		}
		g.markBinding(cl, with)
	}
	if len(with) == 0 || !g.chance(0.5) {
		return
	}
	// A claim of the pod to place, allocated on a device with binding conditions in an
	// attempt whose binding did not finish.
	var ids []string
	for id := range with {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	id := ids[g.r.IntN(len(ids))]
	var s *resourceapi.ResourceSlice
	var dev string
	for _, sl := range g.c.Slices {
		for _, d := range sl.Spec.Devices {
			if sl.Spec.Pool.Name+"/"+d.Name == id {
				s, dev = sl, d.Name
			}
		}
	}
	if g.taken.Has(id) {
		return
	}
	g.taken.Insert(id)
	p := g.c.Pod
	class := classGPU
	if s.Spec.Driver == fabricDriver {
		class = classFabric
	}
	cl := claimObject(p.Namespace, "incoming-bc")
	cl.Finalizers = []string{resourceapi.Finalizer}
	cl.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "dev", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
	a := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
		Request: "dev", Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: dev,
	}}}}
	switch {
	case s.Spec.NodeName != nil:
		a.NodeSelector = nodeSelectorFor(*s.Spec.NodeName)
	case s.Spec.NodeSelector != nil:
		a.NodeSelector = s.Spec.NodeSelector.DeepCopy()
	}
	cl.Status.Allocation = a
	g.markBinding(cl, with)
	g.c.Claims = append(g.c.Claims, cl)
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: "bc", ResourceClaimName: pointerTo(cl.Name)})
}

// markBinding copies the binding conditions of the devices a claim is allocated into its
// results and draws what the driver reported of them and when the claim was allocated.
func (g *devGen) markBinding(cl *resourceapi.ResourceClaim, with map[string]bool) {
	a := cl.Status.Allocation
	marked := false
	for i := range a.Devices.Results {
		r := &a.Devices.Results[i]
		if !with[r.Pool+"/"+r.Device] {
			continue
		}
		marked = true
		r.BindingConditions = []string{condAttached}
		r.BindingFailureConditions = []string{condFailed}
		var conds []metav1.Condition
		cond := func(t string, st metav1.ConditionStatus) metav1.Condition {
			return metav1.Condition{Type: t, Status: st, Reason: "Driver", LastTransitionTime: metav1.NewTime(deletedAt)}
		}
		switch g.r.IntN(5) {
		case 0: // nothing reported
			continue
		case 1: // not yet
			conds = []metav1.Condition{cond(condAttached, metav1.ConditionFalse)}
		case 2, 3: // readied
			conds = []metav1.Condition{cond(condAttached, metav1.ConditionTrue), cond(condFailed, metav1.ConditionFalse)}
		default: // failed
			conds = []metav1.Condition{cond(condAttached, metav1.ConditionFalse), cond(condFailed, metav1.ConditionTrue)}
		}
		cl.Status.Devices = append(cl.Status.Devices, resourceapi.AllocatedDeviceStatus{
			Driver: r.Driver, Pool: r.Pool, Device: r.Device, ShareID: pointerToString(r.ShareID), Conditions: conds,
		})
	}
	if !marked {
		return
	}
	switch g.r.IntN(3) {
	case 0: // allocated by a scheduler that did not stamp it
	case 1:
		a.AllocationTimestamp = &metav1.Time{Time: allocatedLongAgo}
	default:
		a.AllocationTimestamp = &metav1.Time{Time: allocatedLater}
	}
}

func pointerToString[T ~string](p *T) *string {
	if p == nil {
		return nil
	}
	return pointerTo(string(*p))
}

// taintRules adds one or two DeviceTaintRules: selecting the GPUs of every node, the
// devices of a node's pool, one device in every pool, one device of one pool, or (rarely)
// nothing; NoSchedule or NoExecute, with the key the requests tolerate or another.
func (g *devGen) taintRules() {
	if len(g.c.Slices) == 0 || !g.chance(0.3) {
		return
	}
	pools := []string{}
	for _, s := range g.c.Slices {
		pools = append(pools, s.Spec.Pool.Name)
	}
	for i := range 1 + g.r.IntN(2) {
		sel := &resourceapi.DeviceTaintSelector{}
		pool := pools[g.r.IntN(len(pools))]
		switch g.r.IntN(6) {
		case 0:
			sel.Driver = pointerTo(gpuDriver)
		case 1:
			sel.Pool = pointerTo(pool)
		case 2:
			sel.Driver, sel.Pool = pointerTo(gpuDriver), pointerTo(pool)
		case 3:
			sel.Device = pointerTo(fmt.Sprintf("gpu-%d", g.r.IntN(2)))
		case 4:
			sel.Driver, sel.Pool, sel.Device = pointerTo(gpuDriver), pointerTo(pool), pointerTo(fmt.Sprintf("gpu-%d", g.r.IntN(2)))
		default:
			if g.chance(0.5) {
				sel = nil // selects nothing
			} else {
				sel.Driver, sel.Device = pointerTo(nicDriver), pointerTo("gpu-0") // no such device
			}
		}
		taint := resourceapi.DeviceTaint{Key: "maintenance", Value: "soon", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: deletedAt}}
		if g.chance(0.4) {
			taint.Effect = resourceapi.DeviceTaintEffectNoExecute
		}
		if g.chance(0.3) {
			taint.Key, taint.Value = "broken", ""
		}
		g.c.Rules = append(g.c.Rules, &resourceapi.DeviceTaintRule{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rule-%d", i), ResourceVersion: "1"},
			Spec:       resourceapi.DeviceTaintRuleSpec{DeviceSelector: sel, Taint: taint},
		})
	}
}

// leftoverExtendedClaim gives a pod that asks for the extended resource a class backs the
// claim an earlier attempt made for it: owned by the pod and annotated as such, allocated
// on a node's GPUs (reserved for the pod or for nobody), or not allocated; named in the
// pod's status, or not yet (the attempt ended before it patched the pod).
func (g *devGen) leftoverExtendedClaim() {
	p := g.c.Pod
	q, ok := p.Spec.Containers[0].Resources.Requests[draGPU]
	if !ok || !g.chance(0.4) {
		return
	}
	var nodes []string
	for _, n := range g.c.Nodes {
		if len(g.local[n.Name]) > 0 {
			nodes = append(nodes, n.Name)
		}
	}
	if len(nodes) == 0 {
		return
	}
	node := nodes[g.r.IntN(len(nodes))]
	var gpus *resourceapi.ResourceSlice
	for _, s := range g.local[node] {
		if s.Spec.Driver == gpuDriver {
			gpus = s
		}
	}
	if gpus == nil {
		return
	}
	count := q.Value()
	reqName := "container-0-request-0"
	for i, k := range sortedResourceNames(p.Spec.Containers[0].Resources.Requests) {
		if k == draGPU {
			reqName = fmt.Sprintf("container-0-request-%d", i)
		}
	}
	cl := claimObject(p.Namespace, p.Name+"-extended-resources-q8v4t")
	cl.Annotations = map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"}
	cl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: pointerTo(true)}}
	cl.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: reqName, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: classGPUExt, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
	}}}
	if !g.chance(0.15) {
		var results []resourceapi.DeviceRequestAllocationResult
		for _, d := range gpus.Spec.Devices {
			id := gpus.Spec.Pool.Name + "/" + d.Name
			if int64(len(results)) == count || g.taken.Has(id) || (d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations) {
				continue
			}
			results = append(results, resourceapi.DeviceRequestAllocationResult{Request: reqName, Driver: gpuDriver, Pool: gpus.Spec.Pool.Name, Device: d.Name})
		}
		if int64(len(results)) < count {
			return
		}
		for _, r := range results {
			g.taken.Insert(r.Pool + "/" + r.Device)
		}
		cl.Finalizers = []string{resourceapi.Finalizer}
		cl.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}, NodeSelector: nodeSelectorFor(node)}
		if g.chance(0.5) {
			cl.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
		}
	}
	g.c.Claims = append(g.c.Claims, cl)
	if g.chance(0.8) {
		p.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{
			ResourceClaimName: cl.Name,
			RequestMappings:   []v1.ContainerExtendedResourceRequest{{ContainerName: p.Spec.Containers[0].Name, ResourceName: draGPU, RequestName: reqName}},
		}
	}
}

func sortedResourceNames(l v1.ResourceList) []v1.ResourceName {
	var out []v1.ResourceName
	for k := range l {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
