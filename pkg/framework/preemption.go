package framework

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PDBInfo is a PodDisruptionBudget with its selector parsed.
type PDBInfo struct {
	PDB      *policyv1.PodDisruptionBudget
	Selector labels.Selector
}

// BlockingPodsPlugin is a FilterPlugin whose rejections can be caused by pods on other
// nodes (inter-pod anti-affinity, topology spreading). Preemption asks it which pods to
// consider beyond the node itself: the preemption design's "preempt a pod on node N so the
// preemptor can go to node M in the same rack".
type BlockingPodsPlugin interface {
	FilterPlugin
	// BlockingPods returns the pods, on any node, whose removal could let p pass this
	// plugin's Filter on node, given the rejection st the plugin returned there; nil when
	// that rejection is not caused by other pods.
	BlockingPods(ctx context.Context, state *CycleState, p *PodInfo, node *NodeInfo, st *Status) []*PodInfo
}

// PreemptionActuator carries out a preemption decided in a cycle: it marks the victims as
// leaving, holds the preemptor back from the queue while the API calls run off the loop,
// and reverts the nomination if they fail. approximate says the victims are the best set
// found before the search's budget ran out, not proven the least disruptive; the
// victims' events say so.
type PreemptionActuator interface {
	Preempt(preemptor *PodInfo, node string, victims []*PodInfo, approximate bool)
}

// ReleaseWaiter is a PreemptionActuator that follows a preemptor after its victims are
// gone, while what they held is being released (the devices of their claims, until the
// ResourceClaim controller deletes or deallocates them).
type ReleaseWaiter interface {
	// ReleasingVictims are the victims of the preemptor's last preemption (a pod's key, or
	// a group's queue key) while it waits, within its bound, for what they held to be
	// released; nil when it does not wait.
	ReleasingVictims(preemptor string) []*PodInfo
	// GroupReleasingVictims is ReleasingVictims for a group preemptor.
	GroupReleasingVictims(g *GroupInfo) []*PodInfo
}
