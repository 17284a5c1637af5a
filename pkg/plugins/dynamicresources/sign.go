package dynamicresources

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*DynamicResources)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching): a pod with ResourceClaims
// cannot be signed (its devices depend on what other claims took); others add nothing.
func (pl *DynamicResources) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if len(p.Pod.Spec.ResourceClaims) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with dra resource claims are not signable")
	}
	return nil, nil
}
