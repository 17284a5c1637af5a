package nativegroup

import (
	"testing"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// TestValidateV1beta1PodGroup holds the simulator to what the 1.37 API server refuses, in
// its words, for v1beta1 and v1alpha3 alike.
func TestValidateV1beta1PodGroup(t *testing.T) {
	tests := []struct {
		name   string
		change func(pg *schedulingv1beta1.PodGroup)
		want   string // "" for valid
	}{
		{"valid with everything", func(*schedulingv1beta1.PodGroup) {}, ""},
		{"valid minimal", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec = schedulingv1beta1.PodGroupSpec{SchedulingPolicy: pg.Spec.SchedulingPolicy}
		}, ""},
		{"bad name", func(pg *schedulingv1beta1.PodGroup) { pg.Name = "Slice" }, `metadata.name: Invalid value: "Slice"`},
		{"two policies", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
		}, "spec.schedulingPolicy: Invalid value: \"{basic, gang}\": must specify exactly one of: `basic`, `gang`"},
		{"minCount zero", func(pg *schedulingv1beta1.PodGroup) { pg.Spec.SchedulingPolicy.Gang.MinCount = 0 },
			"spec.schedulingPolicy.gang.minCount"},
		{"two topology levels", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.SchedulingConstraints.Topology = append(pg.Spec.SchedulingConstraints.Topology, schedulingv1beta1.TopologyConstraint{Key: "example.com/block"})
		}, "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"},
		{"two disruption modes", func(pg *schedulingv1beta1.PodGroup) {
			pg.Spec.DisruptionMode.Single = &schedulingv1beta1.SingleDisruptionMode{}
		}, "spec.disruptionMode: Invalid value"},
		{"bad preemption policy", func(pg *schedulingv1beta1.PodGroup) {
			p := schedulingv1beta1.PreemptionPolicy("Sometimes")
			pg.Spec.PreemptionPolicy = &p
		}, `spec.preemptionPolicy: Unsupported value: "Sometimes"`},
		{"priority too high", func(pg *schedulingv1beta1.PodGroup) { pg.Spec.Priority = ptrTo[int32](1000000001) },
			"spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"},
		{"parent without workloadRef", func(pg *schedulingv1beta1.PodGroup) { pg.Spec.WorkloadRef = nil },
			"spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set"},
		{"template name with a dot", func(pg *schedulingv1beta1.PodGroup) { pg.Spec.WorkloadRef.TemplateName = "a.b" },
			`spec.workloadRef.templateName: Invalid value: "a.b"`},
		{"five claims", func(pg *schedulingv1beta1.PodGroup) {
			for _, n := range []string{"a", "b", "c", "d"} {
				pg.Spec.ResourceClaims = append(pg.Spec.ResourceClaims, schedulingv1beta1.PodGroupResourceClaim{Name: n, ResourceClaimName: ptrTo(n)})
			}
		}, "spec.resourceClaims: Too many: 5: must have at most 4 items"},
	}
	for _, tc := range tests {
		for _, version := range []string{V1beta1, V1alpha3} {
			t.Run(version+" "+tc.name, func(t *testing.T) {
				pg := betaGroup()
				pg.Status = schedulingv1beta1.PodGroupStatus{}
				tc.change(pg)
				var obj any = pg
				if version == V1alpha3 {
					alpha := &schedulingv1alpha3.PodGroup{}
					if err := sameShape(pg, alpha); err != nil {
						t.Fatal(err)
					}
					obj = alpha
				}
				checkErrors(t, Validate(obj).ToAggregate(), tc.want)
			})
		}
	}
}

// TestValidateV1beta1Defaults: an unset disruption mode is single, as the API server
// defaults it.
func TestValidateV1beta1Defaults(t *testing.T) {
	pg := betaGroup()
	pg.Spec.DisruptionMode = nil
	if errs := Validate(pg); len(errs) > 0 || pg.Spec.DisruptionMode == nil || pg.Spec.DisruptionMode.Single == nil {
		t.Errorf("disruption mode %+v (errors %v), want single", pg.Spec.DisruptionMode, errs)
	}
}

func TestValidateV1beta1Workload(t *testing.T) {
	gang := schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}
	composite := func(name string, children ...schedulingv1beta1.CompositePodGroupTemplate) schedulingv1beta1.CompositePodGroupTemplate {
		return schedulingv1beta1.CompositePodGroupTemplate{Name: name,
			SchedulingPolicy:           schedulingv1beta1.CompositePodGroupSchedulingPolicy{Basic: &schedulingv1beta1.CompositeBasicSchedulingPolicy{}},
			PodGroupTemplates:          []schedulingv1beta1.PodGroupTemplate{{Name: name + "-pods", SchedulingPolicy: gang}},
			CompositePodGroupTemplates: children}
	}
	valid := func() *schedulingv1beta1.Workload {
		wl := &schedulingv1beta1.Workload{}
		wl.Name, wl.Namespace = "train", "ml"
		wl.Spec.CompositePodGroupTemplates = []schedulingv1beta1.CompositePodGroupTemplate{composite("job", composite("block"))}
		return wl
	}
	tests := []struct {
		name   string
		change func(wl *schedulingv1beta1.Workload)
		want   string
	}{
		{"valid", func(*schedulingv1beta1.Workload) {}, ""},
		{"both kinds of templates", func(wl *schedulingv1beta1.Workload) {
			wl.Spec.PodGroupTemplates = []schedulingv1beta1.PodGroupTemplate{{Name: "x", SchedulingPolicy: gang}}
		}, "spec: Invalid value"},
		{"a name twice in the tree", func(wl *schedulingv1beta1.Workload) {
			wl.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].Name = "job"
		}, `spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].name: Duplicate value: "job"`},
		{"too deep", func(wl *schedulingv1beta1.Workload) {
			wl.Spec.CompositePodGroupTemplates = []schedulingv1beta1.CompositePodGroupTemplate{composite("a", composite("b", composite("c", composite("d"))))}
		}, "spec.compositePodGroupTemplates[0]: Invalid value"},
		{"two priorities", func(wl *schedulingv1beta1.Workload) {
			wl.Spec.CompositePodGroupTemplates[0].PodGroupTemplates[0].PriorityClassName = "high"
		}, "all priority and priorityClassName values must be identical"},
		{"a composite without children", func(wl *schedulingv1beta1.Workload) {
			wl.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates = nil
		}, "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wl := valid()
			tc.change(wl)
			checkErrors(t, Validate(wl).ToAggregate(), tc.want)
		})
	}
}
