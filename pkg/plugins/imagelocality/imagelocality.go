// Package imagelocality prefers nodes that already hold a pod's container images, as
// kube-scheduler v1.37's ImageLocality: the images' sizes, each scaled by the share of
// the nodes that hold it (so that one node holding a popular image is not heated), summed
// and mapped onto [0, 100] between 23 MiB and 1000 MiB per image.
package imagelocality

import (
	"context"
	"encoding/json"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "ImageLocality"

// kube-scheduler's bounds of the image score range: a reasonable range of compressed
// image sizes in registries.
const (
	mb                    int64 = 1024 * 1024
	minThreshold          int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// ImageLocality is a PreScore and Score plugin. Its scores are in range already: it has
// no NormalizeScore, as in kube-scheduler.
type ImageLocality struct {
	handle framework.Handle
}

var (
	_ framework.PreScorePlugin = (*ImageLocality)(nil)
	_ framework.ScorePlugin    = (*ImageLocality)(nil)
)

// New builds the plugin; it takes no arguments.
func New(_ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	return &ImageLocality{handle: h}, nil
}

// Name implements framework.Plugin.
func (*ImageLocality) Name() string { return Name }

// preScoreState is the pod's images, normalized, in kube-scheduler's order (init
// containers, containers, image volumes), and the number of live nodes.
type preScoreState struct {
	images     []string
	imageCount int
	totalNodes int
}

// Clone implements framework.StateData; the state is never mutated after PreScore.
func (s *preScoreState) Clone() framework.StateData { return s }

// PreScore normalizes the pod's image names once per cycle rather than once per node.
func (pl *ImageLocality) PreScore(_ context.Context, state *framework.CycleState, p *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreStateKey, pl.stateFor(p.Pod))
	return nil
}

func (pl *ImageLocality) stateFor(pod *v1.Pod) *preScoreState {
	s := &preScoreState{}
	if pl.handle != nil {
		s.totalNodes = len(pl.handle.Snapshot().NodeInfos())
	}
	for _, c := range pod.Spec.InitContainers {
		s.images = append(s.images, normalizedImageName(c.Image))
	}
	for _, c := range pod.Spec.Containers {
		s.images = append(s.images, normalizedImageName(c.Image))
	}
	for _, vol := range pod.Spec.Volumes {
		if vol.Image == nil {
			continue
		}
		s.images = append(s.images, normalizedImageName(vol.Image.Reference))
	}
	// Every image volume counts, as in kube-scheduler (imageCount is the number of
	// image sources, whether the node holds them or not).
	s.imageCount = len(s.images)
	return s
}

// Score sums the scaled sizes of the pod's images the node holds and maps the sum into
// [0, MaxNodeScore].
func (pl *ImageLocality) Score(_ context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		s = pl.stateFor(p.Pod) // PreScore did not run (a caller scoring directly)
	}
	var sum int64
	// HasImages first: most nodes list none, and the map sits two cache lines further.
	if n.HasImages() && s.totalNodes > 0 {
		for _, name := range s.images {
			if st, ok := n.Images[name]; ok {
				sum += scaledImageScore(st, s.totalNodes)
			}
		}
	}
	return calculatePriority(sum, s.imageCount), nil
}

// ScoreExtensions implements framework.ScorePlugin: none.
func (*ImageLocality) ScoreExtensions() framework.ScoreExtensions { return nil }

// calculatePriority clamps the sum to [minThreshold, maxContainerThreshold × images] and
// scales it onto [0, MaxNodeScore], as kube-scheduler does.
func calculatePriority(sum int64, imageCount int) int64 {
	maxThreshold := maxContainerThreshold * int64(imageCount)
	if sum < minThreshold {
		sum = minThreshold
	} else if sum > maxThreshold {
		sum = maxThreshold
	}
	return framework.MaxNodeScore * (sum - minThreshold) / (maxThreshold - minThreshold)
}

// scaledImageScore is the image's size scaled by the share of the nodes that hold it
// (kube-scheduler's defence against the "node heating problem"), in the same float
// arithmetic.
func scaledImageScore(st *framework.ImageState, totalNodes int) int64 {
	spread := float64(st.NumNodes) / float64(totalNodes)
	return int64(float64(st.Size) * spread)
}

// normalizedImageName adds the ":latest" tag to a name without a tag, as kube-scheduler
// does (a digest "@sha256:..." counts as a tag there too).
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}
