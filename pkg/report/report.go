// Package report is the outcome of a simulation, as `phalanx simulate` and `phalanx whatif`
// give it: its types (what -o json writes, with docs/simulate-report.schema.json as their
// schema) and the text report. The HTML report is pkg/report/html. The simulator
// (pkg/driver/sim) builds a Report; nothing here imports the run.
package report

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// Pod phases in the report.
const (
	PhasePending   = "Pending"
	PhaseRunning   = "Running"
	PhaseSucceeded = "Succeeded"
	PhasePreempted = "Preempted"
	PhaseDeleted   = "Deleted"
)

// ObjectRef names an object in the report.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// SchemaVersion is the version of -o json's shape, written as schemaVersion: it
// changes when a field changes meaning or goes away (new fields keep it).
// docs/simulate-report.schema.json is its JSON Schema; docs/simulate.md describes it.
const SchemaVersion = 1

// Report is the outcome of a simulation, as `phalanx simulate -o json` writes it.
type Report struct {
	SchemaVersion int     `json:"schemaVersion"`
	Pods          []Pod   `json:"pods"`
	PodGroups     []Group `json:"podGroups"`
	// CompositePodGroups are phalanx's, then Kubernetes' own (omitted when there are none).
	CompositePodGroups []Group `json:"compositePodGroups,omitempty"`
	Events             []Event `json:"events"`
	Summary            Summary `json:"summary"`
	// Claims are the ResourceClaims at the end of the run: their devices and consumers.
	Claims []Claim `json:"claims,omitempty"`
	// Violations lists broken invariants (only with invariant checks on).
	Violations []string `json:"violations,omitempty"`

	// Nodes and the pods' (and devices') lifetimes feed the HTML report's occupancy
	// charts; Devices are the nodes' devices and their classes.
	Nodes     []Node     `json:"-"`
	Lifetimes []Lifetime `json:"-"`
	Devices   []Device   `json:"-"`
}

// Pod is one input pod's outcome.
type Pod struct {
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

// Claim is a ResourceClaim at the end of the run.
type Claim struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Devices are the allocated devices ("driver/pool/device"), none when unallocated.
	Devices []string `json:"devices"`
	// ReservedFor names the consumers ("Pod/name", "PodGroup/name").
	ReservedFor []string `json:"reservedFor"`
}

// Group is one PodGroup's or CompositePodGroup's outcome.
type Group struct {
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

// GroupOf is a group's or composite's outcome from its metadata, status and spec.
func GroupOf(m *metav1.ObjectMeta, phase v1alpha1.PodGroupPhase, conds []metav1.Condition, priority *int32, parent *string) Group {
	gr := Group{Namespace: m.Namespace, Name: m.Name, Phase: string(phase), Conditions: []Condition{}}
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

// Node is a node's capacity, for the occupancy chart. Report.Nodes is not part of
// -o json, so neither is any field here.
type Node struct {
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

// Device is a device of a node's ResourceSlices and the DeviceClasses it belongs to,
// for the HTML report's device occupancy. Report.Devices is not part of -o json.
type Device struct {
	// Key is "driver/pool/device", as pods' and claims' devices are named.
	Key  string
	Node string
	// Resources are the occupancy resources the device counts in: "devices of class C" for
	// each class whose selectors it matches, or "devices of driver D (no class)".
	Resources []string
}

// DeviceClassResource names the occupancy resource of a device class.
func DeviceClassResource(class string) string { return "devices of class " + class }

// NoClassResource names the occupancy resource of a driver's devices no class selects.
func NoClassResource(driver string) string { return "devices of driver " + driver + " (no class)" }
