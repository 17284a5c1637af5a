package html

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// topologyLevels are the node labels the heatmap groups rows by, coarsest first. A level
// uses its well-known key when some node carries it; otherwise, for block and rack, the key
// ending in "/block" or "/rack" that most nodes carry (then the first by name), so that
// clusters labelled under their own domain group too. Only the first match of each level
// counts: one key per level keeps the order a tree.
var topologyLevels = []struct{ name, key, suffix string }{
	{"zone", "topology.kubernetes.io/zone", ""},
	{"block", "example.com/block", "/block"},
	{"rack", "example.com/rack", "/rack"},
}

// topology is where the nodes are: the levels found and each node's value at each level ("" when
// the node lacks the label).
type topology struct {
	names []string   // zone, block, rack: the levels present, coarsest first
	keys  []string   // their label keys
	path  [][]string // by node index
}

func newTopology(nodes []report.Node) *topology {
	t := &topology{}
	for _, lvl := range topologyLevels {
		count := map[string]int{}
		for _, n := range nodes {
			for k, v := range n.Labels {
				if v != "" && (k == lvl.key || lvl.suffix != "" && strings.HasSuffix(k, lvl.suffix)) {
					count[k]++
				}
			}
		}
		best := lvl.key
		if count[best] == 0 {
			best = ""
			for k, c := range count {
				if best == "" || c > count[best] || c == count[best] && k < best {
					best = k
				}
			}
		}
		if best != "" {
			t.names, t.keys = append(t.names, lvl.name), append(t.keys, best)
		}
	}
	for _, n := range nodes {
		p := make([]string, len(t.keys))
		for i, k := range t.keys {
			p[i] = n.Labels[k]
		}
		t.path = append(t.path, p)
	}
	return t
}

// heatGroup is a run of nodes that share their topology down to the grouping level.
type heatGroup struct {
	label, title string // empty when the heatmap is not grouped
	nodes        []int
}

// group orders nodes by topology (each level in natural order, nodes without the label
// after the others, then input order) and splits them at the finest level that gives at
// most heatMaxGroups groups. level is -1 when the nodes are not grouped: no topology
// labels, or too many groups even by zone.
func (t *topology) group(nodes []int) (groups []heatGroup, level int) {
	if len(t.keys) == 0 || len(nodes) == 0 {
		return []heatGroup{{nodes: nodes}}, -1
	}
	sorted := slices.Clone(nodes)
	slices.SortStableFunc(sorted, func(a, b int) int { return t.compare(t.path[a], t.path[b]) })
	for level = len(t.keys) - 1; level >= 0; level-- {
		groups = groups[:0]
		for _, i := range sorted {
			if n := len(groups); n > 0 && slices.Equal(t.path[i][:level+1], t.path[groups[n-1].nodes[0]][:level+1]) {
				groups[n-1].nodes = append(groups[n-1].nodes, i)
				continue
			}
			groups = append(groups, heatGroup{nodes: []int{i}})
			if len(groups) > heatMaxGroups {
				break
			}
		}
		if len(groups) <= heatMaxGroups {
			break
		}
	}
	if level < 0 {
		return []heatGroup{{nodes: sorted}}, -1
	}
	for gi := range groups {
		g := &groups[gi]
		var label, title []string
		for l, v := range t.path[g.nodes[0]][:level+1] {
			if v == "" {
				v = "(none)"
			}
			label = append(label, t.names[l]+" "+v)
			title = append(title, t.keys[l]+"="+v)
		}
		g.label = strings.Join(label, " › ") + " · " + strconv.Itoa(len(g.nodes)) + " node" + plural(len(g.nodes))
		g.title = strings.Join(title, ", ")
	}
	return groups, level
}

// describe says how the heatmap's rows are ordered, for its note.
func (t *topology) describe(level int) string {
	if len(t.keys) == 0 {
		return ""
	}
	var by []string
	for i, name := range t.names {
		by = append(by, name+" ("+t.keys[i]+")")
	}
	s := " Nodes are sorted by " + strings.Join(by, ", then ") + ", then input order"
	if level >= 0 {
		s += ", under a header per " + strings.Join(t.names[:level+1], " and ")
	}
	return s + "."
}

func (t *topology) compare(a, b []string) int {
	for l := range a {
		switch {
		case a[l] == b[l]:
			continue
		case a[l] == "":
			return 1
		case b[l] == "":
			return -1
		}
		return naturalCompare(a[l], b[l])
	}
	return 0
}

// naturalCompare orders strings with runs of digits compared as numbers, so rack-2 comes
// before rack-10; strings that differ only in leading zeros fall back to byte order.
func naturalCompare(a, b string) int {
	x, y := a, b
	for x != "" && y != "" {
		dx, dy := digits(x), digits(y)
		if dx > 0 && dy > 0 {
			nx, ny := strings.TrimLeft(x[:dx], "0"), strings.TrimLeft(y[:dy], "0")
			if c := cmp.Or(cmp.Compare(len(nx), len(ny)), strings.Compare(nx, ny)); c != 0 {
				return c
			}
			x, y = x[dx:], y[dy:]
			continue
		}
		if x[0] != y[0] {
			return cmp.Compare(x[0], y[0])
		}
		x, y = x[1:], y[1:]
	}
	return cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(a, b))
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// bandSize is the fewest consecutive nodes per row that keeps the heatmap within
// heatMaxRows rows, bands never crossing a group.
func bandSize(groups []heatGroup) int {
	total, largest := 0, 1
	for _, g := range groups {
		total += len(g.nodes)
		largest = max(largest, len(g.nodes))
	}
	for band := max(1, (total+heatMaxRows-1)/heatMaxRows); ; band++ {
		rows := 0
		for _, g := range groups {
			rows += (len(g.nodes) + band - 1) / band
		}
		if rows <= heatMaxRows || band >= largest {
			return band
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
