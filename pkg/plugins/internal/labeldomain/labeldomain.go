// Package labeldomain numbers the values a node label key takes over a list of nodes: the
// topology domains PodTopologySpread and InterPodAffinity count pods in. A node's domain
// is then a small integer read by the node's position, so the per-node Filter and Score
// calls hash no label.
package labeldomain

import v1 "k8s.io/api/core/v1"

// Domains a lookup can return besides a value's number.
const (
	// Missing is the domain of a node without the key: it is in none.
	Missing int32 = -1
	// Unknown is the domain of a value the index did not number (a node outside the list
	// it was built from): no count can be for it.
	Unknown int32 = -2
)

// Index is the domains of one label key over a list of nodes.
type Index struct {
	Key    string
	Values []string         // by domain
	IDs    map[string]int32 // label value to domain
	Of     []int32          // by the node's position in the list; Missing without the key
}

// Build numbers the values of key over nodes, in the order the nodes first carry them.
func Build(nodes []*v1.Node, key string) Index {
	x := Index{Key: key, IDs: map[string]int32{}, Of: make([]int32, len(nodes))}
	for i, n := range nodes {
		v, ok := n.Labels[key]
		if !ok {
			x.Of[i] = Missing
			continue
		}
		x.Of[i] = x.Number(v)
	}
	return x
}

// Number returns a value's domain, numbering it if no node had it yet.
func (x *Index) Number(v string) int32 {
	id, seen := x.IDs[v]
	if !seen {
		id = int32(len(x.Values))
		x.IDs[v] = id
		x.Values = append(x.Values, v)
	}
	return id
}

// Lookup finds the domain of a node from its labels, for a node not in the list.
func (x *Index) Lookup(labels map[string]string) int32 {
	v, ok := labels[x.Key]
	if !ok {
		return Missing
	}
	if id, ok := x.IDs[v]; ok {
		return id
	}
	return Unknown
}
