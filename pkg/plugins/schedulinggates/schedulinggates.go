// Package schedulinggates keeps pods with spec.schedulingGates out of the active queue
// until every gate is removed.
package schedulinggates

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "SchedulingGates"

// SchedulingGates is a PreEnqueue plugin.
type SchedulingGates struct{}

// New builds the plugin.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) { return SchedulingGates{}, nil }

// Name implements framework.Plugin.
func (SchedulingGates) Name() string { return Name }

// PreEnqueue holds a pod that still has scheduling gates.
func (SchedulingGates) PreEnqueue(_ context.Context, p *framework.PodInfo) *framework.Status {
	gates := p.Pod.Spec.SchedulingGates
	if len(gates) == 0 {
		return nil
	}
	names := make([]string, len(gates))
	for i, g := range gates {
		names[i] = g.Name
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for scheduling gates: %v", names))
}

// EventsToRegister: only an update of the pod itself can remove a gate.
func (SchedulingGates) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.UnscheduledPod, Action: framework.UpdatePodSchedulingGates}}
}
