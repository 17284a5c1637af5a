package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodGroup is a set of pods that phalanx schedules and preempts as one unit: all or nothing
// for a gang, one by one for a basic group. Pods join it through the label
// scheduling.phalanx.dev/pod-group (or the upstream spec.schedulingGroup.podGroupName field)
// in the same namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=phxpg,categories=phalanx
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.spec.schedulingPolicy`,description="The scheduling policy: gang (all or nothing) or basic"
// +kubebuilder:printcolumn:name="MinCount",type=integer,JSONPath=`.spec.schedulingPolicy.gang.minCount`,description="Pods that must fit at once for a gang"
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`,description="The group's priority, shared by all its pods"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Pending, Scheduled or Preempted"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PodGroup struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is how the group must be scheduled and may be disrupted.
	// +required
	Spec PodGroupSpec `json:"spec"`

	// Status is what the scheduler last observed and decided for the group.
	// +optional
	Status PodGroupStatus `json:"status,omitempty"`
}

// PodGroupList is a list of PodGroups, as the API server returns it.
//
// +kubebuilder:object:root=true
type PodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PodGroups.
	Items []PodGroup `json:"items"`
}

// PodGroupSpec is the desired scheduling behaviour of a PodGroup. It mirrors the upstream
// scheduling.k8s.io PodGroupSpec (KEP-4671, KEP-5710 beta, KEP-5732).
//
// +kubebuilder:validation:XValidation:rule="!has(self.disruptionMode) || !has(self.disruptionMode.all) || has(self.schedulingPolicy.gang)",message="may only be used with the gang scheduling policy",fieldPath=".disruptionMode.all"
type PodGroupSpec struct {
	// SchedulingPolicy says whether the group is placed all or nothing (gang) or pod by pod
	// (basic). Exactly one policy must be set.
	// +required
	SchedulingPolicy PodGroupSchedulingPolicy `json:"schedulingPolicy"`

	// DisruptionMode says whether preemption may take members one by one (single) or must take
	// the whole group together (all, only with gang). Defaults to single.
	// +optional
	// +kubebuilder:default={single:{}}
	DisruptionMode *DisruptionMode `json:"disruptionMode,omitempty"`

	// PriorityClassName names the PriorityClass the group's priority comes from, resolved like
	// a pod's: the globalDefault class when empty, zero when there is none.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// Priority is the authoritative priority of the group, used both to order it in the queue
	// and to weigh it as a preemption victim. Filled from PriorityClassName when absent; every
	// member pod must have the same value.
	// +optional
	// +kubebuilder:validation:Minimum=-2147483648
	// +kubebuilder:validation:Maximum=2147483647
	Priority *int32 `json:"priority,omitempty"`

	// PreemptionPolicy says whether the group may preempt lower-priority pods and groups.
	// Defaults to the priority class's policy, else PreemptLowerPriority; every member pod must
	// have the same value.
	// +optional
	// +kubebuilder:validation:Enum=PreemptLowerPriority;Never
	PreemptionPolicy *corev1.PreemptionPolicy `json:"preemptionPolicy,omitempty"`

	// SchedulingConstraints restricts where the group may be placed, e.g. to one topology
	// domain.
	// +optional
	SchedulingConstraints *PodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`

	// ResourceClaims are the ResourceClaims the members share (KEP-5729, as upstream's
	// PodGroup has them): allocated once for the whole group and reserved for the group.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	ResourceClaims []PodGroupResourceClaim `json:"resourceClaims,omitempty"`

	// ParentCompositePodGroupName names the CompositePodGroup (KEP-6012) the group is a child
	// of, in the same namespace; unset for a group at the root of its workload. It mirrors
	// upstream's scheduling.k8s.io/v1beta1 field; the scheduler does not act on it yet.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	ParentCompositePodGroupName *string `json:"parentCompositePodGroupName,omitempty"`
}

// PodGroupStatus is what the scheduler observed and decided for a PodGroup. Only the scheduler
// writes it, through the status subresource.
type PodGroupStatus struct {
	// Phase summarises the conditions for people and printer columns; programs should read
	// the conditions.
	// +optional
	Phase PodGroupPhase `json:"phase,omitempty"`

	// ObservedGeneration is the metadata.generation of the spec this status describes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are the latest observations of the group: PodGroupScheduled and
	// DisruptionTarget, with the reasons this package names.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// ResourceClaimStatuses name the ResourceClaims phalanx created from the templates of
	// spec.resourceClaims.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	ResourceClaimStatuses []PodGroupResourceClaimStatus `json:"resourceClaimStatuses,omitempty"`
}

// PodGroupPhase is the coarse state of a PodGroup.
//
// +kubebuilder:validation:Enum=Pending;Scheduled;Preempted
type PodGroupPhase string

const (
	// PodGroupPhasePending means the group is not (or no longer) placed: fewer than minCount
	// members run.
	PodGroupPhasePending PodGroupPhase = "Pending"
	// PodGroupPhaseScheduled means at least minCount members are bound and running.
	PodGroupPhaseScheduled PodGroupPhase = "Scheduled"
	// PodGroupPhasePreempted means the scheduler preempted the group to make room for a
	// higher-priority pod or group.
	PodGroupPhasePreempted PodGroupPhase = "Preempted"
)
