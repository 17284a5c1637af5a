package placement_test

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestCapacity(t *testing.T) {
	members := func(cpus ...string) []*v1.Pod {
		var out []*v1.Pod
		for i, c := range cpus {
			out = append(out, testutil.Pod(fmt.Sprintf("m%d", i)).Req("cpu", c).Obj())
		}
		return out
	}
	gpuMembers := func(n int) []*v1.Pod {
		var out []*v1.Pod
		for i := range n {
			out = append(out, testutil.Pod(fmt.Sprintf("m%d", i)).Req("cpu", "1", "example.com/gpu", "1").Obj())
		}
		return out
	}
	tests := []struct {
		name    string
		members []*v1.Pod
		// placed puts members (by index) on nodes before the bound is taken; credit says
		// whether they are passed to Of as placed.
		placed map[int]string
		credit bool
		// gpuClass declares a DeviceClass backing the extended resource example.com/gpu.
		gpuClass bool
		want     int
	}{
		// Alike members count per node (2 on a, 1 on b: 3, not 8/2 = 4), and only on
		// nodes their static filters accept.
		{name: "alike members, per node", members: members("2", "2", "2", "2", "2"), want: 3},
		{name: "alike members, capped at their number", members: members("1", "1"), want: 2},
		// Members that differ are bounded in aggregate by their smallest requests: 16 cpu
		// (the tainted node counts too, a safe over-estimate) hold 1+2+3+4 but not +8.
		{name: "different members, in aggregate", members: members("8", "1", "4", "2", "3"), want: 4},
		{name: "different members, all fit", members: members("1", "2"), want: 2},
		// Two alike members on a and b leave room for one more (on a), or, their own
		// requests counted as free (they may move), for the 3 of an empty cluster.
		{name: "alike members placed, without credit", members: members("2", "2", "2", "2", "2"),
			placed: map[int]string{0: "a", 1: "b"}, want: 1},
		{name: "alike members placed, credited", members: members("2", "2", "2", "2", "2"),
			placed: map[int]string{0: "a", 1: "b"}, credit: true, want: 3},
		// The 8-cpu member on the tainted node leaves 8 cpu: 1+2+3, not +4.
		{name: "different members placed, without credit", members: members("8", "1", "4", "2", "3"),
			placed: map[int]string{0: "tainted"}, want: 3},
		{name: "different members placed, credited", members: members("8", "1", "4", "2", "3"),
			placed: map[int]string{0: "tainted"}, credit: true, want: 4},
		// No node has example.com/gpu in its allocatable: as a node resource, none fits.
		{name: "an extended resource no node has", members: gpuMembers(3), want: 0},
		// A DeviceClass serves it from devices, which vectors cannot bound: it is left out,
		// and the members count by cpu alone.
		{name: "a device-backed extended resource, alike members", members: gpuMembers(3), gpuClass: true, want: 3},
		{name: "a device-backed extended resource, different members",
			members: append(gpuMembers(2), testutil.Pod("big").Req("cpu", "6", "example.com/gpu", "1").Obj()), gpuClass: true, want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*v1.Node{
				testutil.Node("a").Capacity("cpu", "5", "memory", "16Gi").Obj(),
				testutil.Node("b").Capacity("cpu", "3", "memory", "16Gi").Obj(),
				testutil.Node("tainted").Capacity("cpu", "8", "memory", "16Gi").Taint("dedicated", "x", v1.TaintEffectNoSchedule).Obj(),
			}, nil)
			if tc.gpuClass {
				dc := testutil.DeviceClass("gpu", "gpu.example.com")
				name := "example.com/gpu"
				dc.Spec.ExtendedResourceName = &name
				e.c.Devices().SetDeviceClass(dc)
			}
			ms := infos(tc.members...)
			var placed []framework.Assignment
			for i, node := range tc.placed {
				e.c.AddPod(ms[i], node)
				placed = append(placed, framework.Assignment{Pod: ms[i], Node: e.c.Get(node)})
			}
			est, err := e.placer.For(group(1), nil).Capacity(context.Background(), ms)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.credit {
				placed = nil
			}
			if got := est.Of(e.c.NodeInfos(), placed); got != tc.want {
				t.Errorf("capacity %d, want %d", got, tc.want)
			}
		})
	}
}
