// Package nodeunschedulable filters out cordoned nodes (spec.unschedulable), unless the
// pod tolerates the node.kubernetes.io/unschedulable:NoSchedule taint.
package nodeunschedulable

import (
	"context"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "NodeUnschedulable"

// ErrReason is kube-scheduler's message.
const ErrReason = "node(s) were unschedulable"

// NodeUnschedulable is a Filter plugin.
type NodeUnschedulable struct{}

// New builds the plugin.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return NodeUnschedulable{}, nil
}

// Name implements framework.Plugin.
func (NodeUnschedulable) Name() string { return Name }

var unschedulableTaint = v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}

// Filter rejects cordoned nodes the pod does not tolerate.
func (NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if !n.Unschedulable {
		return nil
	}
	if corev1helpers.TolerationsTolerateTaint(klog.Background(), p.Pod.Spec.Tolerations, &unschedulableTaint, false) {
		return nil
	}
	return errStatus
}

// errStatus is shared by every rejection: it never changes.
var errStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason).WithPlugin(Name)

// EventsToRegister: a node may be uncordoned or added.
func (NodeUnschedulable) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeSchedulable | framework.UpdateNodeTaint}}
}

// StaticFilterKey implements framework.StaticFilterPlugin: the verdict depends only on
// whether the pod tolerates the unschedulable taint.
func (NodeUnschedulable) StaticFilterKey(p *framework.PodInfo) string {
	if corev1helpers.TolerationsTolerateTaint(klog.Background(), p.Pod.Spec.Tolerations, &unschedulableTaint, false) {
		return "tolerates"
	}
	return ""
}
