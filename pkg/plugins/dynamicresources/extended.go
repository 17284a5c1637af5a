package dynamicresources

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// extendedKey stands for the claim made for a pod's extended resources backed by DRA in
// the per-node results, before it has a name.
const extendedKey = "<extended-resources>"

// extendedClaim is a pod's extended resources that a DeviceClass backs with devices
// (KEP-5004: DRAExtendedResource). On a node whose allocatable lacks such a resource, the
// plugin allocates devices of the class instead, through one claim per pod that PreBind
// creates (owned by the pod) and records in the pod's status with which request serves
// which container.
type extendedClaim struct {
	pod *v1.Pod
	// resources are the extended resources the pod asks for that a class backs, by name.
	resources []v1.ResourceName
	counts    map[v1.ResourceName]int64
	// others are the pod's other extended resources, which no class backs.
	others []v1.ResourceName

	mu sync.Mutex
	// byNeed caches the claim for each set of resources a node lacks.
	byNeed map[string]*nodeExtended

	// allocation and claim are what Reserve chose, for PreBind.
	allocation *resourceapi.AllocationResult
	claim      *nodeExtended
	// created is the claim PreBind made (namespace/name), whose binding conditions
	// PreBindReady waits for.
	created string
	// leftover is the claim an earlier attempt made for the pod (found by its annotation
	// and owner, as kube-scheduler finds it): Filter rejects every node while it exists,
	// and PostFilter deletes it, so that the next attempt starts afresh.
	leftover *resourceapi.ResourceClaim
}

// nodeExtended is the claim for a node that lacks some of the resources, with the
// mappings of containers to its requests.
type nodeExtended struct {
	claim    *resourceapi.ResourceClaim
	mappings []v1.ContainerExtendedResourceRequest
}

func (e *extendedClaim) needed() bool { return e != nil && len(e.resources) > 0 }

// preFilterExtended finds the pod's extended resources backed by DRA, and the claim an
// earlier attempt made for them, if any.
func (pl *DynamicResources) preFilterExtended(p *framework.PodInfo) (*extendedClaim, *framework.Status) {
	dra := pl.h.Snapshot().DRA()
	if len(dra.Classes()) == 0 {
		return nil, nil
	}
	var e *extendedClaim
	var others []v1.ResourceName
	for _, i := range p.RequestIdx {
		idx := int(i)
		if !resource.IsScalar(idx) || p.Requests.Vector[idx] == 0 {
			continue
		}
		name := resource.Name(idx)
		if dra.ExtendedResourceClass(string(name)) == nil {
			if isExtendedResourceName(name) {
				others = append(others, name)
			}
			continue
		}
		if e == nil {
			e = &extendedClaim{pod: p.Pod, counts: map[v1.ResourceName]int64{}, byNeed: map[string]*nodeExtended{}}
		}
		e.resources = append(e.resources, name)
		e.counts[name] = p.Requests.Vector[idx]
	}
	if e == nil {
		return nil, nil
	}
	slices.Sort(e.resources)
	slices.Sort(others)
	e.others = others
	if ci := dra.ExtendedResourceClaim(p.Pod); ci != nil {
		// As kube-scheduler: an earlier attempt's claim may no longer be valid (its
		// binding failed), so it is deleted and the pod tried afresh.
		e.leftover = ci.Claim
	}
	return e, nil
}

// forNode returns the claim the pod needs on a node: requests for the resources backed by
// DRA that the node's allocatable lacks (those it has come from a device plugin and are
// NodeResourcesFit's to check). Nil when the node needs none.
func (e *extendedClaim) forNode(dra framework.DRA, n *framework.NodeInfo) (*resourceapi.ResourceClaim, *framework.Status) {
	// As kube-scheduler: a pod with resources backed by DRA does not fit a node that does
	// not list one of its other extended resources at all (how much of them the node has
	// is NodeResourcesFit's to check).
	for _, name := range e.others {
		if _, ok := n.Node().Status.Allocatable[name]; !ok {
			return nil, unresolvable(msgCannotFit)
		}
	}
	ne := e.nodeClaim(dra, n)
	if ne == nil {
		return nil, nil
	}
	return ne.claim, nil
}

func (e *extendedClaim) nodeClaim(dra framework.DRA, n *framework.NodeInfo) *nodeExtended {
	var need []v1.ResourceName
	for _, name := range e.resources {
		if idx, err := resource.Index(name); err == nil && n.Allocatable[idx] > 0 {
			continue
		}
		need = append(need, name)
	}
	if len(need) == 0 {
		return nil
	}
	sig := fmt.Sprint(need)
	e.mu.Lock()
	defer e.mu.Unlock()
	if ne := e.byNeed[sig]; ne != nil {
		return ne
	}
	reqs, mappings := extendedRequests(e.pod, need, dra)
	ne := &nodeExtended{claim: &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    e.pod.Namespace,
			Name:         extendedKey,
			GenerateName: e.pod.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: e.pod.Name, UID: e.pod.UID, Controller: ptrTrue(),
			}},
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"},
		},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: reqs}},
	}, mappings: mappings}
	e.byNeed[sig] = ne
	return ne
}

func ptrTrue() *bool { t := true; return &t }

// isExtendedResourceName is kube-scheduler's IsDRAExtendedResourceName for the names the
// API server admits: an extended resource (a name with a "/" outside the kubernetes.io/
// namespace, not a quota "requests." name), or a class's implicit name.
func isExtendedResourceName(name v1.ResourceName) bool {
	s := string(name)
	return strings.HasPrefix(s, resourceapi.ResourceDeviceClassPrefix) ||
		(strings.Contains(s, "/") && !strings.Contains(s, v1.ResourceDefaultNamespacePrefix) && !strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix))
}

// extendedRequests builds the claim's requests as kube-scheduler does: one request per
// long-lived container (regular and sidecar) and resource, named container-<i>-request-<j>;
// init containers that run before them reuse their requests where those are large
// enough, and the largest remaining init request serves all of them.
func extendedRequests(pod *v1.Pod, need []v1.ResourceName, dra framework.DRA) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	containers := slices.Clone(pod.Spec.InitContainers)
	containers = append(containers, pod.Spec.Containers...)
	var longLived, shortLived []int
	for i, c := range containers {
		if i < len(pod.Spec.InitContainers) && (c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways) {
			shortLived = append(shortLived, i)
		} else {
			longLived = append(longLived, i)
		}
	}
	var requests []resourceapi.DeviceRequest
	var mappings []v1.ContainerExtendedResourceRequest
	for _, name := range need {
		class := dra.ExtendedResourceClass(string(name))
		if class == nil {
			continue
		}
		longReqs := make([]*resourceapi.DeviceRequest, len(containers))
		var longMaps, shortMaps []v1.ContainerExtendedResourceRequest
		for _, i := range longLived {
			r, m := containerRequest(i, &containers[i], name, class.Name, nil)
			longReqs[i] = r
			longMaps = append(longMaps, m...)
		}
		var maxShort *resourceapi.DeviceRequest
		shortNames := sets.New[string]()
		for _, i := range shortLived {
			r, m := containerRequest(i, &containers[i], name, class.Name, longReqs[i:])
			if r != nil {
				shortNames.Insert(r.Name)
				if maxShort == nil || maxShort.Exactly.Count < r.Exactly.Count {
					maxShort = r
				}
			}
			shortMaps = append(shortMaps, m...)
		}
		if maxShort != nil && len(shortNames) > 1 {
			shortNames.Delete(maxShort.Name)
			for i := range shortMaps {
				if shortNames.Has(shortMaps[i].RequestName) {
					shortMaps[i].RequestName = maxShort.Name
				}
			}
		}
		if maxShort != nil {
			requests = append(requests, *maxShort)
		}
		for _, r := range longReqs {
			if r != nil {
				requests = append(requests, *r)
			}
		}
		mappings = append(mappings, longMaps...)
		mappings = append(mappings, shortMaps...)
	}
	sort.Slice(requests, func(i, j int) bool { return requests[i].Name < requests[j].Name })
	return requests, mappings
}

// containerRequest is one container's request for a resource, after reusing the requests
// in reusable; nil when the container needs no more.
func containerRequest(index int, c *v1.Container, name v1.ResourceName, class string, reusable []*resourceapi.DeviceRequest) (*resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	q, ok := c.Resources.Requests[name]
	if !ok {
		return nil, nil
	}
	want, ok := q.AsInt64()
	if !ok || want == 0 {
		return nil, nil
	}
	var mappings []v1.ContainerExtendedResourceRequest
	sum := int64(0)
	for _, r := range reusable {
		if r == nil {
			continue
		}
		sum += r.Exactly.Count
		mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: r.Name})
		if sum >= want {
			return nil, mappings
		}
	}
	keys := make([]string, 0, len(c.Resources.Requests))
	for k := range c.Resources.Requests {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	ridx := slices.Index(keys, string(name))
	reqName := fmt.Sprintf("container-%d-request-%d", index, ridx)
	mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(name), RequestName: reqName})
	return &resourceapi.DeviceRequest{Name: reqName, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: want - sum,
	}}, mappings
}
