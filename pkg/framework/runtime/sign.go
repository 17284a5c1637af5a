package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// computeSigners collects the profile's SignPlugins of PreFilter, Filter, PreScore and
// Score, each once, in that order; a plugin there that is no SignPlugin makes the profile
// sign no pod, as kube-scheduler's computeBatchablePlugins.
func (f *Framework) computeSigners() {
	f.signable = true
	seen := map[string]bool{}
	consider := func(pl framework.Plugin) {
		if seen[pl.Name()] {
			return
		}
		seen[pl.Name()] = true
		if s, ok := pl.(framework.SignPlugin); ok {
			f.signers = append(f.signers, s)
		} else {
			f.signable = false
			f.unsigned = append(f.unsigned, pl.Name())
		}
	}
	for _, pl := range f.preFilter {
		consider(pl)
	}
	for _, pl := range f.filter {
		consider(pl)
	}
	for _, pl := range f.preScore {
		consider(pl)
	}
	for _, pl := range f.score {
		consider(pl.ScorePlugin)
	}
}

// Signable says whether the profile signs pods at all (every plugin of PreFilter, Filter,
// PreScore and Score can).
func (f *Framework) Signable() bool { return f.signable }

// Unsigned names the plugins of PreFilter, Filter, PreScore and Score that cannot sign pods
// (kube-scheduler logs them when it turns signatures off for a profile).
func (f *Framework) Unsigned() []string { return f.unsigned }

// SignPod returns p's signature: the scheduler name and every signer's fragments, as JSON
// with the keys sorted. Two pods with the same signature get the same verdicts and scores on
// the same nodes in the same state. It is nil when the profile or one of its plugins cannot
// sign p: such a pod is not batched (kube-scheduler's SignPod).
func (f *Framework) SignPod(ctx context.Context, p *framework.PodInfo) []byte {
	if !f.signable {
		return nil
	}
	sig := map[string]any{framework.SchedulerNameSignerName: p.Pod.Spec.SchedulerName}
	for _, pl := range f.signers {
		fragments, st := pl.SignPod(ctx, p)
		if !st.IsSuccess() {
			return nil
		}
		for _, fr := range fragments {
			sig[fr.Key] = fr.Value
		}
	}
	b, err := json.Marshal(sig)
	if err != nil {
		return nil
	}
	return b
}

// RunScorePluginsRaw is RunScorePlugins that also returns each node's scores before
// normalisation, by plugin, in the order of nodes.
func (f *Framework) RunScorePluginsRaw(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo) ([]int64, [][]framework.PluginScore, *framework.Status) {
	raw := make([][]framework.PluginScore, len(nodes))
	totals, st := f.runScorePlugins(ctx, state, p, nodes, raw)
	if !st.IsSuccess() {
		return nil, nil, st
	}
	for i := range raw {
		if raw[i] == nil {
			raw[i] = []framework.PluginScore{}
		}
	}
	return totals, raw, nil
}

// activeScore is the score plugins PreScore did not skip in state.
func (f *Framework) activeScore(state *framework.CycleState) []weightedScore {
	active := make([]weightedScore, 0, len(f.score))
	for _, pl := range f.score {
		if !state.SkipScorePlugins[pl.Name()] {
			active = append(active, pl)
		}
	}
	return active
}

// RunRawScorePlugins scores one node with every score plugin not skipped in state, without
// normalising (kube-scheduler's RunRawScorePlugins).
func (f *Framework) RunRawScorePlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) ([]framework.PluginScore, *framework.Status) {
	active := f.activeScore(state)
	if len(active) == 0 {
		return nil, nil
	}
	out := make([]framework.PluginScore, 0, len(active))
	for _, pl := range active {
		s, st := pl.Score(ctx, state, p, n)
		if !st.IsSuccess() {
			return nil, framework.AsStatus(fmt.Errorf("plugin %q failed with: %w", pl.Name(), st.AsError()))
		}
		out = append(out, framework.PluginScore{Name: pl.Name(), Score: s})
	}
	return out, nil
}

// NormalizeScores normalises the raw scores of scores over all of them, plugin by plugin
// (a plugin missing from a node's raw scores counts 0 there), and sets each node's Total to
// the weighted sum (kube-scheduler's NormalizeScores). nodes[i] is the node of scores[i].
func (f *Framework) NormalizeScores(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo, scores []framework.NodePluginScores) *framework.Status {
	if len(nodes) != len(scores) {
		return framework.AsStatus(fmt.Errorf("NormalizeScores: %d nodes for %d scores", len(nodes), len(scores)))
	}
	totals := make([]int64, len(scores))
	list := make([]int64, len(scores))
	for _, pl := range f.activeScore(state) {
		for i, ns := range scores {
			list[i] = 0
			for _, r := range ns.Raw {
				if r.Name == pl.Name() {
					list[i] = r.Score
				}
			}
		}
		if st := f.normalizeAndAdd(ctx, state, p, pl, nodes, list, totals); !st.IsSuccess() {
			return st
		}
	}
	for i := range scores {
		scores[i].Total = totals[i]
	}
	return nil
}
