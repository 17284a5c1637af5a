package admission

import (
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// Scenario is the input of a simulation: the objects of the manifests as the API server
// admitted them, in input order.
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
	origin map[any]manifest.Origin
	// errs are the errors admission found.
	errs manifest.InputErrors
	// admittedNodes and admittedPods are how many of Nodes and Pods, the first ones, an
	// earlier scenario admitted (AdmitOver): admission only registers their names.
	admittedNodes, admittedPods int
	// generatedNames is how many names generateNames made, here and in the earlier
	// scenario (AdmitOver): names made later count on from there, so that the earlier
	// scenario's nodes and pods keep theirs and no name is made twice.
	generatedNames int
}
