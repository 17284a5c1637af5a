// Package nodeports holds the tables of kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/nodeports/node_ports_test.go, copied verbatim
// (tables/extract.py) with the helpers they use, as tables.Case.
//
// Copyright The Kubernetes Authors; Apache License 2.0 (the tables and helpers).
package nodeports

import (
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	upstream "k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeports"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
)

const plugin = "NodePorts"

// Cases are the transcribed cases.
func Cases() []tables.Case { return append(nodePorts(), fits()...) }

func newPod(host string, hostPortInfos ...string) *v1.Pod {
	networkPorts := []v1.ContainerPort{}
	for _, portInfo := range hostPortInfos {
		splited := strings.Split(portInfo, "/")
		hostPort, _ := strconv.Atoi(splited[2])

		networkPorts = append(networkPorts, v1.ContainerPort{
			HostIP:   splited[1],
			HostPort: int32(hostPort),
			Protocol: v1.Protocol(splited[0]),
		})
	}
	return st.MakePod().Node(host).ContainerPort(networkPorts).Obj()
}
func newNodeInfo(hostPortInfos ...string) fwk.NodeInfo {
	return framework.NewNodeInfo(newPod("p1", hostPortInfos...))
}

// nodePorts: node_ports_test.go TestNodePorts (PreFilter, then Filter unless it skipped;
// upstream's NodeInfos have no node: the harness gives them an empty one).
func nodePorts() []tables.Case {
	from := "nodeports/node_ports_test.go TestNodePorts"
	tests := []struct {
		pod                 *v1.Pod
		nodeInfo            fwk.NodeInfo
		name                string
		wantPreFilterStatus *fwk.Status
		wantFilterStatus    *fwk.Status
	}{
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(),
			name:                "skip filter",
			wantPreFilterStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod: newPod("m1", "UDP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "UDP/127.0.0.1/9090")),
			name: "other port",
		},
		{
			pod: newPod("m1", "UDP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "UDP/127.0.0.1/8080")),
			name:             "same udp port",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "TCP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/127.0.0.1/8080")),
			name:             "same tcp port",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "TCP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/127.0.0.2/8080")),
			name: "different host ip",
		},
		{
			pod: newPod("m1", "UDP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/127.0.0.1/8080")),
			name: "different protocol",
		},
		{
			pod: newPod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "UDP/127.0.0.1/8080")),
			name:             "second udp port conflict",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")),
			name:             "first tcp port conflict",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "TCP/0.0.0.0/8001"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/127.0.0.1/8001")),
			name:             "first tcp port conflict due to 0.0.0.0 hostIP",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/127.0.0.1/8001")),
			name:             "TCP hostPort conflict due to 0.0.0.0 hostIP",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "TCP/127.0.0.1/8001"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/0.0.0.0/8001")),
			name:             "second tcp port conflict to 0.0.0.0 hostIP",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: newPod("m1", "UDP/127.0.0.1/8001"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/0.0.0.0/8001")),
			name: "second different protocol",
		},
		{
			pod: newPod("m1", "UDP/127.0.0.1/8001"),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")),
			name:             "UDP hostPort conflict due to 0.0.0.0 hostIP",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
		{
			pod: st.MakePod().
				InitContainerPort(false /* sidecar */, []v1.ContainerPort{
					{
						ContainerPort: 8001,
						HostPort:      8001,
						Protocol:      v1.ProtocolTCP,
					},
				}).Obj(),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/0.0.0.0/8001")),
			name:                "non-sidecar initContainer using hostPort",
			wantPreFilterStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod: st.MakePod().
				InitContainerPort(true /* sidecar */, []v1.ContainerPort{
					{
						ContainerPort: 8001,
						HostPort:      8001,
						Protocol:      v1.ProtocolTCP,
					},
				}).Obj(),
			nodeInfo: framework.NewNodeInfo(
				newPod("m1", "TCP/0.0.0.0/8001")),
			name:             "TCP hostPort conflict from sidecar initContainer",
			wantFilterStatus: fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason),
		},
	}
	var out []tables.Case
	for _, test := range tests {
		nodes, pods := tables.NodeInfo(test.nodeInfo, &v1.Node{})
		c := tables.Case{From: from, Name: test.name, Plugin: plugin, Nodes: nodes, Pods: pods, Pod: test.pod,
			WantPreFilter: test.wantPreFilterStatus, CheckFilter: true, WantFilter: tables.FilterOn(nodes[0].Name, test.wantFilterStatus)}
		if c.WantPreFilter == nil {
			c.WantPreFilter = fwk.NewStatus(fwk.Success)
		}
		out = append(out, c)
	}
	return out
}

// fits: node_ports_test.go TestFits, which states whether the pod fits beside a node's pods
// (the function Filter calls): a pod that does not fit is Filter's Unschedulable.
func fits() []tables.Case {
	from := "nodeports/node_ports_test.go TestFits"
	tests := []struct {
		desc     string
		pod      *v1.Pod
		existing fwk.NodeInfo
		expect   bool
	}{
		{
			desc:     "non-conflicting ports",
			pod:      newPod("p", "TCP/127.0.0.1/80"),
			existing: newNodeInfo("TCP/127.0.0.1/9090"),
			expect:   true,
		},
		{
			desc: "multiple non-conflicting ports",
			pod: newPod("p",
				"TCP/127.0.0.1/80",
				"TCP/127.0.1.1/80",
				"TCP/127.0.1.1/90",
				"TCP/127.0.1.1/100"),
			existing: newNodeInfo(
				"TCP/127.0.0.1/9090",
				"TCP/127.0.0.1/9191",
				"TCP/127.0.1.1/8080"),
			expect: true,
		},
		{
			desc:     "same ports on different protocols",
			pod:      newPod("m1", "TCP/127.0.0.1/80"),
			existing: newNodeInfo("UDP/127.0.0.1/80"),
			expect:   true,
		},
		{
			desc:     "conflicting ports",
			pod:      newPod("m1", "TCP/127.0.0.1/80"),
			existing: newNodeInfo("TCP/127.0.0.1/80"),
			expect:   false,
		},
		{
			desc: "multiple ports, some conflicting",
			pod: newPod("p",
				"TCP/127.0.0.1/80",
				"TCP/127.0.1.1/80",
				"TCP/127.0.1.1/90",
				"TCP/127.0.1.1/100"),
			existing: newNodeInfo(
				"TCP/127.0.0.1/9090",
				"TCP/127.0.1.1/90",
				"TCP/127.0.1.1/8080"),
			expect: false,
		},
	}
	var out []tables.Case
	for _, test := range tests {
		nodes, pods := tables.NodeInfo(test.existing, &v1.Node{})
		var want *fwk.Status
		if !test.expect {
			want = fwk.NewStatus(fwk.Unschedulable, upstream.ErrReason)
		}
		out = append(out, tables.Case{From: from, Name: test.desc, Plugin: plugin, Nodes: nodes, Pods: pods, Pod: test.pod,
			CheckFilter: true, WantFilter: tables.FilterOn(nodes[0].Name, want)})
	}
	return out
}
