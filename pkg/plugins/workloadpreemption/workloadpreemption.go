// Package workloadpreemption is the PodGroupPostFilter plugin of KEP-5710: when a pod
// group fits nowhere, it preempts lower-priority units (pods, or whole groups of
// disruption mode All) so that enough of its members fit at once, with the engine in
// pkg/preemption.
package workloadpreemption

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// Name is the plugin's name.
const Name = "WorkloadPreemption"

// Args are the plugin's arguments.
type Args struct {
	// BinarySearch finds the lowest priority level that must be preempted before removing
	// any victim (default true; see docs/decisions).
	BinarySearch *bool `json:"binarySearch,omitempty"`
}

// WorkloadPreemption is a PodGroupPostFilter plugin.
type WorkloadPreemption struct {
	h         framework.Handle
	evaluator *preemption.GroupEvaluator
}

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args := Args{}
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&args); err != nil {
			return nil, err
		}
	}
	binary := true
	if args.BinarySearch != nil {
		binary = *args.BinarySearch
	}
	return &WorkloadPreemption{h: h, evaluator: &preemption.GroupEvaluator{Handle: h, BinarySearch: binary}}, nil
}

// Name implements framework.Plugin.
func (*WorkloadPreemption) Name() string { return Name }

// PodGroupPostFilter decides the group's preemption and has it carried out: victims
// deleted, every placed member nominated to its node.
func (pl *WorkloadPreemption) PodGroupPostFilter(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, placed *framework.GroupPlacement, schedule framework.PodGroupSchedulingFunc) (*framework.PodGroupPostFilterResult, *framework.Status) {
	m := pl.h.Metrics()
	start := time.Now()
	res, err := pl.evaluator.Preempt(ctx, g, pending, placed, schedule)
	m.PodGroupPreemptionAttemptDuration.Observe(time.Since(start).Seconds())
	switch {
	case err != nil:
		m.PodGroupPreemptionAttempts.WithLabelValues("error").Inc()
		return nil, framework.AsStatus(err)
	case res.Nominations == nil:
		m.PodGroupPreemptionAttempts.WithLabelValues("unschedulable").Inc()
		if res.Waiting {
			return &framework.PodGroupPostFilterResult{Waiting: true}, framework.NewStatus(framework.Unschedulable, res.Message)
		}
		if !res.Eligible {
			return nil, framework.NewStatus(framework.Unschedulable, res.Message)
		}
		return &framework.PodGroupPostFilterResult{}, framework.NewStatus(framework.Unschedulable, res.Message)
	}
	m.PodGroupPreemptionAttempts.WithLabelValues("success").Inc()
	m.PodGroupPreemptionVictims.Observe(float64(len(res.Victims)))
	m.PodGroupPreemptionReprieved.Add(float64(res.Reprieved))
	pl.h.GroupPreemption().PreemptForGroup(g, res.Nominations, res.Victims)
	return &framework.PodGroupPostFilterResult{Nominations: res.Nominations}, nil
}
