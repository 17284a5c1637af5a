package sim

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/dynamic-resource-allocation/cel"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/report"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// report is the run's outcome: every pod of the input and every pod a controller made, in
// the order they were planned; the groups and composites; the events; the claims as they
// stand; and, for the HTML report, the nodes and what occupied them when.
func (s *Simulator) report(wall time.Duration) *report.Report {
	r := &report.Report{SchemaVersion: report.SchemaVersion, Pods: []report.Pod{}, Events: s.events, Violations: s.violations}
	if r.Events == nil {
		r.Events = []report.Event{}
	}
	for _, rec := range s.podOrder {
		p := rec.pod
		pr := report.Pod{
			Namespace: p.Namespace, Name: p.Name, Phase: rec.phase, Node: rec.node,
			NominatedNode: p.Status.NominatedNodeName, BoundAt: rec.boundAt, PreemptedBy: rec.preemptedBy,
			PodGroup: v1alpha1.PodGroupNameOf(p), Devices: rec.devices, Volumes: rec.volumes,
		}
		if p.Spec.Priority != nil {
			pr.Priority = *p.Spec.Priority
		}
		pr.CreatedAt, pr.DeletedAt, pr.Requests = rec.createdAt, rec.deletedAt, podRequests(p)
		pr.Owner, pr.Replaces = ownerOf(p), rec.replaces
		if rec.ctrl != nil {
			pr.Workload = rec.ctrl.Workload().String()
		}
		switch {
		case rec.message != "":
			pr.Message = rec.message
		case rec.phase == report.PhasePending:
			pr.Message = s.sched.PendingMessage(p)
		}
		if rec.phase != report.PhasePending {
			pr.NominatedNode = ""
		}
		r.Pods = append(r.Pods, pr)
		switch rec.phase {
		case report.PhasePending:
			r.Summary.Pending++
		case report.PhaseRunning:
			r.Summary.Running++
		case report.PhaseSucceeded:
			r.Summary.Succeeded++
		case report.PhasePreempted:
			r.Summary.Preempted++
		case report.PhaseDeleted:
			r.Summary.Deleted++
		}
	}
	r.Summary.Pods = len(s.podOrder)
	r.PodGroups, r.CompositePodGroups = s.groups.reports()
	r.Summary.VirtualSeconds = s.seconds(s.now)
	if s.opts.ReportWallTime {
		r.Summary.WallSeconds = float64(wall.Milliseconds()) / 1000
	}
	s.lifetimes(r)
	r.Claims = s.objs.claimReports()
	return r
}

func ownerOf(p *v1.Pod) *report.ObjectRef {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return &report.ObjectRef{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name}
	}
	return nil
}

// lifetimes fills the nodes, and when pods and devices occupied them.
func (s *Simulator) lifetimes(r *report.Report) {
	for _, n := range s.sc.Nodes {
		created, ok := s.nodeAdded[n.Name]
		if !ok {
			continue // never appeared during the run: it offered nothing
		}
		alloc := n.Status.Allocatable
		if len(alloc) == 0 {
			alloc = n.Status.Capacity
		}
		nr := report.Node{Name: n.Name, Allocatable: map[string]int64{}, CreatedAt: created, Labels: maps.Clone(n.Labels)}
		if t, deleted := s.nodeDeleted[n.Name]; deleted {
			nr.DeletedAt = &t
		}
		for k, q := range alloc {
			nr.Allocatable[string(k)] = quantityValue(string(k), q)
		}
		r.Nodes = append(r.Nodes, nr)
	}
	end := s.seconds(s.now)
	for i, rec := range s.podOrder {
		if rec.boundAt == nil {
			continue
		}
		// r.Pods is in podOrder's order, with each pod's requests computed once.
		lt := report.Lifetime{Pod: key(rec.pod), Node: rec.node, Start: *rec.boundAt, End: end, Phase: rec.phase, Requests: r.Pods[i].Requests}
		if rec.endAt != nil {
			lt.End = *rec.endAt
		}
		r.Lifetimes = append(r.Lifetimes, lt)
	}
	r.Devices = deviceInventory(s.sc)
	deviceAllocatable(r.Nodes, r.Devices)
	podDevices := map[string][]string{}
	for _, rec := range s.podOrder {
		if rec.boundAt != nil && len(rec.devices) > 0 {
			podDevices[key(rec.pod)] = rec.devices
		}
	}
	r.Lifetimes = append(r.Lifetimes, deviceLifetimes(r.Devices, r.Lifetimes, podDevices)...)
}

// podRequests is a pod's effective requests by resource name (cpu in millicores).
func podRequests(p *v1.Pod) map[string]int64 {
	req, err := resource.ForPod(p)
	out := map[string]int64{}
	var tooLarge *resource.TooLargeError
	if err != nil && !errors.As(err, &tooLarge) {
		return out
	}
	for _, i := range req.NonZero() {
		out[string(resource.Name(int(i)))] = req.Vector[i]
	}
	return out
}

// quantityValue is an amount as the scheduler counts it (clamped to resource.MaxAmount).
func quantityValue(name string, q apiresource.Quantity) int64 {
	i := resource.Memory
	if name == string(v1.ResourceCPU) {
		i = resource.CPU
	}
	v, _ := resource.Amount(i, q)
	return v
}

// deviceInventory lists the devices of the scenario's node-local ResourceSlices with the
// classes whose CEL selectors match them (a device may be in several classes; a selector
// that fails to evaluate does not match, as in the allocator).
func deviceInventory(sc *admission.Scenario) []report.Device {
	classes := sc.Resources.DeviceClasses
	compiled := cel.NewCache(100, cel.Features{})
	var out []report.Device
	for _, sl := range sc.Resources.Slices {
		if sl.Spec.NodeName == nil || *sl.Spec.NodeName == "" {
			continue // devices not attached to one node have no place in a per-node view
		}
		for _, d := range sl.Spec.Devices {
			info := report.Device{Key: sl.Spec.Driver + "/" + sl.Spec.Pool.Name + "/" + d.Name, Node: *sl.Spec.NodeName}
			dev := cel.Device{Driver: sl.Spec.Driver, Attributes: d.Attributes, Capacity: d.Capacity}
			for _, dc := range classes {
				matches := true
				for _, sel := range dc.Spec.Selectors {
					if sel.CEL == nil {
						continue
					}
					res := compiled.GetOrCompile(sel.CEL.Expression)
					ok, _, err := res.DeviceMatches(context.Background(), dev)
					if res.Error != nil || err != nil || !ok {
						matches = false
						break
					}
				}
				if matches {
					info.Resources = append(info.Resources, report.DeviceClassResource(dc.Name))
				}
			}
			if len(info.Resources) == 0 {
				info.Resources = []string{report.NoClassResource(sl.Spec.Driver)}
			}
			out = append(out, info)
		}
	}
	return out
}

// deviceLifetimes are the stretches each device was in use by bound pods (pods that
// share a claim share its devices: the stretches are merged), as lifetimes requesting one
// of each of the device's occupancy resources, for the occupancy charts.
func deviceLifetimes(devices []report.Device, pods []report.Lifetime, podDevices map[string][]string) []report.Lifetime {
	type stretch struct{ from, to float64 }
	info := map[string]report.Device{}
	for _, d := range devices {
		info[d.Key] = d
	}
	busy := map[string][]stretch{}
	for _, l := range pods {
		for _, key := range podDevices[l.Pod] {
			if _, ok := info[key]; ok && l.End > l.Start {
				busy[key] = append(busy[key], stretch{from: l.Start, to: l.End})
			}
		}
	}
	var out []report.Lifetime
	for _, key := range sortedKeys(busy) {
		d := info[key]
		spans := busy[key]
		sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
		requests := map[string]int64{}
		for _, res := range d.Resources {
			requests[res] = 1
		}
		cur := spans[0]
		flush := func() {
			out = append(out, report.Lifetime{Device: key, Node: d.Node, Start: cur.from, End: cur.to, Requests: requests, Phase: report.PhaseRunning})
		}
		for _, sp := range spans[1:] {
			if sp.from <= cur.to {
				cur.to = max(cur.to, sp.to)
				continue
			}
			flush()
			cur = sp
		}
		flush()
	}
	return out
}

// deviceAllocatable adds each node's device count per occupancy resource to its
// allocatable.
func deviceAllocatable(nodes []report.Node, devices []report.Device) {
	byNode := map[string]int{}
	for i, n := range nodes {
		byNode[n.Name] = i
	}
	for _, d := range devices {
		i, ok := byNode[d.Node]
		if !ok {
			continue
		}
		for _, res := range d.Resources {
			nodes[i].Allocatable[res]++
		}
	}
}

// podDevices lists the devices allocated to the claims a pod uses ("driver/pool/device"),
// for the report.
func (o *objectStore) podDevices(p *v1.Pod) []string {
	var g *v1alpha1.PodGroup
	if name := v1alpha1.PodGroupNameOf(p); name != "" {
		g = o.podGroup(p.Namespace + "/" + name)
	}
	names := []string{}
	for _, pc := range framework.ResolvePodClaims(p, g) {
		if pc.Name != "" {
			names = append(names, pc.Name)
		}
	}
	if st := p.Status.ExtendedResourceClaimStatus; st != nil {
		names = append(names, st.ResourceClaimName)
	}
	var out []string
	for _, n := range names {
		if c := o.claims[p.Namespace+"/"+n]; c != nil && c.Status.Allocation != nil {
			for _, r := range c.Status.Allocation.Devices.Results {
				out = append(out, r.Driver+"/"+r.Pool+"/"+r.Device)
			}
		}
	}
	slices.Sort(out)
	return out
}

// boundVolumes lists "claim=volume" for the claims a pod uses, for the report.
func (o *objectStore) boundVolumes(p *v1.Pod) []string {
	var out []string
	for i := range p.Spec.Volumes {
		vol := &p.Spec.Volumes[i]
		name := ""
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(p, vol)
		default:
			continue
		}
		if pvc := o.pvcs[p.Namespace+"/"+name]; pvc != nil && pvc.Spec.VolumeName != "" {
			out = append(out, name+"="+pvc.Spec.VolumeName)
		}
	}
	return slices.Clip(out)
}

// claimReports lists the claims as they stand, by namespace/name.
func (o *objectStore) claimReports() []report.Claim {
	var out []report.Claim
	for _, k := range sortedKeys(o.claims) {
		c := o.claims[k]
		cr := report.Claim{Namespace: c.Namespace, Name: c.Name, Devices: []string{}, ReservedFor: []string{}}
		if a := c.Status.Allocation; a != nil {
			for _, r := range a.Devices.Results {
				cr.Devices = append(cr.Devices, r.Driver+"/"+r.Pool+"/"+r.Device)
			}
		}
		for _, r := range c.Status.ReservedFor {
			kind := "Pod"
			if r.Resource == framework.ConsumerGroupResource {
				kind = "PodGroup"
			}
			cr.ReservedFor = append(cr.ReservedFor, kind+"/"+r.Name)
		}
		out = append(out, cr)
	}
	return out
}
