package scheduler

import (
	"errors"
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// A preemption's API writes, in order: the victim's DisruptionTarget condition before its
// deletion (as kube-scheduler), and the preemptor's nominated node in the same patch as its
// PodScheduled=False condition, never in a write of its own (docs/decisions/0071). A
// preemption that fails clears the nomination after that patch.
func TestPreemptionWrites(t *testing.T) {
	tests := []struct {
		name      string
		deleteErr error
		want      []string
	}{
		{
			name: "carried out",
			want: []string{
				"status default/victim DisruptionTarget",
				"delete default/victim",
				"status default/preemptor PodScheduled=False nominated=n1",
			},
		},
		{
			name:      "refused",
			deleteErr: errors.New("admission webhook denied the request"),
			want: []string{
				"status default/victim DisruptionTarget",
				"delete default/victim",
				"status default/preemptor PodScheduled=False nominated=n1",
				"status default/preemptor nominated=",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, fc, _ := newTestScheduler(t, nil)
			fc.deleteErr = tt.deleteErr
			fc.graceful = true
			s.AddNode(testutil.Node("n1").Capacity("cpu", "2", "memory", "4Gi").Obj())
			s.AddPod(testutil.Pod("victim").Req("cpu", "2").Priority(10).Node("n1").Obj())
			s.AddPod(testutil.Pod("preemptor").Req("cpu", "2").Priority(1000).Obj())
			drain(s)
			if !slices.Equal(fc.writes, tt.want) {
				t.Errorf("writes:\n%q\nwant:\n%q", fc.writes, tt.want)
			}
		})
	}
}
