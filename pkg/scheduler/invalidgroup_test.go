package scheduler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// An invalid PodGroup is never scheduled, not even in part, and its members and events say
// why. The API server's CRD schema refuses such groups (the simulator too), so they reach
// the scheduler only from a cluster whose CRD is older than phalanx's, or read without it.
func TestInvalidGroupIsNeverScheduled(t *testing.T) {
	basic := podGroup("web", 1, true, 0)
	basic.Spec.SchedulingPolicy = v1alpha1.PodGroupSchedulingPolicy{Basic: &v1alpha1.BasicSchedulingPolicy{}}
	for _, tc := range []struct {
		name string
		pg   *v1alpha1.PodGroup
		want string
	}{
		// KEP-5710: the preemption unit may not be larger than the scheduling unit.
		{name: "disruption mode All with the basic policy", pg: basic,
			want: "spec.disruptionMode.all: Forbidden: may only be used with the gang scheduling policy"},
		// A minCount of 0 must not read as "nothing required, start whatever fits".
		{name: "a gang of minCount 0", pg: podGroup("web", 0, false, 0), want: "spec.schedulingPolicy.gang.minCount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, fc, _ := newTestScheduler(t, nil)
			s.AddNode(testutil.Node("n").Capacity("cpu", "8", "memory", "8Gi").Obj())
			s.AddPodGroup(tc.pg)
			for i := range 2 {
				s.AddPod(testutil.Pod(fmt.Sprintf("web-%d", i)).Labels(v1alpha1.LabelPodGroup, "web").Req("cpu", "1").Obj())
			}
			drain(s)
			if len(fc.binds) > 0 {
				t.Errorf("members of an invalid group bound: %v", fc.binds)
			}
			for i := range 2 {
				if msg := s.PendingMessage(testutil.Pod(fmt.Sprintf("web-%d", i)).Obj()); !strings.Contains(msg, tc.want) {
					t.Errorf("web-%d waits with %q, want it to say %q", i, msg, tc.want)
				}
			}
			if !strings.Contains(strings.Join(fc.events, "\n"), "FailedScheduling: "+tc.want) {
				t.Errorf("events %q: no FailedScheduling saying %q", fc.events, tc.want)
			}
		})
	}
}
