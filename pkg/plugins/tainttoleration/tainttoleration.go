// Package tainttoleration keeps pods off nodes whose NoSchedule and NoExecute taints they do
// not tolerate, and prefers nodes with fewer untolerated PreferNoSchedule taints.
package tainttoleration

import (
	"context"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "TaintToleration"

// ErrReasonNotMatch is kube-scheduler v1.36's Filter message. It no longer names the
// taint, so that the messages of many nodes aggregate into one line.
const ErrReasonNotMatch = "node(s) had untolerated taint(s)"

const preScoreStateKey framework.StateKey = "PreScore" + Name

// rejected is the reason list of every rejection: statuses only read their reasons, so
// sharing one saves an allocation per rejected node.
var rejected = []string{ErrReasonNotMatch}

// Tolerations with the comparison operators (Lt, Gt) never match: their feature gate,
// TaintTolerationComparisonOperators, is alpha and off by default in kube-scheduler v1.36.
const enableComparisonOperators = false

// TaintToleration is a Filter, PreScore and Score plugin.
type TaintToleration struct {
	// logger is only used by the toleration helpers to report unparsable comparison values.
	logger klog.Logger
}

var (
	_ framework.FilterPlugin      = (*TaintToleration)(nil)
	_ framework.PreScorePlugin    = (*TaintToleration)(nil)
	_ framework.ScorePlugin       = (*TaintToleration)(nil)
	_ framework.ScoreExtensions   = (*TaintToleration)(nil)
	_ framework.EnqueueExtensions = (*TaintToleration)(nil)
)

// New builds the plugin; it takes no arguments.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &TaintToleration{logger: klog.Background()}, nil
}

// Name implements framework.Plugin.
func (*TaintToleration) Name() string { return Name }

// Filter rejects a node with a NoSchedule or NoExecute taint the pod does not tolerate.
// Preemption cannot remove a taint, hence UnschedulableAndUnresolvable. The loop is the
// one of corev1helpers.FindMatchingUntoleratedTaint without its filtered copy of the
// taints, so that Filter allocates nothing on nodes that pass.
func (pl *TaintToleration) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	taints := n.Taints
	tolerations := p.Pod.Spec.Tolerations
	for i := range taints {
		t := &taints[i]
		if t.Effect != v1.TaintEffectNoSchedule && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(pl.logger, tolerations, t, enableComparisonOperators) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, rejected...)
		}
	}
	return nil
}

// preScoreState holds the pod's tolerations that can tolerate a PreferNoSchedule taint.
type preScoreState struct {
	tolerations []v1.Toleration
}

// Clone implements framework.StateData; the state is never mutated after PreScore.
func (s *preScoreState) Clone() framework.StateData { return s }

// PreScore keeps the tolerations that matter for scoring: those for PreferNoSchedule and
// those with no effect (which tolerate every effect).
func (pl *TaintToleration) PreScore(_ context.Context, state *framework.CycleState, p *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	var tols []v1.Toleration
	for _, t := range p.Pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == v1.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	state.Write(preScoreStateKey, &preScoreState{tolerations: tols})
	return nil
}

// Score counts the node's PreferNoSchedule taints that the pod does not tolerate;
// NormalizeScore turns fewer into better.
func (pl *TaintToleration) Score(_ context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if !n.PreferNoSchedule {
		// Most nodes: nothing to count, and no taint of theirs read.
		return 0, nil
	}
	var tols []v1.Toleration
	if s, ok := state.Read(preScoreStateKey).(*preScoreState); ok {
		tols = s.tolerations
	} else {
		// PreScore did not run (a caller scoring directly): all tolerations give the same
		// count, since the non-matching effects never tolerate a PreferNoSchedule taint.
		tols = p.Pod.Spec.Tolerations
	}
	var count int64
	taints := n.Taints
	for i := range taints {
		t := &taints[i]
		if t.Effect != v1.TaintEffectPreferNoSchedule {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(pl.logger, tols, t, enableComparisonOperators) {
			count++
		}
	}
	return count, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *TaintToleration) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the counts onto [0, MaxNodeScore] relative to the largest, reversed:
// a node with no untolerated taint gets MaxNodeScore (as kube-scheduler's
// DefaultNormalizeScore with reverse).
func (*TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	framework.DefaultNormalizeScore(true, scores)
	return nil
}

// EventsToRegister: only a new node or a change of a node's taints can lift a rejection.
// The pod's own toleration changes are covered by the scheduler's pod-update registration.
func (*TaintToleration) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeTaint}}
}

// StaticFilterKey implements framework.StaticFilterPlugin: the verdict depends only on the
// pod's tolerations and the node's taints.
func (*TaintToleration) StaticFilterKey(p *framework.PodInfo) string {
	return framework.TolerationsKey(p.Pod.Spec.Tolerations)
}
