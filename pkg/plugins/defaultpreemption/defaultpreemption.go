// Package defaultpreemption is the PostFilter plugin that preempts lower-priority pods for
// a pod that fits nowhere, with the preemption engine (pkg/preemption).
package defaultpreemption

import (
	"context"
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
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
	// ExactSearchMaxUnits: a node with at most this many candidate victim units has the
	// least disruptive set found by exact search (default 20; 0 or less disables it,
	// leaving greedy reprieval).
	ExactSearchMaxUnits *int `json:"exactSearchMaxUnits,omitempty"`
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
	exact, err := preemption.ExactSearchBound(args.ExactSearchMaxUnits)
	if err != nil {
		return nil, err
	}
	e, err := preemption.NewPodEvaluator(h, args.MinCandidateNodesPercentage, args.MinCandidateNodesAbsolute, exact)
	if err != nil {
		return nil, err
	}
	return &DefaultPreemption{h: h, evaluator: e}, nil
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
	pl.h.Preemption().Preempt(p, c.Node.Name, c.Victims, c.Approximate())
	return &framework.PostFilterResult{NominatedNodeName: c.Node.Name}, nil
}
