package sim_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
)

// Generated medium clusters for the optimality tests of preemption (issue 20): 12-40 nodes
// of mixed sizes in racks, 40-250 running pods made from a handful of workload templates
// (so that many pods are alike, as in real clusters) of several priorities, PodGroups of
// 2-8 members in disruption mode All and Single, PodDisruptionBudgets with small budgets,
// BestEffort and Guaranteed pods; and one preemptor: a pod, a gang of 2-16 members, or a
// gang that must run in one rack. Resources are cpu (millicores), memory (Mi), GPUs and
// pod slots. medium_ref_test.go computes the least disruptive victims exactly.

type medKind int

const (
	medPod medKind = iota
	medGang
	medRackGang
)

var medKinds = []medKind{medPod, medGang, medRackGang}

func (k medKind) String() string {
	return [...]string{"pod", "gang", "gang in a rack"}[k]
}

// mVec is an amount of each resource: cpu in millicores, memory in Mi, GPUs, pod slots.
type mVec [4]int64

func (v mVec) add(o mVec) mVec {
	for i := range v {
		v[i] += o[i]
	}
	return v
}

func (v mVec) sub(o mVec) mVec {
	for i := range v {
		v[i] -= o[i]
	}
	return v
}

// fitsIn reports whether v fits in room.
func (v mVec) fitsIn(room mVec) bool {
	for i := range v {
		if v[i] > room[i] {
			return false
		}
	}
	return true
}

type mNode struct {
	name, rack string
	alloc      mVec
}

// QoS classes as ranks: the engine's order (Guaranteed most important).
const (
	qosBestEffort = 0
	qosBurstable  = 1
	qosGuaranteed = 2
)

type mPod struct {
	name  string
	node  int
	req   mVec // pods slot included
	prio  int32
	qos   int
	group int // index into groups, -1 for none
	app   int // index into pdbs, -1 for none
}

type mGroup struct {
	name    string
	all     bool
	prio    int32
	members []int
}

type mPDB struct {
	name           string
	maxUnavailable int
}

type mPreemptor struct {
	prio    int32
	members []mVec // requests, pods slot included
}

type mCluster struct {
	kind   medKind
	nodes  []mNode
	racks  []string
	pods   []mPod // in start order: a later index started later
	groups []mGroup
	pdbs   []mPDB
	pre    mPreemptor
}

// Priorities of the running pods: the levels preemption chooses among, and one above every
// preemptor.
var medLevels = []int32{10, 20, 50, 100, 200}

const medSystemPriority = 1000

type mTemplate struct {
	req  mVec
	prio int32
	qos  int
}

// medSize bounds a generated cluster: nodes and running pods.
type medSize struct {
	minNodes, maxNodes, minPods, maxPods int
}

// medium is the size; large goes past the exact search's 256 candidate units;
// small ones let the reference be checked against brute force.
var (
	medium = medSize{12, 40, 40, 250}
	large  = medSize{60, 120, 300, 900}
	small  = medSize{2, 4, 6, 14}
)

// generateMedium draws clusters until one needs preemption (the preemptor fits nowhere as
// the cluster is) and stays within what the reference solves quickly.
func generateMedium(rng *rand.Rand, kind medKind, size medSize) *mCluster {
	for {
		c := tryMedium(rng, kind, size)
		if c == nil || c.fitsWithoutPreemption() || !c.referenceTractable() {
			continue
		}
		// Mostly clusters where preemption can make room; some where it cannot.
		if !c.fitsWithEveryUnitGone() && rng.IntN(5) != 0 {
			continue
		}
		return c
	}
}

func tryMedium(rng *rand.Rand, kind medKind, size medSize) *mCluster {
	c := &mCluster{kind: kind}
	n := size.minNodes + rng.IntN(size.maxNodes-size.minNodes+1)
	rackSize := max(1, min(n/2, 3+rng.IntN(4)))
	var cpuSum int64
	for i := range n {
		cpu := []int64{4000, 8000, 16000, 32000}[rng.IntN(4)]
		nd := mNode{name: fmt.Sprintf("node-%02d", i), rack: fmt.Sprintf("rack-%d", i/rackSize), alloc: mVec{cpu, cpu / 1000 * 4096, 0, 110}}
		if cpu >= 16000 && rng.IntN(4) == 0 {
			nd.alloc[2] = []int64{4, 8}[rng.IntN(2)]
		}
		if rng.IntN(8) == 0 {
			nd.alloc[3] = int64(4 + rng.IntN(10)) // pod slots become scarce
		}
		if !slices.Contains(c.racks, nd.rack) {
			c.racks = append(c.racks, nd.rack)
		}
		cpuSum += cpu
		c.nodes = append(c.nodes, nd)
	}
	// Templates sized so that the nodes hold about the target number of pods.
	target := size.minPods + rng.IntN(size.maxPods-size.minPods+1)
	perPod := float64(cpuSum) * 0.85 / float64(target)
	var templates []mTemplate
	for range 5 + rng.IntN(8) {
		cpu := int64(perPod*math.Exp(rng.Float64()*3.2-1.8)/50) * 50
		cpu = min(max(cpu, 100), 12000)
		t := mTemplate{req: mVec{cpu, cpu * int64(1+rng.IntN(4)) * 1024 / 1000 / 64 * 64, 0, 1}, prio: medLevels[rng.IntN(len(medLevels))], qos: qosBurstable}
		switch r := rng.IntN(10); {
		case r == 0:
			t.req, t.qos = mVec{0, 0, 0, 1}, qosBestEffort
		case r <= 3:
			t.qos = qosGuaranteed
		}
		if t.qos != qosBestEffort && rng.IntN(7) == 0 {
			t.req[2] = int64(1 + rng.IntN(2))
		}
		if rng.IntN(8) == 0 {
			t.prio = medSystemPriority
		}
		templates = append(templates, t)
	}
	avg := max(1, target/n)
	for ni, nd := range c.nodes {
		used := mVec{}
		limit := avg/2 + 1 + rng.IntN(2*avg+1)
		for tries, count := 0, 0; tries < 80 && count < limit; tries++ {
			t := templates[rng.IntN(len(templates))]
			if !used.add(t.req).fitsIn(nd.alloc) {
				continue
			}
			used = used.add(t.req)
			count++
			c.pods = append(c.pods, mPod{node: ni, req: t.req, prio: t.prio, qos: t.qos, group: -1, app: -1})
		}
	}
	if len(c.pods) < size.minPods || len(c.pods) > size.maxPods {
		return nil
	}
	// Start order is random across nodes.
	rng.Shuffle(len(c.pods), func(i, j int) { c.pods[i], c.pods[j] = c.pods[j], c.pods[i] })
	for i := range c.pods {
		c.pods[i].name = fmt.Sprintf("p%03d", i)
	}
	// Groups of 2-8 running pods on any nodes, of one priority.
	for g := range rng.IntN(6) {
		var free []int
		for i, p := range c.pods {
			if p.group < 0 && p.qos != qosBestEffort && p.prio != medSystemPriority {
				free = append(free, i)
			}
		}
		size := 2 + rng.IntN(7)
		if len(free) < size {
			break
		}
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		grp := mGroup{name: fmt.Sprintf("g%d", g), all: rng.IntN(2) == 0, prio: medLevels[rng.IntN(len(medLevels))]}
		for _, i := range free[:size] {
			c.pods[i].group, c.pods[i].prio = len(c.groups), grp.prio
			grp.members = append(grp.members, i)
		}
		slices.Sort(grp.members)
		c.groups = append(c.groups, grp)
	}
	// Budgets of 0-2 disruptions over 3-14 single pods each, up to four of them (issue
	// 31: several small budgets over pods on many nodes are where a gang's plan must weigh
	// budgets across nodes).
	for b := range rng.IntN(5) {
		var free []int
		for i, p := range c.pods {
			if p.group < 0 && p.app < 0 && p.qos != qosBestEffort {
				free = append(free, i)
			}
		}
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		for _, i := range free[:min(len(free), 3+rng.IntN(12))] {
			c.pods[i].app = b
		}
		c.pdbs = append(c.pdbs, mPDB{name: fmt.Sprintf("budget-%d", b), maxUnavailable: rng.IntN(3)})
	}
	c.pre.prio = []int32{60, 150, 300, 300}[rng.IntN(4)]
	var maxCPU int64
	for _, nd := range c.nodes {
		maxCPU = max(maxCPU, nd.alloc[0])
	}
	member := func(cpu int64) mVec {
		cpu = min(max(cpu/50*50, 100), maxCPU)
		m := mVec{cpu, cpu * int64(1+rng.IntN(3)) * 1024 / 1000 / 64 * 64, 0, 1}
		if rng.IntN(8) == 0 {
			m[2] = 1
		}
		return m
	}
	switch kind {
	case medPod:
		// Larger than the free room of any node, at most the largest node.
		var maxFree int64
		free := c.freeRoom()
		for _, f := range free {
			maxFree = max(maxFree, f[0])
		}
		c.pre.members = []mVec{member(maxFree + 50 + rng.Int64N(max(1, maxCPU/3)))}
	default:
		size := 2 + rng.IntN(15)
		var kinds []mVec
		for range 1 + rng.IntN(3) {
			kinds = append(kinds, member(int64(perPod*math.Exp(rng.Float64()*2.2-0.4))))
		}
		for i := range size {
			c.pre.members = append(c.pre.members, kinds[min(i*len(kinds)/size, len(kinds)-1)])
		}
	}
	return c
}

// freeRoom is each node's room with every running pod in place.
func (c *mCluster) freeRoom() []mVec {
	free := make([]mVec, len(c.nodes))
	for i, nd := range c.nodes {
		free[i] = nd.alloc
	}
	for _, p := range c.pods {
		free[p.node] = free[p.node].sub(p.req)
	}
	return free
}

// medYAML writes the cluster as manifests: the running pods start a minute apart in index
// order, the preemptor arrives at 5s.
func (c *mCluster) yaml() string {
	var b strings.Builder
	doc := func(format string, args ...any) {
		b.WriteString("---\n")
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\n")
	}
	for _, nd := range c.nodes {
		doc("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {example.com/rack: %s}}\nstatus: {allocatable: {cpu: %dm, memory: %dMi, pods: \"%d\", example.com/gpu: \"%d\"}}",
			nd.name, nd.rack, nd.alloc[0], nd.alloc[1], nd.alloc[3], nd.alloc[2])
	}
	for _, g := range c.groups {
		doc("%s", podGroupYAML(g.name, len(g.members), g.all, int64(g.prio)))
	}
	for i, p := range c.pdbs {
		doc("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: %s}\nspec: {maxUnavailable: %d, selector: {matchLabels: {app: app-%d}}}", p.name, p.maxUnavailable, i)
	}
	for i, p := range c.pods {
		var labels []string
		if p.group >= 0 {
			labels = append(labels, "scheduling.phalanx.dev/pod-group: "+c.groups[p.group].name)
		}
		if p.app >= 0 {
			labels = append(labels, fmt.Sprintf("app: app-%d", p.app))
		}
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s, labels: {%s}}\nspec: {nodeName: %s, priority: %d, containers: [{name: c%s}]}\nstatus: {startTime: \"%s\"}",
			p.name, strings.Join(labels, ", "), c.nodes[p.node].name, p.prio, medResources(p.req, p.qos), sim.Epoch.Add(-time.Duration(len(c.pods)-i)*time.Minute).Format(time.RFC3339))
	}
	pre := c.pre
	gang := c.kind != medPod
	if gang {
		constraints := ""
		if c.kind == medRackGang {
			constraints = "\n  schedulingConstraints: {topology: [{key: example.com/rack}]}"
		}
		doc("apiVersion: scheduling.phalanx.dev/v1alpha1\nkind: PodGroup\nmetadata: {name: pre, annotations: {sim.phalanx.dev/create-at: 5s}}\nspec:\n  schedulingPolicy: {gang: {minCount: %d}}\n  priority: %d%s",
			len(pre.members), pre.prio, constraints)
	}
	for i, m := range pre.members {
		labels := ""
		if gang {
			labels = "labels: {scheduling.phalanx.dev/pod-group: pre}, "
		}
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: pre-%d, %sannotations: {sim.phalanx.dev/create-at: 5s}}\nspec: {priority: %d, containers: [{name: c%s}]}",
			i+1, labels, pre.prio, medResources(m, qosBurstable))
	}
	return b.String()
}

func medResources(req mVec, qos int) string {
	if qos == qosBestEffort {
		return ""
	}
	r := fmt.Sprintf("cpu: %dm, memory: %dMi", req[0], req[1])
	if req[2] > 0 {
		r += fmt.Sprintf(", example.com/gpu: \"%d\"", req[2])
	}
	limits := ""
	switch {
	case qos == qosGuaranteed:
		limits = ", limits: {" + r + "}"
	case req[2] > 0:
		// An extended resource's limit is its request, as the API server requires.
		limits = fmt.Sprintf(", limits: {example.com/gpu: \"%d\"}", req[2])
	}
	return ", resources: {requests: {" + r + "}" + limits + "}"
}
