package tainttoleration

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*TaintToleration)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching): its verdicts and scores depend on the pod's tolerations only.
func (pl *TaintToleration) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.TolerationsSignerName, Value: framework.TolerationsSigner(p.Pod)}}, nil
}
