// Package nodeports keeps a pod off nodes where a host port it binds is already taken.
package nodeports

import (
	"context"
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "NodePorts"

// ErrReason is kube-scheduler's message.
const ErrReason = "node(s) didn't have free ports for the requested pod ports"

// rejected is the reason list of every rejection: statuses only read their reasons, so
// sharing one saves an allocation per rejected node.
var rejected = []string{ErrReason}

// NodePorts is a PreFilter and Filter plugin.
type NodePorts struct{}

var (
	_ framework.PreFilterPlugin   = NodePorts{}
	_ framework.FilterPlugin      = NodePorts{}
	_ framework.EnqueueExtensions = NodePorts{}
)

// New builds the plugin; it takes no arguments.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) { return NodePorts{}, nil }

// Name implements framework.Plugin.
func (NodePorts) Name() string { return Name }

// PreFilter skips Filter for the common pod that binds no host port. There is no state to
// precompute: PodInfo already holds the pod's host ports, normalised (0.0.0.0, TCP).
func (NodePorts) PreFilter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	if len(p.HostPorts) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	return nil, nil
}

// PreFilterExtensions returns nil: nothing in the state depends on other pods. Filter reads
// the node's UsedPorts live, so it sees pods that preemption removes from the NodeInfo.
func (NodePorts) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node where one of the pod's host ports conflicts with a port in use.
// Unschedulable (not Unresolvable): preempting the pod that holds the port frees it.
func (NodePorts) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	for _, hp := range p.HostPorts {
		if n.UsedPorts.Conflicts(hp) {
			return framework.NewStatus(framework.Unschedulable, rejected...)
		}
	}
	return nil
}

// EventsToRegister: a port is freed when a pod on a node goes away, and a new node has
// every port free. Host ports of a pod are immutable, so pod updates cannot help.
func (NodePorts) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Delete},
		{Resource: framework.Node, Action: framework.Add},
	}
}
