package nativegroup

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// betaGroup is a v1beta1 PodGroup with every field set.
func betaGroup() *schedulingv1beta1.PodGroup {
	never := schedulingv1beta1.PreemptNever
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "slice-0", UID: "uid-1", Generation: 2},
		Spec: schedulingv1beta1.PodGroupSpec{
			ParentCompositePodGroupName: ptrTo("job"),
			WorkloadRef:                 &schedulingv1beta1.WorkloadReference{WorkloadName: "train", TemplateName: "slice"},
			SchedulingPolicy:            schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 4}},
			SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{
				Topology: []schedulingv1beta1.TopologyConstraint{{Key: "example.com/rack"}}},
			ResourceClaims:    []schedulingv1beta1.PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: ptrTo("fabric")}},
			DisruptionMode:    &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}},
			PriorityClassName: "high", Priority: ptrTo[int32](1000), PreemptionPolicy: &never,
		},
		Status: schedulingv1beta1.PodGroupStatus{
			ResourceClaimStatuses: []schedulingv1beta1.PodGroupResourceClaimStatus{{Name: "fabric", ResourceClaimName: ptrTo("slice-0-fabric-x")}},
		},
	}
}

// TestSameShape holds v1alpha3's PodGroup and Workload to v1beta1's: read through JSON,
// nothing is lost either way.
func TestSameShape(t *testing.T) {
	beta := betaGroup()
	alpha := &schedulingv1alpha3.PodGroup{}
	if err := sameShape(beta, alpha); err != nil {
		t.Fatal(err)
	}
	back, err := PodGroupFrom(alpha)
	if err != nil {
		t.Fatal(err)
	}
	if back.APIVersion != V1alpha3 {
		t.Errorf("apiVersion %q, want v1alpha3's", back.APIVersion)
	}
	back.TypeMeta = beta.TypeMeta
	if !apiequality.Semantic.DeepEqual(beta, back) {
		t.Errorf("v1beta1 -> v1alpha3 -> v1beta1 lost something:\n got %s\nwant %s", asJSON(back), asJSON(beta))
	}

	wl := &schedulingv1alpha3.Workload{Spec: schedulingv1alpha3.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1alpha3.CompositePodGroupTemplate{{
		Name: "job", SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
		PodGroupTemplates: []schedulingv1alpha3.PodGroupTemplate{{Name: "slice", SchedulingPolicy: schedulingv1alpha3.PodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha3.GangSchedulingPolicy{MinCount: 4}}}},
	}}}}
	read, err := WorkloadFrom(wl)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(wl.Spec)
	b, _ := json.Marshal(read.Spec)
	if string(a) != string(b) {
		t.Errorf("Workload read as\n%s\nwant\n%s", b, a)
	}
}

// TestToPodGroupV1beta1 maps every field of the v1beta1 spec (and so v1alpha3's).
func TestToPodGroupV1beta1(t *testing.T) {
	never := corev1.PreemptNever
	wantSpec := v1alpha1.PodGroupSpec{
		SchedulingPolicy: v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: 4}},
		DisruptionMode:   all, PriorityClassName: "high", Priority: ptrTo[int32](1000), PreemptionPolicy: &never,
		SchedulingConstraints:       rackOnly,
		ResourceClaims:              []v1alpha1.PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: ptrTo("fabric")}},
		ParentCompositePodGroupName: ptrTo("job"),
	}
	wl := &schedulingv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name: "job", PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{Name: "slice"}}}}}}
	for _, version := range []string{V1beta1, V1alpha3} {
		t.Run(version, func(t *testing.T) {
			var in any = betaGroup()
			if version == V1alpha3 {
				alpha := &schedulingv1alpha3.PodGroup{}
				if err := sameShape(in, alpha); err != nil {
					t.Fatal(err)
				}
				in = alpha
			}
			pg, err := PodGroupFrom(in)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := WorkloadFrom(wl)
			got := ToPodGroup(pg, w)
			if got.APIVersion != version || got.Kind != "PodGroup" || !IsNative(got) {
				t.Errorf("mapped %s %s, want %s PodGroup", got.APIVersion, got.Kind, version)
			}
			if !apiequality.Semantic.DeepEqual(got.Spec, wantSpec) {
				t.Errorf("spec\n got %s\nwant %s", asJSON(got.Spec), asJSON(wantSpec))
			}
			if s := got.Status.ResourceClaimStatuses; len(s) != 1 || *s[0].ResourceClaimName != "slice-0-fabric-x" {
				t.Errorf("claim statuses %s", asJSON(s))
			}
			if r := got.Annotations[v1alpha1.AnnotationInvalidReason]; r != "" {
				t.Errorf("marked invalid: %s", r)
			}
		})
	}
}

// TestToPodGroupV1beta1Template: a v1beta1 group takes what it leaves unset from its
// template, wherever the template sits in the Workload's tree, preemptionPolicy included;
// a missing one is named as v1beta1 spells the reference.
func TestToPodGroupV1beta1Template(t *testing.T) {
	never := schedulingv1beta1.PreemptNever
	tmpl := schedulingv1beta1.PodGroupTemplate{Name: "slice",
		SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "example.com/rack"}}},
		DisruptionMode:        &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}},
		PriorityClassName:     "high", PreemptionPolicy: &never}
	wl := &Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name: "job", CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
				Name: "block", PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{tmpl}}}}}}}
	pg := &PodGroup{TypeMeta: typeMeta(V1beta1, KindPodGroup), ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "slice-0"},
		Spec: schedulingv1beta1.PodGroupSpec{WorkloadRef: &schedulingv1beta1.WorkloadReference{WorkloadName: "train", TemplateName: "slice"},
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}}}
	got := ToPodGroup(pg, wl)
	if p := got.Spec.PreemptionPolicy; p == nil || *p != corev1.PreemptNever {
		t.Errorf("preemptionPolicy %v, want Never from the template", p)
	}
	if !got.DisruptAll() || got.Spec.PriorityClassName != "high" || !apiequality.Semantic.DeepEqual(got.Spec.SchedulingConstraints, rackOnly) {
		t.Errorf("template not applied: %s", asJSON(got.Spec))
	}

	pg.Spec.WorkloadRef.TemplateName = "other"
	if r := ToPodGroup(pg, wl).Annotations[v1alpha1.AnnotationInvalidReason]; r != `spec.workloadRef.templateName: Not found: "other"` {
		t.Errorf("missing template reported as %q", r)
	}
	pg.Spec.WorkloadRef.TemplateName = "slice"
	pg.Spec.SchedulingPolicy = schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}
	want := `spec.disruptionMode.all: Forbidden: may only be used with the gang scheduling policy (from template "slice" of Workload "train")`
	if r := ToPodGroup(pg, wl).Annotations[v1alpha1.AnnotationInvalidReason]; r != want {
		t.Errorf("all with basic reported as %q, want %q", r, want)
	}
}

// TestStatusConditions: phalanx's PodGroupScheduled is written as the version's condition
// type; a True PodGroupInitiallyScheduled is never written back to False.
func TestStatusConditions(t *testing.T) {
	scheduled := func(s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: v1alpha1.PodGroupScheduled, Status: s, Reason: "r"}
	}
	disrupt := metav1.Condition{Type: v1alpha1.DisruptionTarget, Status: metav1.ConditionTrue, Reason: "PreemptionByScheduler"}
	other := metav1.Condition{Type: "Other", Status: metav1.ConditionTrue}
	for _, tc := range []struct {
		name, version string
		native        []metav1.Condition // on the native object when read
		phalanx       []metav1.Condition // what the scheduler decided
		want          []string
	}{
		{"v1alpha2", V1alpha2, nil, []metav1.Condition{scheduled(metav1.ConditionFalse), disrupt, other}, []string{"PodGroupScheduled=False", "DisruptionTarget=True"}},
		{"v1beta1", V1beta1, nil, []metav1.Condition{scheduled(metav1.ConditionTrue)}, []string{"PodGroupInitiallyScheduled=True"}},
		{"v1alpha3 False", V1alpha3, nil, []metav1.Condition{scheduled(metav1.ConditionFalse)}, []string{"PodGroupInitiallyScheduled=False"}},
		{"v1beta1 once True", V1beta1, []metav1.Condition{{Type: "PodGroupInitiallyScheduled", Status: metav1.ConditionTrue}},
			[]metav1.Condition{scheduled(metav1.ConditionFalse), disrupt}, []string{"DisruptionTarget=True"}},
		{"v1alpha2 has no such rule", V1alpha2, []metav1.Condition{{Type: "PodGroupScheduled", Status: metav1.ConditionTrue}},
			[]metav1.Condition{scheduled(metav1.ConditionFalse)}, []string{"PodGroupScheduled=False"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := &PodGroup{TypeMeta: typeMeta(tc.version, KindPodGroup), Status: schedulingv1beta1.PodGroupStatus{Conditions: tc.native}}
			mapped := ToPodGroup(pg, nil)
			mapped.Status.Conditions = tc.phalanx
			var got []string
			for _, c := range StatusConditions(mapped) {
				got = append(got, c.Type+"="+string(c.Status))
			}
			if asJSON(got) != asJSON(tc.want) {
				t.Errorf("conditions %v, want %v", got, tc.want)
			}
		})
	}
}
