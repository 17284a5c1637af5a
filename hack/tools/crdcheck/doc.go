// Package crdcheck tests the generated PodGroup CRD with the API server's own code: the CRD
// must pass the checks kube-apiserver runs when it is created (structural schema, CEL rules
// compile and fit the cost budget), and every sample manifest must be accepted or rejected
// alike by the CRD (defaulting, OpenAPI schema, CEL rules) and by v1alpha1.ValidatePodGroup.
//
// It is a module of its own so that neither phalanx nor the pinned tools depend on
// k8s.io/apiextensions-apiserver. Run it with: go -C hack/tools/crdcheck test -count=1 ./...
// (-count=1 because go test does not notice a change to the CRD file, which lies outside
// this module, and would report a cached result).
package crdcheck
