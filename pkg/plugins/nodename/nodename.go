// Package nodename filters out nodes other than the one a pod names in spec.nodeName (a
// pending pod with nodeName set and a scheduler name of ours is unusual but valid).
package nodename

import (
	"context"
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "NodeName"

// ErrReason is kube-scheduler's message.
const ErrReason = "node(s) didn't match the requested node name"

// NodeName is a Filter plugin.
type NodeName struct{}

// New builds the plugin.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) { return NodeName{}, nil }

// Name implements framework.Plugin.
func (NodeName) Name() string { return Name }

// PreFilter narrows the nodes to the requested one, as kube-scheduler's does: the other
// nodes are then rejected as not satisfying NodeName, and preemption does not look at them.
func (NodeName) PreFilter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	if want := p.Pod.Spec.NodeName; want != "" {
		return &framework.PreFilterResult{NodeNames: map[string]struct{}{want: {}}}, nil
	}
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin: the result depends on no pod.
func (NodeName) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects nodes other than the requested one.
func (NodeName) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if want := p.Pod.Spec.NodeName; want != "" && want != n.Name {
		return errStatus
	}
	return nil
}

// errStatus is shared by every rejection: it never changes.
var errStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason).WithPlugin(Name)

// EventsToRegister: a node with the requested name may appear.
func (NodeName) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeLabel}}
}

// StaticFilterKey implements framework.StaticFilterPlugin: the verdict depends only on the
// requested node name.
func (NodeName) StaticFilterKey(p *framework.PodInfo) string { return p.Pod.Spec.NodeName }
