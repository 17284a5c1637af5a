package imagelocality

import (
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*ImageLocality)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching): the score depends on the
// pod's images, named as the cache names them, each once, sorted.
func (pl *ImageLocality) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	names := []string{}
	for _, c := range p.Pod.Spec.Containers {
		names = append(names, normalizedImageName(c.Image))
	}
	for _, c := range p.Pod.Spec.InitContainers {
		names = append(names, normalizedImageName(c.Image))
	}
	slices.Sort(names)
	return []framework.SignFragment{{Key: framework.ImageNamesSignerName, Value: slices.Compact(names)}}, nil
}
