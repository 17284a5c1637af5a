package interpodaffinity

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// termIndex finds the terms of existing pods that an incoming pod matches without testing
// every term on every cycle. Upstream tests every required anti-affinity term in the
// cluster for every pod it schedules (and every scoring term in PreScore); with thousands
// of such pods that scan dominated the cycle. Here terms are filed under a label their
// selector requires (key=value for Equals and In, key alone for Exists) and an incoming pod
// only looks under its own labels; the few terms whose selectors require no label (NotIn,
// DoesNotExist, empty) are always tested.
//
// Each use first brings the index up to date. The snapshot's journal
// (Snapshot.AffinityChangesSince, decision 54) names the nodes on which a pod with
// affinity terms was added or removed since the index last caught up, rollbacks
// included; only those are looked at, so a use costs what changed, not the cluster. When
// the journal cannot tell (first use, nodes added or removed, the index too far behind)
// every listed node is walked: a node whose pod list (by identity) differs from what was
// indexed is re-indexed, and nodes gone from the list are dropped. Either way a node is
// judged by its pods, never its Generation: across Checkpoint/Rollback a node's
// Generation may come back to an earlier value with other pods.
// PodInfos never change their labels or terms (the cache replaces the PodInfo instead).
type termIndex struct {
	mu sync.Mutex
	// podsOf lists a node's pods whose terms are indexed; termsOf enumerates a pod's terms
	// with the weight each contributes.
	podsOf  func(*framework.NodeInfo) []*framework.PodInfo
	termsOf func(p *framework.PodInfo, fn func(t *framework.AffinityTerm, weight int64))
	// changes is the snapshot's journal (nil: walk every time); pos is where the index
	// caught up to in it.
	changes func(from uint64) ([]*framework.NodeInfo, uint64, bool)
	pos     uint64
	// walked says order is valid: no catch-up from the journal since the last walk.
	walked bool

	nodes map[*framework.NodeInfo]*indexedNode
	// order mirrors the snapshot's node list as of the last walk, so that the common case
	// (same node at the same position, same pods) is confirmed without a map lookup.
	order   []orderSlot
	byValue map[string]map[string][]termRef // label key, value
	byKey   map[string][]termRef            // terms requiring only that a key exists
	rest    []termRef                       // terms requiring no label
	stamp   uint64
}

// indexedNode is what was indexed of a node: its pods as they were.
type indexedNode struct {
	pods  []*framework.PodInfo
	stamp uint64
}

type orderSlot struct {
	node  *framework.NodeInfo
	first *framework.PodInfo // pods[0], the whole list for most nodes
	n     int                // len(pods)
	e     *indexedNode
}

// same reports whether the slot's node still has the pods indexed for it.
func (s *orderSlot) same(n *framework.NodeInfo, pods []*framework.PodInfo) bool {
	if s.node != n || len(pods) != s.n || len(pods) == 0 || pods[0] != s.first {
		return false
	}
	return len(pods) == 1 || slices.Equal(pods, s.e.pods)
}

// termRef is a term of a pod running on a node.
type termRef struct {
	node   *framework.NodeInfo
	term   *framework.AffinityTerm
	weight int64
}

func newTermIndex(changes func(uint64) ([]*framework.NodeInfo, uint64, bool),
	podsOf func(*framework.NodeInfo) []*framework.PodInfo,
	termsOf func(*framework.PodInfo, func(*framework.AffinityTerm, int64))) *termIndex {
	return &termIndex{
		changes: changes,
		podsOf:  podsOf,
		termsOf: termsOf,
		nodes:   map[*framework.NodeInfo]*indexedNode{},
		byValue: map[string]map[string][]termRef{},
		byKey:   map[string][]termRef{},
	}
}

// forEachMatching calls fn for every term of the pods on nodes (the snapshot's list the
// index follows) that matches pod p in a namespace with labels nsLabels. Should another
// goroutine be using the index, it scans instead of waiting: same answer, slower.
func (x *termIndex) forEachMatching(nodes []*framework.NodeInfo, p *framework.PodInfo, nsLabels labels.Set, fn func(termRef)) {
	visit := func(r termRef) {
		if r.term.Matches(p, nsLabels) {
			fn(r)
		}
	}
	if !x.mu.TryLock() {
		scanTerms(nodes, x.podsOf, x.termsOf, visit)
		return
	}
	defer x.mu.Unlock()
	x.sync(nodes)
	for k, v := range p.Pod.Labels {
		if byValue := x.byValue[k]; byValue != nil {
			for _, r := range byValue[v] {
				visit(r)
			}
		}
		for _, r := range x.byKey[k] {
			visit(r)
		}
	}
	for _, r := range x.rest {
		visit(r)
	}
}

// scanTerms visits every term of every pod on the nodes: the unindexed way.
func scanTerms(nodes []*framework.NodeInfo, podsOf func(*framework.NodeInfo) []*framework.PodInfo,
	termsOf func(*framework.PodInfo, func(*framework.AffinityTerm, int64)), fn func(termRef)) {
	for _, n := range nodes {
		for _, p := range podsOf(n) {
			termsOf(p, func(t *framework.AffinityTerm, w int64) { fn(termRef{node: n, term: t, weight: w}) })
		}
	}
}

// sync brings the index in line with the nodes and their pods: from the journal when it
// can tell what changed, else by walking the nodes.
func (x *termIndex) sync(nodes []*framework.NodeInfo) {
	if x.changes == nil {
		x.walk(nodes)
		return
	}
	changed, now, ok := x.changes(x.pos)
	if !ok {
		x.walk(nodes)
		x.pos = now
		return
	}
	for _, n := range changed {
		x.refresh(n)
	}
	x.pos = now
	if len(changed) > 0 {
		x.walked = false
	}
}

// refresh re-indexes one node the journal names: a live node, listed exactly when it has
// pods whose terms are indexed.
func (x *termIndex) refresh(n *framework.NodeInfo) {
	pods := x.podsOf(n)
	e := x.nodes[n]
	switch {
	case e == nil:
		if len(pods) > 0 {
			e = &indexedNode{pods: slices.Clone(pods)}
			x.nodes[n] = e
			x.indexNode(n, e.pods, true)
		}
	case slices.Equal(e.pods, pods):
	case len(pods) == 0:
		x.indexNode(n, e.pods, false)
		delete(x.nodes, n)
	default:
		x.indexNode(n, e.pods, false)
		e.pods = append(e.pods[:0], pods...)
		x.indexNode(n, e.pods, true)
	}
}

// walk brings the index in line with every listed node.
func (x *termIndex) walk(nodes []*framework.NodeInfo) {
	if !x.walked {
		// Entries were re-indexed or dropped since order was written: its slots would
		// vouch for pods no longer indexed.
		clear(x.order[:cap(x.order)])
		x.walked = true
	}
	if cap(x.order) < len(nodes) {
		x.order = slices.Grow(x.order[:0], len(nodes))
	}
	x.order = x.order[:len(nodes)]
	for i, n := range nodes {
		pods := x.podsOf(n)
		slot := &x.order[i]
		if slot.e != nil && slot.same(n, pods) {
			continue
		}
		e := x.nodes[n]
		if e == nil {
			e = &indexedNode{pods: slices.Clone(pods)}
			x.nodes[n] = e
			x.indexNode(n, e.pods, true)
		} else if !slices.Equal(e.pods, pods) {
			x.indexNode(n, e.pods, false)
			e.pods = append(e.pods[:0], pods...)
			x.indexNode(n, e.pods, true)
		}
		*slot = orderSlot{node: n, n: len(pods), e: e}
		if len(pods) > 0 {
			slot.first = pods[0]
		}
	}
	// Every listed node is indexed; more indexed nodes than listed means some left.
	if len(x.nodes) > len(nodes) {
		x.stamp++
		for _, n := range nodes {
			x.nodes[n].stamp = x.stamp
		}
		for n, e := range x.nodes {
			if e.stamp != x.stamp {
				x.indexNode(n, e.pods, false)
				delete(x.nodes, n)
			}
		}
	}
	clear(x.order[len(nodes):cap(x.order)])
}

// indexNode files (add) or unfiles (!add) the terms of a node's pods.
func (x *termIndex) indexNode(n *framework.NodeInfo, pods []*framework.PodInfo, add bool) {
	for _, p := range pods {
		x.termsOf(p, func(t *framework.AffinityTerm, w int64) {
			r := termRef{node: n, term: t, weight: w}
			if add {
				x.file(r, func(refs []termRef) []termRef { return append(refs, r) })
			} else {
				x.file(r, func(refs []termRef) []termRef { return removeRef(refs, n, t) })
			}
		})
	}
}

// file applies update to every list the term belongs in: under each value of its first
// Equals or In requirement, else under the key of its first Exists requirement, else in
// rest. A selector matching nothing is filed nowhere.
func (x *termIndex) file(r termRef, update func([]termRef) []termRef) {
	reqs, selectable := r.term.Selector.Requirements()
	if !selectable {
		return
	}
	for i := range reqs {
		switch reqs[i].Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			key := reqs[i].Key()
			byValue := x.byValue[key]
			if byValue == nil {
				byValue = map[string][]termRef{}
				x.byValue[key] = byValue
			}
			values := reqs[i].ValuesUnsorted()
			for j, v := range values {
				if slices.Contains(values[:j], v) {
					continue // a value listed twice must not file the term twice
				}
				if refs := update(byValue[v]); len(refs) > 0 {
					byValue[v] = refs
				} else {
					delete(byValue, v)
				}
			}
			if len(byValue) == 0 {
				delete(x.byValue, key)
			}
			return
		}
	}
	for i := range reqs {
		if reqs[i].Operator() == selection.Exists {
			key := reqs[i].Key()
			if refs := update(x.byKey[key]); len(refs) > 0 {
				x.byKey[key] = refs
			} else {
				delete(x.byKey, key)
			}
			return
		}
	}
	x.rest = update(x.rest)
}

// removeRef removes the term's entry for the node. A term belongs to one pod, but the pod
// may have moved: a simulation adds the same PodInfo to one node, rolls it back and adds
// it to another, and a walk may file it on the new node before unfiling it from the old.
func removeRef(refs []termRef, n *framework.NodeInfo, t *framework.AffinityTerm) []termRef {
	for i := range refs {
		if refs[i].term == t && refs[i].node == n {
			last := len(refs) - 1
			refs[i] = refs[last]
			refs[last] = termRef{}
			return refs[:last]
		}
	}
	return refs
}
