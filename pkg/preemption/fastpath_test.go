package preemption_test

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/internal/preempttest"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// The vector oracle decides a resource-only rejection on resource vectors: the same units
// and search as a simulation, BestEffort pods never candidates, and a group unit freeing
// here only its pods on this node.
func TestSelectVictimsByResources(t *testing.T) {
	allGroup := preempttest.PodGroup("all", 1, 2, true)
	inAll := func(name, node string) *v1.Pod {
		return testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "all").Priority(1).Req("cpu", "1").Node(node).Obj()
	}
	tests := []struct {
		name      string
		nodes     []*v1.Node
		pods      []*v1.Pod
		preemptor *v1.Pod
		// want are the victims (nil: not a candidate).
		want []string
	}{
		{
			name:  "the fewest victims",
			nodes: preempttest.CPUNodes("4", "n1"),
			pods:  []*v1.Pod{preempttest.Low("a", 1, "2", "n1"), preempttest.Low("b", 1, "1", "n1"), preempttest.Low("c", 1, "1", "n1")},
			// Greedy reprieval would take b and c; one victim is enough.
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "2").Obj(),
			want:      []string{"a"},
		},
		{
			name:      "a BestEffort pod is never a candidate",
			nodes:     []*v1.Node{testutil.Node("n1").Capacity("cpu", "4", "pods", "2").Obj()},
			pods:      []*v1.Pod{testutil.Pod("be").Priority(1).Node("n1").Obj(), preempttest.Low("x", 1, "1", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1").Obj(),
			want:      []string{"x"},
		},
		{
			name:      "a BestEffort pod alone: no candidate",
			nodes:     []*v1.Node{testutil.Node("n1").Capacity("cpu", "4", "pods", "1").Obj()},
			pods:      []*v1.Pod{testutil.Pod("be").Priority(1).Node("n1").Obj()},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1").Obj(),
		},
		{
			// The group frees one cpu here, though it has two pods: its member elsewhere
			// frees room elsewhere. Preempting it takes both.
			name:      "a group unit frees here only its pods on this node",
			nodes:     preempttest.CPUNodes("2", "n1", "n2"),
			pods:      []*v1.Pod{inAll("g1", "n1"), inAll("g2", "n2"), preempttest.Low("other", 50, "1", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1").Obj(),
			want:      []string{"g1", "g2"},
		},
		{
			// Put back, the group takes back only its one cpu here: a alone is the victim.
			name:      "a group unit put back takes back only its room here",
			nodes:     preempttest.CPUNodes("2", "n1", "n2"),
			pods:      []*v1.Pod{inAll("g1", "n1"), inAll("g2", "n2"), preempttest.Low("a", 1, "1", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1").Obj(),
			want:      []string{"a"},
		},
		{
			name:      "a group unit's pods elsewhere are no room here",
			nodes:     preempttest.CPUNodes("2", "n1", "n2"),
			pods:      []*v1.Pod{inAll("g1", "n1"), inAll("g2", "n2"), preempttest.Low("other", 50, "1", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "2").Obj(),
		},
		{
			name:      "pods already leaving are room, not victims",
			nodes:     preempttest.CPUNodes("2", "n1"),
			pods:      []*v1.Pod{preempttest.Deleting(preempttest.Low("leaving", 1, "2", "n1"))},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "2").Obj(),
			want:      []string{},
		},
		{
			// DynamicResources allocates the GPU from devices: only the cpu is wanted here.
			name:      "an extended resource the node serves with devices frees nothing",
			nodes:     preempttest.CPUNodes("2", "n1"),
			pods:      []*v1.Pod{preempttest.Low("a", 1, "2", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1", draGPU, "1").Obj(),
			want:      []string{"a"},
		},
		{
			name:      "an extended resource no class backs and the node lacks",
			nodes:     preempttest.CPUNodes("2", "n1"),
			pods:      []*v1.Pod{preempttest.Low("a", 1, "2", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1", "example.com/fpga", "1").Obj(),
		},
		{
			name:      "pods of the preemptor's priority stay",
			nodes:     preempttest.CPUNodes("2", "n1"),
			pods:      []*v1.Pod{preempttest.Low("peer", 10, "2", "n1")},
			preemptor: testutil.Pod("p").Priority(10).Req("cpu", "1").Obj(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _, e := setup(t, tc.nodes, tc.pods)
			c.Groups().SetGroup(allGroup)
			dc := testutil.DeviceClass("gpu", "gpu.example.com")
			dc.Spec.ExtendedResourceName = pointerTo(draGPU)
			c.Devices().SetDeviceClass(dc)
			cand := preemption.SelectVictimsByResources(e, context.Background(), framework.NewPodInfo(tc.preemptor), c.Get("n1"))
			if tc.want == nil {
				if cand != nil {
					t.Fatalf("victims %v, want no candidate", sortedNames(cand.Victims))
				}
				return
			}
			if cand == nil {
				t.Fatalf("no candidate, want victims %v", tc.want)
			}
			if got := sortedNames(cand.Victims); !slices.Equal(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
		})
	}
}

// draGPU is an extended resource a DeviceClass backs.
const draGPU = "example.com/dra-gpu"

func pointerTo[T any](v T) *T { return &v }

func sortedNames(pods []*framework.PodInfo) []string {
	out := preempttest.Names(pods)
	slices.Sort(out)
	return out
}
