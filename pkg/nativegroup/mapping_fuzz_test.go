package nativegroup

import (
	"encoding/json"
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

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

// FuzzToPodGroupV1beta1 is FuzzToPodGroup for Kubernetes 1.37's shape (v1beta1, and so
// v1alpha3): validation and the mapping never panic nor change their input, and a group
// the API server would accept maps onto one phalanx accepts, or carries the reason it
// cannot be scheduled.
func FuzzToPodGroupV1beta1(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"gang":{"minCount":4}},"preemptionPolicy":"Never"}}`, `{}`},
		{`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"basic":{}},"disruptionMode":{"all":{}}}}`, `{}`},
		{`{"metadata":{"name":"g"},"spec":{"parentCompositePodGroupName":"c","workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"gang":{"minCount":2}}}}`,
			`{"metadata":{"name":"w"},"spec":{"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},"podGroupTemplates":[{"name":"t","schedulingPolicy":{"gang":{"minCount":2}},"disruptionMode":{"all":{}},"schedulingConstraints":{"topology":[{"key":"a"}]}}]}]}}`},
		{`{"spec":{"schedulingPolicy":{"gang":{"minCount":0},"basic":{}},"disruptionMode":{"single":{},"all":{}},"resourceClaims":[{"name":"c"}]}}`, `{"spec":{"podGroupTemplates":[{},{}]}}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, pgData, wlData []byte) {
		var in schedulingv1beta1.PodGroup
		if json.Unmarshal(pgData, &in) != nil {
			return
		}
		var wlIn *schedulingv1beta1.Workload
		if json.Unmarshal(wlData, &wlIn) != nil {
			return
		}
		var wl *Workload
		wlValid := true
		if wlIn != nil {
			wlValid = len(Validate(wlIn)) == 0
			wl, _ = WorkloadFrom(wlIn)
		}
		apiErrs := Validate(&in)
		pg, err := PodGroupFrom(&in)
		if err != nil {
			t.Fatal(err)
		}
		before := pg.DeepCopy()
		got := ToPodGroup(pg, wl)
		if !IsNative(got) || got.Name != in.Name {
			t.Fatalf("mapped group %s (%s %s) does not name its source", got.Name, got.APIVersion, got.Kind)
		}
		if !apiequality.Semantic.DeepEqual(before, pg) {
			t.Fatal("the mapping changed its input")
		}
		if len(apiErrs) > 0 || !wlValid || got.Annotations[v1alpha1.AnnotationInvalidReason] != "" {
			return
		}
		if errs := v1alpha1.ValidatePodGroup(got); len(errs) > 0 {
			t.Errorf("a native group the API server accepts maps onto one phalanx refuses without a reason: %v", errs)
		}
	})
}
