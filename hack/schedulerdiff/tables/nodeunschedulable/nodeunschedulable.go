// Package nodeunschedulable holds the table of kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go, copied
// verbatim (tables/extract.py), as tables.Case.
//
// Copyright The Kubernetes Authors; Apache License 2.0 (the table).
package nodeunschedulable

import (
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	upstream "k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
)

// Cases are the transcribed cases: node_unschedulable_test.go TestNodeUnschedulable.
func Cases() []tables.Case {
	from := "nodeunschedulable/node_unschedulable_test.go TestNodeUnschedulable"
	testCases := []struct {
		name       string
		pod        *v1.Pod
		node       *v1.Node
		wantStatus *fwk.Status
	}{
		{
			name: "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
			pod:  &v1.Pod{},
			node: &v1.Node{
				Spec: v1.NodeSpec{
					Unschedulable: true,
				},
			},
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, upstream.ErrReasonUnschedulable),
		},
		{
			name: "Schedule pod to normal node",
			pod:  &v1.Pod{},
			node: &v1.Node{
				Spec: v1.NodeSpec{
					Unschedulable: false,
				},
			},
		},
		{
			name: "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
			pod: &v1.Pod{
				Spec: v1.PodSpec{
					Tolerations: []v1.Toleration{
						{
							Key:    v1.TaintNodeUnschedulable,
							Effect: v1.TaintEffectNoSchedule,
						},
					},
				},
			},
			node: &v1.Node{
				Spec: v1.NodeSpec{
					Unschedulable: true,
				},
			},
		},
	}
	var out []tables.Case
	for _, test := range testCases {
		nodes, _ := tables.NodeInfo(framework.NewNodeInfo(), test.node)
		out = append(out, tables.Case{From: from, Name: test.name, Plugin: "NodeUnschedulable", Nodes: nodes, Pod: test.pod,
			CheckFilter: true, WantFilter: tables.FilterOn(nodes[0].Name, test.wantStatus)})
	}
	return out
}
