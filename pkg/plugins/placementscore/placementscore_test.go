package placementscore

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestBinPacking(t *testing.T) {
	nodes := []*v1.Node{
		testutil.Node("a").Capacity("cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "4").Obj(),
		testutil.Node("b").Capacity("cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "4").Obj(),
	}
	busy := testutil.Pod("busy").Node("a").Req("cpu", "2", "memory", "2Gi").Obj()
	c := testutil.NewCache(nodes, []*v1.Pod{busy})
	a, b := c.Get("a"), c.Get("b")
	cpu := func(n int) *framework.GroupPlacement {
		pl := &framework.GroupPlacement{}
		for range n {
			pl.Assignments = append(pl.Assignments, framework.Assignment{Pod: testutil.Pod("m").Req("cpu", "1").Info(), Node: b})
		}
		return pl
	}
	gpu := &framework.GroupPlacement{Assignments: []framework.Assignment{
		{Pod: testutil.Pod("g").Req("nvidia.com/gpu", "2").Lim("nvidia.com/gpu", "2").Info(), Node: b},
	}}
	tests := []struct {
		name   string
		nodes  []*framework.NodeInfo
		placed *framework.GroupPlacement
		want   int64
	}{
		// Only the resources the members ask for count; the pod count never does.
		{"cpu members on both nodes", []*framework.NodeInfo{a, b}, cpu(2), 50}, // (2+2)/8
		{"cpu members, a full rack", []*framework.NodeInfo{a, b}, cpu(6), 100}, // 8/8
		{"cpu members alone on b", []*framework.NodeInfo{b}, cpu(2), 50},       // 2/4
		{"no members: the placement as it is", []*framework.NodeInfo{a, b}, cpu(0), 0},
		{"gpu member", []*framework.NodeInfo{a, b}, gpu, 25}, // 2/8 GPUs
		// The mean over cpu (3/8) and memory (4Gi/16Gi).
		{"a member of cpu and memory", []*framework.NodeInfo{a, b}, &framework.GroupPlacement{Assignments: []framework.Assignment{
			{Pod: testutil.Pod("cm").Req("cpu", "1", "memory", "2Gi").Info(), Node: b},
		}}, 31},
	}
	for _, tc := range tests {
		if got := Utilization(tc.nodes, tc.placed); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	pl, _ := NewBinPacking(nil, &testutil.Handle{Cache: c})
	got, st := pl.(*BinPacking).ScorePlacement(context.Background(), nil, nil, &framework.Placement{Nodes: []*framework.NodeInfo{a, b}}, cpu(2), 2)
	if !st.IsSuccess() || got != 50 {
		t.Errorf("ScorePlacement = %d, %v; want 50", got, st)
	}
}

func TestPodCount(t *testing.T) {
	placed := &framework.GroupPlacement{Assignments: make([]framework.Assignment, 3)}
	for _, tc := range []struct {
		pending int
		want    int64
	}{{3, 100}, {4, 75}, {6, 50}, {0, 0}} {
		got, st := PodCount{}.ScorePlacement(context.Background(), nil, nil, nil, placed, tc.pending)
		if !st.IsSuccess() || got != tc.want {
			t.Errorf("3 of %d placed: %d, want %d", tc.pending, got, tc.want)
		}
	}
}
