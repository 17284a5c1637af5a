package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the PodGroup CRD.
const GroupName = "scheduling.phalanx.dev"

// SchemeGroupVersion is the group and version the types of this package are registered under.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var (
	// SchemeBuilder collects the functions that register this package's types, so that a
	// client or the simulator's decoder can add them to its runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme registers PodGroup, CompositePodGroup and their lists with a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource qualifies a resource name (e.g. "podgroups") with this API group, as RBAC, errors
// and informers expect.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// Kind qualifies a kind name (e.g. "PodGroup") with this API group.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &PodGroup{}, &PodGroupList{}, &CompositePodGroup{}, &CompositePodGroupList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
