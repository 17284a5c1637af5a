// Package sim is phalanx's simulator: the same scheduler, on an in-memory cluster built
// from manifests, in virtual time. It models what a control plane would do around the
// scheduler (admission defaults, the kubelet's graceful termination and run times, the
// disruption controller's PDB status) and reports what happened.
package sim

import (
	"strconv"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Scenario is the input of a simulation: the objects of the manifests, in input order.
type Scenario struct {
	Nodes           []*v1.Node
	Pods            []*v1.Pod
	Namespaces      []*v1.Namespace
	PriorityClasses []*schedulingv1.PriorityClass
	// RuntimeClasses give pods their overhead and scheduling constraints at admission.
	RuntimeClasses []*nodev1.RuntimeClass
	PDBs           []*policyv1.PodDisruptionBudget
	PodGroups      []*v1alpha1.PodGroup
	// CompositePodGroups are phalanx's groups of PodGroups.
	CompositePodGroups []*v1alpha1.CompositePodGroup
	// NativePodGroups and Workloads are Kubernetes' own scheduling.k8s.io kinds (v1beta1,
	// v1alpha3 or v1alpha2, read into one shape by pkg/nativegroup, their apiVersion kept),
	// and NativeComposites its v1alpha3 CompositePodGroups, scheduled as phalanx's are.
	// They are filled by admission, from nativeInputs, the documents as they were decoded.
	NativePodGroups  []*nativegroup.PodGroup
	NativeComposites []*nativegroup.CompositePodGroup
	Workloads        []*nativegroup.Workload
	nativeInputs     []any
	// Storage and DRA objects (resources.go).
	Resources Resources
	// Controlled are the Jobs, Deployments, ReplicaSets, StatefulSets and JobSets, whose
	// controllers make pods during the run (workloads.go).
	Controlled []Controlled
	// Warnings are things a user should know that did not stop the load (skipped kinds).
	Warnings []string

	// controlPlane says what the control plane's controllers do.
	controlPlane ControlPlane

	// origin says where each object came from, for error messages.
	origin map[any]origin
	// errs are the errors admission found.
	errs InputErrors
}

// origin locates an object in the input.
type origin struct {
	file string
	doc  int // 1-based, counting non-empty documents
	item int // index in a List's items, or -1
	// seq orders documents across files, for reporting errors in input order.
	seq int
}

// before orders origins in input order.
func (o origin) before(p origin) bool {
	if o.seq != p.seq {
		return o.seq < p.seq
	}
	return o.item < p.item
}

func (o origin) String() string {
	s := o.file + ": document " + strconv.Itoa(o.doc)
	if o.item >= 0 {
		s += ", items[" + strconv.Itoa(o.item) + "]"
	}
	return s
}

// InputError is a problem with the input, located by file, document and field. The CLI
// prints it and exits with status 2.
type InputError struct {
	Where  string // "file.yaml: document 3" (and ", items[2]" for Lists)
	Object string // "Pod default/web", when known
	Field  string // "spec.containers[0].resources.requests[cpu]", when known
	Msg    string
	// at orders errors in input order.
	at origin
}

func (e *InputError) Error() string {
	s := e.Where
	if e.Object != "" {
		s += " (" + e.Object + ")"
	}
	s += ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}
