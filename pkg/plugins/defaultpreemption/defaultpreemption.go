// Package defaultpreemption is the PostFilter plugin that preempts lower-priority pods for
// a pod that fits nowhere, with the preemption engine (pkg/preemption).
package defaultpreemption

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/noderesources"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// Name is the plugin's name.
const Name = "DefaultPreemption"

// Args are the plugin's arguments, with kube-scheduler's names and defaults.
type Args struct {
	// MinCandidateNodesPercentage is the share of nodes to simulate preemption on before
	// choosing (default 10).
	MinCandidateNodesPercentage *int `json:"minCandidateNodesPercentage,omitempty"`
	// MinCandidateNodesAbsolute is the least number of nodes to simulate (default 100).
	MinCandidateNodesAbsolute *int `json:"minCandidateNodesAbsolute,omitempty"`
}

// DefaultPreemption is a PostFilter plugin.
type DefaultPreemption struct {
	h         framework.Handle
	evaluator *preemption.Evaluator
}

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args := Args{}
	if err := framework.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	pct, abs := 10, 100
	if args.MinCandidateNodesPercentage != nil {
		pct = *args.MinCandidateNodesPercentage
	}
	if args.MinCandidateNodesAbsolute != nil {
		abs = *args.MinCandidateNodesAbsolute
	}
	if pct < 0 || pct > 100 {
		return nil, fmt.Errorf("minCandidateNodesPercentage: %d must be between 0 and 100", pct)
	}
	if abs < 0 || (pct == 0 && abs == 0) {
		return nil, fmt.Errorf("minCandidateNodesAbsolute: %d must be at least 0, and not both 0", abs)
	}
	return &DefaultPreemption{h: h, evaluator: &preemption.Evaluator{
		Handle:                      h,
		MinCandidateNodesPercentage: pct,
		MinCandidateNodesAbsolute:   abs,
		ResourcePlugins:             []string{noderesources.FitName},
	}}, nil
}

// Name implements framework.Plugin.
func (*DefaultPreemption) Name() string { return Name }

// PostFilter finds the node where preempting disrupts least and has the decision carried
// out: the victims are marked as leaving and deleted off the scheduling loop, the pod is
// nominated to the node and waits for them.
func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, filtered *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	pl.h.Metrics().PreemptionAttempts.Inc()
	res, err := pl.evaluator.Preempt(ctx, state, p, filtered)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if res.Candidate == nil {
		if !res.Eligible {
			// Not allowed to preempt now: leave the nomination as it is.
			return nil, framework.NewStatus(framework.Unschedulable, res.Message)
		}
		// Nowhere to preempt: clear a stale nomination.
		return &framework.PostFilterResult{}, framework.NewStatus(framework.Unschedulable, res.Message)
	}
	c := res.Candidate
	pl.h.Metrics().PreemptionVictims.Observe(float64(len(c.Victims)))
	pl.h.Preemption().Preempt(p, c.Node.Name, c.Victims)
	return &framework.PostFilterResult{NominatedNodeName: c.Node.Name}, nil
}
