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

func newFit(t testing.TB, args string) *Fit {
	t.Helper()
	pl, err := NewFit(json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("NewFit(%s): %v", args, err)
	}
	return pl.(*Fit)
}

func TestFitFilter(t *testing.T) {
	const gpu = "example.com/gpu"
	small := func(extra ...string) *v1.Node {
		return node("n1", append([]string{"cpu", "4", "memory", "8Gi", "ephemeral-storage", "10Gi"}, extra...)...)
	}
	tests := []struct {
		name     string
		args     string
		node     *v1.Node
		existing []*v1.Pod
		pod      *v1.Pod
		want     framework.Code
		reasons  []string
	}{
		{name: "fits", node: small(), pod: testutil.Pod("p").Req("cpu", "1", "memory", "1Gi").Obj(), want: framework.Success},
		{
			name: "exactly full fits", node: small(),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req("cpu", "3").Obj()},
			pod:      testutil.Pod("p").Req("cpu", "1").Obj(), want: framework.Success,
		},
		{
			name: "insufficient cpu", node: small(),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req("cpu", "3500m").Obj()},
			pod:      testutil.Pod("p").Req("cpu", "1").Obj(),
			want:     framework.Unschedulable, reasons: []string{"Insufficient cpu"},
		},
		{
			name: "insufficient cpu and memory", node: small(),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req("cpu", "3500m", "memory", "7Gi").Obj()},
			pod:      testutil.Pod("p").Req("cpu", "1", "memory", "2Gi").Obj(),
			want:     framework.Unschedulable, reasons: []string{"Insufficient cpu", "Insufficient memory"},
		},
		{
			name: "insufficient ephemeral storage", node: small(),
			pod:      testutil.Pod("p").Req("ephemeral-storage", "10Gi").Obj(),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req("ephemeral-storage", "1").Obj()},
			want:     framework.Unschedulable, reasons: []string{"Insufficient ephemeral-storage"},
		},
		{
			name: "request above allocatable is unresolvable", node: small(),
			pod:  testutil.Pod("p").Req("cpu", "5", "memory", "1Gi").Obj(),
			want: framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient cpu"},
		},
		{
			name: "one unresolvable reason makes the status unresolvable", node: small(),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req("memory", "7Gi").Obj()},
			pod:      testutil.Pod("p").Req("cpu", "5", "memory", "2Gi").Obj(),
			want:     framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient cpu", "Insufficient memory"},
		},
		{
			name: "a pod without requests fits a full node", node: small(),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req("cpu", "4", "memory", "8Gi").Obj()},
			pod:      testutil.Pod("p").Obj(), want: framework.Success,
		},
		{
			name: "too many pods, listed first", node: small("pods", "2"),
			existing: []*v1.Pod{
				testutil.Pod("e1").Node("n1").Req("cpu", "2").Obj(),
				testutil.Pod("e2").Node("n1").Req("cpu", "2").Obj(),
			},
			pod:  testutil.Pod("p").Req("cpu", "1").Obj(),
			want: framework.Unschedulable, reasons: []string{"Too many pods", "Insufficient cpu"},
		},
		{
			name: "no pod allowed is still only unschedulable", node: small("pods", "0"),
			pod:  testutil.Pod("p").Obj(),
			want: framework.Unschedulable, reasons: []string{"Too many pods"},
		},
		{
			name: "extended resource fits", node: small(gpu, "2"),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req(gpu, "1").Obj()},
			pod:      testutil.Pod("p").Req(gpu, "1").Obj(), want: framework.Success,
		},
		{
			name: "insufficient extended resource", node: small(gpu, "2"),
			existing: []*v1.Pod{testutil.Pod("e").Node("n1").Req(gpu, "1").Obj()},
			pod:      testutil.Pod("p").Req(gpu, "2").Obj(),
			want:     framework.Unschedulable, reasons: []string{"Insufficient " + gpu},
		},
		{
			name: "extended resource the node lacks", node: small(),
			pod:  testutil.Pod("p").Req(gpu, "1").Obj(),
			want: framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient " + gpu},
		},
		{
			name: "ignored resource", args: `{"ignoredResources":["example.com/gpu"]}`, node: small(),
			pod: testutil.Pod("p").Req(gpu, "1").Obj(), want: framework.Success,
		},
		{
			name: "ignored resource group", args: `{"ignoredResourceGroups":["example.com"]}`, node: small(),
			pod: testutil.Pod("p").Req(gpu, "1", "example.com/fpga", "1").Obj(), want: framework.Success,
		},
		{
			name: "another group is still checked", args: `{"ignoredResourceGroups":["example.com"]}`, node: small(),
			pod:  testutil.Pod("p").Req(gpu, "1", "vendor.io/nic", "1").Obj(),
			want: framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient vendor.io/nic"},
		},
		{
			name: "ignoring does not apply to cpu", args: `{"ignoredResources":["cpu"]}`, node: small(),
			pod:  testutil.Pod("p").Req("cpu", "5").Obj(),
			want: framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient cpu"},
		},
		{
			name: "ignoring does not apply to hugepages", args: `{"ignoredResources":["hugepages-2Mi"]}`, node: small(),
			pod:  testutil.Pod("p").Req("hugepages-2Mi", "2Mi").Obj(),
			want: framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient hugepages-2Mi"},
		},
		{
			name: "ignoring does not apply to kubernetes.io resources", args: `{"ignoredResourceGroups":["kubernetes.io"]}`, node: small(),
			pod:  testutil.Pod("p").Req("kubernetes.io/foo", "1").Obj(),
			want: framework.UnschedulableAndUnresolvable, reasons: []string{"Insufficient kubernetes.io/foo"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFit(t, tc.args)
			c := testutil.NewCache([]*v1.Node{tc.node}, tc.existing)
			st := f.Filter(context.Background(), framework.NewCycleState(), framework.NewPodInfo(tc.pod), c.Get("n1"))
			if st.Code() != tc.want {
				t.Fatalf("Filter = %v, want %v", st, tc.want)
			}
			if fmt.Sprint(st.Reasons()) != fmt.Sprint(tc.reasons) {
				t.Errorf("reasons = %q, want %q", st.Reasons(), tc.reasons)
			}
		})
	}
}

func TestFitScore(t *testing.T) {
	shape := func(points ...int) string {
		var ps []string
		for i := 0; i+1 < len(points); i += 2 {
			ps = append(ps, fmt.Sprintf(`{"utilization":%d,"score":%d}`, points[i], points[i+1]))
		}
		return `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[` + strings.Join(ps, ",") + `]}}}`
	}
	twoNodes := []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000"), node("n2", "cpu", "6000m", "memory", "10000")}
	requesting := testutil.Pod("p").Req("cpu", "3000m", "memory", "5000").Obj()
	tests := []struct {
		name     string
		args     string
		nodes    []*v1.Node
		existing []*v1.Pod
		pod      *v1.Pod
		want     []int64
	}{
		{
			// n1: cpu 25, memory 50 -> 37; n2: cpu 50, memory 50 -> 50 (kube-scheduler's case).
			name: "LeastAllocated is the default", nodes: twoNodes, pod: requesting,
			want: []int64{37, 50},
		},
		{
			name: "LeastAllocated with weights", args: `{"scoringStrategy":{"type":"LeastAllocated","resources":[{"name":"cpu","weight":2},{"name":"memory","weight":1}]}}`,
			nodes: twoNodes, pod: requesting,
			want: []int64{33, 50}, // n1: (25*2+50)/3
		},
		{
			// Request-less containers count as 100m and 200Mi: cpu 97, memory 97.
			name: "LeastAllocated fills scoring defaults in", nodes: []*v1.Node{node("n1", "cpu", "4", "memory", "8Gi")},
			pod: testutil.Pod("p").Obj(), want: []int64{97},
		},
		{
			name: "LeastAllocated counts existing pods' defaults", nodes: []*v1.Node{node("n1", "cpu", "1", "memory", "1Gi")},
			existing: []*v1.Pod{testutil.Pod("e1").Node("n1").Obj(), testutil.Pod("e2").Node("n1").Obj()},
			pod:      testutil.Pod("p").Obj(),
			want:     []int64{55}, // cpu (1000-300)/1000 = 70, memory (1024-600)/1024 = 41
		},
		{
			name: "MostAllocated", args: `{"scoringStrategy":{"type":"MostAllocated"}}`, nodes: twoNodes, pod: requesting,
			want: []int64{62, 50}, // n1: cpu 75, memory 50
		},
		{
			name: "MostAllocated caps requests above allocatable", args: `{"scoringStrategy":{"type":"MostAllocated"}}`,
			nodes: []*v1.Node{node("n1", "cpu", "50m", "memory", "10Gi")}, pod: testutil.Pod("p").Req("memory", "5Gi").Obj(),
			want: []int64{75}, // cpu 100m default on 50m: 100; memory 50
		},
		{
			name:  "an extended resource the pod does not request is left out",
			args:  `{"scoringStrategy":{"resources":[{"name":"cpu"},{"name":"memory"},{"name":"example.com/gpu","weight":5}]}}`,
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000", "example.com/gpu", "4"), node("n2", "cpu", "6000m", "memory", "10000")},
			pod:   requesting,
			want:  []int64{37, 50},
		},
		{
			name:  "an extended resource the pod requests counts",
			args:  `{"scoringStrategy":{"resources":[{"name":"cpu"},{"name":"memory"},{"name":"example.com/gpu","weight":2}]}}`,
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000", "example.com/gpu", "4")},
			pod:   testutil.Pod("p").Req("cpu", "3000m", "memory", "5000", "example.com/gpu", "1").Obj(),
			want:  []int64{56}, // (25 + 50 + 75*2) / 4
		},
		{
			name: "a configured pods resource never counts", args: `{"scoringStrategy":{"resources":[{"name":"cpu"},{"name":"memory"},{"name":"pods"}]}}`,
			nodes: twoNodes, pod: requesting,
			want: []int64{37, 50},
		},
		{
			// n1: cpu 75% -> 25, memory 50% -> 50, average 37.5 rounds to 38 (kube-scheduler's case).
			name: "RequestedToCapacityRatio rounds the average", args: shape(0, 10, 100, 0), nodes: twoNodes, pod: requesting,
			want: []int64{38, 50},
		},
		{
			name: "RequestedToCapacityRatio bin packing", args: shape(0, 0, 100, 10), nodes: twoNodes, pod: requesting,
			want: []int64{63, 50}, // n1: cpu 75, memory 50
		},
		{
			// Memory: 200Mi default on 100Gi is 0% -> score 0, left out of the average.
			name: "RequestedToCapacityRatio leaves zero-score resources out", args: shape(0, 0, 100, 10),
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "100Gi")}, pod: testutil.Pod("p").Req("cpu", "2000m").Obj(),
			want: []int64{50},
		},
		{
			name: "RequestedToCapacityRatio piecewise shape", args: shape(0, 0, 50, 8, 100, 2),
			nodes: []*v1.Node{node("n1", "cpu", "4000m", "memory", "10000")},
			pod:   testutil.Pod("p").Req("cpu", "1000m", "memory", "7500").Obj(),
			// cpu 25% -> 0 + 80*25/50 = 40; memory 75% -> 80 + (20-80)*25/50 = 50.
			want: []int64{45},
		},
		{
			name: "RequestedToCapacityRatio over capacity scores as full", args: shape(0, 0, 100, 10),
			nodes: []*v1.Node{node("n1", "cpu", "50m", "memory", "10000")}, pod: testutil.Pod("p").Req("memory", "10000").Obj(),
			want: []int64{100},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFit(t, tc.args)
			c := testutil.NewCache(tc.nodes, tc.existing)
			got, _ := scoreAll(t, f, framework.NewPodInfo(tc.pod), c.NodeInfos(), false)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("scores = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFitArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string
	}{
		{name: "empty"},
		{name: "empty object", args: `{}`},
		{name: "all fields", args: `{"ignoredResources":["example.com/a"],"ignoredResourceGroups":["example.com"],"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":3}]}}`},
		{name: "unknown field", args: `{"ignoredResource":["a"]}`, wantErr: "unknown field"},
		{name: "unknown nested field", args: `{"scoringStrategy":{"kind":"MostAllocated"}}`, wantErr: "unknown field"},
		{name: "unknown strategy", args: `{"scoringStrategy":{"type":"Balanced"}}`, wantErr: "scoringStrategy.type"},
		{name: "weight above 100", args: `{"scoringStrategy":{"resources":[{"name":"cpu","weight":101}]}}`, wantErr: "weight"},
		{name: "negative weight", args: `{"scoringStrategy":{"resources":[{"name":"cpu","weight":-1}]}}`, wantErr: "weight"},
		{name: "ratio without shape", args: `{"scoringStrategy":{"type":"RequestedToCapacityRatio"}}`, wantErr: "shape: required"},
		{
			name:    "shape not increasing",
			args:    `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":50,"score":1},{"utilization":50,"score":2}]}}}`,
			wantErr: "shape[1]",
		},
		{
			name:    "shape score above 10",
			args:    `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":11}]}}}`,
			wantErr: "shape[0]",
		},
		{
			name:    "shape utilization above 100",
			args:    `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":101,"score":1}]}}}`,
			wantErr: "shape[0]",
		},
		{
			name:    "shape with another strategy",
			args:    `{"scoringStrategy":{"type":"LeastAllocated","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":1}]}}}`,
			wantErr: "requestedToCapacityRatio: must be unset",
		},
		{name: "group with a slash", args: `{"ignoredResourceGroups":["example.com/gpu"]}`, wantErr: "ignoredResourceGroups[0]"},
		{name: "invalid ignored resource", args: `{"ignoredResources":["not a name"]}`, wantErr: "ignoredResources[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFit(json.RawMessage(tc.args), nil)
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

// TestFitDefaultsAreNotShared checks that defaulting the scoring resources of one instance
// cannot leak into another's (the default list is a package variable).
func TestFitDefaultsAreNotShared(t *testing.T) {
	newFit(t, `{"scoringStrategy":{"type":"MostAllocated"}}`)
	if defaultResources[0].Weight != 1 || defaultResources[1].Weight != 1 || len(defaultResources) != 2 {
		t.Fatalf("defaultResources changed: %v", defaultResources)
	}
}

// BenchmarkFitFilter filters 5,000 nodes running 20,000 pods.
func BenchmarkFitFilter(b *testing.B) {
	nodes := make([]*v1.Node, 5000)
	pods := make([]*v1.Pod, 0, 20000)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), "cpu", "8", "memory", "32Gi")
		for k := range 4 {
			pods = append(pods, testutil.Pod(fmt.Sprintf("p%d-%d", i, k)).Node(nodes[i].Name).
				Req("cpu", fmt.Sprintf("%dm", 500*(1+(i+k)%4)), "memory", "4Gi").Obj())
		}
	}
	c := testutil.NewCache(nodes, pods)
	infos := c.NodeInfos()
	f := newFit(b, "")
	p := testutil.Pod("incoming").Req("cpu", "2", "memory", "4Gi").Info()
	ctx, state := context.Background(), framework.NewCycleState()
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range infos {
			f.Filter(ctx, state, p, n)
		}
	}
}
