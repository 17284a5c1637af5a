package podtopologyspread

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

// Constraints' counts are kept from cycle to cycle (decision 75): per namespace, selector
// and the nodes that count (the presence key: required keys, topology key and inclusion
// masks; or per node, for soft hostname constraints), the counts per domain and the position in the changes of the pods
// carrying one label the selector requires (Snapshot.LabelChangesSince). The next pod
// with the same constraint applies the changes since, with PreFilter's own counting rule,
// instead of walking every matching pod: consecutive pods of one controller share their
// constraints, and between two of them only a few of its pods came or went.
//
// Kept counts belong to one generation of the topology (the nodes and the memoised
// masks, which they count through): invalidate drops them with the masks.

// keptKey names one constraint's counts.
type keptKey struct {
	namespace, selector string
	nodes               presenceKey
	perNode             bool
}

type keptCounts struct {
	pos    framework.LabelPosition
	counts []int32 // by countRule.slot
}

// Kept counts are bounded in number and in slots (4 bytes each, 16 MB in all): a
// hostname constraint at 130,000 nodes keeps half a MB. make bench-sim keeps two for each
// of its 200 apps (zones and hosts, at 5,000 nodes).
const (
	maxKeptCounts = 1024
	maxKeptSlots  = 1 << 22
)

// countRule says where a matching pod on node n counts, as PreFilter and PreScore count:
// per node for soft hostname constraints (a node's own pods, whatever the policies), else
// in the node's domain of keys when the node carries every required key and passes the
// masks (the domain of "" for a node lacking keys, which only soft constraints under the
// system defaults, with no required keys, reach).
type countRule struct {
	required []*labeldomain.KeyDomains
	keys     *labeldomain.KeyDomains
	aff, tnt *nodeMask
	perNode  bool
	numNodes int
}

func (r *countRule) slots() int {
	if r.perNode {
		return r.numNodes
	}
	return len(r.keys.Values)
}

// slot is where a pod on node n counts, -1 for nowhere.
func (r *countRule) slot(n int32) int32 {
	switch {
	case r.perNode:
		return n
	case !carriesAll(r.required, n) || (r.aff != nil && !r.aff.ok[n]) || (r.tnt != nil && !r.tnt.ok[n]):
		return -1
	}
	if d := r.keys.Of[n]; d >= 0 {
		return d
	}
	return emptyID(r.keys)
}

// followedLabel is the label whose changes a selector's counts follow: its first
// requirement of one value (key=value, key==value, key in (value)). exact says it is the
// only requirement, so a pod carrying the label matches. ok is false when the selector
// requires no single value: such counts are walked each time.
func followedLabel(sel labels.Selector) (key, value string, exact, ok bool) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return "", "", false, false
	}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if vs := r.ValuesUnsorted(); len(vs) == 1 {
				return r.Key(), vs[0], len(reqs) == 1, true
			}
		}
	}
	return "", "", false, false
}

// keptCountsOf brings the counts of the pods of namespace ns matching sel, by the rule,
// up to date and returns them (valid until the next call), or nil when they cannot be
// kept (the selector follows no label). nodes is the rule's nodesKey. Called with t.mu
// held.
func (t *topology) keptCountsOf(snap framework.Snapshot, ns string, sel labels.Selector, r *countRule, nodes presenceKey) []int32 {
	key, value, exact, ok := followedLabel(sel)
	if !ok {
		return nil
	}
	if r.perNode {
		nodes = presenceKey{}
	}
	k := keptKey{namespace: ns, selector: sel.String(), nodes: nodes, perNode: r.perNode}
	kc := t.kept[k]
	var changes []framework.LabelChange
	var caughtUp bool
	if kc != nil && len(kc.counts) == r.slots() {
		changes, kc.pos, caughtUp = snap.LabelChangesSince(key, value, kc.pos)
	}
	if !caughtUp {
		kc = t.keep(k, r.slots())
		// No change comes between the position and the walk: the snapshot is not
		// modified while a cycle reads it.
		_, kc.pos, _ = snap.LabelChangesSince(key, value, framework.LabelPosition{})
		t.countInto(snap, ns, sel, r, kc.counts)
	}
	for _, ch := range changes {
		if ch.Namespace != ns || (!exact && !sel.Matches(labels.Set(ch.Labels))) {
			continue
		}
		if n := t.idx.of(ch.Node); n >= 0 {
			if i := r.slot(n); i >= 0 {
				kc.counts[i] += ch.Delta
			}
		}
	}
	return kc.counts
}

// keep makes room for zeroed counts under k.
func (t *topology) keep(k keptKey, slots int) *keptCounts {
	if old := t.kept[k]; old != nil {
		t.keptSlots -= len(old.counts)
	}
	if t.kept == nil || len(t.kept) >= maxKeptCounts || t.keptSlots+slots > maxKeptSlots {
		t.kept = map[keptKey]*keptCounts{}
		t.keptSlots = 0
	}
	kc := &keptCounts{counts: make([]int32, slots)}
	t.kept[k] = kc
	t.keptSlots += slots
	return kc
}

// countInto walks the matching pods into counts, with the rule of forEachCounted's
// callers: not terminating, on an indexed node, in the rule's slot.
func (t *topology) countInto(snap framework.Snapshot, ns string, sel labels.Selector, r *countRule, counts []int32) {
	inNamespace := func(v string) bool { return v == ns }
	snap.ForEachPodMatching(inNamespace, sel, func(q *framework.PodInfo) bool {
		if q.Terminating {
			return true
		}
		if n, ok := t.idx.byName[q.NodeName]; ok {
			if i := r.slot(n); i >= 0 {
				counts[i]++
			}
		}
		return true
	})
}
