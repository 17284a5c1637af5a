// Package admission is what the API server does with the objects of a simulation before
// they exist: defaulting, the admission plugins the simulator models (Priority,
// RuntimeClass, and for Kubernetes' native PodGroups, CompositePodGroups and Workloads
// PodGroupWorkloadExists and their version's validation), and upstream's validation of the
// fields the simulator reads, refusing what the API server would refuse with every error of
// every object (decision 19). Its result is a Scenario, the input of a run
// (pkg/driver/sim); `phalanx whatif` admits a cluster's objects and new ones together.
//
// It also reads the simulator's own timeline annotations (timeline.go) and makes each
// workload's controller model (pkg/controllers/workload), admitting its pod templates as
// pods.
package admission
