package nodename

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = NodeName{}

// SignPod implements framework.SignPlugin (OpportunisticBatching): its verdict depends on spec.nodeName only.
func (NodeName) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.NodeNameSignerName, Value: p.Pod.Spec.NodeName}}, nil
}
