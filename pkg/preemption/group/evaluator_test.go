package group_test

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/group"
)

// Preempt's outcomes for a group without placements (preemptInPlacements has its own test).
func TestGroupPreempt(t *testing.T) {
	// Two 2-cpu nodes: n1 holds a (priority 1, 2 cpu), n2 holds b (priority 2, 2 cpu).
	pods := func() []*v1.Pod { return []*v1.Pod{low("a", 1, "2", "n1"), low("b", 2, "2", "n2")} }
	tests := []struct {
		name     string
		pods     []*v1.Pod
		members  []*v1.Pod
		minCount int32
		never    bool
		nominate map[string]string
		// want are the victims (nil: none) and the nominations.
		want          []string
		wantNominated []string
		wantMessage   string
		wantEligible  bool
		wantWaiting   bool
	}{
		{
			name: "preemptionPolicy Never: not eligible", pods: pods(), never: true,
			members: []*v1.Pod{member("m1", "2")}, minCount: 1,
			wantMessage: "preemption: " + preemption.MsgNeverPolicy,
		},
		{
			name: "fewer members than the group needs: nothing to make room for", pods: pods(),
			members: []*v1.Pod{member("m1", "2")}, minCount: 2,
			wantMessage: "preemption: nothing to make room for", wantEligible: true,
		},
		{
			// Decided as for a pod: the node whose victims disrupt least, one member
			// nominated.
			name: "one member needed: decided as a pod's", pods: pods(),
			members: []*v1.Pod{member("m1", "2"), member("m2", "2")}, minCount: 1,
			want: []string{"a"}, wantNominated: []string{"m1 n1"}, wantEligible: true,
		},
		{
			name: "several members needed: placed in the cluster with the least disruptive victims", pods: pods(),
			members: []*v1.Pod{member("m1", "2"), member("m2", "2")}, minCount: 2,
			want: []string{"a", "b"}, wantNominated: []string{"m1 n1", "m2 n2"}, wantEligible: true,
		},
		{
			name: "several members needed, more than the lower-priority pods free", pods: pods(),
			members: []*v1.Pod{member("m1", "2"), member("m2", "2"), member("m3", "2")}, minCount: 3,
			wantMessage: "preemption: the pod group does not fit even with every lower-priority pod preempted", wantEligible: true,
		},
		{
			name:    "nominated where the last preemption's victims still leave: the group waits",
			pods:    []*v1.Pod{deleting(low("a", 1, "2", "n1")), low("b", 2, "2", "n2")},
			members: []*v1.Pod{member("m1", "2")}, minCount: 1,
			nominate:    map[string]string{"m1": "n1"},
			wantMessage: "preemption: " + group.MsgWaitingVictims, wantWaiting: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ge := newGroupEnv(t, cpuNodes("2", "n1", "n2"), tc.pods, groupEnvOptions{minCount: tc.minCount})
			if tc.never {
				ge.g.PreemptionPolicy = v1.PreemptNever
			}
			a := ge.attempt(tc.members...)
			for _, m := range a.Pending {
				if n := tc.nominate[m.Pod.Name]; n != "" {
					ge.c.Nominations().Nominate(m, n)
				}
			}
			before := ge.c.Nodes().NumPods()
			res, err := ge.e.Preempt(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if ge.c.Nodes().NumPods() != before || ge.c.OpenCheckpoints() != 0 {
				t.Fatal("the simulation was not rolled back")
			}
			if res.Message != tc.wantMessage || res.Eligible != tc.wantEligible || res.Waiting != tc.wantWaiting {
				t.Errorf("%q eligible %v waiting %v, want %q eligible %v waiting %v",
					res.Message, res.Eligible, res.Waiting, tc.wantMessage, tc.wantEligible, tc.wantWaiting)
			}
			if got := sortedNames(res.Victims); tc.want != nil && !slices.Equal(got, tc.want) || tc.want == nil && len(got) > 0 {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
			if tc.want != nil {
				if got := nominations(res); !slices.Equal(got, tc.wantNominated) {
					t.Errorf("nominations %v, want %v", got, tc.wantNominated)
				}
			}
		})
	}
}
