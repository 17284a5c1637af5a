package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/plugins/noderesources"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// memoProfile enables the two resource scores with random arguments: Fit's strategy,
// resources and weights, and the resources BalancedAllocation balances.
func memoProfile(rnd *rand.Rand) config.Profile {
	resources := []map[string]any{{"name": "cpu", "weight": 1 + rnd.IntN(3)}, {"name": "memory", "weight": 1 + rnd.IntN(3)}}
	balanced := []map[string]any{{"name": "cpu"}, {"name": "memory"}}
	if rnd.IntN(2) == 0 {
		resources = append(resources, map[string]any{"name": "nvidia.com/gpu", "weight": 1 + rnd.IntN(3)})
		balanced = append(balanced, map[string]any{"name": "nvidia.com/gpu"})
	}
	if rnd.IntN(4) == 0 {
		// More resources than a ScoreKey holds: Score runs on every node.
		for _, name := range []string{"ephemeral-storage", "example.com/a", "example.com/b"} {
			resources = append(resources, map[string]any{"name": name, "weight": 1})
			balanced = append(balanced, map[string]any{"name": name})
		}
	}
	strategy := map[string]any{"type": []string{"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"}[rnd.IntN(3)], "resources": resources}
	if strategy["type"] == "RequestedToCapacityRatio" {
		strategy["requestedToCapacityRatio"] = map[string]any{"shape": []map[string]any{
			{"utilization": 0, "score": rnd.IntN(11)}, {"utilization": 30 + rnd.IntN(40), "score": rnd.IntN(11)}, {"utilization": 100, "score": rnd.IntN(11)}}}
	}
	fitArgs, _ := json.Marshal(map[string]any{"scoringStrategy": strategy})
	balancedArgs, _ := json.Marshal(map[string]any{"resources": balanced})
	return config.Profile{SchedulerName: "memo", Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}},
		Enabled: []config.Plugin{{Name: noderesources.FitName, Weight: int32(1 + rnd.IntN(3))},
			{Name: noderesources.BalancedAllocationName, Weight: int32(1 + rnd.IntN(3))}},
	}, PluginConfig: []config.PluginConfig{
		{Name: noderesources.FitName, Args: fitArgs}, {Name: noderesources.BalancedAllocationName, Args: balancedArgs}}}
}

// memoNode is a node of random size; some have GPUs.
func memoNode(rnd *rand.Rand, name string) *v1.Node {
	capacity := []string{"cpu", fmt.Sprint(2 + rnd.IntN(15)), "memory", fmt.Sprintf("%dGi", 4+rnd.IntN(61)), "pods", "110",
		"ephemeral-storage", "100Gi", "example.com/a", "8"}
	if rnd.IntN(3) == 0 {
		capacity = append(capacity, "nvidia.com/gpu", fmt.Sprint(1+rnd.IntN(8)))
	}
	return testutil.Node(name).Capacity(capacity...).Obj()
}

// memoShapes are the request shapes of the random pods: few, so that scores are served
// from the memo; request-less and best-effort ones score with the defaults or not at all.
var memoShapes = [][]string{
	{"cpu", "500m", "memory", "1Gi"},
	{"cpu", "2", "memory", "4Gi"},
	{"cpu", "1", "memory", "2Gi", "nvidia.com/gpu", "1"},
	{"cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "2", "example.com/a", "1"},
	{"memory", "512Mi"},
	{},
}

// directTotals is what the framework's totals must be: each active plugin's Score called
// on each node, weighted and summed (both plugins' scores are in range, not normalised).
func directTotals(t *testing.T, fwk *runtime.Framework, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo, weights map[string]int64) []int64 {
	t.Helper()
	totals := make([]int64, len(nodes))
	for i, n := range nodes {
		raw, st := fwk.RunRawScorePlugins(context.Background(), state, p, n)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		for _, s := range raw {
			totals[i] += s.Score * weights[s.Name]
		}
	}
	return totals
}

// The framework remembers the resource scores by pod key and node Generation: through
// random binds, removals, node updates and removals, and simulated adds and nominated pods
// rolled back (which give nodes back earlier generations), its totals must be those of
// scoring every node afresh, cycle after cycle.
func TestScoreMemoMatchesDirectScores(t *testing.T) {
	seed := rand.Uint64()
	rnd := rand.New(rand.NewPCG(seed, 7))
	for round := range 20 {
		prof := memoProfile(rnd)
		weights := map[string]int64{}
		for _, pl := range prof.Plugins.Enabled {
			weights[pl.Name] = int64(pl.Weight)
		}
		// The first round has enough nodes for the score loop to run on several
		// goroutines (the Parallelizer splits from 512 nodes a worker).
		size, steps := 30, 300
		if round == 0 {
			size, steps = 1100, 40
		}
		var nodes []*v1.Node
		for i := range size {
			nodes = append(nodes, memoNode(rnd, fmt.Sprintf("n%04d", i)))
		}
		c := testutil.NewCache(nodes, nil)
		fwk, err := runtime.New(prof, field.NewPath("profile"), plugins.NewRegistry(), runtime.Options{
			Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(2 + rnd.IntN(3)),
			Rand: rand.New(rand.NewPCG(seed, uint64(round))),
		})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		m := &memoCluster{t: t, rnd: rnd, c: c}
		for step := range steps {
			m.mutate()
			p := m.newPod()
			all := c.NodeInfos()
			scored := make([]*framework.NodeInfo, 0, len(all))
			for _, n := range all {
				if rnd.IntN(4) != 0 {
					scored = append(scored, n)
				}
			}
			if len(scored) == 0 {
				continue
			}
			state := framework.NewCycleState()
			if st := fwk.RunPreScorePlugins(context.Background(), state, p, scored); !st.IsSuccess() {
				t.Fatal(st)
			}
			want := directTotals(t, fwk, state, p, scored, weights)
			got, st := fwk.RunScorePlugins(context.Background(), state, p, scored)
			if !st.IsSuccess() {
				t.Fatal(st)
			}
			for i, n := range scored {
				if got[i] != want[i] {
					t.Fatalf("seed %d, round %d, step %d (%s): node %s totals %d, scored afresh %d", seed, round, step, m.last, n.Name, got[i], want[i])
				}
			}
		}
		for m.open > 0 {
			m.rollback()
		}
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
	}
}

// memoCluster makes random changes to a cache, some of them inside checkpoints.
type memoCluster struct {
	t      *testing.T
	rnd    *rand.Rand
	c      *cache.Cache
	pods   int
	bound  []*framework.PodInfo
	cps    []framework.Checkpoint
	open   int
	nodes  int
	last   string
	nomins []*framework.PodInfo
}

func (m *memoCluster) newPod() *framework.PodInfo {
	m.pods++
	shape := memoShapes[m.rnd.IntN(len(memoShapes))]
	if m.rnd.IntN(4) == 0 {
		// One of many more shapes than the memo holds keys: they take each other's slots.
		shape = []string{"cpu", fmt.Sprintf("%dm", 100*(1+m.rnd.IntN(40))), "memory", "1Gi"}
	}
	pod := testutil.Pod(fmt.Sprintf("p%d", m.pods)).Req(shape...).Obj()
	if m.rnd.IntN(3) == 0 {
		// A request-less sidecar: the same requests, but Fit counts it at its defaults.
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: "sidecar", Image: "sidecar"})
	}
	return framework.NewPodInfo(pod)
}

func (m *memoCluster) randomNode() *framework.NodeInfo {
	all := m.c.NodeInfos()
	return all[m.rnd.IntN(len(all))]
}

func (m *memoCluster) rollback() {
	m.c.Rollback(m.cps[len(m.cps)-1])
	m.cps = m.cps[:len(m.cps)-1]
	m.open--
	m.last = "rollback"
}

func (m *memoCluster) mutate() {
	switch op := m.rnd.IntN(9); {
	case op == 0 && m.open == 0:
		p := m.newPod()
		p.Pod.Spec.NodeName = m.randomNode().Name
		if err := m.c.Nodes().AddBoundPod(framework.NewPodInfo(p.Pod)); err != nil {
			m.t.Fatal(err)
		}
		m.bound = append(m.bound, m.c.Nodes().Pod(p.Key))
		m.last = "bind"
	case op == 1 && m.open == 0 && len(m.bound) > 0:
		k := m.rnd.IntN(len(m.bound))
		m.c.Nodes().RemoveBoundPod(m.bound[k].Key)
		m.bound = append(m.bound[:k], m.bound[k+1:]...)
		m.last = "remove pod"
	case op == 2 && m.open == 0:
		// A node grows or shrinks (its allocatable changes), or a new node arrives.
		n := m.randomNode()
		m.c.Nodes().AddNode(memoNode(m.rnd, n.Name))
		m.last = "update node " + n.Name
	case op == 3 && m.open == 0:
		// A node goes and another takes its index.
		n := m.randomNode()
		m.c.Nodes().RemoveNode(n.Name)
		m.nodes++
		m.c.Nodes().AddNode(memoNode(m.rnd, fmt.Sprintf("new%d", m.nodes)))
		m.last = "replace node " + n.Name
	case op == 4 && m.open < 3:
		m.cps = append(m.cps, m.c.Checkpoint())
		m.open++
		m.last = "checkpoint"
	case op == 5 && m.open > 0:
		m.rollback()
	case op == 6 && m.open > 0:
		// A simulated add, as a cycle adds a pod to preemption's what-if state or a
		// group's member to the snapshot; the same pod again gives the same generation.
		var p *framework.PodInfo
		if len(m.nomins) > 0 && m.rnd.IntN(2) == 0 {
			p = m.nomins[m.rnd.IntN(len(m.nomins))]
		} else {
			p = m.newPod()
			m.nomins = append(m.nomins, p)
		}
		if m.c.Nodes().Pod(p.Key) == nil {
			n := m.c.NodeInfos()[int(p.Requests.Vector[0])%m.c.Nodes().NumNodes()]
			m.c.AddPod(p, n.Name)
		}
		m.last = "simulated add"
	case op == 7 && m.open == 0:
		p := m.newPod()
		m.c.Nominations().Nominate(p, m.randomNode().Name)
		m.last = "nominate"
	case op == 8 && m.open > 0:
		m.c.AddNominatedPods(func(*framework.PodInfo) bool { return true })
		m.last = "add nominated"
	}
}
