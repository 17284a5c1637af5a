package nodeaffinity

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*NodeAffinity)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching): the verdicts and scores
// depend on the pod's node affinity and node selector only.
func (pl *NodeAffinity) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	aff, err := framework.NodeAffinitySigner(p.Pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{
		{Key: framework.NodeAffinitySignerName, Value: aff},
		{Key: framework.NodeSelectorSignerName, Value: p.Pod.Spec.NodeSelector},
	}, nil
}
