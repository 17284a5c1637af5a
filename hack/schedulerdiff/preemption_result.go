package schedulerdiff

import (
	"fmt"
	"slices"
	"strings"
)

// The outcomes of a preemption case.
const (
	// OutcomeRejected: PreFilter rejected the pod; nothing to preempt for.
	OutcomeRejected = "rejected by PreFilter"
	// OutcomeFits: the pod fits a node without preempting.
	OutcomeFits = "fits"
	// OutcomeNoCandidate: preemption finds no node.
	OutcomeNoCandidate = "no candidate"
	// OutcomePreempts: preemption chose a node and victims.
	OutcomePreempts = "preempts"
	// OutcomeError: a Filter plugin failed with an error (an in-tree volume the CSI
	// translation refuses, say) on some node, which fails the cycle before preemption, or
	// on every node preemption tried.
	OutcomeError = "scheduler error"
)

// PreemptionResult is what a scheduler's preemption decides for a pod that fits nowhere.
type PreemptionResult struct {
	Outcome string
	// Node is the chosen node and Victims, by node, the victims (namespace/name, sorted) of
	// each candidate the scheduler computed (phalanx reports its chosen one only).
	Node    string
	Victims map[string][]string
	// Tied are the candidates kube-scheduler's choice cannot tell apart (nil for phalanx).
	Tied []string
	// BudgetsInPlay says whether taking some candidate's victims would break a
	// PodDisruptionBudget (kube-scheduler's results only), for the test's tally.
	BudgetsInPlay bool
}

// Diff says how phalanx's decision (a) differs from kube-scheduler's (b), "" when they
// agree: same outcome and, when both preempt, phalanx's node is one kube-scheduler could
// choose (its own, or one tied with it), with the victims kube-scheduler computed there.
func (a *PreemptionResult) Diff(b *PreemptionResult) string {
	if a.Outcome != b.Outcome {
		return fmt.Sprintf("outcome: phalanx %s %s %v, kube-scheduler %s %s %v", a.Outcome, a.Node, a.Victims[a.Node], b.Outcome, b.Node, b.Victims[b.Node])
	}
	if a.Outcome != OutcomePreempts {
		return ""
	}
	var out []string
	if a.Node != b.Node && !slices.Contains(b.Tied, a.Node) {
		out = append(out, fmt.Sprintf("node: phalanx %s (victims %v), kube-scheduler %s (victims %v; tied %v)", a.Node, a.Victims[a.Node], b.Node, b.Victims[b.Node], b.Tied))
	} else if want := b.Victims[a.Node]; !slices.Equal(a.Victims[a.Node], want) {
		out = append(out, fmt.Sprintf("victims on %s: phalanx %v, kube-scheduler %v", a.Node, a.Victims[a.Node], want))
	}
	return strings.Join(out, "\n")
}
