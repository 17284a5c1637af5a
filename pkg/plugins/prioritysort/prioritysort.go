// Package prioritysort orders the queue by priority, then by arrival (kube-scheduler's
// PrioritySort).
package prioritysort

import (
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// Name is the plugin's name.
const Name = "PrioritySort"

// PrioritySort is the QueueSort plugin.
type PrioritySort struct{}

// New builds the plugin.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) { return PrioritySort{}, nil }

// Name implements framework.Plugin.
func (PrioritySort) Name() string { return Name }

// Less puts higher priority first, then earlier arrival.
func (PrioritySort) Less(a, b *framework.QueuedUnit) bool { return queue.PriorityThenTimestamp(a, b) }
