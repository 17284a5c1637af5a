// Package nodename holds the tables of kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/nodename/node_name_test.go, copied verbatim
// (tables/extract.py), as tables.Case.
//
// Copyright The Kubernetes Authors; Apache License 2.0 (the tables).
package nodename

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	upstream "k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodename"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
)

const plugin = "NodeName"

// Cases are the transcribed cases.
func Cases() []tables.Case { return append(filter(), preFilter()...) }

// filter: node_name_test.go TestNodeName.
func filter() []tables.Case {
	from := "nodename/node_name_test.go TestNodeName"
	tests := []struct {
		pod        *v1.Pod
		node       *v1.Node
		name       string
		wantStatus *fwk.Status
	}{
		{
			pod:  &v1.Pod{},
			node: &v1.Node{},
			name: "no host specified",
		},
		{
			pod:  st.MakePod().Node("foo").Obj(),
			node: st.MakeNode().Name("foo").Obj(),
			name: "host matches",
		},
		{
			pod:        st.MakePod().Node("bar").Obj(),
			node:       st.MakeNode().Name("foo").Obj(),
			name:       "host doesn't match",
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, upstream.ErrReason),
		},
	}
	var out []tables.Case
	for _, test := range tests {
		nodes, _ := tables.NodeInfo(framework.NewNodeInfo(), test.node)
		out = append(out, tables.Case{From: from, Name: test.name, Plugin: plugin, Nodes: nodes, Pod: test.pod,
			CheckFilter: true, WantFilter: tables.FilterOn(nodes[0].Name, test.wantStatus)})
	}
	return out
}

// preFilter: node_name_test.go TestNodeName_PreFilter (the nodes PreFilter narrows to; the
// case has no node).
func preFilter() []tables.Case {
	from := "nodename/node_name_test.go TestNodeName_PreFilter"
	tests := []struct {
		name       string
		pod        *v1.Pod
		wantResult *fwk.PreFilterResult
	}{
		{
			name: "assigned pod with nodeName set, prefilter restricts to assigned node",
			pod:  st.MakePod().Node("foo").Obj(),
			wantResult: &fwk.PreFilterResult{
				NodeNames: sets.New("foo"),
			},
		},
		{
			name: "unassigned pod without nodeName set, prefilter returns nil",
			pod:  st.MakePod().Obj(),
		},
	}
	var out []tables.Case
	for _, tt := range tests {
		c := tables.Case{From: from, Name: tt.name, Plugin: plugin, Pod: tt.pod, WantPreFilter: fwk.NewStatus(fwk.Success), CheckPreFilterNodes: true}
		if tt.wantResult != nil {
			c.WantPreFilterNodes = slices.Sorted(slices.Values(tt.wantResult.NodeNames.UnsortedList()))
		}
		out = append(out, c)
	}
	return out
}
