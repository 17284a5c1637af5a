package scheduler

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestCapacityEstimator(t *testing.T) {
	s, _, _ := newTestScheduler(t, nil)
	s.AddNode(testutil.Node("a").Capacity("cpu", "5", "memory", "16Gi").Obj())
	s.AddNode(testutil.Node("b").Capacity("cpu", "3", "memory", "16Gi").Obj())
	s.AddNode(testutil.Node("tainted").Capacity("cpu", "8", "memory", "16Gi").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj())
	nodes := s.cache.NodeInfos()
	members := func(cpus ...string) []*framework.PodInfo {
		var out []*framework.PodInfo
		for i, c := range cpus {
			out = append(out, testutil.Pod(fmt.Sprintf("m%d", i)).Req("cpu", c).Info())
		}
		return out
	}
	tests := []struct {
		name    string
		members []*framework.PodInfo
		want    int
	}{
		// Alike members count per node (2 on a, 1 on b: 3, not 8/2 = 4), and only on
		// nodes their static filters accept.
		{"alike members, per node", members("2", "2", "2", "2", "2"), 3},
		{"alike members, capped at their number", members("1", "1"), 2},
		// Members that differ are bounded in aggregate by their smallest requests: 16 cpu
		// (the tainted node counts too, a safe over-estimate) hold 1+2+3+4 but not +8.
		{"different members, in aggregate", members("8", "1", "4", "2", "3"), 4},
		{"different members, all fit", members("1", "2"), 2},
	}
	for _, tc := range tests {
		est, err := s.newCapacityEstimator(context.Background(), s.first, tc.members, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := est.capacity(nodes); got != tc.want {
			t.Errorf("%s: capacity %d, want %d", tc.name, got, tc.want)
		}
	}
}
