package sim_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
)

// Generated small clusters for the property tests of preemption: a few nodes, pods of
// priorities 1-20 filling them, some of them in groups of disruption mode All or Single
// (spread over nodes), sometimes BestEffort pods and a PodDisruptionBudget, and one
// preemptor arriving at 5s: a pod, or a gang of 2-4 members. A brute-force reference
// (reference.go's job, in test code) computes the least disruptive victim set by trying
// every subset of victim units.

type genNode struct {
	name                string
	cpu, mem, gpu, pods int64 // cpu in cores, mem in Gi
}

type genPod struct {
	name          string
	node          string
	prio          int32
	cpu, mem, gpu int64
	bestEffort    bool
	group         string // "" for none
	app           string // label for a budget, "" for none
}

type genGroup struct {
	name    string
	all     bool
	prio    int32
	members []int // indexes into pods
}

type genPDB struct {
	name           string
	app            string
	maxUnavailable int
}

type genPreemptor struct {
	gang    bool
	prio    int32
	members []genPod // requests only
}

type genCluster struct {
	nodes     []genNode
	pods      []genPod
	groups    []genGroup
	pdbs      []genPDB
	preemptor genPreemptor
	// multi: requests of memory and GPUs too, not only cpu.
	multi bool
}

// genOptions bound the generator.
type genOptions struct {
	maxUnits int // candidate victim units at most (so that the reference stays cheap)
}

func generateCluster(rng *rand.Rand, opts genOptions) genCluster {
	for {
		c := tryGenerate(rng)
		if n := len(c.candidateUnits()); n <= opts.maxUnits {
			return c
		}
	}
}

func tryGenerate(rng *rand.Rand) genCluster {
	var c genCluster
	c.multi = rng.IntN(3) == 0
	nNodes := 2 + rng.IntN(4)
	for i := range nNodes {
		n := genNode{name: fmt.Sprintf("node-%d", i+1), cpu: 8, mem: 32, pods: 110}
		if c.multi {
			n.gpu = int64(rng.IntN(3)) * 2
		}
		if rng.IntN(6) == 0 {
			n.pods = int64(3 + rng.IntN(3)) // pod slots become the scarce resource
		}
		c.nodes = append(c.nodes, n)
	}
	// Fill the nodes.
	for ni, n := range c.nodes {
		used := genPod{}
		count := int64(0)
		for tries := 0; tries < 12 && count < n.pods; tries++ {
			p := genPod{name: fmt.Sprintf("p%02d", len(c.pods)+1), node: n.name, prio: int32(1 + rng.IntN(20))}
			if rng.IntN(12) == 0 {
				p.bestEffort = true
			} else {
				p.cpu = int64(1 + rng.IntN(4))
				if c.multi {
					p.mem = int64(1 + rng.IntN(12))
					if n.gpu > 0 && rng.IntN(3) == 0 {
						p.gpu = 1
					}
				}
			}
			if used.cpu+p.cpu > n.cpu || used.mem+p.mem > n.mem || used.gpu+p.gpu > n.gpu {
				continue
			}
			used.cpu += p.cpu
			used.mem += p.mem
			used.gpu += p.gpu
			count++
			c.pods = append(c.pods, p)
		}
		_ = ni
	}
	// Groups: a few pods of equal priority across nodes become a group (never BestEffort).
	for g := 0; g < rng.IntN(3); g++ {
		var free []int
		for i, p := range c.pods {
			if p.group == "" && !p.bestEffort {
				free = append(free, i)
			}
		}
		if len(free) < 2 {
			break
		}
		rng.Shuffle(len(free), func(a, b int) { free[a], free[b] = free[b], free[a] })
		size := 2 + rng.IntN(2)
		if size > len(free) {
			size = len(free)
		}
		grp := genGroup{name: fmt.Sprintf("g%d", g+1), all: rng.IntN(2) == 0, prio: int32(1 + rng.IntN(20))}
		for _, i := range free[:size] {
			c.pods[i].group = grp.name
			c.pods[i].prio = grp.prio
			grp.members = append(grp.members, i)
		}
		slices.Sort(grp.members)
		c.groups = append(c.groups, grp)
	}
	// Sometimes a budget over a few single pods.
	if rng.IntN(3) == 0 {
		pdb := genPDB{name: "guard", app: "guarded", maxUnavailable: rng.IntN(2)}
		for i := range c.pods {
			if c.pods[i].group == "" && rng.IntN(3) == 0 {
				c.pods[i].app = pdb.app
			}
		}
		c.pdbs = append(c.pdbs, pdb)
	}
	// The preemptor.
	c.preemptor.prio = int32(5 + rng.IntN(21))
	if rng.IntN(2) == 0 {
		c.preemptor.gang = true
		for range 2 + rng.IntN(3) {
			c.preemptor.members = append(c.preemptor.members, c.preemptorMember(rng))
		}
	} else {
		c.preemptor.members = []genPod{c.preemptorMember(rng)}
	}
	return c
}

func (c *genCluster) preemptorMember(rng *rand.Rand) genPod {
	m := genPod{cpu: int64(1 + rng.IntN(6))}
	if c.multi {
		m.mem = int64(1 + rng.IntN(16))
		if rng.IntN(3) == 0 {
			m.gpu = 1
		}
	}
	return m
}

// yaml writes the cluster as manifests, nodes in nodeOrder and the preemptor's members in
// memberOrder (permutations of their indexes; nil for the natural order). asGang makes a
// single-pod preemptor a one-member gang.
func (c *genCluster) yaml(nodeOrder, memberOrder []int, asGang bool) string {
	var b strings.Builder
	doc := func(format string, args ...any) {
		b.WriteString("---\n")
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\n")
	}
	if nodeOrder == nil {
		nodeOrder = identity(len(c.nodes))
	}
	for _, i := range nodeOrder {
		n := c.nodes[i]
		doc("apiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {allocatable: {cpu: \"%d\", memory: %dGi, pods: \"%d\", example.com/gpu: \"%d\"}}",
			n.name, n.cpu, n.mem, n.pods, n.gpu)
	}
	for _, g := range c.groups {
		doc("%s", podGroupYAML(g.name, len(g.members), g.all, int64(g.prio)))
	}
	for _, p := range c.pdbs {
		doc("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: %s}\nspec: {maxUnavailable: %d, selector: {matchLabels: {app: %s}}}", p.name, p.maxUnavailable, p.app)
	}
	for i, p := range c.pods {
		var labels []string
		if p.group != "" {
			labels = append(labels, "scheduling.phalanx.dev/pod-group: "+p.group)
		}
		if p.app != "" {
			labels = append(labels, "app: "+p.app)
		}
		// Start times differ, so that importance is a total order.
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s, labels: {%s}}\nspec: {nodeName: %s, priority: %d, containers: [{name: c%s}]}\nstatus: {startTime: \"%s\"}",
			p.name, strings.Join(labels, ", "), p.node, p.prio, c.requests(p), sim.Epoch.Add(-time.Duration(len(c.pods)-i)*time.Minute).Format(time.RFC3339))
	}
	pre := c.preemptor
	gang := pre.gang || asGang
	if gang {
		doc("apiVersion: scheduling.phalanx.dev/v1alpha1\nkind: PodGroup\nmetadata: {name: pre, annotations: {sim.phalanx.dev/create-at: 5s}}\nspec:\n  schedulingPolicy: {gang: {minCount: %d}}\n  priority: %d",
			len(pre.members), pre.prio)
	}
	if memberOrder == nil {
		memberOrder = identity(len(pre.members))
	}
	for _, i := range memberOrder {
		m := pre.members[i]
		labels := ""
		if gang {
			labels = "labels: {scheduling.phalanx.dev/pod-group: pre}, "
		}
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: pre-%d, %sannotations: {sim.phalanx.dev/create-at: 5s}}\nspec: {priority: %d, containers: [{name: c%s}]}",
			i+1, labels, pre.prio, c.requests(m))
	}
	return b.String()
}

func (c *genCluster) requests(p genPod) string {
	if p.bestEffort {
		return ""
	}
	r := fmt.Sprintf("cpu: \"%d\"", p.cpu)
	if p.mem > 0 {
		r += fmt.Sprintf(", memory: %dGi", p.mem)
	}
	if p.gpu > 0 {
		// An extended resource's limit is its request, as the API server requires.
		r += fmt.Sprintf(", example.com/gpu: \"%d\"}, limits: {example.com/gpu: \"%d\"", p.gpu, p.gpu)
	}
	return ", resources: {requests: {" + r + "}}"
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// greedyOnly is a configuration whose preemption never searches exactly.
func greedyOnly(t testing.TB) *config.Configuration {
	t.Helper()
	cfg := config.Default()
	off := json.RawMessage(`{"exactSearchMaxUnits": 0}`)
	for i := range cfg.Profiles {
		cfg.Profiles[i].PluginConfig = append(cfg.Profiles[i].PluginConfig,
			config.PluginConfig{Name: "DefaultPreemption", Args: off},
			config.PluginConfig{Name: "WorkloadPreemption", Args: off})
	}
	if errs := config.Validate(cfg); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	return cfg
}

// podGroupYAML is a running PodGroup of the generated clusters: a gang of all its members,
// of disruption mode All or Single.
func podGroupYAML(name string, members int, all bool, priority int64) string {
	mode := "single: {}"
	if all {
		mode = "all: {}"
	}
	return fmt.Sprintf("apiVersion: scheduling.phalanx.dev/v1alpha1\nkind: PodGroup\nmetadata: {name: %s}\nspec:\n  schedulingPolicy: {gang: {minCount: %d}}\n  disruptionMode: {%s}\n  priority: %d",
		name, members, mode, priority)
}
