// Package nativegroup lets phalanx schedule the PodGroups that Kubernetes serves itself
// (scheduling.k8s.io/v1alpha2 PodGroup and Workload, Kubernetes 1.36 with its alpha
// gates on) as it schedules its own CRD's. It works at the edge of the drivers: a native
// PodGroup, with the Workload template it refers to, is mapped onto phalanx's
// api/v1alpha1.PodGroup (ToPodGroup), so that everything downstream (cache, queue, group
// cycle, preemption, status) is shared; Sources merges both APIs into the one group per
// namespace/name the scheduler sees, and reports a name claimed by both; ValidatePodGroup
// and ValidateWorkload reject what the API server would, for the simulator.
//
// The package is pure: no client-go, so that the simulator and the kube driver share it.
package nativegroup
