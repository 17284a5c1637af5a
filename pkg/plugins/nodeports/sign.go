package nodeports

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = NodePorts{}

// SignPod implements framework.SignPlugin (OpportunisticBatching): its verdict depends on the pod's host ports only.
func (NodePorts) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.HostPortsSignerName, Value: framework.HostPortsSigner(p.Pod)}}, nil
}
