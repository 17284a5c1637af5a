package nodedeclaredfeatures

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*NodeDeclaredFeatures)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching): the verdict depends on the
// features the pod requires only.
func (pl *NodeDeclaredFeatures) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	reqs, err := pl.requirements(p)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return []framework.SignFragment{{Key: framework.FeaturesSignerName, Value: reqs.String()}}, nil
}
