// Package tainttoleration holds the tables of kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go, copied verbatim
// (tables/extract.py) with the helpers they use, as tables.Case.
//
// Copyright The Kubernetes Authors; Apache License 2.0 (the tables and helpers).
package tainttoleration

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
)

const plugin = "TaintToleration"

// offByDefault: TaintTolerationComparisonOperators is alpha and off in v1.37.
const offByDefault = "the TaintTolerationComparisonOperators gate on (alpha, off in v1.37)"

// Cases are the transcribed cases.
func Cases() []tables.Case {
	return append(append(score(), filter()...), filterWithFeatureGate()...)
}

func nodeWithTaints(nodeName string, taints []v1.Taint) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: nodeName,
		},
		Spec: v1.NodeSpec{
			Taints: taints,
		},
	}
}
func podWithTolerations(podName string, tolerations []v1.Toleration) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: podName,
		},
		Spec: v1.PodSpec{
			Tolerations: tolerations,
		},
	}
}

// score: taint_toleration_test.go TestTaintTolerationScore (PreScore, Score, NormalizeScore).
func score() []tables.Case {
	from := "tainttoleration/taint_toleration_test.go TestTaintTolerationScore"
	tests := []struct {
		name                               string
		pod                                *v1.Pod
		nodes                              []*v1.Node
		expectedList                       fwk.NodeScoreList
		enableTaintTolerationComparisonOps bool
	}{
		// basic test case
		{
			name: "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
			pod: podWithTolerations("pod1", []v1.Toleration{{
				Key:      "foo",
				Operator: v1.TolerationOpEqual,
				Value:    "bar",
				Effect:   v1.TaintEffectPreferNoSchedule,
			}}),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA", []v1.Taint{{
					Key:    "foo",
					Value:  "bar",
					Effect: v1.TaintEffectPreferNoSchedule,
				}}),
				nodeWithTaints("nodeB", []v1.Taint{{
					Key:    "foo",
					Value:  "blah",
					Effect: v1.TaintEffectPreferNoSchedule,
				}}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: fwk.MaxNodeScore},
				{Name: "nodeB", Score: 0},
			},
		},
		// the count of taints that are tolerated by pod, does not matter.
		{
			name: "the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{
					Key:      "cpu-type",
					Operator: v1.TolerationOpEqual,
					Value:    "arm64",
					Effect:   v1.TaintEffectPreferNoSchedule,
				}, {
					Key:      "disk-type",
					Operator: v1.TolerationOpEqual,
					Value:    "ssd",
					Effect:   v1.TaintEffectPreferNoSchedule,
				},
			}),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA", []v1.Taint{}),
				nodeWithTaints("nodeB", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectPreferNoSchedule,
					},
				}),
				nodeWithTaints("nodeC", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectPreferNoSchedule,
					}, {
						Key:    "disk-type",
						Value:  "ssd",
						Effect: v1.TaintEffectPreferNoSchedule,
					},
				}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: fwk.MaxNodeScore},
				{Name: "nodeB", Score: fwk.MaxNodeScore},
				{Name: "nodeC", Score: fwk.MaxNodeScore},
			},
		},
		// the count of taints on a node that are not tolerated by pod, matters.
		{
			name: "the more intolerable taints a node has, the lower score it gets.",
			pod: podWithTolerations("pod1", []v1.Toleration{{
				Key:      "foo",
				Operator: v1.TolerationOpEqual,
				Value:    "bar",
				Effect:   v1.TaintEffectPreferNoSchedule,
			}}),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA", []v1.Taint{}),
				nodeWithTaints("nodeB", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectPreferNoSchedule,
					},
				}),
				nodeWithTaints("nodeC", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectPreferNoSchedule,
					}, {
						Key:    "disk-type",
						Value:  "ssd",
						Effect: v1.TaintEffectPreferNoSchedule,
					},
				}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: fwk.MaxNodeScore},
				{Name: "nodeB", Score: 50},
				{Name: "nodeC", Score: 0},
			},
		},
		// taints-tolerations priority only takes care about the taints and tolerations that have effect PreferNoSchedule
		{
			name: "only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{
					Key:      "cpu-type",
					Operator: v1.TolerationOpEqual,
					Value:    "arm64",
					Effect:   v1.TaintEffectNoSchedule,
				}, {
					Key:      "disk-type",
					Operator: v1.TolerationOpEqual,
					Value:    "ssd",
					Effect:   v1.TaintEffectNoSchedule,
				},
			}),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA", []v1.Taint{}),
				nodeWithTaints("nodeB", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectNoSchedule,
					},
				}),
				nodeWithTaints("nodeC", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectPreferNoSchedule,
					}, {
						Key:    "disk-type",
						Value:  "ssd",
						Effect: v1.TaintEffectPreferNoSchedule,
					},
				}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: fwk.MaxNodeScore},
				{Name: "nodeB", Score: fwk.MaxNodeScore},
				{Name: "nodeC", Score: 0},
			},
		},
		{
			name: "Default behaviour No taints and tolerations, lands on node with no taints",
			//pod without tolerations
			pod: podWithTolerations("pod1", []v1.Toleration{}),
			nodes: []*v1.Node{
				//Node without taints
				nodeWithTaints("nodeA", []v1.Taint{}),
				nodeWithTaints("nodeB", []v1.Taint{
					{
						Key:    "cpu-type",
						Value:  "arm64",
						Effect: v1.TaintEffectPreferNoSchedule,
					},
				}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: fwk.MaxNodeScore},
				{Name: "nodeB", Score: 0},
			},
		},
		{
			name: "Numeric Gt operator: pod with Gt toleration prefers nodes with matching SLA taint",
			pod: podWithTolerations("pod1", []v1.Toleration{{
				Key:      "node.kubernetes.io/sla",
				Operator: "Gt",
				Value:    "950",
				Effect:   v1.TaintEffectPreferNoSchedule,
			}}),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA", []v1.Taint{{
					Key:    "node.kubernetes.io/sla",
					Value:  "800",
					Effect: v1.TaintEffectPreferNoSchedule,
				}}),
				nodeWithTaints("nodeB", []v1.Taint{{
					Key:    "node.kubernetes.io/sla",
					Value:  "999",
					Effect: v1.TaintEffectPreferNoSchedule,
				}}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: 0},
				{Name: "nodeB", Score: fwk.MaxNodeScore},
			},
			enableTaintTolerationComparisonOps: true,
		},
		{
			name: "Numeric Lt operator: pod with Lt toleration prefers nodes with matching SLA taint",
			pod: podWithTolerations("pod1", []v1.Toleration{{
				Key:      "node.kubernetes.io/sla",
				Operator: "Lt",
				Value:    "800",
				Effect:   v1.TaintEffectPreferNoSchedule,
			}}),
			nodes: []*v1.Node{
				nodeWithTaints("nodeA", []v1.Taint{{
					Key:    "node.kubernetes.io/sla",
					Value:  "950",
					Effect: v1.TaintEffectPreferNoSchedule,
				}}),
				nodeWithTaints("nodeB", []v1.Taint{{
					Key:    "node.kubernetes.io/sla",
					Value:  "700",
					Effect: v1.TaintEffectPreferNoSchedule,
				}}),
			},
			expectedList: []fwk.NodeScore{
				{Name: "nodeA", Score: 0},
				{Name: "nodeB", Score: fwk.MaxNodeScore},
			},
			enableTaintTolerationComparisonOps: true,
		},
	}
	var out []tables.Case
	for _, test := range tests {
		c := tables.Case{From: from, Name: test.name, Plugin: plugin, Nodes: test.nodes, Pod: test.pod, WantScores: tables.Scores(test.expectedList)}
		if test.enableTaintTolerationComparisonOps {
			c.NotRun = offByDefault
		}
		out = append(out, c)
	}
	return out
}

// filter: taint_toleration_test.go TestTaintTolerationFilter.
func filter() []tables.Case {
	from := "tainttoleration/taint_toleration_test.go TestTaintTolerationFilter"
	tests := []struct {
		name                               string
		pod                                *v1.Pod
		node                               *v1.Node
		wantStatus                         *fwk.Status
		enableTaintTolerationComparisonOps bool
	}{
		{
			name:       "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
			pod:        podWithTolerations("pod1", []v1.Toleration{}),
			node:       nodeWithTaints("nodeA", []v1.Taint{{Key: "dedicated", Value: "user1", Effect: "NoSchedule"}}),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
		},
		{
			name: "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
			pod:  podWithTolerations("pod1", []v1.Toleration{{Key: "dedicated", Value: "user1", Effect: "NoSchedule"}}),
			node: nodeWithTaints("nodeA", []v1.Taint{{Key: "dedicated", Value: "user1", Effect: "NoSchedule"}}),
		},
		{
			name:       "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
			pod:        podWithTolerations("pod1", []v1.Toleration{{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: "NoSchedule"}}),
			node:       nodeWithTaints("nodeA", []v1.Taint{{Key: "dedicated", Value: "user1", Effect: "NoSchedule"}}),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
		},
		{
			name: "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
			pod:  podWithTolerations("pod1", []v1.Toleration{{Key: "foo", Operator: "Exists", Effect: "NoSchedule"}}),
			node: nodeWithTaints("nodeA", []v1.Taint{{Key: "foo", Value: "bar", Effect: "NoSchedule"}}),
		},
		{
			name: "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: "NoSchedule"},
				{Key: "foo", Operator: "Exists", Effect: "NoSchedule"},
			}),
			node: nodeWithTaints("nodeA", []v1.Taint{
				{Key: "dedicated", Value: "user2", Effect: "NoSchedule"},
				{Key: "foo", Value: "bar", Effect: "NoSchedule"},
			}),
		},
		{
			name: "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, " +
				"can't be scheduled onto the node",
			pod:        podWithTolerations("pod1", []v1.Toleration{{Key: "foo", Operator: "Equal", Value: "bar", Effect: "PreferNoSchedule"}}),
			node:       nodeWithTaints("nodeA", []v1.Taint{{Key: "foo", Value: "bar", Effect: "NoSchedule"}}),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
		},
		{
			name: "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, " +
				"and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
			pod:  podWithTolerations("pod1", []v1.Toleration{{Key: "foo", Operator: "Equal", Value: "bar"}}),
			node: nodeWithTaints("nodeA", []v1.Taint{{Key: "foo", Value: "bar", Effect: "NoSchedule"}}),
		},
		{
			name: "The pod has a toleration that key and value don't match the taint on the node, " +
				"but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
			pod:  podWithTolerations("pod1", []v1.Toleration{{Key: "dedicated", Operator: "Equal", Value: "user2", Effect: "NoSchedule"}}),
			node: nodeWithTaints("nodeA", []v1.Taint{{Key: "dedicated", Value: "user1", Effect: "PreferNoSchedule"}}),
		},
		{
			name: "The pod has no toleration, " +
				"but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
			pod:  podWithTolerations("pod1", []v1.Toleration{}),
			node: nodeWithTaints("nodeA", []v1.Taint{{Key: "dedicated", Value: "user1", Effect: "PreferNoSchedule"}}),
		},
		{
			name:                               "Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold",
			pod:                                podWithTolerations("pod1", []v1.Toleration{{Key: "node.example.com/priority-level", Operator: "Gt", Value: "950", Effect: "NoSchedule"}}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.example.com/priority-level", Value: "800", Effect: "NoSchedule"}}),
			wantStatus:                         fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
			enableTaintTolerationComparisonOps: true,
		},
		{
			name:                               "Pod with Gt toleration can be scheduled on node when taint value is higher than threshold",
			pod:                                podWithTolerations("pod1", []v1.Toleration{{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: "NoSchedule"}}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "950", Effect: "NoSchedule"}}),
			enableTaintTolerationComparisonOps: true,
		},
		{
			name:                               "Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold",
			pod:                                podWithTolerations("pod1", []v1.Toleration{{Key: "node.example.com/priority-level", Operator: "Lt", Value: "800", Effect: "NoSchedule"}}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.example.com/priority-level", Value: "950", Effect: "NoSchedule"}}),
			wantStatus:                         fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
			enableTaintTolerationComparisonOps: true,
		},
		{
			name:                               "Pod with Lt toleration can be scheduled on node when taint value is lower than threshold",
			pod:                                podWithTolerations("pod1", []v1.Toleration{{Key: "node.kubernetes.io/sla", Operator: "Lt", Value: "950", Effect: "NoSchedule"}}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "800", Effect: "NoSchedule"}}),
			enableTaintTolerationComparisonOps: true,
		},
		{
			name: "Pod with Gt toleration cannot be scheduled on node with non-numeric taint value",
			pod:  podWithTolerations("pod1", []v1.Toleration{{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "950", Effect: "NoSchedule"}}),
			node: nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "high", Effect: "NoSchedule"}}),
			wantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
				"node(s) had untolerated taint(s)"),
			enableTaintTolerationComparisonOps: true,
		},
	}
	return filterCases(from, len(tests), func(i int) (string, *v1.Pod, *v1.Node, *fwk.Status, bool) {
		t := tests[i]
		return t.name, t.pod, t.node, t.wantStatus, t.enableTaintTolerationComparisonOps
	})
}

// filterWithFeatureGate: taint_toleration_test.go TestTaintTolerationFilterWithFeatureGate.
func filterWithFeatureGate() []tables.Case {
	from := "tainttoleration/taint_toleration_test.go TestTaintTolerationFilterWithFeatureGate"
	tests := []struct {
		name                               string
		pod                                *v1.Pod
		node                               *v1.Node
		enableTaintTolerationComparisonOps bool
		wantStatus                         *fwk.Status
	}{
		{
			name:                               "Pod with Gt toleration can be scheduled when feature gate is enabled and taint value is higher",
			pod:                                podWithTolerations("pod1", []v1.Toleration{{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: "NoSchedule"}}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "950", Effect: "NoSchedule"}}),
			enableTaintTolerationComparisonOps: true,
			wantStatus:                         nil,
		},
		{
			name: "Pod with Gt toleration cannot be scheduled when feature gate is disabled",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: "NoSchedule"},
			}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "950", Effect: "NoSchedule"}}),
			enableTaintTolerationComparisonOps: false,
			wantStatus:                         fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
		},
		{
			name:                               "Pod with Lt toleration can be scheduled when feature gate is enabled and taint value is lower",
			pod:                                podWithTolerations("pod1", []v1.Toleration{{Key: "node.kubernetes.io/sla", Operator: "Lt", Value: "950", Effect: "NoSchedule"}}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "800", Effect: "NoSchedule"}}),
			enableTaintTolerationComparisonOps: true,
			wantStatus:                         nil,
		},
		{
			name: "Pod with Lt toleration cannot be scheduled when feature gate is disabled",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{Key: "node.kubernetes.io/sla", Operator: "Lt", Value: "950", Effect: "NoSchedule"},
			}),
			node:                               nodeWithTaints("nodeA", []v1.Taint{{Key: "node.kubernetes.io/sla", Value: "800", Effect: "NoSchedule"}}),
			enableTaintTolerationComparisonOps: false,
			wantStatus:                         fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
		},
		{
			name: "Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{Key: "dedicated", Operator: "Equal", Value: "user1", Effect: "NoSchedule"},
				{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: "NoSchedule"},
			}),
			node: nodeWithTaints("nodeA", []v1.Taint{
				{Key: "dedicated", Value: "user1", Effect: "NoSchedule"},
			}),
			enableTaintTolerationComparisonOps: false,
			wantStatus:                         nil,
		},
		{
			name: "Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled",
			pod: podWithTolerations("pod1", []v1.Toleration{
				{Key: "dedicated", Operator: "Equal", Value: "user1", Effect: "NoSchedule"},
				{Key: "node.kubernetes.io/sla", Operator: "Gt", Value: "750", Effect: "NoSchedule"},
			}),
			node: nodeWithTaints("nodeA", []v1.Taint{
				{Key: "dedicated", Value: "user1", Effect: "NoSchedule"},
				{Key: "node.kubernetes.io/sla", Value: "950", Effect: "NoSchedule"},
			}),
			enableTaintTolerationComparisonOps: false,
			wantStatus:                         fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"),
		},
	}
	return filterCases(from, len(tests), func(i int) (string, *v1.Pod, *v1.Node, *fwk.Status, bool) {
		t := tests[i]
		return t.name, t.pod, t.node, t.wantStatus, t.enableTaintTolerationComparisonOps
	})
}

func filterCases(from string, n int, get func(int) (string, *v1.Pod, *v1.Node, *fwk.Status, bool)) []tables.Case {
	var out []tables.Case
	for i := range n {
		name, pod, node, want, gate := get(i)
		nodes, _ := tables.NodeInfo(framework.NewNodeInfo(), node)
		c := tables.Case{From: from, Name: name, Plugin: plugin, Nodes: nodes, Pod: pod,
			CheckFilter: true, WantFilter: tables.FilterOn(nodes[0].Name, want)}
		if gate {
			c.NotRun = offByDefault
		}
		out = append(out, c)
	}
	return out
}
