package group_test

import (
	"math"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// The disruption bound of a domain, on resource vectors: the lowest priority level whose
// pods cover the room the group lacks, and the fewest of them that could.
func TestDisruptionBound(t *testing.T) {
	shifted := func(p int32) int64 { return int64(p) + math.MaxInt32 + 1 }
	// want renders a bound as the highest victim priority, the number of victims and the
	// sum of their shifted priorities.
	type bound struct {
		highest int32
		count   int
		sum     int64
	}
	none := bound{highest: preemption.NoCost.Highest}
	tests := []struct {
		name     string
		nodes    []*v1.Node
		pods     []*v1.Pod
		members  []*v1.Pod
		minCount int32
		want     bound
		wantOK   bool
	}{
		{
			name:  "free room: no victims",
			nodes: cpuNodes("4", "n1"), pods: []*v1.Pod{low("p1", 1, "2", "n1")},
			members: []*v1.Pod{member("m1", "2")}, minCount: 1,
			want: none, wantOK: true,
		},
		{
			// 2 cpu lacking: priority 1 frees 1, priority 2 the rest; one 2-cpu pod could
			// do it alone.
			name:  "the lowest level that covers what is lacking, and the fewest pods",
			nodes: cpuNodes("4", "n1"), pods: []*v1.Pod{low("p1", 1, "1", "n1"), low("p2", 2, "2", "n1"), low("p3", 3, "1", "n1")},
			members: []*v1.Pod{member("m1", "1"), member("m2", "1")}, minCount: 2,
			want: bound{highest: 2, count: 1, sum: shifted(2)}, wantOK: true,
		},
		{
			// 4 cpu lacking, 2 cpu the largest request: at least two victims, counted at
			// the lowest priority but one.
			name:  "the count from the largest request",
			nodes: cpuNodes("4", "n1"), pods: []*v1.Pod{low("p1", 1, "1", "n1"), low("p2", 1, "1", "n1"), low("p3", 2, "2", "n1")},
			members: []*v1.Pod{member("m1", "2"), member("m2", "2")}, minCount: 2,
			want: bound{highest: 2, count: 2, sum: shifted(2) + shifted(1)}, wantOK: true,
		},
		{
			name:  "pods already leaving are room",
			nodes: cpuNodes("4", "n1"), pods: []*v1.Pod{low("p1", 1, "2", "n1"), deleting(low("p2", 2, "2", "n1"))},
			members: []*v1.Pod{member("m1", "2")}, minCount: 1,
			want: none, wantOK: true,
		},
		{
			name:  "only the group's need counts: its smallest members",
			nodes: cpuNodes("4", "n1"), pods: []*v1.Pod{low("p1", 1, "2", "n1"), low("p2", 2, "2", "n1")},
			members: []*v1.Pod{member("big", "4"), member("small", "2")}, minCount: 1,
			want: bound{highest: 1, count: 1, sum: shifted(1)}, wantOK: true,
		},
		{
			name:  "pods of the group's priority and above free nothing",
			nodes: cpuNodes("4", "n1"), pods: []*v1.Pod{low("peer", groupPriority, "2", "n1"), low("boss", 200, "2", "n1")},
			members: []*v1.Pod{member("m1", "1")}, minCount: 1,
		},
		{
			name:    "a BestEffort pod frees nothing, not even its slot",
			nodes:   []*v1.Node{testutil.Node("n1").Capacity("cpu", "4", "pods", "1").Obj()},
			pods:    []*v1.Pod{testutil.Pod("be").Priority(1).Node("n1").Obj()},
			members: []*v1.Pod{member("m1", "1")}, minCount: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ge := newGroupEnv(t, tc.nodes, tc.pods, groupEnvOptions{minCount: tc.minCount})
			cost, ok := ge.part(nil, tc.members...).Bound()
			if ok != tc.wantOK {
				t.Fatalf("feasible %v, want %v", ok, tc.wantOK)
			}
			if got := (bound{cost.Highest, cost.Count, cost.Sum}); ok && got != tc.want {
				t.Errorf("bound %+v, want %+v", got, tc.want)
			}
		})
	}
}
