package labeldomain

import (
	"maps"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Options shape the domains a Nodes numbers.
type Options struct {
	// EmptyDomain numbers the value "" in every key, whether a node carries it or not, so
	// that a plugin can treat a node lacking the key as if its value were "".
	EmptyDomain bool
}

// Nodes is a list of the snapshot's nodes with, for each topology key in use, the domain
// of every node, built on first use. A cycle keeps the Nodes it started with: Follow never
// changes one but returns another, so a cycle never sees another list.
type Nodes struct {
	opts Options
	// infos and nodes are the NodeInfos and their node objects, by position. infos may be
	// shared with the Nodes Follow makes from this one: neither is ever written.
	infos []*framework.NodeInfo
	nodes []*v1.Node

	mu   sync.Mutex // guards keys, which grow as keys come into use
	keys map[string]*KeyDomains
}

// KeyDomains are the domains of one label key over a Nodes' list. They never change.
type KeyDomains struct {
	Index // Of by the node's position
	infos []*framework.NodeInfo
}

// NewNodes lists the nodes of infos, with no key built yet.
func NewNodes(infos []*framework.NodeInfo, opts Options) *Nodes {
	nodes := make([]*v1.Node, len(infos))
	for i, ni := range infos {
		nodes[i] = ni.Node()
	}
	return &Nodes{opts: opts, infos: slices.Clone(infos), nodes: nodes, keys: map[string]*KeyDomains{}}
}

// Infos returns the NodeInfos, by position. The caller must not write to it.
func (n *Nodes) Infos() []*framework.NodeInfo { return n.infos }

// Objects returns the node objects, by position. The caller must not write to it.
func (n *Nodes) Objects() []*v1.Node { return n.nodes }

// Len returns the number of nodes.
func (n *Nodes) Len() int { return len(n.nodes) }

// Follow returns the Nodes of infos: n itself when they are n's NodeInfos holding n's node
// objects; a copy sharing n's NodeInfos and built keys when only node objects changed and
// none moved to another domain of a built key; and a fresh Nodes otherwise (a node came,
// went, moved or was renamed, or a built key's domains changed).
func (n *Nodes) Follow(infos []*framework.NodeInfo) *Nodes {
	if len(infos) != len(n.infos) {
		return NewNodes(infos, n.opts)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var nodes []*v1.Node // made at the first node object that changed
	for i, ni := range infos {
		if ni != n.infos[i] {
			return NewNodes(infos, n.opts)
		}
		node := ni.Node()
		if node == n.nodes[i] {
			continue
		}
		if node.Name != n.nodes[i].Name || n.movedLocked(i, node) {
			return NewNodes(infos, n.opts)
		}
		if nodes == nil {
			nodes = slices.Clone(n.nodes)
		}
		nodes[i] = node
	}
	if nodes == nil {
		return n
	}
	return &Nodes{opts: n.opts, infos: n.infos, nodes: nodes, keys: maps.Clone(n.keys)}
}

// movedLocked reports whether node, the new object at position i, is in another domain
// than the old one of some built key.
func (n *Nodes) movedLocked(i int, node *v1.Node) bool {
	for _, k := range n.keys {
		if k.Lookup(node.Labels) != k.Of[i] {
			return true
		}
	}
	return false
}

// SharesInfos reports whether n and o hold the very same list of NodeInfos: one is the
// other, or was made from it by Follow without starting afresh. What a caller keeps by a
// node's position or name then holds for both.
func (n *Nodes) SharesInfos(o *Nodes) bool {
	return len(n.infos) == len(o.infos) && (len(n.infos) == 0 || &n.infos[0] == &o.infos[0])
}

// Key returns the domains of a label key, building them on first use.
func (n *Nodes) Key(name string) *KeyDomains {
	n.mu.Lock()
	defer n.mu.Unlock()
	if k := n.keys[name]; k != nil {
		return k
	}
	k := &KeyDomains{Index: Build(n.nodes, name), infos: n.infos}
	if n.opts.EmptyDomain {
		k.Number("")
	}
	n.keys[name] = k
	return k
}

// DomainOf returns a node's domain: read by its position when it is one of the list's
// nodes, looked up from its labels otherwise (Missing without the key, Unknown when no
// node of the list has its value).
func (k *KeyDomains) DomainOf(ni *framework.NodeInfo) int32 {
	if i := ni.Index; i < len(k.infos) && k.infos[i] == ni {
		return k.Of[i]
	}
	return k.Lookup(ni.Node().Labels)
}

// Follower keeps the Nodes of a snapshot's nodes from cycle to cycle, so that a cycle reads
// no node's labels: it looks at the nodes only when some came or went or some node's
// labels, taints or cordon changed. It is safe for concurrent use.
type Follower struct {
	// Options are those of every Nodes it makes; set them before the first Follow.
	Options Options

	mu  sync.Mutex
	cur *Nodes
	// layout and static are the snapshot's layout version and the newest static
	// generation when cur was last checked.
	layout uint64
	static int64
}

// Follow returns the Nodes of the snapshot's nodes: the one it last returned unless
// Nodes.Follow finds a change.
func (f *Follower) Follow(snap framework.Snapshot) *Nodes {
	f.mu.Lock()
	defer f.mu.Unlock()
	layout, static := snap.LayoutVersion(), framework.LastStaticGeneration()
	if f.cur != nil && layout == f.layout && static == f.static {
		return f.cur
	}
	if f.cur == nil {
		f.cur = NewNodes(snap.NodeInfos(), f.Options)
	} else {
		f.cur = f.cur.Follow(snap.NodeInfos())
	}
	f.layout, f.static = layout, static
	return f.cur
}
