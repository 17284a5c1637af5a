package cache

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

func imageNode(name string, images ...v1.ContainerImage) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Images: images}}
}

func img(size int64, names ...string) v1.ContainerImage {
	return v1.ContainerImage{Names: names, SizeBytes: size}
}

// TestImageStates: nodes coming, changing their images and going keep each name's count of
// live nodes (kube-scheduler's ImageStateSummary.NumNodes) and its size (the first
// lister's, kept while any node lists the name), and Verify agrees at every step.
func TestImageStates(t *testing.T) {
	type want struct {
		name  string
		size  int64
		nodes int // 0: no state
	}
	steps := []struct {
		name string
		do   func(s *NodeStore)
		want []want
	}{
		{"two nodes share an image", func(s *NodeStore) {
			s.AddNode(imageNode("a", img(10, "app:v1", "app:latest"), img(5, "side:v1")))
			s.AddNode(imageNode("b", img(10, "app:v1")))
		}, []want{{"app:v1", 10, 2}, {"app:latest", 10, 1}, {"side:v1", 5, 1}}},
		{"a name listed twice on a node counts the node once", func(s *NodeStore) {
			s.AddNode(imageNode("c", img(7, "dup:v1", "dup:v1"), img(9, "dup:v1")))
		}, []want{{"dup:v1", 7, 1}}},
		{"another size for a name does not replace the first", func(s *NodeStore) {
			s.AddNode(imageNode("d", img(99, "app:v1")))
		}, []want{{"app:v1", 10, 3}}},
		{"an update with the same images changes nothing", func(s *NodeStore) {
			s.AddNode(imageNode("b", img(10, "app:v1")))
		}, []want{{"app:v1", 10, 3}}},
		{"an update drops an image and adds one", func(s *NodeStore) {
			s.AddNode(imageNode("a", img(10, "app:v1"), img(3, "new:v1")))
		}, []want{{"app:v1", 10, 3}, {"app:latest", 0, 0}, {"side:v1", 0, 0}, {"new:v1", 3, 1}}},
		{"the first lister going keeps the size while others list it", func(s *NodeStore) {
			s.RemoveNode("a")
			s.RemoveNode("b")
		}, []want{{"app:v1", 10, 1}, {"new:v1", 0, 0}}},
		{"the last lister going forgets the name; a new lister sets its size", func(s *NodeStore) {
			s.RemoveNode("d")
			s.AddNode(imageNode("e", img(42, "app:v1")))
		}, []want{{"app:v1", 42, 1}}},
	}
	c := New()
	s := c.Nodes()
	for _, step := range steps {
		step.do(s)
		if err := c.Verify(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		for _, w := range step.want {
			st := s.images[w.name]
			switch {
			case w.nodes == 0 && st != nil:
				t.Errorf("%s: %s still counted: %+v", step.name, w.name, *st)
			case w.nodes > 0 && (st == nil || *st != framework.ImageState{Size: w.size, NumNodes: w.nodes}):
				t.Errorf("%s: %s is %v, want size %d on %d nodes", step.name, w.name, st, w.size, w.nodes)
			}
		}
	}
}

// TestImagesOfGhostNodes: a node removed while pods run on it keeps no images, and gets
// them back when it returns.
func TestImagesOfGhostNodes(t *testing.T) {
	c := New()
	s := c.Nodes()
	s.AddNode(imageNode("a", img(10, "app:v1")))
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "p"}, Spec: v1.PodSpec{NodeName: "a"}}
	if err := s.AddBoundPod(framework.NewPodInfo(p)); err != nil {
		t.Fatal(err)
	}
	s.RemoveNode("a")
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	if len(s.images) != 0 {
		t.Errorf("images of a ghost still counted: %v", s.images)
	}
	n := s.AddNode(imageNode("a", img(10, "app:v1")))
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	if st := n.Images["app:v1"]; st == nil || st.NumNodes != 1 {
		t.Errorf("returned node's image: %v", st)
	}
}
