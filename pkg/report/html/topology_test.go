package html

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

func TestNaturalCompare(t *testing.T) {
	// Equal numbers with different leading zeros fall back to byte order: r02 before r2.
	sorted := []string{"r", "r1", "r02", "r2", "r10", "r10a", "r10b", "ra", "rack-2", "rack-10"}
	got := slices.Clone(sorted)
	slices.Reverse(got)
	slices.SortFunc(got, naturalCompare)
	if !slices.Equal(got, sorted) {
		t.Errorf("got %v, want %v", got, sorted)
	}
}

func TestTopologyKeys(t *testing.T) {
	node := func(labels map[string]string) report.Node { return report.Node{Labels: labels} }
	for _, c := range []struct {
		name  string
		nodes []report.Node
		want  []string
	}{
		{"none", []report.Node{node(nil), node(map[string]string{"kubernetes.io/hostname": "a"})}, nil},
		{"well-known keys", []report.Node{
			node(map[string]string{"topology.kubernetes.io/zone": "z", "example.com/rack": "r1", "acme.io/rack": "x"}),
			node(map[string]string{"acme.io/rack": "y", "example.com/block": "b"}),
		}, []string{"topology.kubernetes.io/zone", "example.com/block", "example.com/rack"}},
		{"the most common suffix key, then by name", []report.Node{
			node(map[string]string{"b.io/rack": "1", "a.io/rack": "1", "c.io/block": "1"}),
			node(map[string]string{"b.io/rack": "2", "a.io/rack": "2", "z.io/rack": "2"}),
			node(map[string]string{"z.io/rack": "3"}),
		}, []string{"c.io/block", "a.io/rack"}},
		{"empty values do not count", []report.Node{node(map[string]string{"topology.kubernetes.io/zone": ""})}, nil},
		{"a key named rack without a domain is not a rack", []report.Node{node(map[string]string{"rack": "1"})}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := newTopology(c.nodes).keys; !slices.Equal(got, c.want) {
				t.Errorf("keys %v, want %v", got, c.want)
			}
		})
	}
}

func rackNodes(zones, racks, perRack int) []report.Node {
	var nodes []report.Node
	// Input order interleaves zones and racks so that grouping has to sort.
	for i := 0; i < perRack; i++ {
		for r := racks - 1; r >= 0; r-- {
			for z := 0; z < zones; z++ {
				nodes = append(nodes, report.Node{Name: fmt.Sprintf("n-z%d-r%d-%d", z, r, i), Labels: map[string]string{
					"topology.kubernetes.io/zone": fmt.Sprint("z", z), "example.com/rack": fmt.Sprint("r", r)}})
			}
		}
	}
	return nodes
}

func TestTopologyGroup(t *testing.T) {
	all := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	t.Run("by rack", func(t *testing.T) {
		nodes := rackNodes(2, 12, 2) // 24 racks, 48 nodes
		topo := newTopology(nodes)
		groups, level := topo.group(all(len(nodes)))
		if level != 1 || len(groups) != 24 {
			t.Fatalf("level %d, %d groups", level, len(groups))
		}
		first, third := groups[0], groups[2]
		if first.label != "zone z0 › rack r0 · 2 nodes" || first.title != "topology.kubernetes.io/zone=z0, example.com/rack=r0" {
			t.Errorf("first group %q (%q)", first.label, first.title)
		}
		if third.label != "zone z0 › rack r2 · 2 nodes" || groups[10].label != "zone z0 › rack r10 · 2 nodes" {
			t.Errorf("racks not in natural order: %q, %q", third.label, groups[10].label)
		}
		if names := []string{nodes[first.nodes[0]].Name, nodes[first.nodes[1]].Name}; !slices.Equal(names, []string{"n-z0-r0-0", "n-z0-r0-1"}) {
			t.Errorf("first rack holds %v, want input order", names)
		}
	})
	t.Run("by zone when racks are too many", func(t *testing.T) {
		nodes := rackNodes(2, 20, 1) // 40 racks
		groups, level := newTopology(nodes).group(all(len(nodes)))
		if level != 0 || len(groups) != 2 || groups[1].label != "zone z1 · 20 nodes" {
			t.Errorf("level %d, groups %d, second %q", level, len(groups), groups[len(groups)-1].label)
		}
	})
	t.Run("not grouped when zones are too many", func(t *testing.T) {
		nodes := rackNodes(40, 1, 1)
		groups, level := newTopology(nodes).group(all(len(nodes)))
		if level != -1 || len(groups) != 1 || len(groups[0].nodes) != 40 || nodes[groups[0].nodes[2]].Name != "n-z2-r0-0" {
			t.Errorf("level %d, %d groups", level, len(groups))
		}
	})
	t.Run("nodes without the label come last", func(t *testing.T) {
		nodes := []report.Node{{Name: "bare"}, {Name: "z", Labels: map[string]string{"topology.kubernetes.io/zone": "z"}}}
		groups, _ := newTopology(nodes).group([]int{0, 1})
		if len(groups) != 2 || groups[1].label != "zone (none) · 1 node" || groups[1].nodes[0] != 0 {
			t.Errorf("groups %+v", groups)
		}
	})
}

func TestBandSize(t *testing.T) {
	g := func(sizes ...int) []heatGroup {
		var out []heatGroup
		for _, n := range sizes {
			out = append(out, heatGroup{nodes: make([]int, n)})
		}
		return out
	}
	for _, c := range []struct {
		groups []heatGroup
		want   int
	}{
		{g(100), 1}, {g(101), 2}, {g(250), 3}, {g(5000), 50},
		{g(60, 60), 2},                 // 30 + 30 rows
		{g(99, 1, 1), 2},               // 50 + 1 + 1
		{g(10, 10, 10, 10, 10, 51), 2}, // 5*5 + 26
	} {
		if got := bandSize(c.groups); got != c.want {
			t.Errorf("bandSize(%d groups) = %d, want %d", len(c.groups), got, c.want)
		}
	}
}

func TestHeatmapByTopology(t *testing.T) {
	r := &report.Report{Summary: report.Summary{VirtualSeconds: 100}}
	for _, n := range rackNodes(2, 3, 30) { // 180 nodes in 6 racks of 30
		n.Allocatable = map[string]int64{"cpu": 1000}
		r.Nodes = append(r.Nodes, n)
	}
	r.Lifetimes = []report.Lifetime{{Pod: "d/p", Node: "n-z1-r2-0", End: 100, Requests: map[string]int64{"cpu": 1000}}}
	hv, hd := heatmapOf(newTimeline(r), "cpu")
	// Six racks of 30 nodes in bands of 2: 90 rows under 6 headers.
	if len(hv.Headers) != 6 || len(hd.Rows) != 90 || hv.Headers[5].Label != "zone z1 › rack r2 · 30 nodes" {
		t.Fatalf("%d headers, %d rows, last header %q", len(hv.Headers), len(hd.Rows), hv.Headers[len(hv.Headers)-1].Label)
	}
	last := len(hd.Rows) - 15 // the first band of the last rack
	if hd.Rows[last] != "n-z1-r2-0 … n-z1-r2-1 (2 nodes)\ntopology.kubernetes.io/zone=z1, example.com/rack=r2" || hd.V[last][0] != 50 || hd.Max[last][0] != 100 {
		t.Errorf("row %q = %d%% (busiest %d%%)", hd.Rows[last], hd.V[last][0], hd.Max[last][0])
	}
	// Rows sit below their header; the tooltip finds them by their tops.
	if hd.Y[0] != chartTop+heatHeaderH || hd.Y[15] != chartTop+2*heatHeaderH+15*hv.RowH || hv.AxisY != chartTop+6*heatHeaderH+90*hv.RowH {
		t.Errorf("tops %v, axis %d", hd.Y[:16], hv.AxisY)
	}
	for _, want := range []string{"180 nodes offer cpu, shown as 90 rows of up to 2 consecutive nodes each (topology order)",
		"Nodes are sorted by zone (topology.kubernetes.io/zone), then rack (example.com/rack), then input order, under a header per zone and rack."} {
		if !strings.Contains(hv.Note, want) {
			t.Errorf("note %q lacks %q", hv.Note, want)
		}
	}
}
