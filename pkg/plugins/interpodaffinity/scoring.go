package interpodaffinity

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// preScoreState holds the score of each topology domain: topology key, then value.
type preScoreState struct {
	domains map[string]map[string]int64
}

// Clone returns the state itself: nothing mutates it after PreScore.
func (s *preScoreState) Clone() framework.StateData { return s }

// add adds weight to the node's domain for key and reports whether the node has the key.
func (s *preScoreState) add(node *v1.Node, key string, weight int64) bool {
	v, ok := node.Labels[key]
	if !ok {
		return false
	}
	m := s.domains[key]
	if m == nil {
		m = map[string]int64{}
		s.domains[key] = m
	}
	m[v] += weight
	return true
}

// PreScore sums, per topology domain, the weights of the preferred terms that pods there
// satisfy: the incoming pod's preferred affinity (+) and anti-affinity (-) terms over the
// pods matching them, found through the label index; and the terms of existing pods that
// the incoming pod matches, found through a term index: preferred affinity (+), preferred
// anti-affinity (-) and, with hardPodAffinityWeight, required affinity (+). As upstream,
// it looks at pods on all nodes, not only the feasible ones, and skips Score when no term
// matched in any domain.
func (pl *InterPodAffinity) PreScore(_ context.Context, state *framework.CycleState, p *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	hasPreferred := len(p.PreferredAffinity)+len(p.PreferredAntiAffinity) > 0
	if pl.args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return framework.NewStatus(framework.Skip)
	}
	s := &preScoreState{domains: map[string]map[string]int64{}}
	// matched is upstream's "some node produced a domain score", even one summing to 0.
	matched := false
	score := func(node *v1.Node, key string, weight int64) {
		if s.add(node, key, weight) {
			matched = true
		}
	}

	incoming := func(terms []framework.WeightedAffinityTerm, sign int64) {
		for i := range terms {
			t := &terms[i].AffinityTerm
			w := sign * int64(terms[i].Weight)
			nsOK := func(ns string) bool { return nsAccepts(pl.snap, t, ns) }
			pl.snap.ForEachPodMatching(nsOK, t.Selector, func(other *framework.PodInfo) bool {
				if n := pl.snap.Get(other.NodeName); n != nil {
					score(n.Node(), t.TopologyKey, w)
				}
				return true
			})
		}
	}
	incoming(p.PreferredAffinity, 1)
	incoming(p.PreferredAntiAffinity, -1)

	nsLabels := pl.snap.NamespaceLabels(p.Pod.Namespace)
	pl.existingScoring.forEachMatching(pl.snap.NodesWithAffinityPods(), p, nsLabels, func(r termRef) {
		score(r.node.Node(), r.term.TopologyKey, r.weight)
	})
	if !matched {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// Score is the sum of the scores of the node's domains; negative when anti-affinity
// dominates. NormalizeScore brings it into range.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return 0, framework.AsStatus(fmt.Errorf("%s: no PreScore state in the cycle (PreScore not run?)", Name))
	}
	nodeLabels := n.Node().Labels
	var total int64
	for key, values := range s.domains {
		if v, ok := nodeLabels[key]; ok {
			total += values[v]
		}
	}
	return total, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the scores linearly onto [0, MaxNodeScore], the lowest to 0 and the
// highest to MaxNodeScore (all to 0 when they are equal), truncating as upstream does.
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return framework.AsStatus(fmt.Errorf("%s: no PreScore state in the cycle (PreScore not run?)", Name))
	}
	if len(s.domains) == 0 {
		return nil
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, sc := range scores {
		lo = min(lo, sc)
		hi = max(hi, sc)
	}
	diff := hi - lo
	for i := range scores {
		f := 0.0
		if diff > 0 {
			f = float64(framework.MaxNodeScore) * (float64(scores[i]-lo) / float64(diff))
		}
		scores[i] = int64(f)
	}
	return nil
}
