package podtopologyspread

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// softConstraint is a ScheduleAnyway constraint with what Score needs precomputed.
type softConstraint struct {
	spreadConstraint
	keys *labeldomain.KeyDomains
	// hostname constraints count per node rather than per domain, as upstream (which
	// special-cases the key kubernetes.io/hostname, whatever its values).
	hostname bool
	// nodeCounts are a hostname constraint's counts per node when they are kept
	// (kept.go): read in place, since a cycle's scoring is over before the next PreScore
	// and only PreScore changes them; the region in counts is then empty.
	nodeCounts []int32
	aff, tnt   *nodeMask
	// weight is log(domains + 2): a pod in a topology with many small domains weighs more
	// than one in a topology with few large ones.
	weight float64
}

func (c *softConstraint) eligible(n int32) bool {
	return (c.aff == nil || c.aff.ok[n]) && (c.tnt == nil || c.tnt.ok[n])
}

// preScoreState is never modified after PreScore, so Clone shares it.
type preScoreState struct {
	cons []softConstraint
	idx  *nodeIndexes
	// ignored are nodes that are not scored (0 after normalisation): nodes lacking a
	// topology key when all keys are required, and nodes the index does not know.
	ignored map[string]struct{}
	// off[i] is where constraint i's region starts in counts and registered: by node index
	// for hostname constraints, by domain id for the others.
	off        []int
	counts     []int64
	registered []bool
}

// Clone implements framework.StateData.
func (s *preScoreState) Clone() framework.StateData { return s }

// PreScore counts, per soft constraint, the matching pods in each domain that a filtered
// node is in (and per node for hostname constraints). A pod without soft constraints skips
// Score.
func (pl *PodTopologySpread) PreScore(_ context.Context, state *framework.CycleState, p *framework.PodInfo, filtered []*framework.NodeInfo) *framework.Status {
	snap := pl.handle.Snapshot()
	all := snap.NodeInfos()
	if len(all) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	cons, err := pl.constraints(p.Pod, v1.ScheduleAnyway)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("soft constraints: %w", err))
	}
	if len(cons) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	// Nodes must carry every key unless the system defaults apply, so that nodes without
	// a zone label are still spread by hostname.
	requireAll := len(p.Pod.Spec.TopologySpreadConstraints) > 0 || !pl.systemDefaulted

	s := &preScoreState{cons: make([]softConstraint, len(cons)), off: make([]int, len(cons))}
	var required []*labeldomain.KeyDomains
	t := &pl.topo
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, synced := state.Read(preFilterStateKey).(*preFilterState); !synced {
		// PreFilter of this cycle did not bring the index up to date (nodes do not change
		// during a cycle, so once is enough).
		t.sync(snap)
	}
	s.idx = t.idx
	numNodes := t.nodes.Len()
	if requireAll {
		for i := range cons {
			required = appendKey(required, t.key(cons[i].TopologyKey))
		}
	}
	size := 0
	for i := range cons {
		c := &s.cons[i]
		c.spreadConstraint = cons[i]
		c.keys = t.key(cons[i].TopologyKey)
		c.hostname = cons[i].TopologyKey == v1.LabelHostname
		if cons[i].NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
			c.aff = t.affinityMask(p)
		}
		if cons[i].NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
			c.tnt = t.taintMask(p.Pod)
		}
		s.off[i] = size
		if c.hostname {
			if _, _, _, keepable := followedLabel(c.Selector); !keepable || !c.counts() {
				size += numNodes
			}
		} else {
			size += len(c.keys.Values)
		}
	}

	// The buffers are reused from cycle to cycle: a cycle's scoring is over before the
	// next PreScore (only the scheduling loop scores).
	s.counts, s.registered = pl.scoreBuffers(size)
	domainOf := func(c *softConstraint, n int32) int32 {
		if d := c.keys.Of[n]; d >= 0 {
			return d
		}
		return emptyID(c.keys) // only reached when keys are not required
	}
	// The domains to count are those of the filtered nodes.
	topoSize := make([]int, len(cons))
	for _, ni := range filtered {
		n := s.idx.of(ni)
		if n < 0 || !carriesAll(required, n) {
			if s.ignored == nil {
				s.ignored = map[string]struct{}{}
			}
			s.ignored[ni.Name] = struct{}{}
			continue
		}
		for i := range s.cons {
			if c := &s.cons[i]; !c.hostname {
				if r := &s.registered[s.off[i]+int(domainOf(c, n))]; !*r {
					*r = true
					topoSize[i]++
				}
			}
		}
	}
	for i := range s.cons {
		size := topoSize[i]
		if s.cons[i].hostname {
			size = len(filtered) - len(s.ignored)
		}
		s.cons[i].weight = math.Log(float64(size + 2))
	}

	kept := make([]bool, len(cons))
	for i := range s.cons {
		c := &s.cons[i]
		if !c.counts() {
			continue
		}
		rule := countRule{required: required, keys: c.keys, aff: c.aff, tnt: c.tnt, perNode: c.hostname, numNodes: numNodes}
		counts := t.keptCountsOf(snap, p.Pod.Namespace, c.Selector, &rule, t.nodesKey(required, c.keys, c.aff, c.tnt))
		if counts == nil {
			continue
		}
		kept[i] = true
		if c.hostname {
			c.nodeCounts = counts
			continue
		}
		region := s.counts[s.off[i]:]
		for d, n := range counts {
			// Only the filtered nodes' domains count.
			if s.registered[s.off[i]+d] {
				region[d] = int64(n)
			}
		}
	}
	// The constraints whose selector follows no label are counted by walking.
	forEachCounted(snap, p.Pod.Namespace, cons, kept, s.idx, func(members []int, n int32) {
		carries := carriesAll(required, n)
		for _, i := range members {
			c := &s.cons[i]
			if c.hostname {
				// Upstream counts a node's own pods in Score, without inclusion policies.
				s.counts[s.off[i]+int(n)]++
				continue
			}
			if !carries || !c.eligible(n) {
				continue
			}
			if j := s.off[i] + int(domainOf(c, n)); s.registered[j] {
				s.counts[j]++
			}
		}
	})
	state.Write(preScoreStateKey, s)
	return nil
}

func getPreScoreState(state *framework.CycleState) (*preScoreState, error) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok || s == nil {
		return nil, fmt.Errorf("%s: no PreScore state (PreScore did not run)", Name)
	}
	return s, nil
}

// Score is the node's weighted count of matching pods over the soft constraints whose key
// it carries, plus maxSkew-1 per such constraint (which blunts small differences); fewer
// is better, NormalizeScore inverts it.
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s, err := getPreScoreState(state)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	if _, ok := s.ignored[node.Name]; ok {
		return 0, nil
	}
	n := s.idx.of(node)
	if n < 0 {
		return 0, nil
	}
	var score float64
	for i := range s.cons {
		c := &s.cons[i]
		d := c.keys.Of[n]
		if d < 0 {
			continue
		}
		slot := d
		if c.hostname {
			slot = n
		}
		cnt := s.countAt(i, slot)
		score += float64(cnt)*c.weight + float64(c.MaxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// countAt is constraint i's count in a slot: a node for hostname constraints, else a
// domain.
func (s *preScoreState) countAt(i int, slot int32) int64 {
	if c := &s.cons[i]; c.nodeCounts != nil {
		return int64(c.nodeCounts[slot])
	}
	return s.counts[s.off[i]+int(slot)]
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps scores to MaxNodeScore*(max+min-score)/max, as upstream: the least
// loaded node gets close to 100, ignored nodes 0, and every scored node 100 when all
// scores are 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	s, err := getPreScoreState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	const invalid = -1
	minScore, maxScore := int64(math.MaxInt64), int64(0)
	for i := range scores {
		if _, ok := s.ignored[nodes[i].Name]; ok {
			scores[i] = invalid
			continue
		}
		minScore = min(minScore, scores[i])
		maxScore = max(maxScore, scores[i])
	}
	for i := range scores {
		switch {
		case scores[i] == invalid:
			scores[i] = 0
		case maxScore == 0:
			scores[i] = framework.MaxNodeScore
		default:
			scores[i] = framework.MaxNodeScore * (maxScore + minScore - scores[i]) / maxScore
		}
	}
	return nil
}

// scoreBuffers returns zeroed count and registration buffers of the given size.
func (pl *PodTopologySpread) scoreBuffers(size int) ([]int64, []bool) {
	if cap(pl.counts) < size {
		pl.counts, pl.registered = make([]int64, size), make([]bool, size)
	}
	counts, registered := pl.counts[:size], pl.registered[:size]
	clear(counts)
	clear(registered)
	return counts, registered
}
