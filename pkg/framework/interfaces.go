package framework

import (
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// Plugin is the base of every plugin.
type Plugin interface {
	Name() string
}

// PreEnqueuePlugin decides whether a pod may enter the active queue at all. A non-success
// status parks the pod until a cluster event re-runs the check.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(ctx context.Context, p *PodInfo) *Status
}

// PreFilterResult narrows the nodes a pod may go to (nil: any node).
type PreFilterResult struct {
	NodeNames map[string]struct{}
	// Plugins names the plugins that narrowed the nodes (set by the framework), for the
	// message of the nodes left out.
	Plugins []string
}

// PreFilterPlugin runs once per cycle before Filter, typically to precompute CycleState.
// Skip means the plugin's Filter is not needed for this pod.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, p *PodInfo) (*PreFilterResult, *Status)
	// PreFilterExtensions returns the incremental updates of the state, or nil when the
	// state does not depend on other pods.
	PreFilterExtensions() PreFilterExtensions
}

// PreFilterExtensions keep a plugin's CycleState right when preemption or nomination
// simulates adding or removing a pod, without re-running PreFilter. AddPod and RemovePod
// must be exact inverses.
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, p *PodInfo, add *PodInfo, node *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, p *PodInfo, remove *PodInfo, node *NodeInfo) *Status
}

// FilterPlugin says whether a pod fits a node. Filter runs concurrently on many nodes; it
// must only read CycleState and the NodeInfo.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, p *PodInfo, node *NodeInfo) *Status
}

// NodeToStatus holds the filter failure of every node that did not pass, and the status of
// nodes never filtered (because PreFilter ruled them out). Failures are appended to a slice
// during filtering, which is cheap; the lookup map is built only if someone asks.
type NodeToStatus struct {
	nodes    []string
	statuses []*Status
	index    map[string]int
	// byNode maps NodeInfo.Index to a position in statuses (+1; 0 means absent), for
	// statuses recorded with SetNode.
	byNode []int32
	// Absent is the status of nodes not recorded (e.g. those excluded by a PreFilter
	// result): UnschedulableAndUnresolvable when PreFilter narrowed the nodes.
	Absent *Status
}

// NewNodeToStatus returns an empty map.
func NewNodeToStatus() *NodeToStatus { return &NodeToStatus{} }

// Grow makes room for n more nodes, so that recording every node of a cluster does not
// grow the map step by step.
func (m *NodeToStatus) Grow(n int) {
	m.nodes = slices.Grow(m.nodes, n)
	m.statuses = slices.Grow(m.statuses, n)
}

// Set records a node's status, replacing an earlier one.
func (m *NodeToStatus) Set(node string, s *Status) {
	m.buildIndex()
	m.put(node, s)
}

// put records a node's status and returns its position; it replaces an earlier status
// when the index knows the node.
func (m *NodeToStatus) put(node string, s *Status) int {
	if m.index != nil {
		if i, ok := m.index[node]; ok {
			m.statuses[i] = s
			return i
		}
		m.index[node] = len(m.nodes)
	}
	m.nodes = append(m.nodes, node)
	m.statuses = append(m.statuses, s)
	return len(m.nodes) - 1
}

// SetNode records a node's status, indexed by the node's position for GetNode. It is the
// filtering hot path: without a name index (no Set or Get yet), every status came from
// SetNode and byNode alone says whether the node is recorded.
func (m *NodeToStatus) SetNode(n *NodeInfo, s *Status) {
	if n.Index >= len(m.byNode) {
		if n.Index >= cap(m.byNode) {
			grown := make([]int32, n.Index+1, max(n.Index+1, 2*cap(m.byNode), 64))
			copy(grown, m.byNode)
			m.byNode = grown
		} else {
			m.byNode = m.byNode[:n.Index+1] // the tail was never written: still zero
		}
	}
	if i := m.byNode[n.Index]; i > 0 && m.nodes[i-1] == n.Name {
		m.statuses[i-1] = s
		return
	}
	m.byNode[n.Index] = int32(m.put(n.Name, s)) + 1
}

// GetNode returns a node's status like Get, in O(1) for statuses recorded with SetNode.
func (m *NodeToStatus) GetNode(n *NodeInfo) *Status {
	if n.Index < len(m.byNode) {
		if i := m.byNode[n.Index]; i > 0 && m.nodes[i-1] == n.Name {
			return m.statuses[i-1]
		}
	}
	return m.Get(n.Name)
}

// Get returns a node's status (Absent for nodes not recorded).
func (m *NodeToStatus) Get(node string) *Status {
	m.buildIndex()
	if i, ok := m.index[node]; ok {
		return m.statuses[i]
	}
	return m.Absent
}

func (m *NodeToStatus) buildIndex() {
	if m.index == nil {
		m.index = make(map[string]int, len(m.nodes))
		for i, n := range m.nodes {
			m.index[n] = i
		}
	}
}

// Len is the number of recorded nodes.
func (m *NodeToStatus) Len() int { return len(m.nodes) }

// ForEach visits the recorded statuses in the order they were recorded.
func (m *NodeToStatus) ForEach(fn func(node string, s *Status)) {
	for i, n := range m.nodes {
		fn(n, m.statuses[i])
	}
}

// PostFilterResult carries a nomination out of PostFilter.
type PostFilterResult struct {
	NominatedNodeName string
}

// PostFilterPlugin runs when no node fits a pod; preemption is the usual one. The first
// plugin to return Success ends the chain.
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, p *PodInfo, filtered *NodeToStatus) (*PostFilterResult, *Status)
}

// PreScorePlugin runs once before Score with the nodes that passed Filter.
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, p *PodInfo, nodes []*NodeInfo) *Status
}

// Score bounds: NormalizeScore maps plugin scores into [MinNodeScore, MaxNodeScore].
const (
	MinNodeScore int64 = 0
	MaxNodeScore int64 = 100
)

// ScorePlugin ranks nodes that passed Filter. Score runs concurrently on many nodes.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, p *PodInfo, node *NodeInfo) (int64, *Status)
	// ScoreExtensions returns the normalizer, or nil when scores are already in range.
	ScoreExtensions() ScoreExtensions
}

// ScoreKey is what a ScoreKeyPlugin's score reads of a pod: a few numbers, such as its
// requests of the scored resources.
type ScoreKey [4]int64

// ScoreKeyPlugin is a ScorePlugin whose score of a node is fixed by the pod's ScoreKey and
// the node's Generation (its allocatable and the pods on it): Score reads nothing else of
// the pod, the node or the cycle state. The framework remembers its scores by both and
// calls Score only for a node that changed or a key it has not seen on that node.
type ScoreKeyPlugin interface {
	ScorePlugin
	// ScoreKey returns p's key; ok false when the score reads more of p than a key holds
	// (Score then runs on every node).
	ScoreKey(p *PodInfo) (key ScoreKey, ok bool)
}

// ScoreExtensions normalise a plugin's scores over all nodes: scores[i] is nodes[i]'s, in
// place. The scores carry no names (unlike kube-scheduler's NodeScoreList): writing a name
// beside every plugin's score of every node cost more than the scoring it recorded, and the
// few normalisers that need a node's name read it from nodes.
type ScoreExtensions interface {
	NormalizeScore(ctx context.Context, state *CycleState, p *PodInfo, nodes []*NodeInfo, scores []int64) *Status
}

// ReservePlugin is told when a pod is assumed on a node, and when that is undone. A group
// cycle also runs Reserve on each member it places on the snapshot under a checkpoint, so
// that later members see what earlier ones took: a plugin records what it reserves in the
// snapshot (its DRA and Volumes assumptions), which the rollback undoes, and keeps nothing
// else that a rollback would leave behind.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, p *PodInfo, node string) *Status
	Unreserve(ctx context.Context, state *CycleState, p *PodInfo, node string)
}

// PermitPlugin may hold a pod (Wait, up to the returned timeout) or reject it before binding.
type PermitPlugin interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, p *PodInfo, node string) (*Status, time.Duration)
}

// BindPlugin binds a pod; the first plugin not returning Skip does it.
type BindPlugin interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, p *PodInfo, node string) *Status
}

// EnqueueExtensions names the cluster events that may make a pod this plugin rejected
// schedulable again; the queue retries rejected pods only on those.
type EnqueueExtensions interface {
	EventsToRegister() []ClusterEvent
}

// QueueingHintPlugin refines EnqueueExtensions (kube-scheduler's queueing hints): for an
// event about a node that matches the plugin's registration, QueueingHint says whether
// it may really undo the plugin's rejection of p, so that a node too small for a pod does
// not send it back to the active queue.
type QueueingHintPlugin interface {
	Plugin
	QueueingHint(ev ClusterEvent, p *PodInfo, node *NodeInfo) bool
}

// Snapshot is the cluster state a cycle reads: the cache, owned by the scheduling loop. Its
// mutators exist for simulations inside one cycle (assuming gang members, removing
// preemption victims); every such change is undone by Rollback to a Checkpoint.
type Snapshot interface {
	// NodeInfos returns the nodes, in a stable order.
	NodeInfos() []*NodeInfo
	// Get returns a node by name, or nil.
	Get(name string) *NodeInfo
	// NodesWithRequiredAntiAffinityPods returns the nodes that run a pod with a required
	// anti-affinity term (those constrain every incoming pod).
	NodesWithRequiredAntiAffinityPods() []*NodeInfo
	// NodesWithAffinityPods returns the nodes that run a pod with any affinity term.
	NodesWithAffinityPods() []*NodeInfo
	// AffinityChangesSince returns, oldest first, the nodes of NodeInfos on which a pod
	// with any affinity term was added or removed (a simulation's changes and their
	// rollback included; a node once per change) since journal position from, and the
	// position now. ok is false when the journal cannot tell (position 0, a position from
	// before nodes were added or removed, or one it no longer keeps): the reader must look
	// at every node, then continue from now. The nodes are valid until the next change.
	// What a reader derived from a node's pods lists is thus stale exactly on the nodes
	// returned, whatever their Generation says (rollbacks restore Generations).
	AffinityChangesSince(from uint64) (nodes []*NodeInfo, now uint64, ok bool)
	// ForEachPodMatching calls fn for every pod on a node whose labels match sel and whose
	// namespace is accepted by ns, until fn returns false. It uses a label index, so the
	// cost follows the number of candidate pods, not the cluster size.
	ForEachPodMatching(ns func(namespace string) bool, sel labels.Selector, fn func(*PodInfo) bool)
	// LabelChangesSince returns, oldest first, the changes since position from to which
	// pods labelled key=value count: Delta 1 for such a pod added to a node or no longer
	// terminating (PodInfo.Terminating), -1 for one removed or now terminating;
	// simulations and their rollbacks included. It also returns the position now. ok is
	// false when the changes are not known from there (the zero position, a position of an
	// earlier list of that label, or one no longer kept; and always while no pod carries
	// the label): the reader counts afresh (ForEachPodMatching) and continues from now. A
	// change's Node may be a ghost, which ForEachPodMatching leaves out. The changes are
	// valid until the next change. Readers that keep counts per label (PodTopologySpread)
	// thus update them instead of recounting.
	LabelChangesSince(key, value string, from LabelPosition) (changes []LabelChange, now LabelPosition, ok bool)
	// PDBs returns the PodDisruptionBudgets, ordered by namespace/name.
	PDBs() []*PDBInfo
	// Group returns a PodGroup by namespace/name, or nil.
	Group(key string) *GroupInfo
	// GroupMembers returns the bound (or assumed) members of a group. It reflects the
	// cluster outside simulations: pods removed or added under a checkpoint do not change it.
	GroupMembers(key string) []*PodInfo
	// UnitsVersion changes when what groups pods into preemption units or protects them
	// changes: PodDisruptionBudgets, PodGroups and groups' bound members. With the nodes'
	// generations, it says when preemption's per-node results are stale.
	UnitsVersion() int64
	// Composite returns a CompositePodGroup by namespace/name, or nil.
	Composite(key string) *GroupInfo
	// CompositeGroups returns the keys of the PodGroups in a composite's hierarchy (its
	// child groups, and those of its child composites), sorted.
	CompositeGroups(key string) []string
	// LayoutVersion changes whenever nodes are added or removed, so arrays indexed by
	// NodeInfo.Index must be rebuilt.
	LayoutVersion() uint64
	// NodeSetVersion returns the version of a set's nodes' state (see NodeSetVersion), kept
	// by the snapshot per set as nodes change, so that reading it does not read the nodes.
	// Safe to call from parallel work.
	NodeSetVersion(s *NodeSet) NodeSetVersion
	// NodeSetOf returns the set of these nodes the snapshot keeps (one made and kept when
	// it has none), for placements that come without one.
	NodeSetOf(nodes []*NodeInfo) *NodeSet
	// NamespaceLabels returns a namespace's labels (nil when unknown).
	NamespaceLabels(namespace string) labels.Set
	// DRA is the Dynamic Resource Allocation state: classes, slices, claims, taken devices.
	DRA() DRA
	// Volumes is the storage state: volumes, claims, classes, CSINodes.
	Volumes() Volumes

	// Checkpoint marks the state so Rollback can return to it.
	Checkpoint() Checkpoint
	// Rollback undoes every AddPod and RemovePod since the checkpoint, and every
	// assumption recorded through DRA and Volumes.
	Rollback(Checkpoint)
	// AddPod places a pod on a node.
	AddPod(p *PodInfo, node string)
	// RemovePod takes a pod off its node.
	RemovePod(p *PodInfo)
}

// LabelPosition is a position in the changes of the pods carrying one label
// (Snapshot.LabelChangesSince). The zero value is before any: its changes are not known.
type LabelPosition struct {
	// List names the label's list of changes (unique across snapshots); Seq is the
	// position in it.
	List, Seq uint64
}

// LabelChange is a pod starting (Delta 1) or ceasing (-1) to count on a node: added or
// removed, or its terminating mark cleared or set. It holds what a reader matches of the
// pod (its namespace and labels), not the pod: a log kept for a reader must not keep the
// objects of deleted pods alive.
type LabelChange struct {
	Namespace string
	Labels    map[string]string
	Node      *NodeInfo
	Delta     int32
}

// Checkpoint identifies a point in the snapshot's undo log that Rollback returns to.
type Checkpoint uint64

// QueuedUnit is what queue ordering sees of an entry: a pod or a pod group.
type QueuedUnit struct {
	// Key identifies the entry: namespace/name for a pod.
	Key      string
	Priority int32
	// Timestamp is when the entry last entered the queue.
	Timestamp time.Time
}

// QueueSortPlugin orders the active queue. Every profile must use the same one, since
// there is one queue.
type QueueSortPlugin interface {
	Plugin
	Less(a, b *QueuedUnit) bool
}

// StaticFilterPlugin is a FilterPlugin whose verdict on a node depends only on part of the
// pod's spec and on the node object (labels, taints, spec), never on the pods running there.
// StaticFilterKey names that part of the spec: pods with equal keys get equal verdicts on
// every node. The scheduler caches the verdicts per key and node, and recomputes a node's
// only when its StaticGeneration changes, so a Deployment of a thousand replicas pays for
// its node selector and tolerations once, not once per pod and node.
type StaticFilterPlugin interface {
	FilterPlugin
	StaticFilterKey(p *PodInfo) string
}

// StaticPrecheckPlugin is a FilterPlugin with a static part: StaticPrecheck is a verdict
// of the kind StaticFilterPlugin gives (pod spec by StaticFilterKey, node object only),
// which the plugin's Filter implies: when the precheck rejects a node, Filter rejects it
// with the same status. NodeResourcesFit uses it for extended resources a node does not
// have at all, so GPU pods never look at CPU-only nodes.
type StaticPrecheckPlugin interface {
	FilterPlugin
	StaticFilterKey(p *PodInfo) string
	StaticPrecheck(ctx context.Context, p *PodInfo, node *NodeInfo) *Status
}
