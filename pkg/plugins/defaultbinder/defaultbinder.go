// Package defaultbinder binds pods through the cluster's binding API.
package defaultbinder

import (
	"context"
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "DefaultBinder"

// DefaultBinder is a Bind plugin.
type DefaultBinder struct {
	binder framework.Binder
}

// New builds the plugin.
func New(_ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	return &DefaultBinder{binder: h.Binder()}, nil
}

// Name implements framework.Plugin.
func (*DefaultBinder) Name() string { return Name }

// Bind makes the binding call.
func (b *DefaultBinder) Bind(ctx context.Context, _ *framework.CycleState, p *framework.PodInfo, node string) *framework.Status {
	return framework.AsStatus(b.binder.BindPod(ctx, p.Pod, node))
}
