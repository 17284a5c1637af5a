package nodeports

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func podWithPorts(name string, ports ...v1.ContainerPort) *v1.Pod {
	pod := testutil.Pod(name).Obj()
	pod.Spec.Containers[0].Ports = ports
	return pod
}

func port(ip string, proto v1.Protocol, p int32) v1.ContainerPort {
	return v1.ContainerPort{ContainerPort: 80, HostIP: ip, Protocol: proto, HostPort: p}
}

func TestPreFilter(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	sidecar := testutil.Pod("sidecar").Obj()
	sidecar.Spec.InitContainers = []v1.Container{{Name: "s", RestartPolicy: &always, Ports: []v1.ContainerPort{port("", "", 9000)}}}
	plainInit := testutil.Pod("init").Obj()
	plainInit.Spec.InitContainers = []v1.Container{{Name: "i", Ports: []v1.ContainerPort{port("", "", 9000)}}}
	tests := []struct {
		name string
		pod  *v1.Pod
		want framework.Code
	}{
		{name: "no ports", pod: testutil.Pod("p").Obj(), want: framework.Skip},
		{name: "container port without host port", pod: podWithPorts("p", v1.ContainerPort{ContainerPort: 80}), want: framework.Skip},
		{name: "host port", pod: testutil.Pod("p").HostPort(8080).Obj(), want: framework.Success},
		{name: "sidecar host port", pod: sidecar, want: framework.Success},
		{name: "ordinary init container ports are released before the pod runs", pod: plainInit, want: framework.Skip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, st := NodePorts{}.PreFilter(context.Background(), framework.NewCycleState(), framework.NewPodInfo(tc.pod))
			if st.Code() != tc.want || res != nil {
				t.Fatalf("PreFilter = %v, %v; want nil, %v", res, st, tc.want)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name     string
		existing []v1.ContainerPort
		wanted   []v1.ContainerPort
		want     framework.Code
	}{
		{name: "free node", wanted: []v1.ContainerPort{port("", "", 8080)}, want: framework.Success},
		{name: "same port, defaults", existing: []v1.ContainerPort{port("", "", 8080)}, wanted: []v1.ContainerPort{port("", "", 8080)}, want: framework.Unschedulable},
		{name: "other port", existing: []v1.ContainerPort{port("", "", 8080)}, wanted: []v1.ContainerPort{port("", "", 8081)}, want: framework.Success},
		{name: "other protocol", existing: []v1.ContainerPort{port("", v1.ProtocolTCP, 53)}, wanted: []v1.ContainerPort{port("", v1.ProtocolUDP, 53)}, want: framework.Success},
		{name: "empty protocol is TCP", existing: []v1.ContainerPort{port("", v1.ProtocolTCP, 53)}, wanted: []v1.ContainerPort{port("", "", 53)}, want: framework.Unschedulable},
		{name: "different specific IPs", existing: []v1.ContainerPort{port("10.0.0.1", "", 80)}, wanted: []v1.ContainerPort{port("10.0.0.2", "", 80)}, want: framework.Success},
		{name: "same specific IP", existing: []v1.ContainerPort{port("10.0.0.1", "", 80)}, wanted: []v1.ContainerPort{port("10.0.0.1", "", 80)}, want: framework.Unschedulable},
		{name: "wildcard in use blocks a specific IP", existing: []v1.ContainerPort{port("0.0.0.0", "", 80)}, wanted: []v1.ContainerPort{port("10.0.0.1", "", 80)}, want: framework.Unschedulable},
		{name: "specific IP in use blocks the wildcard", existing: []v1.ContainerPort{port("10.0.0.1", "", 80)}, wanted: []v1.ContainerPort{port("", "", 80)}, want: framework.Unschedulable},
		{name: "second wanted port conflicts", existing: []v1.ContainerPort{port("", "", 81)}, wanted: []v1.ContainerPort{port("", "", 80), port("", "", 81)}, want: framework.Unschedulable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var bound []*v1.Pod
			if len(tc.existing) > 0 {
				e := podWithPorts("existing", tc.existing...)
				e.Spec.NodeName = "n1"
				bound = append(bound, e)
			}
			c := testutil.NewCache([]*v1.Node{testutil.Node("n1").Obj()}, bound)
			p := framework.NewPodInfo(podWithPorts("p", tc.wanted...))
			st := NodePorts{}.Filter(context.Background(), framework.NewCycleState(), p, c.Get("n1"))
			if st.Code() != tc.want {
				t.Fatalf("Filter = %v, want %v", st, tc.want)
			}
			if tc.want == framework.Unschedulable && st.Message() != ErrReason {
				t.Errorf("reason = %q, want %q", st.Message(), ErrReason)
			}
		})
	}
}

// TestFilterSeesPreemption checks that removing the pod holding the port, as preemption's
// dry run does on the snapshot, makes the node fit, and that rolling back undoes it.
func TestFilterSeesPreemption(t *testing.T) {
	holder := testutil.Pod("holder").HostPort(8080).Node("n1").Obj()
	other := testutil.Pod("other").HostPort(9090).Node("n1").Obj()
	c := testutil.NewCache([]*v1.Node{testutil.Node("n1").Obj()}, []*v1.Pod{holder, other})
	p := testutil.Pod("p").HostPort(8080).Info()
	ctx, state := context.Background(), framework.NewCycleState()
	if _, st := (NodePorts{}).PreFilter(ctx, state, p); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	n := c.Get("n1")
	if st := (NodePorts{}).Filter(ctx, state, p, n); st.Code() != framework.Unschedulable {
		t.Fatalf("before preemption: %v, want Unschedulable", st)
	}
	cp := c.Checkpoint()
	c.RemovePod(c.Nodes().Pod("default/holder"))
	if st := (NodePorts{}).Filter(ctx, state, p, n); !st.IsSuccess() {
		t.Fatalf("after removing the holder: %v, want Success", st)
	}
	c.Rollback(cp)
	if st := (NodePorts{}).Filter(ctx, state, p, n); st.Code() != framework.Unschedulable {
		t.Fatalf("after rollback: %v, want Unschedulable", st)
	}
}

func TestEventsToRegister(t *testing.T) {
	evs := NodePorts{}.EventsToRegister()
	matches := func(e framework.ClusterEvent) bool {
		for _, r := range evs {
			if r.Matches(e) {
				return true
			}
		}
		return false
	}
	for _, e := range []framework.ClusterEvent{framework.EventNodeAdd, framework.EventAssignedPodDelete} {
		if !matches(e) {
			t.Errorf("%v should retry the pod", e)
		}
	}
	for _, e := range []framework.ClusterEvent{framework.EventAssignedPodAdd, {Resource: framework.Node, Action: framework.UpdateNodeLabel}} {
		if matches(e) {
			t.Errorf("%v should not retry the pod", e)
		}
	}
}

// BenchmarkPreFilterFilter schedules-checks one pod with a host port against 5,000 nodes
// running 20,000 pods, each binding one of eight host ports.
func BenchmarkPreFilterFilter(b *testing.B) {
	nodes := make([]*v1.Node, 5000)
	pods := make([]*v1.Pod, 0, 20000)
	for i := range nodes {
		nodes[i] = testutil.Node(fmt.Sprintf("n%d", i)).Obj()
		for k := range 4 {
			pods = append(pods, testutil.Pod(fmt.Sprintf("p%d-%d", i, k)).HostPort(int32(8000+(i+k)%8)).Node(nodes[i].Name).Obj())
		}
	}
	c := testutil.NewCache(nodes, pods)
	infos := c.NodeInfos()
	p := testutil.Pod("incoming").HostPort(8000).Info()
	ctx := context.Background()
	pl := NodePorts{}
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		pl.PreFilter(ctx, state, p)
		for _, n := range infos {
			pl.Filter(ctx, state, p, n)
		}
	}
}
