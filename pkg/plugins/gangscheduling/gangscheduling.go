// Package gangscheduling holds a gang back until enough of its members exist to make the
// all-or-nothing placement worth trying (KEP-4671, KEP-5710).
package gangscheduling

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "GangScheduling"

// MsgWaitingForMembers is the upstream wording of the gate.
const MsgWaitingForMembers = "waiting for minCount pods from a gang to appear in scheduling queue"

// GangScheduling is a GroupPreEnqueue plugin.
type GangScheduling struct{}

// New builds the plugin.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) { return GangScheduling{}, nil }

// Name implements framework.Plugin.
func (GangScheduling) Name() string { return Name }

// PreEnqueueGroup holds a gang until its pending and running members reach minCount.
func (GangScheduling) PreEnqueueGroup(_ context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, running int) *framework.Status {
	if !g.Gang() || len(pending)+running >= g.MinCount() {
		return nil
	}
	return framework.NewStatus(framework.Pending,
		fmt.Sprintf("%s (%d of %d)", MsgWaitingForMembers, len(pending)+running, g.MinCount()))
}

// EventsToRegister: only a new member (which the scheduler reports to the queue itself)
// can lift the gate.
func (GangScheduling) EventsToRegister() []framework.ClusterEvent { return []framework.ClusterEvent{} }
