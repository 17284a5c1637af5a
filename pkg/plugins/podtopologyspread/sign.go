package podtopologyspread

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*PodTopologySpread)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching). Spreading depends on where
// other pods are, not only on the pod and the node: a pod with constraints of its own, or any
// pod when default constraints apply (the system defaults included, so with the default
// arguments no pod), cannot be signed, as in kube-scheduler.
func (pl *PodTopologySpread) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if len(p.Pod.Spec.TopologySpreadConstraints) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with topology constraints are not signable")
	}
	if len(pl.defaults) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with default topology constraints are not signable")
	}
	return nil, nil
}
