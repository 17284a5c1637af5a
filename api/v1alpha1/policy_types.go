package v1alpha1

// PodGroupSchedulingPolicy is how the scheduler places a group. It is a union, as upstream:
// exactly one member is set, and a new policy can be added later without breaking old
// clients.
//
// +kubebuilder:validation:XValidation:rule="has(self.gang) != has(self.basic)",message="exactly one of gang or basic must be set"
type PodGroupSchedulingPolicy struct {
	// Gang places the group all or nothing: no member is bound until at least minCount
	// members fit at once.
	// +optional
	Gang *GangSchedulingPolicy `json:"gang,omitempty"`

	// Basic schedules the members one by one, like pods without a group; the group then only
	// carries priority, disruption mode and topology.
	// +optional
	Basic *BasicSchedulingPolicy `json:"basic,omitempty"`
}

// GangSchedulingPolicy holds the parameters of all-or-nothing scheduling.
type GangSchedulingPolicy struct {
	// MinCount is how many members must be schedulable at the same time for any of them to
	// be bound. Members beyond minCount are scheduled as they come.
	// +required
	// +kubebuilder:validation:Minimum=1
	MinCount int32 `json:"minCount"`
}

// BasicSchedulingPolicy selects pod-by-pod scheduling. It is empty on purpose: its presence is
// the choice, and upstream keeps it a struct so that fields can be added later.
type BasicSchedulingPolicy struct{}

// DisruptionMode is how preemption may take a group's members (KEP-5710 beta). It is a union:
// exactly one member is set; a struct rather than a string so that richer modes can be added.
//
// +kubebuilder:validation:XValidation:rule="has(self.single) != has(self.all)",message="exactly one of single or all must be set"
type DisruptionMode struct {
	// Single lets preemption take members one at a time, like independent pods.
	// +optional
	Single *SingleDisruptionMode `json:"single,omitempty"`

	// All makes the whole group the unit of preemption: taking one member takes them all.
	// Only valid with the gang policy, since the preemption unit may not be larger than the
	// scheduling unit.
	// +optional
	All *AllDisruptionMode `json:"all,omitempty"`
}

// SingleDisruptionMode selects member-by-member disruption. Empty on purpose, as upstream.
type SingleDisruptionMode struct{}

// AllDisruptionMode selects whole-group disruption. Empty on purpose, as upstream.
type AllDisruptionMode struct{}
