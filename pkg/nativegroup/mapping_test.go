package nativegroup

import (
	"encoding/json"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

func ptrTo[T any](v T) *T { return &v }

// fromV1alpha2Workload reads a v1alpha2 Workload, nil for nil.
func fromV1alpha2Workload(wl *schedulingv1alpha2.Workload) *Workload {
	if wl == nil {
		return nil
	}
	return FromV1alpha2Workload(wl)
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func nativeGang(minCount int32) schedulingv1alpha2.PodGroupSchedulingPolicy {
	return schedulingv1alpha2.PodGroupSchedulingPolicy{Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: minCount}}
}

var nativeBasic = schedulingv1alpha2.PodGroupSchedulingPolicy{Basic: &schedulingv1alpha2.BasicSchedulingPolicy{}}

func mode(m schedulingv1alpha2.DisruptionMode) *schedulingv1alpha2.DisruptionMode { return &m }

func nativeGroup(spec schedulingv1alpha2.PodGroupSpec) *schedulingv1alpha2.PodGroup {
	return &schedulingv1alpha2.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", UID: "uid-1", Generation: 3,
			Labels: map[string]string{"app": "train"}},
		Spec: spec,
	}
}

func templateRef(workload, template string) *schedulingv1alpha2.PodGroupTemplateReference {
	return &schedulingv1alpha2.PodGroupTemplateReference{Workload: &schedulingv1alpha2.WorkloadPodGroupTemplateReference{
		WorkloadName: workload, PodGroupTemplateName: template,
	}}
}

func workload(templates ...schedulingv1alpha2.PodGroupTemplate) *schedulingv1alpha2.Workload {
	return &schedulingv1alpha2.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job"},
		Spec:       schedulingv1alpha2.WorkloadSpec{PodGroupTemplates: templates},
	}
}

// wantGroup is the mapped group with the metadata nativeGroup gives.
func wantGroup(spec v1alpha1.PodGroupSpec) *v1alpha1.PodGroup {
	return &v1alpha1.PodGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1alpha2", Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", UID: "uid-1", Generation: 3,
			Labels: map[string]string{"app": "train"}},
		Spec: spec,
	}
}

var (
	gang8    = v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: 8}}
	basic    = v1alpha1.PodGroupSchedulingPolicy{Basic: &v1alpha1.BasicSchedulingPolicy{}}
	single   = &v1alpha1.DisruptionMode{Single: &v1alpha1.SingleDisruptionMode{}}
	all      = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	rackOnly = &v1alpha1.PodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{
		{Key: "example.com/rack", Mode: v1alpha1.TopologyModeRequired},
	}}
)

func nativeRack() *schedulingv1alpha2.PodGroupSchedulingConstraints {
	return &schedulingv1alpha2.PodGroupSchedulingConstraints{Topology: []schedulingv1alpha2.TopologyConstraint{{Key: "example.com/rack"}}}
}

func withInvalid(pg *v1alpha1.PodGroup, reason string) *v1alpha1.PodGroup {
	pg.Annotations = map[string]string{v1alpha1.AnnotationInvalidReason: reason}
	return pg
}

// TestToPodGroup maps every field of the native spec, the template fallback, and the
// combinations the API server accepts but phalanx cannot schedule.
func TestToPodGroup(t *testing.T) {
	cond := metav1.Condition{Type: "PodGroupScheduled", Status: metav1.ConditionFalse, Reason: "Unschedulable", Message: "m"}
	tests := []struct {
		name string
		pg   *schedulingv1alpha2.PodGroup
		wl   *schedulingv1alpha2.Workload
		want *v1alpha1.PodGroup
	}{{
		name: "gang",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8)}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8}),
	}, {
		name: "basic",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeBasic}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: basic}),
	}, {
		name: "disruption mode Pod is single",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), DisruptionMode: mode("Pod")}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, DisruptionMode: single}),
	}, {
		name: "disruption mode PodGroup is all",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), DisruptionMode: mode("PodGroup")}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, DisruptionMode: all}),
	}, {
		name: "basic with disruption mode Pod",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeBasic, DisruptionMode: mode("Pod")}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: basic, DisruptionMode: single}),
	}, {
		name: "priority class and priority",
		pg: nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8),
			PriorityClassName: "high", Priority: ptrTo[int32](1000)}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, PriorityClassName: "high", Priority: ptrTo[int32](1000)}),
	}, {
		name: "priority class alone is resolved by the scheduler",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PriorityClassName: "high"}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, PriorityClassName: "high"}),
	}, {
		name: "topology key is a Required level",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), SchedulingConstraints: nativeRack()}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, SchedulingConstraints: rackOnly}),
	}, {
		name: "empty constraints",
		pg: nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8),
			SchedulingConstraints: &schedulingv1alpha2.PodGroupSchedulingConstraints{}}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, SchedulingConstraints: &v1alpha1.PodGroupSchedulingConstraints{}}),
	}, {
		name: "status conditions are kept",
		pg: func() *schedulingv1alpha2.PodGroup {
			pg := nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8)})
			pg.Status.Conditions = []metav1.Condition{cond}
			return pg
		}(),
		want: func() *v1alpha1.PodGroup {
			pg := wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8})
			pg.Status.Conditions = []metav1.Condition{cond}
			return pg
		}(),
	}, {
		name: "template fills what the group leaves unset",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: templateRef("job", "workers")}),
		wl: workload(schedulingv1alpha2.PodGroupTemplate{Name: "workers", SchedulingPolicy: nativeGang(8),
			SchedulingConstraints: nativeRack(), DisruptionMode: mode("PodGroup"),
			PriorityClassName: "high", Priority: ptrTo[int32](1000)}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, SchedulingConstraints: rackOnly,
			DisruptionMode: all, PriorityClassName: "high", Priority: ptrTo[int32](1000)}),
	}, {
		name: "the group's own fields win over the template's",
		pg: nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: templateRef("job", "workers"),
			SchedulingConstraints: &schedulingv1alpha2.PodGroupSchedulingConstraints{}, DisruptionMode: mode("Pod"), Priority: ptrTo[int32](5)}),
		wl: workload(schedulingv1alpha2.PodGroupTemplate{Name: "workers", SchedulingPolicy: nativeGang(2),
			SchedulingConstraints: nativeRack(), DisruptionMode: mode("PodGroup"),
			PriorityClassName: "high", Priority: ptrTo[int32](1000)}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, SchedulingConstraints: &v1alpha1.PodGroupSchedulingConstraints{},
			DisruptionMode: single, Priority: ptrTo[int32](5)}),
	}, {
		name: "the template named, among several",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: templateRef("job", "b")}),
		wl: workload(schedulingv1alpha2.PodGroupTemplate{Name: "a", SchedulingPolicy: nativeGang(8), DisruptionMode: mode("PodGroup")},
			schedulingv1alpha2.PodGroupTemplate{Name: "b", SchedulingPolicy: nativeGang(8), DisruptionMode: mode("Pod")}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, DisruptionMode: single}),
	}, {
		name: "invalid: disruption mode PodGroup with basic",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeBasic, DisruptionMode: mode("PodGroup")}),
		want: withInvalid(wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: basic}),
			`spec.disruptionMode: Invalid value: "PodGroup": may only be used with the gang scheduling policy`),
	}, {
		name: "invalid: disruption mode PodGroup from the template with basic",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeBasic, PodGroupTemplateRef: templateRef("job", "workers")}),
		wl:   workload(schedulingv1alpha2.PodGroupTemplate{Name: "workers", SchedulingPolicy: nativeBasic, DisruptionMode: mode("PodGroup")}),
		want: withInvalid(wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: basic}),
			`spec.disruptionMode: Invalid value: "PodGroup": may only be used with the gang scheduling policy (from podGroupTemplate "workers" of Workload "job")`),
	}, {
		// The API server refuses any other mode (Validate does too), so none reaches phalanx.
		name: "a mode v1alpha2 does not have reads as unset",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), DisruptionMode: mode("Node")}),
		want: wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8}),
	}, {
		name: "invalid: the Workload is not there",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: templateRef("job", "workers")}),
		want: withInvalid(wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8}),
			`spec.podGroupTemplateRef.workload.workloadName: Not found: "job"`),
	}, {
		name: "invalid: another Workload is no Workload",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: templateRef("other", "workers")}),
		wl:   workload(schedulingv1alpha2.PodGroupTemplate{Name: "workers", SchedulingPolicy: nativeGang(8)}),
		want: withInvalid(wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8}),
			`spec.podGroupTemplateRef.workload.workloadName: Not found: "other"`),
	}, {
		name: "invalid: the template is not in the Workload",
		pg:   nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: templateRef("job", "workers")}),
		wl:   workload(schedulingv1alpha2.PodGroupTemplate{Name: "leaders", SchedulingPolicy: nativeGang(1)}),
		want: withInvalid(wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8}),
			`spec.podGroupTemplateRef.workload.podGroupTemplateName: Not found: "workers"`),
	}, {
		name: "shared resource claims, and the claims upstream made from templates",
		pg: func() *schedulingv1alpha2.PodGroup {
			pg := nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8),
				ResourceClaims: []schedulingv1alpha2.PodGroupResourceClaim{
					{Name: "fabric", ResourceClaimName: ptrTo("train-fabric")},
					{Name: "gpus", ResourceClaimTemplateName: ptrTo("eight-gpus")}}})
			pg.Status.ResourceClaimStatuses = []schedulingv1alpha2.PodGroupResourceClaimStatus{{Name: "gpus", ResourceClaimName: ptrTo("train-gpus-x7k2p")}}
			return pg
		}(),
		want: func() *v1alpha1.PodGroup {
			pg := wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8, ResourceClaims: []v1alpha1.PodGroupResourceClaim{
				{Name: "fabric", ResourceClaimName: ptrTo("train-fabric")},
				{Name: "gpus", ResourceClaimTemplateName: ptrTo("eight-gpus")}}})
			pg.Status.ResourceClaimStatuses = []v1alpha1.PodGroupResourceClaimStatus{{Name: "gpus", ResourceClaimName: ptrTo("train-gpus-x7k2p")}}
			return pg
		}(),
	}, {
		name: "a marker set by a user is dropped",
		pg: func() *schedulingv1alpha2.PodGroup {
			pg := nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8)})
			pg.Annotations = map[string]string{v1alpha1.AnnotationInvalidReason: "spoofed"}
			return pg
		}(),
		want: func() *v1alpha1.PodGroup {
			pg := wantGroup(v1alpha1.PodGroupSpec{SchedulingPolicy: gang8})
			pg.Annotations = map[string]string{}
			return pg
		}(),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pg.DeepCopy()
			got := ToPodGroup(FromV1alpha2PodGroup(tc.pg), fromV1alpha2Workload(tc.wl))
			if !apiequality.Semantic.DeepEqual(tc.want, got) {
				t.Errorf("ToPodGroup:\n got %s\nwant %s", asJSON(got), asJSON(tc.want))
			}
			if !IsNative(got) {
				t.Error("IsNative(mapped) = false")
			}
			if !apiequality.Semantic.DeepEqual(before, tc.pg) {
				t.Errorf("ToPodGroup changed its input:\n got %s\nwant %s", asJSON(tc.pg), asJSON(before))
			}
		})
	}
}

// TestToPodGroupIsValid checks that every valid native spec maps onto a group phalanx's own
// validation accepts, and that the mapped group reads as the native one means.
func TestToPodGroupIsValid(t *testing.T) {
	for _, tc := range []struct {
		name         string
		spec         schedulingv1alpha2.PodGroupSpec
		gang         bool
		minCount     int32
		disruptAll   bool
		requiredKeys int
	}{
		{"gang all rack", schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(4), DisruptionMode: mode("PodGroup"), SchedulingConstraints: nativeRack()}, true, 4, true, 1},
		{"gang pod", schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(1), DisruptionMode: mode("Pod")}, true, 1, false, 0},
		{"basic pod", schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeBasic, DisruptionMode: mode("Pod")}, false, 1, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := nativeGroup(tc.spec)
			if errs := Validate(pg); len(errs) > 0 {
				t.Fatalf("native group invalid: %v", errs)
			}
			got := ToPodGroup(FromV1alpha2PodGroup(pg), nil)
			if errs := v1alpha1.ValidatePodGroup(got); len(errs) > 0 {
				t.Fatalf("mapped group invalid: %v", errs)
			}
			if r := got.Annotations[v1alpha1.AnnotationInvalidReason]; r != "" {
				t.Fatalf("mapped group marked invalid: %s", r)
			}
			if got.IsGang() != tc.gang || got.MinCount() != tc.minCount || got.DisruptAll() != tc.disruptAll {
				t.Errorf("gang %v minCount %d all %v, want %v %d %v", got.IsGang(), got.MinCount(), got.DisruptAll(), tc.gang, tc.minCount, tc.disruptAll)
			}
			n := 0
			if c := got.Spec.SchedulingConstraints; c != nil {
				for _, l := range c.Topology {
					if l.IsRequired() {
						n++
					}
				}
			}
			if n != tc.requiredKeys {
				t.Errorf("%d required levels, want %d", n, tc.requiredKeys)
			}
		})
	}
}

func TestIsNative(t *testing.T) {
	for _, tc := range []struct {
		name string
		pg   *v1alpha1.PodGroup
		want bool
	}{
		{"nil", nil, false},
		{"CRD without type", &v1alpha1.PodGroup{}, false},
		{"CRD", &v1alpha1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.phalanx.dev/v1alpha1", Kind: "PodGroup"}}, false},
		{"native", &v1alpha1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1alpha2", Kind: "PodGroup"}}, true},
		{"native Workload kind", &v1alpha1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1alpha2", Kind: "Workload"}}, false},
	} {
		if got := IsNative(tc.pg); got != tc.want {
			t.Errorf("%s: IsNative = %v, want %v", tc.name, got, tc.want)
		}
	}
}
