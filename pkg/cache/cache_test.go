package cache

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

func node(name string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": "z" + name[len(name)-1:]}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: apiresource.MustParse("8"), v1.ResourceMemory: apiresource.MustParse("32Gi"),
			v1.ResourcePods: apiresource.MustParse("110"), "nvidia.com/gpu": apiresource.MustParse("4"),
		}},
	}
}

// testPod builds a pod with labels, requests, a host port and, for some, affinity terms,
// so that every structure the cache keeps is exercised.
func testPod(i int) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d", i),
			Labels: map[string]string{"app": fmt.Sprintf("a%d", i%3), "tier": fmt.Sprintf("t%d", i%2)}},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name: "c",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU:   *apiresource.NewMilliQuantity(int64(100*(i%5+1)), apiresource.DecimalSI),
				"nvidia.com/gpu": *apiresource.NewQuantity(int64(i%2), apiresource.DecimalSI),
			}},
		}}},
	}
	if i%4 == 0 {
		p.Spec.Containers[0].Ports = []v1.ContainerPort{{HostPort: int32(8000 + i%3), ContainerPort: 80}}
	}
	if i%3 == 0 {
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a1"}},
				TopologyKey:   "zone",
			}},
		}}
	}
	if i%5 == 0 {
		p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1,
				PodAffinityTerm: v1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "t0"}},
					TopologyKey:   "zone",
				}}},
		}}
	}
	return p
}

// state captures every field a rollback must restore.
type state struct {
	Nodes      []nodeState
	Postings   map[string][]string
	Totals     map[string]int
	AntiNodes  []string
	AffNodes   []string
	Pods       map[string]string
	NumEntries int
}

type nodeState struct {
	Name                   string
	Requested              [32]int64
	NonZeroCPU, NonZeroMem int64
	Pods, Aff, Anti        []string
	Ports                  []string
	Generation             int64
}

func capture(c *Cache) state {
	s := state{Postings: map[string][]string{}, Totals: map[string]int{}, Pods: map[string]string{}, NumEntries: len(c.nodes.entries)}
	names := func(ps []*framework.PodInfo) []string {
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Key)
		}
		return out
	}
	for _, n := range c.nodes.nodes {
		s.Nodes = append(s.Nodes, nodeState{Name: n.Name, Requested: n.Requested, NonZeroCPU: n.NonZeroCPU,
			NonZeroMem: n.NonZeroMemory, Pods: names(n.Pods), Aff: names(n.PodsWithAffinity),
			Anti: names(n.PodsWithRequiredAntiAffinity), Ports: portList(n), Generation: n.Generation})
	}
	for k, kp := range c.nodes.labels.keys {
		if kp.total != 0 {
			s.Totals[k] = kp.total
		}
		for v, p := range kp.values {
			for _, it := range p.items {
				s.Postings[k+"="+v] = append(s.Postings[k+"="+v], it.e.pi.Key)
			}
		}
	}
	for _, it := range c.nodes.labels.all.items {
		s.Postings["*"] = append(s.Postings["*"], it.e.pi.Key)
	}
	for _, n := range c.nodes.antiNodes.items {
		s.AntiNodes = append(s.AntiNodes, n.Name)
	}
	for _, n := range c.nodes.affinityNodes.items {
		s.AffNodes = append(s.AffNodes, n.Name)
	}
	for k, p := range c.nodes.pods {
		s.Pods[k] = p.NodeName
	}
	return s
}

func TestRollbackRestoresEveryField(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			c := New()
			for i := range 4 {
				c.Nodes().AddNode(node(fmt.Sprintf("n%d", i)))
			}
			var bound []*framework.PodInfo
			for i := range 30 {
				p := testPod(i)
				p.Spec.NodeName = fmt.Sprintf("n%d", rng.IntN(4))
				pi := framework.NewPodInfo(p)
				if err := c.Nodes().AddBoundPod(pi); err != nil {
					t.Fatal(err)
				}
				bound = append(bound, pi)
			}
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
			before := capture(c)

			// Nested simulations: remove victims, add pending pods, then roll back.
			outer := c.Checkpoint()
			removed := map[*framework.PodInfo]bool{}
			pending := []*framework.PodInfo{}
			for step := range 40 {
				switch rng.IntN(3) {
				case 0:
					pi := bound[rng.IntN(len(bound))]
					if !removed[pi] {
						c.RemovePod(pi)
						removed[pi] = true
					}
				case 1:
					pi := framework.NewPodInfo(testPod(100 + step))
					c.AddPod(pi, fmt.Sprintf("n%d", rng.IntN(4)))
					pending = append(pending, pi)
				case 2:
					if len(pending) > 0 {
						c.RemovePod(pending[len(pending)-1])
						pending = pending[:len(pending)-1]
					}
				}
				if err := c.Verify(); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				if step == 20 {
					inner := c.Checkpoint()
					c.RemovePod(bound[0])
					c.AddPod(framework.NewPodInfo(testPod(999)), "n0")
					c.Rollback(inner)
					if err := c.Verify(); err != nil {
						t.Fatalf("after inner rollback: %v", err)
					}
				}
			}
			c.Rollback(outer)
			if err := c.Verify(); err != nil {
				t.Fatal(err)
			}
			after := capture(c)
			if !reflect.DeepEqual(before, after) {
				t.Errorf("rollback did not restore the state: %s", firstDifference(before, after))
			}
			if len(c.undo.ops) != 0 || len(c.undo.marks) != 0 {
				t.Errorf("undo log not empty after the outermost rollback: %d ops, %d open", len(c.undo.ops), len(c.undo.marks))
			}
		})
	}
}

func TestLabelIndexMatchesScan(t *testing.T) {
	c := New()
	c.Nodes().AddNode(node("n0"))
	for i := range 50 {
		p := testPod(i)
		p.Spec.NodeName = "n0"
		if err := c.Nodes().AddBoundPod(framework.NewPodInfo(p)); err != nil {
			t.Fatal(err)
		}
	}
	selectors := []string{"app=a1", "app==a1", "app in (a0,a2)", "tier", "app=a1,tier=t0", "tier,app in (a1,a2)", "app!=a1", "!tier", "", "app=none", "app in (a1,a1)", "app=a1,app!=a1"}
	for _, s := range selectors {
		sel, err := labelsParse(s)
		if err != nil {
			t.Fatal(err)
		}
		if s == "app in (a1,a1)" {
			// The parser drops a repeated value; a pod's selector, converted from its
			// LabelSelector, keeps it (found by hack/schedulerdiff).
			sel, err = metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"a1", "a1"}}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		got := map[string]bool{}
		c.ForEachPodMatching(func(string) bool { return true }, sel, func(p *framework.PodInfo) bool {
			if got[p.Key] {
				t.Errorf("selector %q: pod %s visited twice", s, p.Key)
			}
			got[p.Key] = true
			return true
		})
		want := map[string]bool{}
		for _, p := range c.nodes.nodes[0].Pods {
			if sel.Matches(labelSet(p.Pod.Labels)) {
				want[p.Key] = true
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("selector %q: index found %d pods, scan %d", s, len(got), len(want))
		}
	}
}

func portList(n *framework.NodeInfo) []string {
	out := []string{}
	for _, p := range []int32{8000, 8001, 8002} {
		if n.UsedPorts.Conflicts(framework.HostPort{IP: "0.0.0.0", Protocol: v1.ProtocolTCP, Port: p}) {
			out = append(out, fmt.Sprint(p))
		}
	}
	return out
}

// firstDifference names the first field that differs, to keep failures readable.
func firstDifference(a, b state) string {
	for i := range a.Nodes {
		if i >= len(b.Nodes) {
			return "nodes missing"
		}
		if !reflect.DeepEqual(a.Nodes[i], b.Nodes[i]) {
			return fmt.Sprintf("node %d: %+v != %+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	for k := range a.Postings {
		if !reflect.DeepEqual(a.Postings[k], b.Postings[k]) {
			return fmt.Sprintf("posting %s: %v != %v", k, a.Postings[k], b.Postings[k])
		}
	}
	return fmt.Sprintf("totals %v/%v anti %v/%v aff %v/%v pods %d/%d entries %d/%d",
		a.Totals, b.Totals, a.AntiNodes, b.AntiNodes, a.AffNodes, b.AffNodes, len(a.Pods), len(b.Pods), a.NumEntries, b.NumEntries)
}

// A node's Generation names its state: the same pod added in a simulation to a node as it
// was gives the generation it gave before (so that what was derived from that node still
// holds), and two different states never share one. Random simulations add a few pending
// pods, some leaving, remove bound pods and roll back, again and again; every generation
// seen is held to the node state it was first seen with.
func TestSimulatedAddsKeepGenerations(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			c := New()
			for i := range 3 {
				c.Nodes().AddNode(node(fmt.Sprintf("n%d", i)))
			}
			var bound []*framework.PodInfo
			for i := range 12 {
				p := testPod(i)
				p.Spec.NodeName = fmt.Sprintf("n%d", rng.IntN(3))
				pi := framework.NewPodInfo(p)
				if err := c.Nodes().AddBoundPod(pi); err != nil {
					t.Fatal(err)
				}
				bound = append(bound, pi)
			}
			var pending []*framework.PodInfo
			for i := range 4 {
				pending = append(pending, framework.NewPodInfo(testPod(100+i)))
			}
			seen := map[int64]nodeState{}
			check := func(step string) {
				t.Helper()
				for _, n := range c.NodeInfos() {
					var s nodeState
					for _, ns := range capture(c).Nodes {
						if ns.Name == n.Name {
							s = ns
						}
					}
					for _, p := range n.Pods {
						s.Pods = append(s.Pods, fmt.Sprint(p.Terminating))
					}
					if old, ok := seen[n.Generation]; ok && !reflect.DeepEqual(old, s) {
						t.Fatalf("%s: generation %d of %s names two states:\n%+v\n%+v", step, n.Generation, n.Name, old, s)
					}
					seen[n.Generation] = s
				}
			}
			// Two of them are nominated: cycles add them through the nominations too, the
			// way the scheduler does, with the generations their last adds took.
			c.Nominations().Nominate(pending[0], "n0")
			c.Nominations().Nominate(pending[1], "n2")
			reused := 0
			for round := range 30 {
				cp := c.Checkpoint()
				for step := range 6 {
					switch rng.IntN(5) {
					case 4:
						skip := rng.IntN(3)
						c.AddNominatedPods(func(pi *framework.PodInfo) bool { return pi != pending[skip] })
						check(fmt.Sprintf("round %d step %d (nominated)", round, step))
					case 0, 1:
						pi := pending[rng.IntN(len(pending))]
						if pi.NodeName == "" {
							before := len(seen)
							c.AddPod(pi, fmt.Sprintf("n%d", rng.IntN(3)))
							check(fmt.Sprintf("round %d step %d", round, step))
							if len(seen) == before {
								reused++
							}
						}
					case 2:
						pi := bound[rng.IntN(len(bound))]
						if pi.NodeName != "" {
							c.RemovePod(pi)
						}
					case 3:
						// A pending pod starts or stops leaving between simulations.
						if pi := pending[rng.IntN(len(pending))]; pi.NodeName == "" {
							pi.Terminating = !pi.Terminating
						}
					}
				}
				c.Rollback(cp)
				if err := c.Verify(); err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("round %d rolled back", round))
			}
			if reused == 0 {
				t.Errorf("no simulated add gave a generation seen before")
			}
		})
	}
}
