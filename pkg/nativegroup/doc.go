// Package nativegroup lets phalanx schedule the PodGroups that Kubernetes serves itself
// (scheduling.k8s.io PodGroup and Workload: v1beta1 and v1alpha3 on Kubernetes 1.37,
// v1alpha2 on 1.36, each with its gates on; CompositePodGroup, v1alpha3) as it schedules
// its own CRD's. It works at the edge of the drivers: a native PodGroup of any version is
// read into one shape, v1beta1's (PodGroupFrom, WorkloadFrom: v1alpha3's is the same, v1alpha2's is
// converted), keeping the version it was read from; it is then mapped, with the Workload
// template it refers to, onto phalanx's api/v1alpha1.PodGroup (ToPodGroup), so that
// everything downstream (cache, queue, group cycle, preemption, status) is shared.
// Kubernetes 1.37's CompositePodGroups (v1alpha3 only) are mapped alike onto phalanx's
// api/v1alpha1.CompositePodGroup (ToCompositePodGroup, with the Workload's
// CompositePodGroup template). StatusConditions and CompositeStatusConditions write the
// status back in the version's condition types; Sources merges both APIs into the one
// group and the one composite per namespace/name the scheduler sees, and reports a name
// claimed by both; Validate rejects what each version's API server would, for the
// simulator.
//
// The package is pure: no client-go, so that the simulator and the kube driver share it.
package nativegroup
