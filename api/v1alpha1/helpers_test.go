package v1alpha1

import "testing"

func TestGroupHelpers(t *testing.T) {
	gang := func(min int32) PodGroupSchedulingPolicy {
		return PodGroupSchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: min}}
	}
	basic := PodGroupSchedulingPolicy{Basic: &BasicSchedulingPolicy{}}
	cases := []struct {
		name           string
		pg             *PodGroup
		wantGang       bool
		wantMinCount   int32
		wantDisruptAll bool
	}{
		{name: "nil group is a basic group of one", pg: nil, wantMinCount: 1},
		{name: "basic", pg: &PodGroup{Spec: PodGroupSpec{SchedulingPolicy: basic}}, wantMinCount: 1},
		{name: "gang", pg: &PodGroup{Spec: PodGroupSpec{SchedulingPolicy: gang(8)}}, wantGang: true, wantMinCount: 8},
		{name: "gang, single", pg: &PodGroup{Spec: PodGroupSpec{SchedulingPolicy: gang(3),
			DisruptionMode: &DisruptionMode{Single: &SingleDisruptionMode{}}}}, wantGang: true, wantMinCount: 3},
		{name: "gang, all", pg: &PodGroup{Spec: PodGroupSpec{SchedulingPolicy: gang(3),
			DisruptionMode: &DisruptionMode{All: &AllDisruptionMode{}}}}, wantGang: true, wantMinCount: 3, wantDisruptAll: true},
		{name: "no policy reads as basic", pg: &PodGroup{}, wantMinCount: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.pg.IsGang(); got != tc.wantGang {
				t.Errorf("IsGang() = %v, want %v", got, tc.wantGang)
			}
			if got := tc.pg.MinCount(); got != tc.wantMinCount {
				t.Errorf("MinCount() = %d, want %d", got, tc.wantMinCount)
			}
			if got := tc.pg.DisruptAll(); got != tc.wantDisruptAll {
				t.Errorf("DisruptAll() = %v, want %v", got, tc.wantDisruptAll)
			}
		})
	}
}

func TestTopologyConstraintIsRequired(t *testing.T) {
	for mode, want := range map[TopologyMode]bool{"": true, TopologyModeRequired: true, TopologyModePreferred: false} {
		if got := (TopologyConstraint{Key: "rack", Mode: mode}).IsRequired(); got != want {
			t.Errorf("IsRequired() with mode %q = %v, want %v", mode, got, want)
		}
	}
}
