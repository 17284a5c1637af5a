package noderesources

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// scoreAll runs PreScore (unless skipped) and Score on every node of the cache.
func scoreAll(t *testing.T, pl framework.ScorePlugin, p *framework.PodInfo, nodes []*framework.NodeInfo, preScore bool) ([]int64, *framework.Status) {
	t.Helper()
	ctx, state := context.Background(), framework.NewCycleState()
	if ps, ok := pl.(framework.PreScorePlugin); ok && preScore {
		if st := ps.PreScore(ctx, state, p, nodes); !st.IsSuccess() {
			return nil, st
		}
	}
	out := make([]int64, len(nodes))
	for i, n := range nodes {
		s, st := pl.Score(ctx, state, p, n)
		if !st.IsSuccess() {
			t.Fatalf("Score(%s): %v", n.Name, st)
		}
		out[i] = s
	}
	return out, nil
}

// node builds a node with pods: 110 and the given allocatable.
func node(name string, kv ...string) *v1.Node { return testutil.Node(name).Capacity(kv...).Obj() }

// TestBalancedAllocationScore ports kube-scheduler v1.36's cases (same nodes, pods and
// expected scores), plus phalanx's own for ephemeral storage and a configured "pods".
func TestBalancedAllocationScore(t *testing.T) {
	const gpu = "nvidia.com/gpu"
	withGPU := `{"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1},{"name":"nvidia.com/gpu","weight":1}]}`
	tests := []struct {
		name     string
		args     string
		pod      *v1.Pod
		nodes    []*v1.Node
		existing []*v1.Pod
		want     []int64
	}{
		{
			// with pod: cpu 75%, memory 50% -> 87; without: 100.
			name:  "nothing scheduled, differently sized nodes",
			pod:   testutil.Pod("p").Req("cpu", "3000m", "memory", "5000").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000"), node("n2", "cpu", "6000m", "memory", "10000")},
			want:  []int64{68, 75},
		},
		{
			name:  "pods scheduled with resources",
			pod:   testutil.Pod("p").Req("cpu", "3000m", "memory", "5000").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "10000m", "memory", "20000"), node("n2", "cpu", "10000m", "memory", "20000")},
			existing: []*v1.Pod{
				testutil.Pod("e1").Node("n1").Req("cpu", "3000m").Obj(),
				testutil.Pod("e2").Node("n2").Req("cpu", "3000m", "memory", "5000").Obj(),
			},
			want: []int64{73, 74},
		},
		{
			name:  "pods scheduled with resources, differently sized nodes",
			pod:   testutil.Pod("p").Req("cpu", "3000m", "memory", "5000").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "10000m", "memory", "20000"), node("n2", "cpu", "10000m", "memory", "50000")},
			existing: []*v1.Pod{
				testutil.Pod("e1").Node("n1").Req("cpu", "3000m").Obj(),
				testutil.Pod("e2").Node("n2").Req("cpu", "3000m", "memory", "5000").Obj(),
			},
			want: []int64{73, 70},
		},
		{
			name:     "min and max scores",
			pod:      testutil.Pod("p").Req("memory", "5000").Obj(),
			nodes:    []*v1.Node{node("n1", "cpu", "3000m", "memory", "5000"), node("n2", "cpu", "3000m", "memory", "5000")},
			existing: []*v1.Pod{testutil.Pod("e1").Node("n1").Req("cpu", "3000m").Obj()},
			want:     []int64{100, 50},
		},
		{
			name:  "requests at node capacity",
			pod:   testutil.Pod("p").Req("cpu", "3000m").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "6000m", "memory", "10000"), node("n2", "cpu", "6000m", "memory", "10000")},
			existing: []*v1.Pod{
				testutil.Pod("e1").Node("n1").Req("cpu", "3000m").Obj(),
				testutil.Pod("e2").Node("n2").Req("cpu", "3000m", "memory", "5000").Obj(),
			},
			want: []int64{62, 62},
		},
		{
			name:  "an extended resource the pod requests counts (three resources)",
			args:  withGPU,
			pod:   testutil.Pod("p").Req(gpu, "1").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "3500m", "memory", "40000", gpu, "8"), node("n2", "cpu", "3500m", "memory", "40000", gpu, "8")},
			existing: []*v1.Pod{
				testutil.Pod("e1").Node("n1").Req("cpu", "3000m", "memory", "5000", gpu, "3").Obj(),
				testutil.Pod("e2").Node("n2").Req("cpu", "3000m", "memory", "5000").Obj(),
			},
			want: []int64{75, 76},
		},
		{
			name:  "an extended resource the pod does not request is left out",
			args:  withGPU,
			pod:   testutil.Pod("p").Req("cpu", "3000m", "memory", "5000").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "3500m", "memory", "40000", gpu, "8"), node("n2", "cpu", "3500m", "memory", "40000")},
			want:  []int64{56, 56},
		},
		{
			// with pod: cpu 50%, storage 0% -> 75; without: 100; 50 + (50+75-100)/2 = 62.
			name:  "ephemeral storage counts even when the pod does not request it",
			args:  `{"resources":[{"name":"cpu"},{"name":"ephemeral-storage"}]}`,
			pod:   testutil.Pod("p").Req("cpu", "2000m").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "ephemeral-storage", "10000"), node("n2", "cpu", "4000m")},
			want:  []int64{62, 75},
		},
		{
			name:  "a configured pods resource never counts",
			args:  `{"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1},{"name":"pods","weight":1}]}`,
			pod:   testutil.Pod("p").Req("cpu", "3000m", "memory", "5000").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000"), node("n2", "cpu", "6000m", "memory", "10000")},
			want:  []int64{68, 75},
		},
		{
			// Requests are used as they are: a request-less container adds no default.
			name:  "no scoring defaults for request-less containers",
			pod:   testutil.Pod("p").Req("cpu", "2000m").Obj(),
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000")},
			existing: []*v1.Pod{
				testutil.Pod("e1").Node("n1").Obj(),
			},
			// with pod: cpu 50%, memory 0% -> 75; without: 100.
			want: []int64{62},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewBalancedAllocation(json.RawMessage(tc.args), nil)
			if err != nil {
				t.Fatal(err)
			}
			c := testutil.NewCache(tc.nodes, tc.existing)
			p := framework.NewPodInfo(tc.pod)
			for _, preScore := range []bool{true, false} {
				got, st := scoreAll(t, pl.(framework.ScorePlugin), p, c.NodeInfos(), preScore)
				if !st.IsSuccess() {
					t.Fatalf("PreScore: %v", st)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("preScore=%v: scores = %v, want %v", preScore, got, tc.want)
				}
			}
		})
	}
}

func TestBalancedAllocationSkipsBestEffort(t *testing.T) {
	pl, err := NewBalancedAllocation(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := testutil.NewCache([]*v1.Node{node("n1", "cpu", "4000m", "memory", "10000")}, nil)
	ba := pl.(*BalancedAllocation)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		skip bool
	}{
		{name: "best effort", pod: testutil.Pod("p").Obj(), skip: true},
		{name: "only an unscored resource", pod: testutil.Pod("p").Req("example.com/foo", "1").Obj(), skip: true},
		{name: "cpu request", pod: testutil.Pod("p").Req("cpu", "1").Obj()},
	} {
		p := framework.NewPodInfo(tc.pod)
		st := ba.PreScore(ctx, framework.NewCycleState(), p, c.NodeInfos())
		if st.IsSkip() != tc.skip || (!tc.skip && !st.IsSuccess()) {
			t.Errorf("%s: PreScore = %v, want skip=%v", tc.name, st, tc.skip)
		}
		if tc.skip {
			// Scoring without PreScore gives 0, as in kube-scheduler.
			if s, _ := ba.Score(ctx, framework.NewCycleState(), p, c.Get("n1")); s != 0 {
				t.Errorf("%s: Score without PreScore = %d, want 0", tc.name, s)
			}
		}
	}
}

func TestBalance(t *testing.T) {
	tests := []struct {
		fractions []float64
		want      int64
	}{
		{nil, 100},
		{[]float64{0.7}, 100},
		{[]float64{0.5, 0.5}, 100},
		{[]float64{1, 0}, 50},
		{[]float64{0.75, 0.5}, 87},
		// mean 0.5, variance ((0.25)^2*2)/3 = 0.041667, std 0.2041 -> 79.
		{[]float64{0.25, 0.5, 0.75}, 79},
	}
	for _, tc := range tests {
		if got := balance(tc.fractions); got != tc.want {
			t.Errorf("balance(%v) = %d, want %d", tc.fractions, got, tc.want)
		}
	}
}

func TestBalancedAllocationArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string
	}{
		{name: "defaults"},
		{name: "weight unset", args: `{"resources":[{"name":"cpu"},{"name":"memory"}]}`},
		{name: "weight 1", args: `{"resources":[{"name":"cpu","weight":1}]}`},
		{name: "weight 2", args: `{"resources":[{"name":"cpu","weight":2}]}`, wantErr: "resources[0].weight: must be 1"},
		{name: "duplicate", args: `{"resources":[{"name":"cpu"},{"name":"cpu"}]}`, wantErr: "resources[1].name: duplicate"},
		{name: "unknown field", args: `{"resource":[]}`, wantErr: "unknown field"},
		{name: "not an object", args: `[]`, wantErr: "cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewBalancedAllocation(json.RawMessage(tc.args), nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// BenchmarkBalancedAllocationScore scores 5,000 nodes running 20,000 pods.
func BenchmarkBalancedAllocationScore(b *testing.B) {
	nodes := make([]*v1.Node, 5000)
	pods := make([]*v1.Pod, 0, 20000)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), "cpu", "32", "memory", "128Gi")
		for k := range 4 {
			pods = append(pods, testutil.Pod(fmt.Sprintf("p%d-%d", i, k)).Node(nodes[i].Name).
				Req("cpu", fmt.Sprintf("%dm", 100*(1+(i+k)%7)), "memory", fmt.Sprintf("%dMi", 128*(1+(i*k)%5))).Obj())
		}
	}
	c := testutil.NewCache(nodes, pods)
	infos := c.NodeInfos()
	pl, _ := NewBalancedAllocation(nil, nil)
	ba := pl.(*BalancedAllocation)
	p := testutil.Pod("incoming").Req("cpu", "500m", "memory", "1Gi").Info()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		ba.PreScore(ctx, state, p, infos)
		for _, n := range infos {
			ba.Score(ctx, state, p, n)
		}
	}
}
