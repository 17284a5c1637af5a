package v1alpha1

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// validGroup is a gang that uses every field, so that each case changes one thing.
func validGroup() *PodGroup {
	return &PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "ml"},
		Spec: PodGroupSpec{
			SchedulingPolicy:  PodGroupSchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 8}},
			DisruptionMode:    &DisruptionMode{All: &AllDisruptionMode{}},
			PriorityClassName: "high",
			Priority:          new(int32(1000)),
			PreemptionPolicy:  new(corev1.PreemptLowerPriority),
			SchedulingConstraints: &PodGroupSchedulingConstraints{Topology: []TopologyConstraint{
				{Key: "example.com/block", Mode: TopologyModeRequired},
				{Key: "example.com/rack", Mode: TopologyModePreferred},
			}},
		},
		Status: PodGroupStatus{
			Phase:              PodGroupPhaseScheduled,
			ObservedGeneration: 1,
			Conditions: []metav1.Condition{{
				Type: PodGroupScheduled, Status: metav1.ConditionTrue, Reason: PodGroupReasonScheduled,
				LastTransitionTime: metav1.Unix(1, 0),
			}},
		},
	}
}

func topology(levels ...TopologyConstraint) *PodGroupSchedulingConstraints {
	return &PodGroupSchedulingConstraints{Topology: levels}
}

func TestValidatePodGroup(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*PodGroup)
		want   []string // the errors, in order, as Error() prints them
	}{
		{name: "every field set and valid", modify: func(*PodGroup) {}},
		{name: "basic with the defaults", modify: func(pg *PodGroup) {
			pg.Spec = PodGroupSpec{SchedulingPolicy: PodGroupSchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}
			pg.Status = PodGroupStatus{}
		}},
		{name: "topology mode left empty means Required", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "a"}, TopologyConstraint{Key: "b", Mode: TopologyModePreferred})
		}},
		{name: "topology level count at the maximum", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "a"}, TopologyConstraint{Key: "b"},
				TopologyConstraint{Key: "c"}, TopologyConstraint{Key: "d"})
		}},
		{name: "extreme priorities", modify: func(pg *PodGroup) { pg.Spec.Priority = new(int32(-1 << 31)) }},

		{name: "name missing", modify: func(pg *PodGroup) { pg.Name = "" },
			want: []string{"metadata.name: Required value"}},
		{name: "name not a DNS subdomain", modify: func(pg *PodGroup) { pg.Name = "Trainer" },
			want: []string{`metadata.name: Invalid value: "Trainer": a lowercase RFC 1123 subdomain`}},
		{name: "no policy", modify: func(pg *PodGroup) { pg.Spec.SchedulingPolicy.Gang = nil; pg.Spec.DisruptionMode = nil },
			want: []string{"spec.schedulingPolicy: Required value: exactly one of gang or basic must be set"}},
		{name: "two policies", modify: func(pg *PodGroup) { pg.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{} },
			want: []string{`spec.schedulingPolicy: Invalid value: "{gang, basic}": exactly one of gang or basic must be set`}},
		{name: "minCount zero", modify: func(pg *PodGroup) { pg.Spec.SchedulingPolicy.Gang.MinCount = 0 },
			want: []string{"spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be at least 1"}},
		{name: "minCount negative", modify: func(pg *PodGroup) { pg.Spec.SchedulingPolicy.Gang.MinCount = -3 },
			want: []string{"spec.schedulingPolicy.gang.minCount: Invalid value: -3: must be at least 1"}},
		{name: "empty disruption mode", modify: func(pg *PodGroup) { pg.Spec.DisruptionMode = &DisruptionMode{} },
			want: []string{"spec.disruptionMode: Required value: exactly one of single or all must be set"}},
		{name: "two disruption modes", modify: func(pg *PodGroup) { pg.Spec.DisruptionMode.Single = &SingleDisruptionMode{} },
			want: []string{`spec.disruptionMode: Invalid value: "{single, all}": exactly one of single or all must be set`}},
		{name: "all with basic", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingPolicy = PodGroupSchedulingPolicy{Basic: &BasicSchedulingPolicy{}}
		}, want: []string{"spec.disruptionMode.all: Forbidden: may only be used with the gang scheduling policy"}},
		{name: "priority class name not a DNS subdomain", modify: func(pg *PodGroup) { pg.Spec.PriorityClassName = "High_Prio" },
			want: []string{`spec.priorityClassName: Invalid value: "High_Prio": a lowercase RFC 1123 subdomain`}},
		{name: "unknown preemption policy", modify: func(pg *PodGroup) { pg.Spec.PreemptionPolicy = new(corev1.PreemptionPolicy("Sometimes")) },
			want: []string{`spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`}},
		{name: "too many topology levels", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "a"}, TopologyConstraint{Key: "b"},
				TopologyConstraint{Key: "c"}, TopologyConstraint{Key: "d"}, TopologyConstraint{Key: "e"})
		}, want: []string{"spec.schedulingConstraints.topology: Too many: 5: must have at most 4 items"}},
		{name: "topology key missing", modify: func(pg *PodGroup) { pg.Spec.SchedulingConstraints = topology(TopologyConstraint{}) },
			want: []string{"spec.schedulingConstraints.topology[0].key: Required value"}},
		{name: "topology key not a label key", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "example.com/rack/row"})
		}, want: []string{`spec.schedulingConstraints.topology[0].key: Invalid value: "example.com/rack/row": a valid label key must consist of`}},
		{name: "topology key repeated", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "rack"}, TopologyConstraint{Key: "rack", Mode: TopologyModePreferred})
		}, want: []string{`spec.schedulingConstraints.topology[1].key: Duplicate value: "rack"`}},
		{name: "unknown topology mode", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "rack", Mode: "Maybe"})
		}, want: []string{`spec.schedulingConstraints.topology[0].mode: Unsupported value: "Maybe": supported values: "Required", "Preferred"`}},
		{name: "Required after Preferred", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints = topology(TopologyConstraint{Key: "block", Mode: TopologyModePreferred}, TopologyConstraint{Key: "rack"})
		}, want: []string{`spec.schedulingConstraints.topology[1].mode: Invalid value: "Required": a Required level may not follow a Preferred one`}},
		{name: "group claims", modify: func(pg *PodGroup) {
			pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "fabric", ResourceClaimName: new("f")}, {Name: "gpus", ResourceClaimTemplateName: new("t")}}
			pg.Spec.SchedulingConstraints.DeviceTopology = &DeviceTopologyConstraint{MatchAttribute: "gpu.example.com/clique"}
		}},
		{name: "group claim with both sources", modify: func(pg *PodGroup) {
			pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "a", ResourceClaimName: new("x"), ResourceClaimTemplateName: new("y")}}
		}, want: []string{`spec.resourceClaims[0]: Invalid value: "a": exactly one of resourceClaimName or resourceClaimTemplateName must be set`}},
		{name: "group claim name repeated", modify: func(pg *PodGroup) {
			pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "a", ResourceClaimName: new("x")}, {Name: "a", ResourceClaimName: new("y")}}
		}, want: []string{`spec.resourceClaims[1].name: Duplicate value: "a"`}},
		{name: "group claim name not a DNS label", modify: func(pg *PodGroup) {
			pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "A.b", ResourceClaimName: new("x")}}
		}, want: []string{`spec.resourceClaims[0].name: Invalid value: "A.b"`}},
		{name: "too many group claims", modify: func(pg *PodGroup) {
			for _, n := range []string{"a", "b", "c", "d", "e"} {
				pg.Spec.ResourceClaims = append(pg.Spec.ResourceClaims, PodGroupResourceClaim{Name: n, ResourceClaimName: new("x")})
			}
		}, want: []string{"spec.resourceClaims: Too many: 5: must have at most 4 items"}},
		{name: "device attribute not qualified", modify: func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints.DeviceTopology = &DeviceTopologyConstraint{MatchAttribute: "clique"}
		}, want: []string{`spec.schedulingConstraints.deviceTopology.matchAttribute: Invalid value: "clique": must be a fully qualified device attribute`}},
		{name: "unknown phase", modify: func(pg *PodGroup) { pg.Status.Phase = "Running" },
			want: []string{`status.phase: Unsupported value: "Running": supported values: "Pending", "Scheduled", "Preempted"`}},
		{name: "negative observed generation", modify: func(pg *PodGroup) { pg.Status.ObservedGeneration = -1 },
			want: []string{"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "condition type repeated", modify: func(pg *PodGroup) {
			pg.Status.Conditions = append(pg.Status.Conditions, pg.Status.Conditions[0])
		}, want: []string{`status.conditions[1]: Duplicate value: "PodGroupScheduled"`}},
		{name: "condition without reason", modify: func(pg *PodGroup) { pg.Status.Conditions[0].Reason = "" },
			want: []string{"status.conditions[0].reason: Required value"}},
		{name: "errors in several fields are all reported", modify: func(pg *PodGroup) {
			pg.Name = ""
			pg.Spec.SchedulingPolicy.Gang.MinCount = 0
			pg.Spec.PreemptionPolicy = new(corev1.PreemptionPolicy(""))
		}, want: []string{
			"metadata.name: Required value",
			"spec.schedulingPolicy.gang.minCount: Invalid value: 0",
			`spec.preemptionPolicy: Unsupported value: ""`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pg := validGroup()
			tc.modify(pg)
			errs := ValidatePodGroup(pg)
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors %v, want %d: %q", len(errs), errs, len(tc.want), tc.want)
			}
			for i, err := range errs {
				if !strings.HasPrefix(err.Error(), tc.want[i]) {
					t.Errorf("error %d = %q, want it to start with %q", i, err.Error(), tc.want[i])
				}
			}
		})
	}
}

func TestValidatePodGroupNil(t *testing.T) {
	if errs := ValidatePodGroup(nil); len(errs) != 1 {
		t.Fatalf("ValidatePodGroup(nil) = %v, want one error", errs)
	}
}
