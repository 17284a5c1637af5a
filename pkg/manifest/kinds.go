package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/config/crd"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/crdschema"
)

// kinds are the objects the simulator understands, by apiVersion/kind.
var kinds = map[string]func() any{
	"v1/Node":                            func() any { return &v1.Node{} },
	"v1/Pod":                             func() any { return &v1.Pod{} },
	"v1/Namespace":                       func() any { return &v1.Namespace{} },
	"scheduling.k8s.io/v1/PriorityClass": func() any { return &schedulingv1.PriorityClass{} },
	"node.k8s.io/v1/RuntimeClass":        func() any { return &nodev1.RuntimeClass{} },
	"policy/v1/PodDisruptionBudget":      func() any { return &policyv1.PodDisruptionBudget{} },
	v1alpha1.SchemeGroupVersion.String() + "/PodGroup":          func() any { return &v1alpha1.PodGroup{} },
	v1alpha1.SchemeGroupVersion.String() + "/CompositePodGroup": func() any { return &v1alpha1.CompositePodGroup{} },
	"scheduling.k8s.io/v1beta1/PodGroup":                        func() any { return &schedulingv1beta1.PodGroup{} },
	"scheduling.k8s.io/v1beta1/Workload":                        func() any { return &schedulingv1beta1.Workload{} },
	"scheduling.k8s.io/v1alpha3/PodGroup":                       func() any { return &schedulingv1alpha3.PodGroup{} },
	"scheduling.k8s.io/v1alpha3/Workload":                       func() any { return &schedulingv1alpha3.Workload{} },
	"scheduling.k8s.io/v1alpha3/CompositePodGroup":              func() any { return &schedulingv1alpha3.CompositePodGroup{} },
	"scheduling.k8s.io/v1alpha2/PodGroup":                       func() any { return &schedulingv1alpha2.PodGroup{} },
	"scheduling.k8s.io/v1alpha2/Workload":                       func() any { return &schedulingv1alpha2.Workload{} },
	// Storage and Dynamic Resource Allocation (resources.go).
	"v1/PersistentVolume":                      func() any { return &v1.PersistentVolume{} },
	"v1/PersistentVolumeClaim":                 func() any { return &v1.PersistentVolumeClaim{} },
	"storage.k8s.io/v1/StorageClass":           func() any { return &storagev1.StorageClass{} },
	"storage.k8s.io/v1/CSINode":                func() any { return &storagev1.CSINode{} },
	"storage.k8s.io/v1/CSIDriver":              func() any { return &storagev1.CSIDriver{} },
	"storage.k8s.io/v1/CSIStorageCapacity":     func() any { return &storagev1.CSIStorageCapacity{} },
	"storage.k8s.io/v1/VolumeAttachment":       func() any { return &storagev1.VolumeAttachment{} },
	"resource.k8s.io/v1/DeviceClass":           func() any { return &resourceapi.DeviceClass{} },
	"resource.k8s.io/v1/ResourceSlice":         func() any { return &resourceapi.ResourceSlice{} },
	"resource.k8s.io/v1/DeviceTaintRule":       func() any { return &resourceapi.DeviceTaintRule{} },
	"resource.k8s.io/v1/ResourceClaim":         func() any { return &resourceapi.ResourceClaim{} },
	"resource.k8s.io/v1/ResourceClaimTemplate": func() any { return &resourceapi.ResourceClaimTemplate{} },
}

// crdSchemas are phalanx's CRDs (config/crd), read once when a document needs them.
var crdSchemas = sync.OnceValue(func() crdschema.Set {
	set, err := crdschema.Load(crd.Files)
	if err != nil {
		// The CRDs are generated and embedded: a test fails first.
		panic("config/crd: " + err.Error())
	}
	return set
})

// The workloads whose controllers the simulator models (pkg/controllers/workload): Jobs,
// Deployments, ReplicaSets, StatefulSets and JobSets.
func init() {
	maps.Copy(kinds, workload.Kinds)
}

// findBadQuantity walks a decoded document for resource quantities that do not parse and
// returns the first one's path and the parser's complaint.
func findBadQuantity(js []byte) (field, msg string) {
	var doc map[string]any
	if json.Unmarshal(js, &doc) != nil {
		return "", ""
	}
	var walk func(v any, path string) bool
	walk = func(v any, path string) bool {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				child := path + "." + k
				if path == "" {
					child = k
				}
				if isQuantityList(k) {
					if m, ok := t[k].(map[string]any); ok {
						names := make([]string, 0, len(m))
						for n := range m {
							names = append(names, n)
						}
						sort.Strings(names)
						for _, n := range names {
							if _, err := apiresource.ParseQuantity(fmt.Sprint(m[n])); err != nil {
								field, msg = child+"["+n+"]", fmt.Sprintf("Invalid value: %q: %v", fmt.Sprint(m[n]), err)
								return true
							}
						}
					}
					continue
				}
				if walk(t[k], child) {
					return true
				}
			}
		case []any:
			for i, e := range t {
				if walk(e, fmt.Sprintf("%s[%d]", path, i)) {
					return true
				}
			}
		}
		return false
	}
	walk(doc, "")
	return field, msg
}

func isQuantityList(key string) bool {
	switch key {
	case "requests", "limits", "capacity", "allocatable", "overhead":
		return true
	}
	return false
}
