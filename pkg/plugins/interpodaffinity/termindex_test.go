package interpodaffinity

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// TestTermIndexFollowsSnapshot mutates a cluster in every way the cache allows (pods
// bound, assumed and removed, nodes relabelled, removed and re-added, simulations rolled
// back) and checks after each step that PreFilter and PreScore, which use the indexes,
// agree with the upstream-style scan.
func TestTermIndexFollowsSnapshot(t *testing.T) {
	for seed := range uint64(8) {
		r := newRandomCluster(seed, 10, 60)
		c := r.cache()
		pl := newPlugin(t, c, "")
		probes := make([]*framework.PodInfo, 12)
		for i := range probes {
			probes[i] = framework.NewPodInfo(r.pod("", 2))
		}
		check := func(step string) {
			t.Helper()
			for _, p := range probes {
				ea, af, an := refPreFilter(c, p)
				state, s := preFilter(t, pl, p)
				if !sameCounts(t, s, ea, af, an) {
					t.Fatalf("seed %d %s, pod %s: counts\n got %v\nwant %v %v %v", seed, step, p.Key, countsOf(t, s), ea, af, an)
				}
				// Filter reads the nodes' domains from an index kept across cycles,
				// which must follow relabelled, removed and re-added nodes.
				for _, n := range c.NodeInfos() {
					if s == nil {
						break
					}
					got := statusRejection(t, pl.Filter(context.Background(), state, p, n))
					if want := refFilter(p, ea, af, an, n); got != want {
						t.Fatalf("seed %d %s, pod %s node %s: got %q, want %q", seed, step, p.Key, n.Name, got, want)
					}
				}
				want, matched := refPreScore(c, p, 1)
				state = framework.NewCycleState()
				if st := pl.PreScore(context.Background(), state, p, nil); st.IsSkip() == matched {
					t.Fatalf("seed %d %s, pod %s: PreScore %v, want matched %v", seed, step, p.Key, st, matched)
				} else if matched && !maps.EqualFunc(state.Read(preScoreStateKey).(*preScoreState).domains, want, maps.Equal) {
					t.Fatalf("seed %d %s, pod %s: domain scores differ", seed, step, p.Key)
				}
			}
		}
		check("initially")
		var cps []framework.Checkpoint
		for step := range 120 {
			nodes := c.NodeInfos()
			switch op := r.rng.IntN(10); {
			case op < 3 && len(nodes) > 0: // assume a new pod
				n := nodes[r.rng.IntN(len(nodes))]
				if err := c.Nodes().AssumePod(framework.NewPodInfo(r.pod("", 2)), n.Name); err != nil {
					t.Fatal(err)
				}
			case op < 5 && len(nodes) > 0: // remove a pod, inside a simulation or for good
				n := nodes[r.rng.IntN(len(nodes))]
				if len(n.Pods) == 0 {
					continue
				}
				victim := n.Pods[r.rng.IntN(len(n.Pods))]
				if len(cps) > 0 {
					c.RemovePod(victim)
				} else {
					c.Nodes().RemoveBoundPod(victim.Key)
				}
			case op == 5: // open a simulation
				cps = append(cps, c.Checkpoint())
			case op == 6 && len(cps) > 0: // roll one back
				c.Rollback(cps[len(cps)-1])
				cps = cps[:len(cps)-1]
			case op == 7 && len(cps) == 0: // relabel a node
				node := r.nodes[r.rng.IntN(len(r.nodes))].DeepCopy()
				node.Labels["zone"] = []string{"z0", "z1", "z9"}[r.rng.IntN(3)]
				c.Nodes().AddNode(node)
			case op == 8 && len(cps) == 0 && len(nodes) > 1: // remove a node
				c.Nodes().RemoveNode(nodes[r.rng.IntN(len(nodes))].Name)
			case op == 9 && len(cps) == 0: // (re-)add a node
				c.Nodes().AddNode(r.nodes[r.rng.IntN(len(r.nodes))])
			}
			if step%3 == 0 {
				check(fmt.Sprintf("after step %d", step))
			}
		}
		for i := len(cps) - 1; i >= 0; i-- {
			c.Rollback(cps[i])
		}
		check("after rolling everything back")
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTermIndexBusyFallsBackToScan: a PreFilter that finds the index in use scans instead,
// with the same result.
func TestTermIndexBusyFallsBackToScan(t *testing.T) {
	r := newRandomCluster(3, 10, 100)
	c := r.cache()
	pl := newPlugin(t, c, "")
	for range 20 {
		p := framework.NewPodInfo(r.pod("", 2))
		_, indexed := preFilter(t, pl, p)
		pl.existingAnti.mu.Lock()
		_, scanned := preFilter(t, pl, p)
		pl.existingAnti.mu.Unlock()
		if (indexed == nil) != (scanned == nil) || (indexed != nil && !sameCountsOf(countsOf(t, indexed), countsOf(t, scanned))) {
			t.Fatalf("pod %s: indexed and scanned PreFilter differ", p.Key)
		}
	}
}

// TestTermIndexDuplicateValues: a term listing a value twice is counted once.
func TestTermIndexDuplicateValues(t *testing.T) {
	tm := v1.PodAffinityTerm{TopologyKey: "zone", LabelSelector: &metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "web"}}},
	}}
	x := pod("x", "default", "n1", aff{anti: []v1.PodAffinityTerm{tm}})
	c := newCache(t, stdNodes(), []*v1.Pod{x}, nil)
	pl := newPlugin(t, c, "")
	_, s := preFilter(t, pl, testutil.Pod("p").Labels("app", "web").Info())
	if got := s.existingAnti.pairs(t).get("zone", "z1"); got != 1 {
		t.Fatalf("count %d, want 1", got)
	}
}

// TestConcurrentCycles runs PreFilter, Filter, PreScore and Score from several goroutines
// at once (run it with -race too): the indexes are shared, the cycle states are not, so
// every concurrent cycle must reach the verdicts and scores a cycle run alone reaches.
func TestConcurrentCycles(t *testing.T) {
	r := newRandomCluster(5, 10, 100)
	c := r.cache()
	pl := newPlugin(t, c, "")
	pods := make([]*framework.PodInfo, 8)
	for i := range pods {
		pods[i] = framework.NewPodInfo(r.pod("", 2))
	}
	// cycle returns, per node, the Filter code and the Score of one full cycle.
	cycle := func(p *framework.PodInfo) []string {
		ctx := context.Background()
		state := framework.NewCycleState()
		var out []string
		if _, st := pl.PreFilter(ctx, state, p); st.IsSuccess() {
			for _, n := range c.NodeInfos() {
				out = append(out, pl.Filter(ctx, state, p, n).Code().String())
			}
		}
		if st := pl.PreScore(ctx, state, p, c.NodeInfos()); st.IsSuccess() {
			for _, n := range c.NodeInfos() {
				s, _ := pl.Score(ctx, state, p, n)
				out = append(out, fmt.Sprint(s))
			}
		}
		return out
	}
	want := make([][]string, len(pods))
	for i, p := range pods {
		want[i] = cycle(p)
	}
	errs := make(chan string, len(pods))
	for i, p := range pods {
		go func() {
			for range 20 {
				if got := cycle(p); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("pod %s: concurrent cycle gave %v, alone %v", p.Key, got, want[i])
					return
				}
			}
			errs <- ""
		}()
	}
	for range pods {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestTermIndexCatchUp drives the cache through random bound, assumed, forgotten and
// deleted pods, simulated adds and removals under nested checkpoints and their
// rollbacks, nodes added, removed and returning, and uses the index in between (through
// the journal, or finding it busy and scanning), then holds what both term indexes file
// to the full scan: every term of every pod on the listed nodes, each filed once, with
// its node and weight, and the same matches for probe pods.
func TestTermIndexCatchUp(t *testing.T) {
	for seed := range uint64(12) {
		r := newRandomCluster(seed, 12, 50)
		c := r.cache()
		pl := newPlugin(t, c, "")
		probes := make([]*framework.PodInfo, 8)
		for i := range probes {
			probes[i] = framework.NewPodInfo(r.pod("", 2))
		}
		indexes := []struct {
			x     *termIndex
			nodes func() []*framework.NodeInfo
		}{
			{pl.existingAnti, c.NodesWithRequiredAntiAffinityPods},
			{pl.existingScoring, c.NodesWithAffinityPods},
		}
		check := func(step string) {
			t.Helper()
			for k, ix := range indexes {
				x, nodes := ix.x, ix.nodes()
				for _, p := range probes {
					var got []termRef
					x.forEachMatching(nodes, p, c.NamespaceLabels(p.Pod.Namespace), func(r termRef) { got = append(got, r) })
					var want []termRef
					scanTerms(nodes, x.podsOf, x.termsOf, func(r termRef) {
						if r.term.Matches(p, c.NamespaceLabels(p.Pod.Namespace)) {
							want = append(want, r)
						}
					})
					if !sameRefs(got, want) {
						for _, r := range got {
							t.Logf("indexed: node %s term %p weight %d", r.node.Name, r.term, r.weight)
						}
						for _, r := range want {
							t.Logf("scanned: node %s term %p weight %d", r.node.Name, r.term, r.weight)
						}
						t.Fatalf("seed %d %s, index %d, pod %s: %d matches, the scan %d", seed, step, k, p.Key, len(got), len(want))
					}
				}
				filed := map[*framework.AffinityTerm]termRef{}
				x.mu.Lock()
				for _, refs := range indexedLists(x) {
					for _, r := range refs {
						if old, ok := filed[r.term]; ok && old != r {
							t.Fatalf("seed %d %s, index %d: a term filed for two nodes", seed, step, k)
						}
						filed[r.term] = r
					}
				}
				x.mu.Unlock()
				want := map[*framework.AffinityTerm]termRef{}
				scanTerms(nodes, x.podsOf, x.termsOf, func(r termRef) {
					if _, selectable := r.term.Selector.Requirements(); selectable {
						want[r.term] = r // a selector matching nothing is filed nowhere
					}
				})
				for tm, r := range want {
					if filed[tm] != r {
						t.Fatalf("seed %d %s, index %d: a term of node %s is not filed", seed, step, k, r.node.Name)
					}
				}
				for tm, r := range filed {
					if _, ok := want[tm]; !ok {
						t.Fatalf("seed %d %s, index %d: a term of node %s is filed but no longer there", seed, step, k, r.node.Name)
					}
				}
			}
		}
		var cps []framework.Checkpoint
		var simulated []*framework.PodInfo
		for step := range 400 {
			nodes := c.NodeInfos()
			switch op := r.rng.IntN(14); {
			case op < 2 && len(nodes) > 0: // assume a pod, or bind one
				n := nodes[r.rng.IntN(len(nodes))]
				p := r.pod(n.Name, 2)
				if r.rng.IntN(2) == 0 {
					if err := c.Nodes().AssumePod(framework.NewPodInfo(p), n.Name); err != nil {
						t.Fatal(err)
					}
				} else if err := c.Nodes().AddBoundPod(framework.NewPodInfo(p)); err != nil {
					t.Fatal(err)
				}
			case op < 4 && len(nodes) > 0: // simulate adding a pod (a pending one, or one seen before)
				n := nodes[r.rng.IntN(len(nodes))]
				if len(cps) == 0 {
					cps = append(cps, c.Checkpoint())
				}
				var p *framework.PodInfo
				if len(simulated) > 0 && r.rng.IntN(2) == 0 {
					p = simulated[r.rng.IntN(len(simulated))]
				} else {
					p = framework.NewPodInfo(r.pod("", 2))
					simulated = append(simulated, p)
				}
				if c.Nodes().Pod(p.Key) == nil {
					c.AddPod(p, n.Name)
				}
			case op < 6 && len(nodes) > 0: // remove a pod, inside a simulation or for good
				n := nodes[r.rng.IntN(len(nodes))]
				if len(n.Pods) == 0 {
					continue
				}
				victim := n.Pods[r.rng.IntN(len(n.Pods))]
				switch {
				case len(cps) > 0:
					c.RemovePod(victim)
				case victim.Assumed:
					c.Nodes().ForgetPod(victim.Key)
				default:
					c.Nodes().RemoveBoundPod(victim.Key)
				}
			case op == 6: // open a simulation
				cps = append(cps, c.Checkpoint())
			case op < 9 && len(cps) > 0: // roll one back, or all
				i := len(cps) - 1
				if op == 8 {
					i = 0
				}
				c.Rollback(cps[i])
				cps = cps[:i]
			case op == 9 && len(cps) == 0 && len(nodes) > 1: // remove a node
				c.Nodes().RemoveNode(nodes[r.rng.IntN(len(nodes))].Name)
			case op == 10 && len(cps) == 0: // (re-)add a node
				c.Nodes().AddNode(r.nodes[r.rng.IntN(len(r.nodes))])
			case op == 11: // a use finds the index busy and scans: it does not catch up
				ix := indexes[r.rng.IntN(len(indexes))]
				ix.x.mu.Lock()
				p := probes[r.rng.IntN(len(probes))]
				ix.x.forEachMatching(ix.nodes(), p, nil, func(termRef) {})
				ix.x.mu.Unlock()
				continue
			}
			if r.rng.IntN(3) == 0 {
				check(fmt.Sprintf("after step %d", step))
			}
		}
		for i := len(cps) - 1; i >= 0; i-- {
			c.Rollback(cps[i])
		}
		check("after rolling everything back")
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
	}
}

// sameRefs reports whether two lists hold the same term references, in any order.
func sameRefs(a, b []termRef) bool {
	count := map[termRef]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// indexedLists returns every list of an index's filed terms.
func indexedLists(x *termIndex) [][]termRef {
	out := [][]termRef{x.rest}
	for _, byValue := range x.byValue {
		for _, refs := range byValue {
			out = append(out, refs)
		}
	}
	for _, refs := range x.byKey {
		out = append(out, refs)
	}
	return out
}
