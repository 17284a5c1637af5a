package v1alpha1

// MaxTopologyLevels is how many nested topology levels a group may name. Real clusters have
// few (zone, block, rack, host), and the placement search grows with each level.
const MaxTopologyLevels = 4

// PodGroupSchedulingConstraints restricts where a group may be placed.
//
// +kubebuilder:validation:XValidation:rule="!has(self.topology) || self.topology.all(t, self.topology.exists_one(u, u.key == t.key))",message="topology keys must be unique",fieldPath=".topology"
// +kubebuilder:validation:XValidation:rule="!has(self.topology) || self.topology.map(t, has(t.mode) && t.mode == 'Preferred' ? 1 : 0).isSorted()",message="a Required level may not follow a Preferred one",fieldPath=".topology"
type PodGroupSchedulingConstraints struct {
	// Topology lists node-label levels from coarse to fine (KEP-5732). Upstream allows one
	// level; phalanx allows up to 4 (MaxTopologyLevels), every Required level before every
	// Preferred one, so that the required domains enclose the preferred ones. Keys are unique.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	Topology []TopologyConstraint `json:"topology,omitempty"`

	// DeviceTopology keeps the devices allocated to the members inside one set of
	// interconnected devices (KEP-5732's DRA placements), inside the node-label domains of
	// Topology when both are given.
	// +optional
	DeviceTopology *DeviceTopologyConstraint `json:"deviceTopology,omitempty"`
}

// TopologyConstraint is one topology level: a node label whose value names a domain.
type TopologyConstraint struct {
	// Key is the node label that names the domains of this level, e.g.
	// "topology.kubernetes.io/zone". Nodes without the label are in no domain of the level.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="!format.qualifiedName().validate(self).hasValue()",message="must be a valid label key"
	Key string `json:"key"`

	// Mode says whether the group must fit in one domain of this level (Required, the
	// default and the upstream meaning) or should, spreading over as few domains as fit
	// otherwise (Preferred, a phalanx extension).
	// +optional
	// +kubebuilder:default=Required
	Mode TopologyMode `json:"mode,omitempty"`
}

// TopologyMode is how strictly a topology level binds the group.
//
// +kubebuilder:validation:Enum=Required;Preferred
type TopologyMode string

const (
	// TopologyModeRequired puts every member in one domain of the level, or none at all.
	TopologyModeRequired TopologyMode = "Required"
	// TopologyModePreferred puts the members in one domain of the level when they fit, and
	// otherwise in as few as possible inside the enclosing required domain.
	TopologyModePreferred TopologyMode = "Preferred"
)
