package framework

// Domain is a set of nodes a pod group is placed in (a topology placement, or the part of
// the cluster a preemption considers), passed to filtering so that only its nodes are
// candidates. A nil *Domain is the whole cluster.
type Domain struct {
	// Nodes are the domain's nodes, in snapshot order.
	Nodes []*NodeInfo
	// in marks them by NodeInfo.Index.
	in []bool
}

// NewDomain makes a domain of nodes; nil nodes is the whole cluster (a nil *Domain).
func NewDomain(nodes []*NodeInfo) *Domain {
	if nodes == nil {
		return nil
	}
	size := 0
	for _, n := range nodes {
		size = max(size, n.Index+1)
	}
	d := &Domain{Nodes: nodes, in: make([]bool, size)}
	for _, n := range nodes {
		d.in[n.Index] = true
	}
	return d
}

// Contains reports whether n may be chosen: the domain holds it, or there is no domain.
func (d *Domain) Contains(n *NodeInfo) bool {
	return d == nil || (n.Index < len(d.in) && d.in[n.Index])
}

// Keep returns the nodes of the list that are in the domain (all of them with no domain).
func (d *Domain) Keep(nodes []*NodeInfo) []*NodeInfo {
	if d == nil {
		return nodes
	}
	kept := make([]*NodeInfo, 0, min(len(nodes), len(d.Nodes)))
	for _, n := range nodes {
		if d.Contains(n) {
			kept = append(kept, n)
		}
	}
	return kept
}

// Len is the number of nodes of the domain, or of all when there is none.
func (d *Domain) Len(all int) int {
	if d == nil {
		return all
	}
	return len(d.Nodes)
}
