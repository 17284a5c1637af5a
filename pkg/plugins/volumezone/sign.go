package volumezone

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*VolumeZone)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching): its verdict depends on the pod's volumes (ConfigMaps and Secrets aside) only.
func (pl *VolumeZone) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.VolumesSignerName, Value: framework.VolumesSigner(p.Pod)}}, nil
}
