package labeldomain

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func node(labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
}

func TestBuildAndLookup(t *testing.T) {
	nodes := []*v1.Node{
		node(map[string]string{"zone": "b"}),
		node(nil),
		node(map[string]string{"zone": "a"}),
		node(map[string]string{"zone": "b"}),
		node(map[string]string{"zone": ""}),
	}
	x := Build(nodes, "zone")
	if want := []string{"b", "a", ""}; !slices.Equal(x.Values, want) {
		t.Errorf("Values = %q, want %q (the order the nodes first carry them)", x.Values, want)
	}
	if want := []int32{0, Missing, 1, 0, 2}; !slices.Equal(x.Of, want) {
		t.Errorf("Of = %v, want %v", x.Of, want)
	}
	for i, n := range nodes {
		if got := x.Lookup(n.Labels); got != x.Of[i] {
			t.Errorf("Lookup(node %d) = %d, want its indexed domain %d", i, got, x.Of[i])
		}
	}
	cases := []struct {
		labels map[string]string
		want   int32
	}{
		{map[string]string{"zone": "c"}, Unknown},
		{map[string]string{"region": "a"}, Missing},
		{map[string]string{"zone": "a"}, 1},
	}
	for _, c := range cases {
		if got := x.Lookup(c.labels); got != c.want {
			t.Errorf("Lookup(%v) = %d, want %d", c.labels, got, c.want)
		}
	}
	if id := x.Number("c"); id != 3 || x.Lookup(map[string]string{"zone": "c"}) != 3 {
		t.Errorf("Number(c) = %d, and Lookup then finds %d; want 3", id, x.Lookup(map[string]string{"zone": "c"}))
	}
	if id := x.Number("b"); id != 0 || len(x.Values) != 4 {
		t.Errorf("Number of a known value = %d with %d values, want 0 with 4", id, len(x.Values))
	}
}
