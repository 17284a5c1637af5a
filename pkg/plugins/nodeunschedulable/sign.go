package nodeunschedulable

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = NodeUnschedulable{}

// SignPod implements framework.SignPlugin (OpportunisticBatching): its verdict depends on the pod's tolerations only.
func (NodeUnschedulable) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.TolerationsSignerName, Value: framework.TolerationsSigner(p.Pod)}}, nil
}
