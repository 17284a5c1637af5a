package nativegroup

import (
	"encoding/json"
	"testing"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
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
		wl, wlValid, ok := fuzzWorkload(wlData)
		if !ok {
			return
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

// FuzzToCompositePodGroup is FuzzToPodGroupV1beta1 for v1alpha3 CompositePodGroups: validation
// and the mapping never panic nor change their input, and a composite the API server would
// accept maps onto one phalanx accepts, or carries the reason it cannot be scheduled.
func FuzzToCompositePodGroup(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"metadata":{"name":"c"},"spec":{"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"gang":{"minGroupCount":2}}}}`,
			`{"metadata":{"name":"w"},"spec":{"compositePodGroupTemplates":[{"name":"t","schedulingPolicy":{"gang":{}},"disruptionMode":{"all":{}},"schedulingConstraints":{"topology":[{"key":"a"}]},"podGroupTemplates":[{"name":"p","schedulingPolicy":{"basic":{}}}]}]}}`},
		{`{"metadata":{"name":"c"},"spec":{"parentCompositePodGroupName":"c","workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"basic":{}},"disruptionMode":{"all":{}}}}`, `{}`},
		{`{"spec":{"schedulingPolicy":{"gang":{"minGroupCount":0},"basic":{}},"disruptionMode":{"single":{},"all":{}},"preemptionPolicy":"x"}}`, `{"spec":{}}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, cData, wlData []byte) {
		var in schedulingv1alpha3.CompositePodGroup
		if json.Unmarshal(cData, &in) != nil {
			return
		}
		wl, wlValid, ok := fuzzWorkload(wlData)
		if !ok {
			return
		}
		apiErrs := Validate(&in)
		c, err := CompositeFrom(&in)
		if err != nil {
			t.Fatal(err)
		}
		before := c.DeepCopy()
		got := ToCompositePodGroup(c, wl)
		if !IsNativeComposite(got) || got.Name != in.Name {
			t.Fatalf("mapped composite %s (%s %s) does not name its source", got.Name, got.APIVersion, got.Kind)
		}
		if !apiequality.Semantic.DeepEqual(before, c) {
			t.Fatal("the mapping changed its input")
		}
		if len(apiErrs) > 0 || !wlValid || got.Annotations[v1alpha1.AnnotationInvalidReason] != "" {
			return
		}
		if p := got.Spec.ParentCompositePodGroupName; p != nil && *p == got.Name {
			return // a cycle of one, which phalanx's validation names
		}
		if errs := v1alpha1.ValidateCompositePodGroup(got); len(errs) > 0 {
			t.Errorf("a native composite the API server accepts maps onto one phalanx refuses without a reason: %v", errs)
		}
	})
}

// fuzzWorkload decodes a fuzzed v1beta1 Workload (nil for "null"), and says whether the API
// server would accept it; ok is false for data that is no Workload.
func fuzzWorkload(data []byte) (wl *Workload, valid, ok bool) {
	var in *schedulingv1beta1.Workload
	if json.Unmarshal(data, &in) != nil {
		return nil, false, false
	}
	if in == nil {
		return nil, true, true
	}
	wl, _ = WorkloadFrom(in)
	return wl, len(Validate(in)) == 0, true
}
