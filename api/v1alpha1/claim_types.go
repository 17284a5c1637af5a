package v1alpha1

// MaxResourceClaims is how many claims a group may share, as upstream's PodGroup allows.
const MaxResourceClaims = 4

// PodGroupResourceClaim references one ResourceClaim shared by the group's members
// (KEP-5729), either directly or through a ResourceClaimTemplate from which phalanx
// creates one claim for the group. It has the shape of upstream's
// scheduling.k8s.io/v1alpha2 PodGroupResourceClaim. A member uses the claim by listing an
// entry with the same name and the same source in its own spec.resourceClaims; the claim is
// then allocated once, on the group's first placement, and reserved for the group rather
// than for each pod.
//
// +kubebuilder:validation:XValidation:rule="has(self.resourceClaimName) != has(self.resourceClaimTemplateName)",message="exactly one of resourceClaimName or resourceClaimTemplateName must be set"
type PodGroupResourceClaim struct {
	// Name identifies the claim inside the group; members refer to it by this name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// ResourceClaimName names a ResourceClaim in the group's namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`

	// ResourceClaimTemplateName names a ResourceClaimTemplate in the group's namespace:
	// phalanx creates one ResourceClaim from it for the group (owned by the PodGroup, so it
	// goes with it) and records its name in status.resourceClaimStatuses.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// PodGroupResourceClaimStatus records the ResourceClaim created for a template claim of
// the group, as upstream's PodGroupResourceClaimStatus does.
type PodGroupResourceClaimStatus struct {
	// Name is the entry of spec.resourceClaims this status is for.
	// +required
	Name string `json:"name"`

	// ResourceClaimName is the name of the ResourceClaim created for the group.
	// +optional
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`
}

// DeviceTopologyConstraint keeps every device allocated to the group's members (their own
// claims and the group's) inside one set of interconnected devices: KEP-5732's "Workload
// using Interconnected DRA Devices". With MatchAttribute, the devices all have the same
// value of that device attribute (an NVLink clique, a rack, as the ResourceSlices name
// them); without it, they all come from one resource pool.
type DeviceTopologyConstraint struct {
	// MatchAttribute is a fully qualified device attribute, "<domain>/<name>" as in
	// ResourceSlices (e.g. "gpu.example.com/clique"). Devices without it belong to no
	// domain.
	// +optional
	// +kubebuilder:validation:MaxLength=96
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[a-zA-Z0-9]([-_a-zA-Z0-9]*[a-zA-Z0-9])?$`
	MatchAttribute string `json:"matchAttribute,omitempty"`
}
