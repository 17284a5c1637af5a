package nativegroup

import (
	"encoding/json"
	"testing"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// FuzzToPodGroup decodes arbitrary JSON into a native PodGroup and Workload, as the
// simulator decodes manifests and the kube driver receives objects, and checks that
// validation and the mapping never panic, that the mapping never changes its input, and
// that a group the API server would accept maps onto one phalanx accepts, or carries the
// reason it cannot be scheduled.
func FuzzToPodGroup(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"gang":{"minCount":4}}}}`, `{}`},
		{`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"basic":{}},"disruptionMode":"PodGroup"}}`, `{}`},
		{`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"gang":{"minCount":2}},"schedulingConstraints":{"topology":[{"key":"example.com/rack"}]},"priorityClassName":"high","priority":10}}`, `{}`},
		{`{"metadata":{"name":"g"},"spec":{"podGroupTemplateRef":{"workload":{"workloadName":"w","podGroupTemplateName":"t"}},"schedulingPolicy":{"gang":{"minCount":2}}}}`,
			`{"metadata":{"name":"w"},"spec":{"podGroupTemplates":[{"name":"t","schedulingPolicy":{"gang":{"minCount":2}},"disruptionMode":"PodGroup","schedulingConstraints":{"topology":[{"key":"a"}]}}]}}`},
		{`{"spec":{"schedulingPolicy":{"gang":{"minCount":0},"basic":{}},"disruptionMode":"x","resourceClaims":[{"name":"c"}]}}`, `{"spec":{"podGroupTemplates":[{},{}]}}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, pgData, wlData []byte) {
		var pg schedulingv1alpha2.PodGroup
		if json.Unmarshal(pgData, &pg) != nil {
			return
		}
		var wl *schedulingv1alpha2.Workload
		if json.Unmarshal(wlData, &wl) != nil {
			return
		}
		if wl != nil {
			Validate(wl)
		}
		apiErrs := Validate(&pg)
		before := pg.DeepCopy()
		got := ToPodGroup(FromV1alpha2PodGroup(&pg), fromV1alpha2Workload(wl))
		if !IsNative(got) || got.Name != pg.Name || got.UID != pg.UID {
			t.Fatalf("mapped group %s/%s (%s %s) does not name its source", got.Namespace, got.Name, got.APIVersion, got.Kind)
		}
		if ToPodGroup(FromV1alpha2PodGroup(before), fromV1alpha2Workload(wl.DeepCopy())).Annotations[v1alpha1.AnnotationInvalidReason] != got.Annotations[v1alpha1.AnnotationInvalidReason] {
			t.Fatal("the mapping changed its input")
		}
		if len(apiErrs) > 0 || got.Annotations[v1alpha1.AnnotationInvalidReason] != "" {
			return
		}
		if errs := v1alpha1.ValidatePodGroup(got); len(errs) > 0 && (wl == nil || len(Validate(wl)) == 0) {
			t.Errorf("a native group the API server accepts maps onto one phalanx refuses without a reason: %v", errs)
		}
	})
}
