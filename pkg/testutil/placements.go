package testutil

import (
	"fmt"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// DescribePlacements renders placements in order, one a line, with every field a search
// reads: level, rank, packing weight, name, nodes, the node set's nodes, parent, children
// (in order, each marked when its Parent is not the placement) and device domain. Equal
// renderings mean equal placements to a search; tests compare placements by it.
func DescribePlacements(ps []*framework.Placement) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "level %d rank %d pack %d %q nodes %s", p.Level, p.Rank, p.PackWeight, p.Name, nodeNames(p.Nodes))
		if p.Set != nil {
			fmt.Fprintf(&b, " set %s", nodeNames(p.Set.Nodes))
		}
		if p.Parent != nil {
			fmt.Fprintf(&b, " parent %q", p.Parent.Name)
		}
		if len(p.Children) > 0 {
			b.WriteString(" children")
			for _, c := range p.Children {
				fmt.Fprintf(&b, " %q", c.Name)
				if c.Parent != p {
					b.WriteString("(another parent)")
				}
			}
		}
		if p.Devices != nil {
			fmt.Fprintf(&b, " devices %q", p.Devices.Name)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func nodeNames(nodes []*framework.NodeInfo) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return "[" + strings.Join(names, " ") + "]"
}
