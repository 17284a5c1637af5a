package podfit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// How a randomScorer normalises its raw scores.
const (
	inRange  = iota // raw scores already in [0, 100], no normaliser
	scaled          // DefaultNormalizeScore, raw scores up to 1000
	reversed        // DefaultNormalizeScore reversed, raw scores up to 1000
	byName          // nodes named in zeroed score 0, as PodTopologySpread's ignored nodes
	normKinds
)

// randomScorer scores each node by its name from a table, and normalises as kind says.
type randomScorer struct {
	name   string
	kind   int
	raw    map[string]int64
	zeroed map[string]bool
	skip   bool
}

func (s *randomScorer) Name() string { return s.name }
func (s *randomScorer) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	if s.skip {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}
func (s *randomScorer) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return s.raw[n.Name], nil
}
func (s *randomScorer) ScoreExtensions() framework.ScoreExtensions {
	if s.kind == inRange {
		return nil
	}
	return s
}
func (s *randomScorer) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	switch s.kind {
	case scaled, reversed:
		framework.DefaultNormalizeScore(s.kind == reversed, scores)
	case byName:
		for i, n := range nodes {
			if s.zeroed[n.Name] {
				scores[i] = 0
			}
		}
	}
	return nil
}

// namedScore is a node's score as kube-scheduler's NodeScoreList carries it.
type namedScore struct {
	name  string
	score int64
}

// referenceNormalize is randomScorer's normalisation written over named scores.
func referenceNormalize(s *randomScorer, list []namedScore) {
	switch s.kind {
	case scaled, reversed:
		var highest int64
		for _, ns := range list {
			highest = max(highest, ns.score)
		}
		for i := range list {
			switch {
			case highest == 0 && s.kind == reversed:
				list[i].score = framework.MaxNodeScore
			case highest == 0:
			case s.kind == reversed:
				list[i].score = framework.MaxNodeScore - framework.MaxNodeScore*list[i].score/highest
			default:
				list[i].score = framework.MaxNodeScore * list[i].score / highest
			}
		}
	case byName:
		for i := range list {
			if s.zeroed[list[i].name] {
				list[i].score = 0
			}
		}
	}
}

// referenceSelect scores nodes plugin by plugin with names, sums the weighted scores by
// name and picks the highest total, breaking ties by reservoir sampling with rnd in the
// order of nodes.
func referenceSelect(scorers []*randomScorer, weights []int64, nodes []*framework.NodeInfo, rnd *rand.Rand) (map[string]int64, string) {
	totals := map[string]int64{}
	for k, s := range scorers {
		if s.skip {
			continue
		}
		var list []namedScore
		for _, n := range nodes {
			list = append(list, namedScore{n.Name, s.raw[n.Name]})
		}
		referenceNormalize(s, list)
		for _, ns := range list {
			totals[ns.name] += ns.score * weights[k]
		}
	}
	best, ties := nodes[0].Name, 1
	for _, n := range nodes[1:] {
		switch t := totals[n.Name]; {
		case t > totals[best]:
			best, ties = n.Name, 1
		case t == totals[best]:
			ties++
			if rnd.IntN(ties) == 0 {
				best = n.Name
			}
		}
	}
	return totals, best
}

// The score loop keeps plugin scores by node index, without names: over random plugins,
// weights, normalisers (one reading names), skips and node sets, it must give the totals
// and the chosen node that scoring with names gives, cycle after cycle on reused buffers.
func TestScoresByIndexMatchNamedReference(t *testing.T) {
	seed := rand.Uint64()
	rnd := rand.New(rand.NewPCG(seed, 3))
	var all []*v1.Node
	for i := range 400 {
		all = append(all, testutil.Node(fmt.Sprintf("n%03d", i)).Obj())
	}
	c := testutil.NewCache(all, nil)
	p := testutil.Pod("p").Info()
	for round := range 300 {
		nScorers := 1 + rnd.IntN(5)
		scorers := make([]*randomScorer, nScorers)
		weights := make([]int64, nScorers)
		reg := fwkruntime.Registry{}
		var enabled []config.Plugin
		for k := range scorers {
			s := &randomScorer{name: fmt.Sprintf("S%d", k), kind: rnd.IntN(normKinds), raw: map[string]int64{},
				zeroed: map[string]bool{}, skip: rnd.IntN(6) == 0}
			top := framework.MaxNodeScore
			if s.kind == scaled || s.kind == reversed {
				top = 1000
			}
			// Few distinct scores, so that totals tie often and the tie-break is checked.
			levels := 1 + rnd.IntN(4)
			for _, n := range all {
				s.raw[n.Name] = top * int64(rnd.IntN(levels)) / int64(levels)
				s.zeroed[n.Name] = rnd.IntN(3) == 0
			}
			scorers[k], weights[k] = s, int64(1+rnd.IntN(3))
			reg[s.name] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) { return s, nil }
			enabled = append(enabled, config.Plugin{Name: s.name, Weight: int32(weights[k])})
		}
		prof := config.Profile{SchedulerName: "random", Plugins: config.Plugins{Disabled: []config.Plugin{{Name: "*"}}, Enabled: enabled}}
		picks := uint64(rnd.Int64())
		rndNew, rndRef := rand.New(rand.NewPCG(picks, 1)), rand.New(rand.NewPCG(picks, 1))
		fwk, err := fwkruntime.New(prof, field.NewPath("profile"), reg, fwkruntime.Options{
			Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(4), Rand: rndNew,
		})
		if err != nil {
			t.Fatal(err)
		}
		pf := podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(4), Rand: rndNew}).For(fwk)
		// Several cycles on one framework, with node sets of different sizes and orders.
		for cycle := range 3 {
			nodes := c.NodeInfos()
			rnd.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
			nodes = nodes[:2+rnd.IntN(len(nodes)-1)]
			wantTotals, want := referenceSelect(scorers, weights, nodes, rndRef)

			state := framework.NewCycleState()
			if st := fwk.RunPreScorePlugins(context.Background(), state, p, nodes); !st.IsSuccess() {
				t.Fatal(st)
			}
			totals, st := fwk.RunScorePlugins(context.Background(), state, p, nodes)
			if !st.IsSuccess() {
				t.Fatal(st)
			}
			for i, n := range nodes {
				if totals[i] != wantTotals[n.Name] {
					t.Fatalf("seed %d, round %d, cycle %d: %s totals %d, want %d", seed, round, cycle, n.Name, totals[i], wantTotals[n.Name])
				}
			}
			got, err := pf.SelectNode(context.Background(), framework.NewCycleState(), p, nodes, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("seed %d, round %d, cycle %d: chose %s (total %d), want %s (total %d)", seed, round, cycle, got, wantTotals[got], want, wantTotals[want])
			}
		}
	}
}
