package imagelocality

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func image(size int64, names ...string) v1.ContainerImage {
	return v1.ContainerImage{Names: names, SizeBytes: size * mb}
}

func node(name string, images ...v1.ContainerImage) *v1.Node {
	n := testutil.Node(name).Obj()
	n.Status.Images = images
	return n
}

func containers(images ...string) v1.PodSpec {
	var spec v1.PodSpec
	for _, img := range images {
		spec.Containers = append(spec.Containers, v1.Container{Image: img})
	}
	return spec
}

// scores runs PreScore and Score on every node as the framework does.
func scores(t *testing.T, spec v1.PodSpec, nodes []*v1.Node) []int64 {
	t.Helper()
	c := testutil.NewCache(nodes, nil)
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	pl, err := New(nil, &testutil.Handle{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	p := framework.NewPodInfo(&v1.Pod{Spec: spec})
	state := framework.NewCycleState()
	il := pl.(*ImageLocality)
	if st := il.PreScore(context.Background(), state, p, c.NodeInfos()); !st.IsSuccess() {
		t.Fatal(st)
	}
	var out []int64
	for _, n := range nodes {
		s, st := il.Score(context.Background(), state, p, c.Get(n.Name))
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		out = append(out, s)
	}
	return out
}

// TestScoreUpstreamTable re-expresses kube-scheduler v1.37.2's TestImageLocalityPriority
// (pkg/scheduler/framework/plugins/imagelocality): the same pods, nodes and scores.
func TestScoreUpstreamTable(t *testing.T) {
	node403002000 := []v1.ContainerImage{
		image(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
		image(300, "gcr.io/300:latest", "gcr.io/300:v1"),
		image(2000, "gcr.io/2000:latest"),
	}
	node25010 := []v1.ContainerImage{image(250, "gcr.io/250:latest"), image(10, "gcr.io/10:latest", "gcr.io/10:v1")}
	node60040900 := []v1.ContainerImage{image(600, "gcr.io/600:latest"), image(40, "gcr.io/40:latest"), image(900, "gcr.io/900:latest")}
	node300600900 := []v1.ContainerImage{image(300, "gcr.io/300:latest"), image(600, "gcr.io/600:latest"), image(900, "gcr.io/900:latest")}
	node400030 := []v1.ContainerImage{image(4000, "gcr.io/4000:latest"), image(30, "gcr.io/30:latest")}
	node203040 := []v1.ContainerImage{image(20, "gcr.io/20:latest"), image(30, "gcr.io/30:latest"), image(40, "gcr.io/40:latest")}

	imageVolume := containers("gcr.io/30")
	imageVolume.Volumes = []v1.Volume{{Name: "imageVolume", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "gcr.io/300"}}}}
	init300 := containers("gcr.io/30")
	init300.InitContainers = []v1.Container{{Image: "gcr.io/300"}}

	tests := []struct {
		name  string
		spec  v1.PodSpec
		nodes [][]v1.ContainerImage
		want  []int64
	}{
		{"two images spread on two nodes, prefer the larger image one", containers("gcr.io/40", "gcr.io/250"), [][]v1.ContainerImage{node403002000, node25010}, []int64{0, 5}},
		{"two images on one node, prefer this node", containers("gcr.io/40", "gcr.io/300"), [][]v1.ContainerImage{node403002000, node25010}, []int64{7, 0}},
		{"if exceed limit, use limit", containers("gcr.io/10", "gcr.io/4000"), [][]v1.ContainerImage{node400030, node25010}, []int64{framework.MaxNodeScore, 0}},
		{"if exceed limit, use limit (with node which has no images present)", containers("gcr.io/10", "gcr.io/4000"), [][]v1.ContainerImage{node400030, node25010, nil}, []int64{66, 0, 0}},
		{"pod with multiple large images, node2 is preferred", containers("gcr.io/300", "gcr.io/600", "gcr.io/900"), [][]v1.ContainerImage{node60040900, node300600900, nil}, []int64{32, 36, 0}},
		{"pod with multiple small images", containers("gcr.io/30", "gcr.io/40"), [][]v1.ContainerImage{node203040, node400030}, []int64{1, 0}},
		{"pod with ImageVolume", imageVolume, [][]v1.ContainerImage{node300600900, node400030}, []int64{6, 0}},
		{"same images as ImageVolume pod but as regular container images", containers("gcr.io/30", "gcr.io/300"), [][]v1.ContainerImage{node300600900, node400030}, []int64{6, 0}},
		{"include InitContainers: two images spread on two nodes, prefer the larger image one", init300, [][]v1.ContainerImage{node403002000, node203040}, []int64{6, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*v1.Node
			for i, imgs := range tt.nodes {
				nodes = append(nodes, node("node"+string(rune('1'+i)), imgs...))
			}
			got := scores(t, tt.spec, nodes)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("node%d: score %d, want %d (all: %v)", i+1, got[i], tt.want[i], got)
				}
			}
		})
	}
}

// TestScoreCases covers what the upstream table leaves out: tags and digests, a pod
// listing an image twice, the size kube-scheduler's cache keeps for a name two nodes give
// different sizes, and the spread over nodes that hold no image.
func TestScoreCases(t *testing.T) {
	big := func(names ...string) v1.ContainerImage { return image(1000, names...) }
	tests := []struct {
		name  string
		spec  v1.PodSpec
		nodes []*v1.Node
		want  []int64
	}{
		{
			name:  "an untagged name is matched as :latest",
			spec:  containers("registry/app"),
			nodes: []*v1.Node{node("a", big("registry/app:latest")), node("b", big("registry/app:v2"))},
			want:  []int64{48, 0}, // 100 * (1000M/2 - 23M) / (1000M - 23M)
		},
		{
			name:  "a registry port is not a tag",
			spec:  containers("registry:5000/app"),
			nodes: []*v1.Node{node("a", big("registry:5000/app:latest"))},
			want:  []int64{100},
		},
		{
			name:  "a tagged name is matched as written",
			spec:  containers("registry/app:v2"),
			nodes: []*v1.Node{node("a", big("registry/app:latest")), node("b", big("registry/app:v2"))},
			want:  []int64{0, 48},
		},
		{
			name:  "the same image twice counts twice, as in kube-scheduler",
			spec:  containers("app:v1", "app:v1"),
			nodes: []*v1.Node{node("a", image(500, "app:v1")), node("b")},
			want:  []int64{24}, // 100 * (2 * 250M - 23M) / (2000M - 23M)
		},
		{
			name: "an image on every node scores its whole size",
			spec: containers("app:v1"),
			nodes: []*v1.Node{
				node("a", image(600, "app:v1")), node("b", image(600, "app:v1")), node("c", image(600, "app:v1")),
			},
			want: []int64{59, 59, 59}, // 100 * (600M - 23M) / (1000M - 23M)
		},
		{
			name:  "a name two nodes list with different sizes keeps the size of the node that listed it first",
			spec:  containers("app:v1"),
			nodes: []*v1.Node{node("a", image(600, "app:v1")), node("b", image(100, "app:v1"))},
			want:  []int64{59, 59},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scores(t, tt.spec, tt.nodes)
			for i, w := range tt.want {
				if got[i] != w {
					t.Errorf("node %s: score %d, want %d (all: %v)", tt.nodes[i].Name, got[i], w, got)
				}
			}
		})
	}
}

// TestScoreWithoutPreScore: a caller scoring directly gets the same scores.
func TestScoreWithoutPreScore(t *testing.T) {
	nodes := []*v1.Node{node("a", image(600, "app:v1")), node("b")}
	c := testutil.NewCache(nodes, nil)
	pl, _ := New(nil, &testutil.Handle{Cache: c})
	p := framework.NewPodInfo(&v1.Pod{Spec: containers("app:v1")})
	got, st := pl.(*ImageLocality).Score(context.Background(), framework.NewCycleState(), p, c.Get("a"))
	if !st.IsSuccess() || got != 28 { // 100 * (300M - 23M) / (1000M - 23M)
		t.Errorf("got %d, %v; want 28", got, st)
	}
}
