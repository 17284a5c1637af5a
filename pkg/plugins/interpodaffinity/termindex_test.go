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
				_, s := preFilter(t, pl, p)
				if s == nil {
					s = &preFilterState{}
				}
				if !sameCounts(s, ea, af, an) {
					t.Fatalf("seed %d %s, pod %s: counts\n got %v %v %v\nwant %v %v %v", seed, step, p.Key, s.existingAnti, s.affinity, s.anti, ea, af, an)
				}
				want, matched := refPreScore(c, p, 1)
				state := framework.NewCycleState()
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
		if (indexed == nil) != (scanned == nil) || (indexed != nil && !sameCounts(indexed, scanned.existingAnti, scanned.affinity, scanned.anti)) {
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
	if got := s.existingAnti.get("zone", "z1"); got != 1 {
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
