package topologyplacement

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// domain is a value of one topology level inside its parent domain: the nodes that carry
// the parent's values and this one.
type domain struct {
	key, value string
	// name is "key=value" of every level from the top, for messages.
	name     string
	depth    int
	nodes    []*framework.NodeInfo
	children []*domain
	// set is nodes as a framework.NodeSet, the same one in every cycle while the tree
	// stands, so what placement and preemption remember about the domain is found
	// without reading its nodes.
	set *framework.NodeSet
}

// domainTree is the cluster split by a list of label keys, coarse to fine. The root is the
// whole cluster (depth -1); a node without a level's label belongs to no domain of that
// level or any finer one.
type domainTree struct {
	root *domain
	// layout and static tell when the tree must be rebuilt: nodes added or removed, or a
	// node's labels changed.
	layout uint64
	static int64
	// placements are the group placements of the tree when no running member pins the
	// group, by the index of the finest Required level: every gang of a wave asks for the
	// same ones, and building them (one Placement a domain, 8,125 racks at 130,000 nodes)
	// was a tenth of a gang's cycle. Shared by every cycle while the tree stands, so they
	// must never be written once generated: see unpinned.
	placements map[int][]*framework.Placement
}

// buildTree splits nodes by keys. Children keep the order in which their first node
// appears, so the result follows the snapshot's stable node order.
func buildTree(nodes []*framework.NodeInfo, keys []string) *domain {
	root := &domain{depth: -1, name: "the cluster", nodes: nodes}
	type childIndex map[string]*domain
	index := map[*domain]childIndex{}
	for _, n := range nodes {
		labels := n.Node().Labels
		parent := root
		for depth, key := range keys {
			v, ok := labels[key]
			if !ok {
				break
			}
			idx := index[parent]
			if idx == nil {
				idx = childIndex{}
				index[parent] = idx
			}
			child := idx[v]
			if child == nil {
				name := key + "=" + v
				if parent.depth >= 0 {
					name = parent.name + ", " + name
				}
				child = &domain{key: key, value: v, name: name, depth: depth}
				idx[v] = child
				parent.children = append(parent.children, child)
			}
			child.nodes = append(child.nodes, n)
			parent = child
		}
	}
	var sets func(d *domain)
	sets = func(d *domain) {
		d.set = framework.NewNodeSet(d.nodes)
		for _, c := range d.children {
			sets(c)
		}
	}
	sets(root)
	return root
}

// containing returns the child of d whose nodes include every node in on, or nil when
// they are spread over several children or some is in none.
func (d *domain) containing(on map[*framework.NodeInfo]bool) *domain {
	var found *domain
	for _, c := range d.children {
		n := 0
		for _, node := range c.nodes {
			if on[node] {
				n++
			}
		}
		switch {
		case n == 0:
			continue
		case n < len(on) || found != nil:
			return nil
		}
		found = c
	}
	return found
}
