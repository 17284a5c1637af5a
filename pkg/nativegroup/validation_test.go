package nativegroup

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// TestValidatePodGroup holds the simulator to what the API server refuses, with its words.
func TestValidatePodGroup(t *testing.T) {
	valid := func() *schedulingv1alpha2.PodGroup {
		pg := nativeGroup(schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(4)})
		defaultV1alpha2(pg)
		return pg
	}
	tests := []struct {
		name   string
		change func(pg *schedulingv1alpha2.PodGroup)
		want   string // "" for valid
	}{
		{"valid", func(*schedulingv1alpha2.PodGroup) {}, ""},
		{"valid with everything", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.PodGroupTemplateRef = templateRef("job", "workers")
			pg.Spec.SchedulingConstraints = nativeRack()
			pg.Spec.DisruptionMode = mode("PodGroup")
			pg.Spec.PriorityClassName = "high"
			pg.Spec.Priority = ptrTo[int32](1000000000)
			pg.Spec.ResourceClaims = []schedulingv1alpha2.PodGroupResourceClaim{
				{Name: "a", ResourceClaimName: ptrTo("claim")}, {Name: "b", ResourceClaimTemplateName: ptrTo("tmpl")}}
		}, ""},
		{"bad name", func(pg *schedulingv1alpha2.PodGroup) { pg.Name = "Train" }, `metadata.name: Invalid value: "Train": a lowercase RFC 1123 subdomain`},
		{"no policy", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.SchedulingPolicy = schedulingv1alpha2.PodGroupSchedulingPolicy{}
		},
			"spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`"},
		{"two policies", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.SchedulingPolicy.Basic = &schedulingv1alpha2.BasicSchedulingPolicy{}
		},
			"spec.schedulingPolicy: Invalid value: \"{basic, gang}\": must specify exactly one of: `basic`, `gang`"},
		{"minCount zero", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.SchedulingPolicy.Gang.MinCount = 0 },
			"spec.schedulingPolicy.gang.minCount: Required value"},
		{"minCount negative", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.SchedulingPolicy.Gang.MinCount = -1 },
			"spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"},
		{"two topology levels", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.SchedulingConstraints = nativeRack()
			pg.Spec.SchedulingConstraints.Topology = append(pg.Spec.SchedulingConstraints.Topology, schedulingv1alpha2.TopologyConstraint{Key: "example.com/block"})
		}, "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"},
		{"empty topology key", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.SchedulingConstraints = &schedulingv1alpha2.PodGroupSchedulingConstraints{Topology: []schedulingv1alpha2.TopologyConstraint{{}}}
		}, "spec.schedulingConstraints.topology[0].key: Required value"},
		{"bad topology key", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.SchedulingConstraints = &schedulingv1alpha2.PodGroupSchedulingConstraints{Topology: []schedulingv1alpha2.TopologyConstraint{{Key: "a b"}}}
		}, `spec.schedulingConstraints.topology[0].key: Invalid value: "a b"`},
		{"unknown disruption mode", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.DisruptionMode = mode("Node") },
			`spec.disruptionMode: Unsupported value: "Node": supported values: "Pod", "PodGroup"`},
		{"bad class name", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.PriorityClassName = "High" },
			`spec.priorityClassName: Invalid value: "High"`},
		{"priority too high", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.Priority = ptrTo[int32](1000000001) },
			"spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"},
		{"template ref without workload", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.PodGroupTemplateRef = &schedulingv1alpha2.PodGroupTemplateReference{}
		}, "spec.podGroupTemplateRef: Invalid value: \"\": must specify one of: `workload`"},
		{"template ref without names", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.PodGroupTemplateRef = templateRef("", "") },
			"[spec.podGroupTemplateRef.workload.workloadName: Required value, spec.podGroupTemplateRef.workload.podGroupTemplateName: Required value]"},
		{"template name not a DNS label", func(pg *schedulingv1alpha2.PodGroup) { pg.Spec.PodGroupTemplateRef = templateRef("job", "a.b") },
			`spec.podGroupTemplateRef.workload.podGroupTemplateName: Invalid value: "a.b": must not contain dots`},
		{"five claims", func(pg *schedulingv1alpha2.PodGroup) {
			for _, n := range []string{"a", "b", "c", "d", "e"} {
				pg.Spec.ResourceClaims = append(pg.Spec.ResourceClaims, schedulingv1alpha2.PodGroupResourceClaim{Name: n, ResourceClaimName: ptrTo(n)})
			}
		}, "spec.resourceClaims: Too many: 5: must have at most 4 items"},
		{"duplicate claim", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.ResourceClaims = []schedulingv1alpha2.PodGroupResourceClaim{
				{Name: "a", ResourceClaimName: ptrTo("x")}, {Name: "a", ResourceClaimName: ptrTo("y")}}
		}, "spec.resourceClaims[1]: Duplicate value"},
		{"claim with both sources", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.ResourceClaims = []schedulingv1alpha2.PodGroupResourceClaim{{Name: "a", ResourceClaimName: ptrTo("x"), ResourceClaimTemplateName: ptrTo("y")}}
		}, "spec.resourceClaims[0]: Invalid value: \"{resourceClaimName, resourceClaimTemplateName}\": must specify exactly one of"},
		{"claim without name", func(pg *schedulingv1alpha2.PodGroup) {
			pg.Spec.ResourceClaims = []schedulingv1alpha2.PodGroupResourceClaim{{ResourceClaimName: ptrTo("x")}}
		}, "spec.resourceClaims[0].name: Required value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg := valid()
			tc.change(pg)
			checkErrors(t, validateV1alpha2PodGroup(pg).ToAggregate(), tc.want)
		})
	}
}

func TestValidateWorkload(t *testing.T) {
	valid := func() *schedulingv1alpha2.Workload {
		wl := workload(schedulingv1alpha2.PodGroupTemplate{Name: "workers", SchedulingPolicy: nativeGang(4)})
		wl.Spec.ControllerRef = &schedulingv1alpha2.TypedLocalObjectReference{APIGroup: "batch", Kind: "Job", Name: "train"}
		return wl
	}
	tests := []struct {
		name   string
		change func(wl *schedulingv1alpha2.Workload)
		want   string
	}{
		{"valid", func(*schedulingv1alpha2.Workload) {}, ""},
		{"no templates", func(wl *schedulingv1alpha2.Workload) { wl.Spec.PodGroupTemplates = nil }, "spec.podGroupTemplates: Required value"},
		{"nine templates", func(wl *schedulingv1alpha2.Workload) {
			wl.Spec.PodGroupTemplates = nil
			for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
				wl.Spec.PodGroupTemplates = append(wl.Spec.PodGroupTemplates, schedulingv1alpha2.PodGroupTemplate{Name: n, SchedulingPolicy: nativeBasic})
			}
		}, "spec.podGroupTemplates: Too many: 9: must have at most 8 items"},
		{"duplicate template", func(wl *schedulingv1alpha2.Workload) {
			wl.Spec.PodGroupTemplates = append(wl.Spec.PodGroupTemplates, wl.Spec.PodGroupTemplates[0])
		}, "spec.podGroupTemplates[1]: Duplicate value"},
		{"template without name", func(wl *schedulingv1alpha2.Workload) { wl.Spec.PodGroupTemplates[0].Name = "" },
			"spec.podGroupTemplates[0].name: Required value"},
		{"template with two policies", func(wl *schedulingv1alpha2.Workload) {
			wl.Spec.PodGroupTemplates[0].SchedulingPolicy.Basic = &schedulingv1alpha2.BasicSchedulingPolicy{}
		}, "spec.podGroupTemplates[0].schedulingPolicy: Invalid value"},
		{"template with a bad disruption mode", func(wl *schedulingv1alpha2.Workload) {
			wl.Spec.PodGroupTemplates[0].DisruptionMode = mode("All")
		}, `spec.podGroupTemplates[0].disruptionMode: Unsupported value: "All"`},
		{"controller without kind", func(wl *schedulingv1alpha2.Workload) { wl.Spec.ControllerRef.Kind = "" },
			"spec.controllerRef.kind: Required value"},
		{"controller name with a slash", func(wl *schedulingv1alpha2.Workload) { wl.Spec.ControllerRef.Name = "a/b" },
			`spec.controllerRef.name: Invalid value: "a/b"`},
		{"bad name", func(wl *schedulingv1alpha2.Workload) { wl.Name = "-job" }, `metadata.name: Invalid value: "-job"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wl := valid()
			tc.change(wl)
			checkErrors(t, validateV1alpha2Workload(wl).ToAggregate(), tc.want)
		})
	}
}

func checkErrors(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected errors: %v", err)
	case want != "" && err == nil:
		t.Errorf("no error, want %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("errors %q, want %q in them", err, want)
	}
}

func TestDefault(t *testing.T) {
	pg := &schedulingv1alpha2.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	defaultV1alpha2(pg)
	if pg.Spec.DisruptionMode == nil || *pg.Spec.DisruptionMode != schedulingv1alpha2.DisruptionModePod {
		t.Errorf("disruptionMode %v, want Pod", pg.Spec.DisruptionMode)
	}
	pg.Spec.DisruptionMode = mode("PodGroup")
	defaultV1alpha2(pg)
	if *pg.Spec.DisruptionMode != schedulingv1alpha2.DisruptionModePodGroup {
		t.Errorf("Default changed a set disruptionMode to %v", *pg.Spec.DisruptionMode)
	}
}
