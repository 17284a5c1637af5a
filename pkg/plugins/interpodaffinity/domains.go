package interpodaffinity

import (
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

// domainIndex resolves, once per layout of the snapshot's nodes rather than once per cycle,
// every node to its domain for each topology key in use: a small integer by NodeInfo.Index.
// Filter then finds a node's counts with slice reads instead of hashing the node's label
// value (and the key) per node, which at scale is most of the plugin's time.
type domainIndex struct {
	mu  sync.Mutex
	cur *nodeDomains
	// layout and static are the snapshot's layout version and the newest static
	// generation when cur was last checked.
	layout uint64
	static int64
}

// nodeDomains is the index for one set of node objects. A cycle's state keeps the one it
// started with: a later change builds a new one, so the state never sees another layout.
type nodeDomains struct {
	mu    sync.Mutex // guards keys, which grow as keys come into use
	infos []*framework.NodeInfo
	nodes []*v1.Node
	keys  map[string]*keyDomains
}

// keyDomains maps the nodes to the domains of one topology key. It never changes.
type keyDomains struct {
	labeldomain.Index // Of by node index
	infos             []*framework.NodeInfo
}

// domainOf returns the node's domain: -1 when it lacks the key, -2 when its value is no
// domain of the index (a node outside the snapshot, which no count can be for).
func (k *keyDomains) domainOf(n *framework.NodeInfo) int32 {
	if i := n.Index; i < len(k.infos) && k.infos[i] == n {
		return k.Of[i]
	}
	return k.Lookup(n.Node().Labels)
}

// nodes returns the index for the snapshot's nodes, rebuilt when a node came, went or
// changed the value of a key in use.
func (x *domainIndex) nodes(snap framework.Snapshot) *nodeDomains {
	x.mu.Lock()
	defer x.mu.Unlock()
	layout, static := snap.LayoutVersion(), framework.LastStaticGeneration()
	if x.cur != nil && layout == x.layout && static == x.static {
		return x.cur
	}
	x.cur = x.cur.follow(snap.NodeInfos())
	x.layout, x.static = layout, static
	return x.cur
}

// follow returns d if the nodes are d's, a copy sharing d's keys if only node objects
// changed and none moved domain, and a fresh index otherwise.
func (d *nodeDomains) follow(infos []*framework.NodeInfo) *nodeDomains {
	nodes := make([]*v1.Node, len(infos))
	for i, ni := range infos {
		nodes[i] = ni.Node()
	}
	fresh := &nodeDomains{infos: append([]*framework.NodeInfo(nil), infos...), nodes: nodes, keys: map[string]*keyDomains{}}
	if d == nil || len(infos) != len(d.infos) {
		return fresh
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	same := true
	for i, ni := range infos {
		if ni != d.infos[i] {
			return fresh
		}
		if nodes[i] == d.nodes[i] {
			continue
		}
		same = false
		for _, k := range d.keys {
			if k.Lookup(nodes[i].Labels) != k.Of[i] {
				return fresh
			}
		}
	}
	if same {
		return d
	}
	for name, k := range d.keys {
		fresh.keys[name] = k
	}
	return fresh
}

// key returns the domains of a topology key, building them on first use.
func (d *nodeDomains) key(name string) *keyDomains {
	d.mu.Lock()
	defer d.mu.Unlock()
	if k := d.keys[name]; k != nil {
		return k
	}
	k := &keyDomains{Index: labeldomain.Build(d.nodes, name), infos: d.infos}
	d.keys[name] = k
	return k
}
