// Package v1alpha1 is the PodGroup API of phalanx, group scheduling.phalanx.dev, version
// v1alpha1.
//
// The spec mirrors the upstream scheduling.k8s.io PodGroupSpec of KEP-4671, KEP-5710 (beta
// revision) and KEP-5732, so that a manifest moves between phalanx and a cluster serving the
// upstream API with only its apiVersion changed. Where phalanx goes further (several topology
// levels, the Preferred mode) the extension is additive and named as such.
//
// The deepcopy functions and the CRD in config/crd are generated from the markers here by
// controller-gen (hack/update-codegen.sh); validation.go repeats the CRD's rules in Go for the
// simulator, which has no API server to enforce them.
//
// +kubebuilder:object:generate=true
// +groupName=scheduling.phalanx.dev
package v1alpha1
