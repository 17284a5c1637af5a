package v1alpha1

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

func TestAddToScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[string]runtime.Object{"PodGroup": &PodGroup{}, "PodGroupList": &PodGroupList{}} {
		obj, err := scheme.New(SchemeGroupVersion.WithKind(kind))
		if err != nil {
			t.Fatalf("scheme.New(%s): %v", kind, err)
		}
		if reflect.TypeOf(obj) != reflect.TypeOf(want) {
			t.Errorf("scheme.New(%s) = %T, want %T", kind, obj, want)
		}
	}
	if got := Resource("podgroups").String(); got != "podgroups.scheduling.phalanx.dev" {
		t.Errorf("Resource(podgroups) = %q", got)
	}
}

// TestDeepCopy checks that the generated deepcopy shares no memory with the original: a
// scheduler that edits a copy from its cache must not edit the cache.
func TestDeepCopy(t *testing.T) {
	orig := validGroup()
	cp := orig.DeepCopyObject().(*PodGroup)
	if !reflect.DeepEqual(orig, cp) {
		t.Fatalf("DeepCopy differs from the original:\n%+v\n%+v", orig, cp)
	}
	cp.Spec.SchedulingPolicy.Gang.MinCount = 1
	*cp.Spec.Priority = 1
	cp.Spec.SchedulingConstraints.Topology[0].Key = "changed"
	cp.Status.Conditions[0].Reason = "Changed"
	if !reflect.DeepEqual(orig, validGroup()) {
		t.Errorf("editing the copy changed the original: %+v", orig)
	}
}
