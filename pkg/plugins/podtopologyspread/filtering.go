package podtopologyspread

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// hardConstraint is a DoNotSchedule constraint with what Filter needs precomputed.
type hardConstraint struct {
	spreadConstraint
	keys *labeldomain.KeyDomains
	// present says which domains have an eligible node; its num is the domain count that
	// minDomains is compared with.
	present *presence
	// selfMatch: the incoming pod matches the selector, so it adds one to its domain.
	selfMatch bool
	// aff and tnt are the inclusion policies' node masks, nil when they exclude no node.
	aff, tnt *nodeMask
	// nodes names the nodes that count (for the memos of presence and counts).
	nodes presenceKey
}

func (c *hardConstraint) eligible(n int32) bool {
	return (c.aff == nil || c.aff.ok[n]) && (c.tnt == nil || c.tnt.ok[n])
}

// preFilterState holds the matching-pod counts per domain of every hard constraint. Only
// counts and min change after PreFilter (through AddPod and RemovePod); Clone copies them
// and shares the rest.
type preFilterState struct {
	cons []hardConstraint
	idx  *nodeIndexes
	// required are the topology keys of all the constraints: a node lacking one is not
	// eligible for any of them, as upstream.
	required []*labeldomain.KeyDomains
	// off[i] is where constraint i's counts start in counts, which is indexed by domain id.
	off    []int
	counts []int32
	// min[i] is the least count over constraint i's present domains (MaxInt32 if none).
	min []int32
}

// Clone implements framework.StateData.
func (s *preFilterState) Clone() framework.StateData {
	c := *s
	c.counts = append([]int32(nil), s.counts...)
	c.min = append([]int32(nil), s.min...)
	return &c
}

func (s *preFilterState) count(i int, d int32) *int32 { return &s.counts[s.off[i]+int(d)] }

func (s *preFilterState) recomputeMin(i int) {
	c := &s.cons[i]
	m := int32(math.MaxInt32)
	for d, ok := range c.present.present {
		if ok && s.counts[s.off[i]+d] < m {
			m = s.counts[s.off[i]+d]
		}
	}
	s.min[i] = m
}

// PreFilter counts, per hard constraint, the matching pods in each domain. A pod without
// hard constraints skips Filter.
func (pl *PodTopologySpread) PreFilter(_ context.Context, state *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	cons, err := pl.constraints(p.Pod, v1.DoNotSchedule)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(cons) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, pl.preFilterState(p, cons))
	return nil, nil
}

func (pl *PodTopologySpread) preFilterState(p *framework.PodInfo, cons []spreadConstraint) *preFilterState {
	snap := pl.handle.Snapshot()
	s := &preFilterState{cons: make([]hardConstraint, len(cons)), off: make([]int, len(cons)), min: make([]int32, len(cons))}
	podLabels := labels.Set(p.Pod.Labels)

	t := &pl.topo
	t.mu.Lock()
	t.sync(snap)
	s.idx = t.idx
	for i := range cons {
		s.required = appendKey(s.required, t.key(cons[i].TopologyKey))
	}
	size := 0
	for i := range cons {
		c := &s.cons[i]
		c.spreadConstraint = cons[i]
		c.keys = t.key(cons[i].TopologyKey)
		c.selfMatch = cons[i].Selector.Matches(podLabels)
		if cons[i].NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
			c.aff = t.affinityMask(p)
		}
		if cons[i].NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
			c.tnt = t.taintMask(p.Pod)
		}
		c.nodes = t.nodesKey(s.required, c.keys, c.aff, c.tnt)
		c.present = t.presenceOf(c.nodes, s.required, c.keys, c.aff, c.tnt)
		s.off[i] = size
		size += len(c.keys.Values)
	}
	s.counts = make([]int32, size)
	kept := make([]bool, len(cons))
	for i := range s.cons {
		c := &s.cons[i]
		if !c.counts() {
			continue
		}
		rule := countRule{required: s.required, keys: c.keys, aff: c.aff, tnt: c.tnt}
		if counts := t.keptCountsOf(snap, p.Pod.Namespace, c.Selector, &rule, c.nodes); counts != nil {
			copy(s.counts[s.off[i]:], counts)
			kept[i] = true
		}
	}
	t.mu.Unlock()

	// The constraints whose selector follows no label are counted by walking.
	forEachCounted(snap, p.Pod.Namespace, cons, kept, s.idx, func(members []int, n int32) {
		if !carriesAll(s.required, n) {
			return
		}
		for _, i := range members {
			if c := &s.cons[i]; c.eligible(n) {
				*s.count(i, c.keys.Of[n])++
			}
		}
	})
	for i := range s.cons {
		s.recomputeMin(i)
	}
	return s
}

func getPreFilterState(state *framework.CycleState) (*preFilterState, error) {
	s, ok := state.Read(preFilterStateKey).(*preFilterState)
	if !ok || s == nil {
		return nil, fmt.Errorf("%s: no PreFilter state (PreFilter did not run)", Name)
	}
	return s, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts a pod placed on a node by a simulation.
func (pl *PodTopologySpread) AddPod(_ context.Context, state *framework.CycleState, p, add *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return update(state, p, add, node, 1)
}

// RemovePod uncounts a pod removed from a node by a simulation.
func (pl *PodTopologySpread) RemovePod(_ context.Context, state *framework.CycleState, p, remove *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return update(state, p, remove, node, -1)
}

// update applies PreFilter's counting rule to one pod, so AddPod and RemovePod are exact
// inverses and agree with a fresh PreFilter. The minimum stays exact: it can only drop by
// the updated count, and only needs a scan when the last domain at the minimum grows.
func update(state *framework.CycleState, p, q *framework.PodInfo, node *framework.NodeInfo, delta int32) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if q.Pod.Namespace != p.Pod.Namespace || q.Terminating || node.Node() == nil {
		return nil
	}
	n := s.idx.of(node)
	if n < 0 || !carriesAll(s.required, n) {
		return nil
	}
	qLabels := labels.Set(q.Pod.Labels)
	for i := range s.cons {
		c := &s.cons[i]
		if !c.counts() || !c.eligible(n) || !c.Selector.Matches(qLabels) {
			continue
		}
		cnt := s.count(i, c.keys.Of[n])
		old := *cnt
		*cnt += delta
		switch {
		case *cnt < s.min[i]:
			s.min[i] = *cnt
		case old == s.min[i] && delta > 0:
			s.recomputeMin(i)
		}
	}
	return nil
}

// The reasons are shared by every rejection (a Status never modifies them), so that a
// rejection allocates only its Status: many nodes are rejected per cycle.
var (
	// Rejections share immutable statuses, so filtering thousands of nodes allocates nothing.
	statusSkew      = framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch).WithPlugin(Name)
	statusNodeLabel = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch).WithPlugin(Name)
)

// Filter checks every hard constraint in order: the node must carry the topology key, and
// the pod's domain count (plus itself when it matches) must not exceed the global minimum
// by more than maxSkew. The global minimum is 0 while fewer domains than minDomains exist.
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, err := getPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	n := s.idx.of(node)
	for i := range s.cons {
		c := &s.cons[i]
		var d int32
		if n >= 0 {
			d = c.keys.Of[n]
		} else {
			d = c.keys.Lookup(node.Node().Labels)
		}
		if d == -1 {
			return statusNodeLabel
		}
		minNum := int64(s.min[i])
		if c.present.num < int(c.MinDomains) {
			minNum = 0
		}
		var matchNum int64
		if d >= 0 {
			matchNum = int64(*s.count(i, d))
		}
		if c.selfMatch {
			matchNum++
		}
		if matchNum-minNum > int64(c.MaxSkew) {
			return statusSkew
		}
	}
	return nil
}
