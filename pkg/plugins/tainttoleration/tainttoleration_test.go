package tainttoleration

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func newPlugin(t testing.TB) *TaintToleration {
	t.Helper()
	pl, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*TaintToleration)
}

func podWith(tols ...v1.Toleration) *framework.PodInfo {
	b := testutil.Pod("p")
	for _, t := range tols {
		b.Toleration(t)
	}
	return b.Info()
}

func nodeWith(name string, taints ...v1.Taint) *framework.NodeInfo {
	b := testutil.Node(name)
	for _, t := range taints {
		b.Taint(t.Key, t.Value, t.Effect)
	}
	return framework.NewNodeInfo(b.Obj())
}

func TestFilter(t *testing.T) {
	noSched := v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}
	noExec := v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoExecute}
	prefer := v1.Taint{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectPreferNoSchedule}
	numeric := v1.Taint{Key: "tier", Value: "5", Effect: v1.TaintEffectNoSchedule}
	tests := []struct {
		name   string
		tols   []v1.Toleration
		taints []v1.Taint
		want   framework.Code
	}{
		{name: "no taints", want: framework.Success},
		{name: "untolerated NoSchedule", taints: []v1.Taint{noSched}, want: framework.UnschedulableAndUnresolvable},
		{name: "untolerated NoExecute", taints: []v1.Taint{noExec}, want: framework.UnschedulableAndUnresolvable},
		{name: "PreferNoSchedule does not filter", taints: []v1.Taint{prefer}, want: framework.Success},
		{
			name:   "Equal toleration with key, value and effect",
			tols:   []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu", Effect: v1.TaintEffectNoSchedule}},
			taints: []v1.Taint{noSched},
			want:   framework.Success,
		},
		{
			name:   "empty operator means Equal",
			tols:   []v1.Toleration{{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule}},
			taints: []v1.Taint{noSched},
			want:   framework.Success,
		},
		{
			name:   "Equal toleration with another value",
			tols:   []v1.Toleration{{Key: "dedicated", Value: "cpu", Effect: v1.TaintEffectNoSchedule}},
			taints: []v1.Taint{noSched},
			want:   framework.UnschedulableAndUnresolvable,
		},
		{
			name:   "Exists on the key",
			tols:   []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}},
			taints: []v1.Taint{noSched, noExec},
			want:   framework.Success,
		},
		{
			name:   "Exists with no key tolerates everything",
			tols:   []v1.Toleration{{Operator: v1.TolerationOpExists}},
			taints: []v1.Taint{noSched, noExec, numeric},
			want:   framework.Success,
		},
		{
			name:   "toleration for another effect",
			tols:   []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}},
			taints: []v1.Taint{noSched},
			want:   framework.UnschedulableAndUnresolvable,
		},
		{
			name:   "one of two taints untolerated",
			tols:   []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}},
			taints: []v1.Taint{noSched, numeric},
			want:   framework.UnschedulableAndUnresolvable,
		},
		{
			name:   "comparison operators are disabled as in kube-scheduler v1.36",
			tols:   []v1.Toleration{{Key: "tier", Operator: v1.TolerationOpGt, Value: "1", Effect: v1.TaintEffectNoSchedule}},
			taints: []v1.Taint{numeric},
			want:   framework.UnschedulableAndUnresolvable,
		},
	}
	pl := newPlugin(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := pl.Filter(context.Background(), framework.NewCycleState(), podWith(tc.tols...), nodeWith("n1", tc.taints...))
			if st.Code() != tc.want {
				t.Fatalf("Filter = %v, want %v", st, tc.want)
			}
			if tc.want != framework.Success && st.Message() != ErrReasonNotMatch {
				t.Errorf("reason = %q, want %q", st.Message(), ErrReasonNotMatch)
			}
		})
	}
}

func TestScore(t *testing.T) {
	prefer := func(k string) v1.Taint {
		return v1.Taint{Key: k, Value: "v", Effect: v1.TaintEffectPreferNoSchedule}
	}
	tests := []struct {
		name  string
		tols  []v1.Toleration
		nodes []*framework.NodeInfo
		raw   []int64
		want  []int64
	}{
		{
			name:  "fewer untolerated taints score higher",
			nodes: []*framework.NodeInfo{nodeWith("a"), nodeWith("b", prefer("x")), nodeWith("c", prefer("x"), prefer("y"))},
			raw:   []int64{0, 1, 2},
			want:  []int64{100, 50, 0},
		},
		{
			name:  "tolerated taints and other effects do not count",
			tols:  []v1.Toleration{{Key: "x", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectPreferNoSchedule}},
			nodes: []*framework.NodeInfo{nodeWith("a", prefer("x")), nodeWith("b", prefer("y"), v1.Taint{Key: "z", Effect: v1.TaintEffectNoSchedule})},
			raw:   []int64{0, 1},
			want:  []int64{100, 0},
		},
		{
			name:  "a toleration with no effect tolerates PreferNoSchedule",
			tols:  []v1.Toleration{{Key: "x", Operator: v1.TolerationOpExists}},
			nodes: []*framework.NodeInfo{nodeWith("a", prefer("x")), nodeWith("b")},
			raw:   []int64{0, 0},
			want:  []int64{100, 100},
		},
		{
			name:  "a NoSchedule toleration does not tolerate PreferNoSchedule",
			tols:  []v1.Toleration{{Key: "x", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
			nodes: []*framework.NodeInfo{nodeWith("a", prefer("x")), nodeWith("b"), nodeWith("c", prefer("x"), prefer("y"), prefer("z"))},
			raw:   []int64{1, 0, 3},
			want:  []int64{67, 100, 0},
		},
	}
	pl := newPlugin(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := podWith(tc.tols...)
			for _, withPreScore := range []bool{true, false} {
				state := framework.NewCycleState()
				if withPreScore {
					if st := pl.PreScore(ctx, state, p, tc.nodes); !st.IsSuccess() {
						t.Fatalf("PreScore: %v", st)
					}
				}
				scores := make([]int64, len(tc.nodes))
				for i, n := range tc.nodes {
					s, st := pl.Score(ctx, state, p, n)
					if !st.IsSuccess() {
						t.Fatalf("Score: %v", st)
					}
					if s != tc.raw[i] {
						t.Errorf("preScore=%v: raw score of %s = %d, want %d", withPreScore, n.Name, s, tc.raw[i])
					}
					scores[i] = s
				}
				if st := pl.ScoreExtensions().NormalizeScore(ctx, state, p, tc.nodes, scores); !st.IsSuccess() {
					t.Fatalf("NormalizeScore: %v", st)
				}
				for i := range scores {
					if scores[i] != tc.want[i] {
						t.Errorf("preScore=%v: normalised score of %s = %d, want %d", withPreScore, tc.nodes[i].Name, scores[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestEventsToRegister(t *testing.T) {
	evs := newPlugin(t).EventsToRegister()
	matches := func(e framework.ClusterEvent) bool {
		for _, r := range evs {
			if r.Matches(e) {
				return true
			}
		}
		return false
	}
	for _, e := range []framework.ClusterEvent{
		framework.EventNodeAdd,
		{Resource: framework.Node, Action: framework.UpdateNodeTaint},
	} {
		if !matches(e) {
			t.Errorf("%v should retry the pod", e)
		}
	}
	for _, e := range []framework.ClusterEvent{
		framework.EventAssignedPodDelete,
		{Resource: framework.Node, Action: framework.UpdateNodeLabel | framework.UpdateNodeAllocatable},
	} {
		if matches(e) {
			t.Errorf("%v should not retry the pod", e)
		}
	}
}

// BenchmarkFilter runs Filter over 5,000 nodes, a fifth of which carry a NoSchedule taint
// the pod tolerates and some a taint it does not.
func BenchmarkFilter(b *testing.B) {
	pl := newPlugin(b)
	nodes := make([]*framework.NodeInfo, 5000)
	for i := range nodes {
		var taints []v1.Taint
		switch i % 5 {
		case 0:
			taints = append(taints, v1.Taint{Key: "dedicated", Value: "batch", Effect: v1.TaintEffectNoSchedule})
		case 1:
			taints = append(taints, v1.Taint{Key: "other", Value: "x", Effect: v1.TaintEffectNoExecute})
		}
		nodes[i] = nodeWith(fmt.Sprintf("n%d", i), taints...)
	}
	p := podWith(v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "batch", Effect: v1.TaintEffectNoSchedule})
	state := framework.NewCycleState()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range nodes {
			pl.Filter(ctx, state, p, n)
		}
	}
}
