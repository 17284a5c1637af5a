// Package workloadpreemption is the PodGroupPostFilter plugin of KEP-5710: when a pod
// group fits nowhere, it preempts lower-priority units (pods, or whole groups of
// disruption mode All) so that enough of its members fit at once, with group preemption
// (pkg/preemption/group) over the engine in pkg/preemption.
package workloadpreemption

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/group"
)

// Name is the plugin's name.
const Name = "WorkloadPreemption"

// Args are the plugin's arguments.
type Args struct {
	// BinarySearch finds the lowest priority level that must be preempted before removing
	// any victim (default true; see docs/decisions).
	BinarySearch *bool `json:"binarySearch,omitempty"`
	// MaxPlacements bounds how many placements of a topology-constrained group are
	// simulated, the least disruptive first by a lower bound computed on resource vectors,
	// after those too small even with their lower-priority pods gone are pruned
	// (default 8).
	MaxPlacements *int `json:"maxPlacements,omitempty"`
	// PreferredLevelsFirst makes a placement that meets more Preferred topology levels win
	// over one that disrupts less (default false: disruption first, Preferred levels only
	// break ties).
	PreferredLevelsFirst bool `json:"preferredLevelsFirst,omitempty"`
	// ExactSearchMaxUnits: a preemption domain with at most this many candidate victim
	// units has the least disruptive set found by exact search (default 20; 0 or less
	// disables it, leaving greedy reprieval).
	ExactSearchMaxUnits *int `json:"exactSearchMaxUnits,omitempty"`
	// MinCandidateNodesPercentage and MinCandidateNodesAbsolute bound the nodes simulated
	// for a group that needs one more member, as DefaultPreemption's (defaults 10 and
	// 100).
	MinCandidateNodesPercentage *int `json:"minCandidateNodesPercentage,omitempty"`
	MinCandidateNodesAbsolute   *int `json:"minCandidateNodesAbsolute,omitempty"`
}

// WorkloadPreemption is a PodGroupPostFilter plugin.
type WorkloadPreemption struct {
	h         framework.Handle
	evaluator *group.Evaluator
}

var _ framework.PodGroupPostFilterPlugin = (*WorkloadPreemption)(nil)

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args := Args{}
	if err := framework.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	binary := true
	if args.BinarySearch != nil {
		binary = *args.BinarySearch
	}
	maxPlacements := group.DefaultMaxPlacements
	if args.MaxPlacements != nil {
		if *args.MaxPlacements < 1 {
			return nil, fmt.Errorf("maxPlacements: Invalid value: %d: must be at least 1", *args.MaxPlacements)
		}
		maxPlacements = *args.MaxPlacements
	}
	exact, err := preemption.ExactSearchBound(args.ExactSearchMaxUnits)
	if err != nil {
		return nil, err
	}
	pod, err := preemption.NewPodEvaluator(h, args.MinCandidateNodesPercentage, args.MinCandidateNodesAbsolute, exact)
	if err != nil {
		return nil, err
	}
	return &WorkloadPreemption{h: h, evaluator: &group.Evaluator{Handle: h, Pod: pod, BinarySearch: binary,
		Placements: group.PlacementOptions{MaxPlacements: maxPlacements, PreferredLevelsFirst: args.PreferredLevelsFirst}}}, nil
}

// Name implements framework.Plugin.
func (*WorkloadPreemption) Name() string { return Name }

// PodGroupPostFilter decides the group's preemption and has it carried out: victims
// deleted, every placed member nominated to its node.
func (pl *WorkloadPreemption) PodGroupPostFilter(ctx context.Context, attempt *framework.GroupAttempt) (*framework.PodGroupPostFilterResult, *framework.Status) {
	m := pl.h.Metrics()
	start := time.Now()
	res, err := pl.evaluator.Preempt(ctx, attempt)
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
	pl.h.GroupPreemption().PreemptForGroup(attempt.Group, res.Nominations, res.Victims, res.Approximate)
	return &framework.PodGroupPostFilterResult{Nominations: res.Nominations}, nil
}
