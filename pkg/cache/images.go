package cache

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// imageStates holds, per image name, the framework.ImageState that the live nodes listing
// the name share: kube-scheduler's cache image states, which ImageLocality scales an
// image's size by. They change only as nodes come, change their images and go, at the cost
// of that node's own images; no cycle scans the nodes for them.
type imageStates map[string]*framework.ImageState

// setImages counts a live node's images (node's status.images; node nil: none, as for a
// node that is gone) in place of those it was counted with, and gives the node its map. A
// node whose images did not change costs a comparison.
func (s *NodeStore) setImages(n *framework.NodeInfo, old, node *v1.Node) {
	if old != nil && node != nil && old != node && sameImages(old.Status.Images, node.Status.Images) {
		return // (the same object again may have been changed in place: counted anew)
	}
	for name, st := range n.Images {
		st.NumNodes--
		if st.NumNodes == 0 {
			delete(s.images, name)
		}
	}
	n.SetImages(nil)
	if node == nil || len(node.Status.Images) == 0 {
		return
	}
	images := make(map[string]*framework.ImageState, len(node.Status.Images))
	for _, img := range node.Status.Images {
		for _, name := range img.Names {
			if _, ok := images[name]; ok {
				continue // a name listed twice counts the node once
			}
			st := s.images[name]
			if st == nil {
				st = &framework.ImageState{Size: img.SizeBytes}
				s.images[name] = st
			}
			st.NumNodes++
			images[name] = st
		}
	}
	n.SetImages(images)
}

func sameImages(a, b []v1.ContainerImage) bool {
	return slices.EqualFunc(a, b, func(x, y v1.ContainerImage) bool {
		return x.SizeBytes == y.SizeBytes && slices.Equal(x.Names, y.Names)
	})
}

// verifyImages recounts the live nodes listing each image name from their status.images
// and compares with the shared states and each node's map; ghost nodes hold none.
func (s *NodeStore) verifyImages() error {
	want := map[string]int{}
	for _, n := range s.nodes {
		names := map[string]bool{}
		for _, img := range n.Node().Status.Images {
			for _, name := range img.Names {
				names[name] = true
			}
		}
		if len(names) != len(n.Images) {
			return fmt.Errorf("node %s: %d image names, %d recorded", n.Name, len(names), len(n.Images))
		}
		if n.HasImages() != (len(n.Images) > 0) {
			return fmt.Errorf("node %s: HasImages %v with %d image names", n.Name, n.HasImages(), len(n.Images))
		}
		for name := range names {
			if got, ok := n.Images[name]; !ok || got != s.images[name] {
				return fmt.Errorf("node %s: image %s not recorded with the shared state", n.Name, name)
			}
			want[name]++
		}
	}
	if len(want) != len(s.images) {
		return fmt.Errorf("%d image names on nodes, %d counted", len(want), len(s.images))
	}
	for name, count := range want {
		if s.images[name].NumNodes != count {
			return fmt.Errorf("image %s: counted on %d nodes, listed by %d", name, s.images[name].NumNodes, count)
		}
	}
	for name, n := range s.ghosts {
		if n.Images != nil {
			return fmt.Errorf("ghost node %s keeps images", name)
		}
	}
	return nil
}
