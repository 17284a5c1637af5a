package podtopologyspread

import (
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

// topology remembers, across cycles, which domain every node is in for each topology key
// in use (in nodes), so that a cycle does not read every node's labels. It also memoises
// the per-node results of the pod-dependent inclusion policies: nodeAffinityPolicy for
// every node selection (nodeSelector and required node affinity) seen since nodes last
// changed, nodeTaintsPolicy for the last tolerations seen, since consecutive pods usually
// come from one controller.
//
// Everything handed to a cycle (idx, key domains, masks, presences) is immutable: a change
// builds new ones, so a state kept by a cloned CycleState never sees a later cycle's data.
type topology struct {
	mu sync.Mutex
	// follow keeps the snapshot's nodes and their domains; nodes is what it last gave, idx
	// the positions in it.
	follow   labeldomain.Follower
	nodes    *labeldomain.Nodes
	idx      *nodeIndexes
	anyTaint bool // some node has a NoSchedule or NoExecute taint
	// gen changes whenever nodes does; the memos below are valid for one gen.
	gen      uint64
	affinity map[string]*nodeMask // by framework.NodeSelectionKey, for gen
	taints   taintMemo
	presence map[presenceKey]*presence
	// kept are constraints' counts kept up to date (kept.go), keptSlots their size.
	kept      map[keptKey]*keptCounts
	keptSlots int
}

// newTopology keeps, for every key, a domain for the value "": see emptyID.
func newTopology() topology {
	return topology{follow: labeldomain.Follower{Options: labeldomain.Options{EmptyDomain: true}}}
}

// emptyID is the domain of the value "": the system defaults score nodes lacking the key
// as if their value were "", as upstream does.
func emptyID(k *labeldomain.KeyDomains) int32 { return k.IDs[""] }

// nodeMask is a per-node answer of an inclusion policy for one pod spec.
type nodeMask struct{ ok []bool }

// maxAffinityMasks bounds the node selections whose masks are kept (a byte per node
// each): pods interleaving more selections than this start over.
const maxAffinityMasks = 64

type taintMemo struct {
	gen         uint64
	tolerations []v1.Toleration
	mask        *nodeMask
}

// presence says which domains of a key have an eligible node.
type presence struct {
	present []bool // by domain id
	num     int
}

type presenceKey struct {
	required      string // the keys an eligible node must carry
	key           string
	affinity, tnt *nodeMask
}

// sync brings the index up to date with the snapshot's nodes. A changed node object that
// keeps its domains of the keys in use only invalidates the memos; a node that came, went
// or moved also rebuilds the positions.
func (t *topology) sync(snap framework.Snapshot) {
	nodes := t.follow.Follow(snap)
	if nodes == t.nodes {
		return
	}
	if t.nodes == nil || !nodes.SharesInfos(t.nodes) {
		t.idx = newNodeIndexes(nodes.Infos())
	}
	t.nodes = nodes
	t.invalidate()
}

// invalidate drops what depends on node objects beyond the indexed keys.
func (t *topology) invalidate() {
	t.gen++
	t.affinity = map[string]*nodeMask{}
	t.taints = taintMemo{}
	t.presence = map[presenceKey]*presence{}
	t.kept, t.keptSlots = nil, 0
	t.anyTaint = false
	for _, n := range t.nodes.Objects() {
		for i := range n.Spec.Taints {
			if e := n.Spec.Taints[i].Effect; e == v1.TaintEffectNoSchedule || e == v1.TaintEffectNoExecute {
				t.anyTaint = true
				break
			}
		}
	}
}

// key returns the domains of a topology key, building them on first use.
func (t *topology) key(name string) *labeldomain.KeyDomains { return t.nodes.Key(name) }

// affinityMask answers nodeAffinityPolicy Honor for the pod: nil when its nodeSelector and
// required node affinity accept every node. Masks are kept per node selection until a node
// changes, so pods of many selections interleaved (zone-pinned replicas of several apps)
// match every node once per selection, not once per pod; a selection's mask is the same
// object each time, which keeps presenceOf's memo hitting.
func (t *topology) affinityMask(p *framework.PodInfo) *nodeMask {
	if len(p.Pod.Spec.NodeSelector) == 0 && requiredNodeSelector(p.Pod) == nil {
		return nil
	}
	key := framework.NodeSelectionKey(p.Pod)
	if m := t.affinity[key]; m != nil {
		return m
	}
	mask := &nodeMask{ok: make([]bool, t.nodes.Len())}
	for i, n := range t.nodes.Objects() {
		// Parsing errors count as a mismatch, as upstream.
		mask.ok[i], _ = p.RequiredNodeAffinity.Match(n)
	}
	if t.affinity == nil || len(t.affinity) >= maxAffinityMasks {
		t.affinity = map[string]*nodeMask{}
	}
	t.affinity[key] = mask
	return mask
}

func requiredNodeSelector(pod *v1.Pod) *v1.NodeSelector {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// taintMask answers nodeTaintsPolicy Honor for the pod: nil when no node has a taint that
// could exclude it.
func (t *topology) taintMask(pod *v1.Pod) *nodeMask {
	if !t.anyTaint {
		return nil
	}
	m := &t.taints
	if m.mask != nil && m.gen == t.gen && equality.Semantic.DeepEqual(m.tolerations, pod.Spec.Tolerations) {
		return m.mask
	}
	mask := &nodeMask{ok: make([]bool, t.nodes.Len())}
	logger := klog.Background()
	for i, n := range t.nodes.Objects() {
		_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, n.Spec.Taints, pod.Spec.Tolerations, doNotScheduleTaint, false)
		mask.ok[i] = !untolerated
	}
	*m = taintMemo{gen: t.gen, tolerations: pod.Spec.Tolerations, mask: mask}
	return mask
}

func doNotScheduleTaint(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// nodesKey names the nodes that count for a constraint: those that carry every required
// key and k, and pass the masks.
func (t *topology) nodesKey(required []*labeldomain.KeyDomains, k *labeldomain.KeyDomains, aff, tnt *nodeMask) presenceKey {
	names := make([]string, len(required))
	for i, r := range required {
		names[i] = r.Key
	}
	return presenceKey{required: strings.Join(names, "\x00"), key: k.Key, affinity: aff, tnt: tnt}
}

// presenceOf says which domains of k have a node that carries every required key and
// passes the masks (nil masks pass every node); pk is their nodesKey.
func (t *topology) presenceOf(pk presenceKey, required []*labeldomain.KeyDomains, k *labeldomain.KeyDomains, aff, tnt *nodeMask) *presence {
	if p := t.presence[pk]; p != nil {
		return p
	}
	p := &presence{present: make([]bool, len(k.Values))}
	for i := range t.nodes.Len() {
		n := int32(i)
		if !carriesAll(required, n) || (aff != nil && !aff.ok[n]) || (tnt != nil && !tnt.ok[n]) {
			continue
		}
		if d := k.Of[n]; d >= 0 && !p.present[d] {
			p.present[d] = true
			p.num++
		}
	}
	if len(t.presence) >= 64 {
		// Many distinct pod specs in one generation: start over rather than grow.
		t.presence = map[presenceKey]*presence{}
	}
	t.presence[pk] = p
	return p
}

func carriesAll(required []*labeldomain.KeyDomains, n int32) bool {
	for _, k := range required {
		if k.Of[n] < 0 {
			return false
		}
	}
	return true
}
