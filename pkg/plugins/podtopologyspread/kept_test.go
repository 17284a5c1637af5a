package podtopologyspread

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// TestKeptCountsMatchRecount holds the kept counts (kept.go) to a plain recount, over
// random sequences of pods bound, assumed, forgotten, deleted, marked terminating and
// back, nominated; simulated adds and removals under nested checkpoints rolled back; and
// nodes relabelled, tainted, removed and re-added. A few incoming pod specs recur, so
// that most PreFilters catch up from kept counts, with selectors that follow a label
// exactly, follow one and check the rest, or follow none.
func TestKeptCountsMatchRecount(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			keptCountsRun(t, rand.New(rand.NewPCG(seed, 75)), 400)
		})
	}
}

type keptRun struct {
	t     *testing.T
	rng   *rand.Rand
	c     *cache.Cache
	pl    *PodTopologySpread
	pods  []*framework.PodInfo // bound or assumed, in the cache
	specs []*v1.Pod
	next  int
}

func keptCountsRun(t *testing.T, rng *rand.Rand, steps int) {
	r := &keptRun{t: t, rng: rng}
	var nodes []*v1.Node
	for i := range 10 {
		nodes = append(nodes, r.randomNode(fmt.Sprintf("n%d", i)))
	}
	r.pl, r.c = setup(t, nil, nodes, nil)
	r.specs = keptSpecs()
	for range 30 {
		r.bind()
	}
	for range steps {
		r.step()
		r.check()
	}
	if err := r.c.Verify(); err != nil {
		t.Fatal(err)
	}
}

func (r *keptRun) randomNode(name string) *v1.Node {
	var kv []string
	if r.rng.IntN(8) > 0 {
		kv = append(kv, "zone", fmt.Sprint("z", r.rng.IntN(3)))
	}
	if r.rng.IntN(4) > 0 {
		kv = append(kv, "rack", fmt.Sprint("r", r.rng.IntN(4)))
	}
	kv = append(kv, "kind", []string{"cpu", "gpu"}[r.rng.IntN(2)], v1.LabelHostname, name)
	n := node(name, kv...)
	if r.rng.IntN(5) == 0 {
		tainted(n)
	}
	return n
}

func (r *keptRun) newPod(name string) *v1.Pod {
	kv := []string{"app", []string{"a", "b", "c"}[r.rng.IntN(3)]}
	if r.rng.IntN(2) == 0 {
		kv = append(kv, "tier", []string{"x", "y"}[r.rng.IntN(2)])
	}
	p := testutil.Pod(name).Labels(kv...).Obj()
	p.Namespace = []string{"default", "other"}[r.rng.IntN(4)/3]
	if r.rng.IntN(8) == 0 {
		terminating(p)
	}
	return p
}

func (r *keptRun) randomNodeName() string {
	infos := r.c.NodeInfos()
	if len(infos) == 0 || r.rng.IntN(20) == 0 {
		return "gone" // a node not in the cache: the pod lives on a ghost
	}
	return infos[r.rng.IntN(len(infos))].Name
}

func (r *keptRun) bind() {
	r.next++
	p := r.newPod(fmt.Sprint("p", r.next))
	p.Spec.NodeName = r.randomNodeName()
	pi := framework.NewPodInfo(p)
	if err := r.c.Nodes().AddBoundPod(pi); err != nil {
		r.t.Fatal(err)
	}
	r.pods = append(r.pods, pi)
}

func (r *keptRun) takePod() *framework.PodInfo {
	if len(r.pods) == 0 {
		return nil
	}
	i := r.rng.IntN(len(r.pods))
	pi := r.pods[i]
	r.pods[i] = r.pods[len(r.pods)-1]
	r.pods = r.pods[:len(r.pods)-1]
	return pi
}

// step makes one random change.
func (r *keptRun) step() {
	c := r.c
	switch k := r.rng.IntN(13); {
	case k < 3:
		r.bind()
	case k == 3:
		if pi := r.takePod(); pi != nil {
			c.Nodes().RemoveBoundPod(pi.Key)
		}
	case k == 4: // assumed, then bound or forgotten
		r.next++
		pi := framework.NewPodInfo(r.newPod(fmt.Sprint("p", r.next)))
		if name := r.randomNodeName(); c.Get(name) != nil {
			if err := c.Nodes().AssumePod(pi, name); err != nil {
				r.t.Fatal(err)
			}
			if r.rng.IntN(2) == 0 {
				c.Nodes().ForgetPod(pi.Key)
			} else {
				r.pods = append(r.pods, pi)
			}
		}
	case k == 5:
		if len(r.pods) > 0 {
			pi := r.pods[r.rng.IntN(len(r.pods))]
			c.Nodes().SetLeaving(pi, !pi.Terminating)
		}
	case k == 6: // a node relabelled or (un)tainted
		if infos := c.NodeInfos(); len(infos) > 0 {
			c.Nodes().AddNode(r.randomNode(infos[r.rng.IntN(len(infos))].Name))
		}
	case k == 7:
		if infos := c.NodeInfos(); len(infos) > 1 {
			c.Nodes().RemoveNode(infos[r.rng.IntN(len(infos))].Name)
		}
	case k == 8:
		c.Nodes().AddNode(r.randomNode(fmt.Sprint("n", r.rng.IntN(12))))
	case k == 9: // a nomination
		r.next++
		pi := framework.NewPodInfo(r.newPod(fmt.Sprint("p", r.next)))
		c.Nominations().Nominate(pi, r.randomNodeName())
	case k < 12:
		r.simulate(0)
	default:
		r.check()
	}
}

// simulate adds nominated and other pods and removes pods under a checkpoint, nested up
// to three deep, checking after each change, and rolls back.
func (r *keptRun) simulate(depth int) {
	c := r.c
	cp := c.Checkpoint()
	for range 1 + r.rng.IntN(4) {
		switch r.rng.IntN(4) {
		case 0:
			c.AddNominatedPods(func(*framework.PodInfo) bool { return r.rng.IntN(2) == 0 })
		case 1:
			r.next++
			c.AddPod(framework.NewPodInfo(r.newPod(fmt.Sprint("s", r.next))), r.randomNodeName())
		case 2:
			if len(r.pods) > 0 {
				c.RemovePod(r.pods[r.rng.IntN(len(r.pods))])
			}
		case 3:
			if depth < 3 {
				r.simulate(depth + 1)
			}
		}
		r.check()
	}
	c.Rollback(cp)
}

// keptSpecs are the incoming pods: each kind of selector, the inclusion policies, a node
// selection, matchLabelKeys, two constraints sharing a selector.
func keptSpecs() []*v1.Pod {
	appA := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	appAX := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a", "tier": "x"}}
	inB := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"b"}}}}
	inAB := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}
	notC := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"c"}}}}
	gpu := incoming([]string{"app", "b"}, spread(1, "zone", hard, inB, affinityPolicy(ignore), taintsPolicy(honor))).Obj()
	gpu.Spec.NodeSelector = map[string]string{"kind": "gpu"}
	other := incoming([]string{"app", "a"}, spread(1, "zone", hard, appA)).Obj()
	other.Namespace = "other"
	return []*v1.Pod{
		incoming([]string{"app", "a"}, spread(1, "zone", hard, appA)).Obj(),
		incoming([]string{"app", "a"}, spread(1, "zone", hard, appA), spread(1, "rack", hard, appA, taintsPolicy(honor))).Obj(),
		incoming([]string{"app", "a", "tier", "x"}, spread(1, "zone", hard, appAX, minDomains(3))).Obj(),
		incoming([]string{"app", "a", "tier", "y"}, spread(1, "rack", hard, appA, matchLabelKeys("tier"))).Obj(),
		incoming([]string{"app", "c"}, spread(1, v1.LabelHostname, hard, inAB), spread(1, "zone", hard, notC)).Obj(),
		gpu, other,
		incoming([]string{"app", "b"}, spread(1, "zone", hard, inB), spread(1, "rack", hard, inB)).Obj(),
		incoming([]string{"app", "a"}, spread(1, "zone", hard, appA), spread(1, v1.LabelHostname, soft, appA, taintsPolicy(honor))).Obj(),
		incoming([]string{"app", "a", "tier", "x"}, spread(2, "rack", soft, appAX, taintsPolicy(honor)), spread(1, "zone", soft, appA)).Obj(),
		incoming([]string{"app", "b"}, spread(1, v1.LabelHostname, soft, inAB), spread(1, "zone", soft, inB, affinityPolicy(ignore))).Obj(),
		ownedByReplicaSet(incoming([]string{"app", "c", "tier", "y"}).Obj()), // the system defaults
	}
}

// check runs PreFilter for a random spec and compares every count with the recount, then
// PreScore on a random part of the nodes, compared with a new plugin's (which counts
// afresh).
func (r *keptRun) check() {
	pod := r.specs[r.rng.IntN(len(r.specs))]
	p := framework.NewPodInfo(pod)
	r.checkScoring(p)
	if _, st := r.pl.PreFilter(r.t.Context(), framework.NewCycleState(), p); st.IsSkip() {
		return
	}
	_, s := preFilter(r.t, r.pl, p)
	for i := range s.cons {
		c := &s.cons[i]
		want := recount(r.c, pod, s, i)
		for d, v := range c.keys.Values {
			if got := s.counts[s.off[i]+d]; got != want[v] {
				r.t.Fatalf("pod %v constraint %d (%s, %s): domain %q counts %d, a recount %d", pod.Labels, i, c.TopologyKey, c.Selector, v, got, want[v])
			}
			delete(want, v)
		}
		for v, n := range want {
			if n != 0 {
				r.t.Fatalf("constraint %d: domain %q of %d pods not counted", i, v, n)
			}
		}
	}
}

func (r *keptRun) checkScoring(p *framework.PodInfo) {
	var filtered []*framework.NodeInfo
	for _, n := range r.c.NodeInfos() {
		if r.rng.IntN(3) > 0 {
			filtered = append(filtered, n)
		}
	}
	state := framework.NewCycleState()
	if st := r.pl.PreScore(r.t.Context(), state, p, filtered); st.IsSkip() {
		return
	} else if !st.IsSuccess() {
		r.t.Fatalf("PreScore: %v", st)
	}
	s, err := getPreScoreState(state)
	if err != nil {
		r.t.Fatal(err)
	}
	want := recountSoft(r.c, p.Pod, s)
	for i := range s.cons {
		for slot, w := range want[i] {
			if got := s.countAt(i, int32(slot)); got != w {
				r.t.Fatalf("pod %v: PreScore constraint %d slot %d counts %d, a recount %d", p.Pod.Labels, i, slot, got, w)
			}
		}
	}
}

// recountSoft is upstream's scoring count on every pod of every node, by constraint: per node for hostname constraints (a node's own pods), else per domain of the
// filtered nodes (s.registered), on nodes carrying every soft key (unless the system
// defaults apply: a node lacking the key is in the domain "") and passing the policies.
func recountSoft(c *cache.Cache, pod *v1.Pod, s *preScoreState) [][]int64 {
	want := make([][]int64, len(s.cons))
	requireAll := len(pod.Spec.TopologySpreadConstraints) > 0
	for i := range s.cons {
		con := &s.cons[i]
		if con.hostname {
			want[i] = make([]int64, len(c.NodeInfos()))
		} else {
			want[i] = make([]int64, len(con.keys.Values))
		}
		if !con.counts() {
			continue
		}
		for x, n := range c.NodeInfos() {
			node := n.Node()
			carries := true
			for j := range s.cons {
				if _, ok := node.Labels[s.cons[j].TopologyKey]; !ok && requireAll {
					carries = false
				}
			}
			d := int(con.keys.IDs[node.Labels[con.TopologyKey]])
			if !con.hostname && (!carries || !passes(node, pod, &con.spreadConstraint) || !s.registered[s.off[i]+d]) {
				continue
			}
			for _, q := range n.Pods {
				if q.Pod.Namespace != pod.Namespace || q.Terminating || !con.Selector.Matches(labels.Set(q.Pod.Labels)) {
					continue
				}
				if con.hostname {
					want[i][x]++
				} else {
					want[i][d]++
				}
			}
		}
	}
	return want
}

// passes applies a constraint's inclusion policies to a node.
func passes(node *v1.Node, pod *v1.Pod, con *spreadConstraint) bool {
	if con.NodeAffinityPolicy == honor {
		if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
			return false
		}
	}
	if con.NodeTaintsPolicy == honor {
		if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, doNotScheduleTaint, false); untolerated {
			return false
		}
	}
	return true
}

// recount is upstream's rule, applied to every pod of every node: pods of the incoming
// pod's namespace, not terminating, matching the selector, on nodes that carry every
// topology key of the hard constraints and pass the inclusion policies.
func recount(c *cache.Cache, pod *v1.Pod, s *preFilterState, i int) map[string]int32 {
	con := &s.cons[i]
	out := map[string]int32{}
	if !con.counts() {
		return out
	}
	for _, n := range c.NodeInfos() {
		node := n.Node()
		carries := true
		for _, tsc := range pod.Spec.TopologySpreadConstraints {
			if _, ok := node.Labels[tsc.TopologyKey]; !ok && tsc.WhenUnsatisfiable == hard {
				carries = false
			}
		}
		if !carries || !passes(node, pod, &con.spreadConstraint) {
			continue
		}
		for _, q := range n.Pods {
			if q.Pod.Namespace == pod.Namespace && !q.Terminating && con.Selector.Matches(labels.Set(q.Pod.Labels)) {
				out[node.Labels[con.TopologyKey]]++
			}
		}
	}
	return out
}
