package sim

import (
	"errors"
	"maps"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// ReportSchemaVersion is the version of -o json's shape, written as schemaVersion: it
// changes when a field changes meaning or goes away (new fields keep it).
// docs/simulate-report.schema.json is its JSON Schema; README.md describes it.
const ReportSchemaVersion = 1

// Report is the outcome of a simulation, as `phalanx simulate -o json` writes it.
type Report struct {
	SchemaVersion int           `json:"schemaVersion"`
	Pods          []PodReport   `json:"pods"`
	PodGroups     []GroupReport `json:"podGroups"`
	// CompositePodGroups are phalanx's, then Kubernetes' own (omitted when there are none).
	CompositePodGroups []GroupReport `json:"compositePodGroups,omitempty"`
	Events             []Event       `json:"events"`
	Summary            Summary       `json:"summary"`
	// Claims are the ResourceClaims at the end of the run: their devices and consumers.
	Claims []ClaimReport `json:"claims,omitempty"`
	// Violations lists broken invariants (only with invariant checks on).
	Violations []string `json:"violations,omitempty"`

	// Nodes and the pods' (and devices') lifetimes feed the HTML report's occupancy
	// charts; Devices are the nodes' devices and their classes.
	Nodes     []NodeReport `json:"-"`
	Lifetimes []Lifetime   `json:"-"`
	Devices   []DeviceInfo `json:"-"`
}

// PodReport is one input pod's outcome.
type PodReport struct {
	Namespace     string     `json:"namespace"`
	Name          string     `json:"name"`
	Phase         string     `json:"phase"`
	Node          string     `json:"node"`
	NominatedNode string     `json:"nominatedNode"`
	BoundAt       *float64   `json:"boundAt"`
	Priority      int32      `json:"priority"`
	PodGroup      string     `json:"podGroup"`
	PreemptedBy   *ObjectRef `json:"preemptedBy"`
	Message       string     `json:"message"`
	// Devices are the devices allocated to the pod's claims when it was bound
	// ("driver/pool/device", its own claims and those its group shares); Volumes the
	// claims of its volumes and the volumes they were bound to ("claim=volume").
	Devices []string `json:"devices,omitempty"`
	Volumes []string `json:"volumes,omitempty"`
	// CreatedAt is when the pod appeared (null if the run never created it), so its wait
	// in the queue is boundAt - createdAt; DeletedAt is when its deletion started (by the
	// timeline, preemption or its node's deletion; null if never).
	CreatedAt *float64 `json:"createdAt"`
	DeletedAt *float64 `json:"deletedAt"`
	// Owner is the pod's controller (its controller owner reference), omitted when none;
	// Replaces names the pod whose end the controller made it for, omitted when none.
	Owner    *ObjectRef `json:"owner,omitempty"`
	Replaces string     `json:"replaces,omitempty"`
	// Workload is the workload of the input whose controller made the pod ("Job ml/train").
	Workload string `json:"-"`

	// The HTML report's timelines also need its effective requests, bound or not.
	Requests map[string]int64 `json:"-"`
}

// ClaimReport is a ResourceClaim at the end of the run.
type ClaimReport struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Devices are the allocated devices ("driver/pool/device"), none when unallocated.
	Devices []string `json:"devices"`
	// ReservedFor names the consumers ("Pod/name", "PodGroup/name").
	ReservedFor []string `json:"reservedFor"`
}

// GroupReport is one PodGroup's or CompositePodGroup's outcome.
type GroupReport struct {
	// APIVersion is set for Kubernetes' own only: the scheduling.k8s.io version read.
	APIVersion string `json:"apiVersion,omitempty"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	// Parent is the CompositePodGroup it belongs to, if any.
	Parent     string      `json:"parent,omitempty"`
	Phase      string      `json:"phase"`
	Conditions []Condition `json:"conditions"`

	// MinCount (a composite's minGroupCount) and Priority are the spec as the scheduler
	// reads it, for the HTML report; Priority is nil when the group names none and no class
	// supplied one.
	MinCount int32  `json:"-"`
	Priority *int32 `json:"-"`
}

// groupReport is a group's or composite's outcome from its metadata, status and spec.
func groupReport(m *metav1.ObjectMeta, phase v1alpha1.PodGroupPhase, conds []metav1.Condition, priority *int32, parent *string) GroupReport {
	gr := GroupReport{Namespace: m.Namespace, Name: m.Name, Phase: string(phase), Conditions: []Condition{}}
	if gr.Phase == "" {
		gr.Phase = string(v1alpha1.PodGroupPhasePending)
	}
	if priority != nil {
		v := *priority
		gr.Priority = &v
	}
	if parent != nil {
		gr.Parent = *parent
	}
	for _, c := range conds {
		gr.Conditions = append(gr.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return gr
}

// Condition is a PodGroup condition in the report.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Event is an event the scheduler recorded, at a virtual time in seconds.
type Event struct {
	Time    float64 `json:"time"`
	Object  string  `json:"object"`
	Type    string  `json:"type"`
	Reason  string  `json:"reason"`
	Message string  `json:"message"`
}

// Summary counts outcomes.
type Summary struct {
	Pods           int     `json:"pods"`
	Running        int     `json:"running"`
	Pending        int     `json:"pending"`
	Succeeded      int     `json:"succeeded"`
	Preempted      int     `json:"preempted"`
	Deleted        int     `json:"deleted"`
	VirtualSeconds float64 `json:"virtualSeconds"`
	WallSeconds    float64 `json:"wallSeconds"`
}

// NodeReport is a node's capacity, for the occupancy chart. Report.Nodes is not part of
// -o json, so neither is any field here.
type NodeReport struct {
	Name        string
	Allocatable map[string]int64
	// CreatedAt and DeletedAt bound the node's life; DeletedAt is nil for a node still there
	// at the end. Labels let the heatmap group nodes by topology.
	CreatedAt float64
	DeletedAt *float64
	Labels    map[string]string
}

// Lifetime is when a pod occupied which node, and with what requests; or, with Device
// set and no Pod, when a device was in use (its requests are one of each of its device
// classes).
type Lifetime struct {
	Pod        string
	Device     string
	Node       string
	Start, End float64 // End is the end of the run for pods still there
	Requests   map[string]int64
	Phase      string
}

func (s *Simulator) report(wall time.Duration) *Report {
	r := &Report{SchemaVersion: ReportSchemaVersion, Pods: []PodReport{}, PodGroups: []GroupReport{}, Events: s.events, Violations: s.violations}
	if r.Events == nil {
		r.Events = []Event{}
	}
	for _, rec := range s.podOrder {
		p := rec.pod
		pr := PodReport{
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
		case rec.phase == PhasePending:
			pr.Message = s.sched.PendingMessage(p)
		}
		if rec.phase != PhasePending {
			pr.NominatedNode = ""
		}
		r.Pods = append(r.Pods, pr)
		switch rec.phase {
		case PhasePending:
			r.Summary.Pending++
		case PhaseRunning:
			r.Summary.Running++
		case PhaseSucceeded:
			r.Summary.Succeeded++
		case PhasePreempted:
			r.Summary.Preempted++
		case PhaseDeleted:
			r.Summary.Deleted++
		}
	}
	r.Summary.Pods = len(s.podOrder)
	for _, pg := range s.sc.PodGroups {
		cur := s.groups[pg.Namespace+"/"+pg.Name]
		if cur == nil {
			cur = pg
		}
		gr := groupReport(&cur.ObjectMeta, cur.Status.Phase, cur.Status.Conditions, cur.Spec.Priority, cur.Spec.ParentCompositePodGroupName)
		gr.MinCount = cur.MinCount()
		r.PodGroups = append(r.PodGroups, gr)
	}
	r.PodGroups = append(r.PodGroups, s.nativeReports()...)
	for _, c := range s.sc.CompositePodGroups {
		cur := s.composites[c.Namespace+"/"+c.Name]
		if cur == nil {
			cur = c
		}
		gr := groupReport(&cur.ObjectMeta, cur.Status.Phase, cur.Status.Conditions, cur.Spec.Priority, cur.Spec.ParentCompositePodGroupName)
		gr.MinCount = cur.MinGroupCount()
		r.CompositePodGroups = append(r.CompositePodGroups, gr)
	}
	r.CompositePodGroups = append(r.CompositePodGroups, s.nativeCompositeReports()...)
	r.Summary.VirtualSeconds = s.seconds(s.now)
	if s.opts.ReportWallTime {
		r.Summary.WallSeconds = float64(wall.Milliseconds()) / 1000
	}
	s.lifetimes(r)
	r.Claims = s.claimReports()
	return r
}

func ownerOf(p *v1.Pod) *ObjectRef {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return &ObjectRef{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name}
	}
	return nil
}

func (s *Simulator) lifetimes(r *Report) {
	for _, n := range s.sc.Nodes {
		created, ok := s.nodeAdded[n.Name]
		if !ok {
			continue // never appeared during the run: it offered nothing
		}
		alloc := n.Status.Allocatable
		if len(alloc) == 0 {
			alloc = n.Status.Capacity
		}
		nr := NodeReport{Name: n.Name, Allocatable: map[string]int64{}, CreatedAt: created, Labels: maps.Clone(n.Labels)}
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
		lt := Lifetime{Pod: key(rec.pod), Node: rec.node, Start: *rec.boundAt, End: end, Phase: rec.phase, Requests: r.Pods[i].Requests}
		if rec.endAt != nil {
			lt.End = *rec.endAt
		}
		r.Lifetimes = append(r.Lifetimes, lt)
	}
	r.Devices = s.deviceInventory()
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
