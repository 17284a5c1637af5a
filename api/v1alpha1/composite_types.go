package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CompositePodGroup is a group of pod groups (KEP-6012): PodGroups and CompositePodGroups
// that name it as their parent (spec.parentCompositePodGroupName), nested up to four
// levels. A gang composite is scheduled all or nothing: at least minGroupCount of its
// child groups, each complete by its own policy, are placed together or none is; a basic
// one lets its children be scheduled one by one. Its topology constraint holds all of it in
// one domain, while each child keeps its own. It mirrors the upstream
// scheduling.k8s.io/v1alpha3 CompositePodGroup, for clusters without that alpha API.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=phxcpg,categories=phalanx
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Parent",type=string,JSONPath=`.spec.parentCompositePodGroupName`,description="The composite this one belongs to"
// +kubebuilder:printcolumn:name="MinGroupCount",type=integer,JSONPath=`.spec.schedulingPolicy.gang.minGroupCount`,description="Child groups that must fit at once for a gang"
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`,description="The composite's priority, for children that set none"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`,description="Pending, Scheduled or Preempted"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CompositePodGroup struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is how the composite must be scheduled and may be disrupted.
	// +required
	Spec CompositePodGroupSpec `json:"spec"`

	// Status is what the scheduler last observed and decided for the composite.
	// +optional
	Status CompositePodGroupStatus `json:"status,omitempty"`
}

// CompositePodGroupList is a list of CompositePodGroups, as the API server returns it.
//
// +kubebuilder:object:root=true
type CompositePodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the CompositePodGroups.
	Items []CompositePodGroup `json:"items"`
}

// CompositePodGroupSpec is the desired scheduling behaviour of a CompositePodGroup. It
// mirrors the upstream scheduling.k8s.io/v1alpha3 CompositePodGroupSpec.
//
// +kubebuilder:validation:XValidation:rule="!has(self.disruptionMode) || !has(self.disruptionMode.all) || has(self.schedulingPolicy.gang)",message="may only be used with the gang scheduling policy",fieldPath=".disruptionMode.all"
type CompositePodGroupSpec struct {
	// ParentCompositePodGroupName names the composite, in the same namespace, this one
	// belongs to; none for the root of a hierarchy.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ParentCompositePodGroupName *string `json:"parentCompositePodGroupName,omitempty"`

	// SchedulingPolicy says whether the child groups are placed all or nothing (gang: at
	// least minGroupCount of them) or one by one (basic). Exactly one policy must be set.
	// +required
	SchedulingPolicy CompositePodGroupSchedulingPolicy `json:"schedulingPolicy"`

	// SchedulingConstraints hold the whole composite in one topology domain; each child
	// keeps its own constraints inside it.
	// +optional
	SchedulingConstraints *CompositePodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`

	// DisruptionMode says whether preemption may take the child groups one by one, each by
	// its own disruption mode (single, the default), or must take all of them together
	// (all, only with gang).
	// +optional
	DisruptionMode *DisruptionMode `json:"disruptionMode,omitempty"`

	// PriorityClassName names the PriorityClass of the composite's children that set none
	// of their own: a lower level overrides a higher one (KEP-5710).
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// Priority is the priority of the composite's children that set none of their own,
	// and of the composite as a preemptor and, in disruption mode all, as a victim.
	// +optional
	// +kubebuilder:validation:Maximum=1000000000
	Priority *int32 `json:"priority,omitempty"`

	// PreemptionPolicy is the policy of the composite's children that set none of their
	// own, and of the composite as a preemptor. Defaults to PreemptLowerPriority.
	// +optional
	// +kubebuilder:validation:Enum=Never;PreemptLowerPriority
	PreemptionPolicy *corev1.PreemptionPolicy `json:"preemptionPolicy,omitempty"`
}

// CompositePodGroupSchedulingPolicy is how the scheduler places a composite's child groups.
// It is a union: exactly one member is set.
//
// +kubebuilder:validation:XValidation:rule="has(self.gang) != has(self.basic)",message="exactly one of gang or basic must be set"
type CompositePodGroupSchedulingPolicy struct {
	// Gang places the child groups all or nothing: none is bound until at least
	// minGroupCount of them, each complete by its own policy, fit at once.
	// +optional
	Gang *CompositeGangSchedulingPolicy `json:"gang,omitempty"`

	// Basic lets the child groups be scheduled one by one.
	// +optional
	Basic *BasicSchedulingPolicy `json:"basic,omitempty"`
}

// CompositeGangSchedulingPolicy holds the parameters of all-or-nothing scheduling of child
// groups.
type CompositeGangSchedulingPolicy struct {
	// MinGroupCount is how many child groups must be schedulable at the same time for any of
	// them to be bound.
	// +required
	// +kubebuilder:validation:Minimum=1
	MinGroupCount int32 `json:"minGroupCount"`
}

// CompositePodGroupSchedulingConstraints restrict where a composite's pod groups may go.
type CompositePodGroupSchedulingConstraints struct {
	// Topology lists node-label levels from coarse to fine; the whole composite goes in one
	// domain of each. Upstream allows one level; phalanx allows up to 4, all Required (a
	// composite's children give a preference its own meaning inside it).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:XValidation:rule="self.all(t, self.exists_one(u, u.key == t.key))",message="topology keys must be unique"
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.mode) || t.mode == 'Required')",message="a composite's topology levels must be Required"
	Topology []TopologyConstraint `json:"topology,omitempty"`
}

// CompositePodGroupStatus is what the scheduler last observed and decided for a composite.
type CompositePodGroupStatus struct {
	// Phase is Pending until the composite is scheduled, Scheduled once it is, Preempted
	// when preemption took it as a whole.
	// +optional
	Phase PodGroupPhase `json:"phase,omitempty"`

	// ObservedGeneration is the generation the status was written for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are PodGroupScheduled (why it waits, or that it is scheduled) and
	// DisruptionTarget (taken by preemption), as on a PodGroup.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}
