package podtopologyspread

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

func preFilter(t *testing.T, pl *PodTopologySpread, p *framework.PodInfo) (*framework.CycleState, *preFilterState) {
	t.Helper()
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(t.Context(), state, p); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	s, err := getPreFilterState(state)
	if err != nil {
		t.Fatal(err)
	}
	return state, s
}

func sameCounts(a, b *preFilterState) bool {
	return slices.Equal(a.counts, b.counts) && slices.Equal(a.min, b.min)
}

// withoutPod runs fn with the pod taken off the cache.
func withoutPod(c *cache.Cache, q *framework.PodInfo, fn func()) {
	cp := c.Checkpoint()
	c.RemovePod(q)
	fn()
	c.Rollback(cp)
}

// For every bound pod: removing it from a fresh state gives the state PreFilter computes
// without it, and adding it back gives the original. Pods that must not count (other
// namespace, terminating, ineligible nodes, non-matching) leave the state unchanged.
func TestAddRemovePodRoundTrip(t *testing.T) {
	other := bound("o-1", "node-a", "foo", "")
	other.Namespace = "other"
	nodes := []*v1.Node{
		node("node-a", "zone", "zone1", "node", "node-a", "pool", "x"),
		node("node-b", "zone", "zone1", "node", "node-b"),
		tainted(node("node-c", "zone", "zone1", "node", "node-c", "pool", "x")),
		node("node-x", "zone", "zone2", "node", "node-x", "pool", "x"),
		node("node-y", "zone", "zone2", "node", "node-y", "pool", "x"),
		node("node-z", "zone", "zone3", "pool", "x"), // no "node" label: never eligible
	}
	pods := []*v1.Pod{
		bound("p-a1", "node-a", "foo", "", "bar", ""), bound("p-a2", "node-a", "foo", ""),
		bound("p-b1", "node-b", "foo", ""), bound("p-c1", "node-c", "foo", "", "bar", ""),
		bound("p-x1", "node-x", "bar", ""), bound("p-y1", "node-y", "foo", ""), bound("p-y2", "node-y", "foo", ""),
		bound("p-z1", "node-z", "foo", ""), bound("q-a1", "node-a", "baz", ""),
		terminating(bound("t-x1", "node-x", "foo", "")), other,
	}
	incomingPods := map[string]*v1.Pod{
		"zone and node": incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector), spread(1, "node", hard, fooSelector)).Obj(),
		"two selectors": incoming([]string{"foo", "", "bar", ""}, spread(1, "zone", hard, barSelector), spread(2, "node", hard, fooSelector)).Obj(),
		"inclusion policies": incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector, taintsPolicy(honor)), spread(1, "node", hard, fooSelector, affinityPolicy(ignore))).
			NodeSelector("pool", "x").Obj(),
	}
	for name, pod := range incomingPods {
		t.Run(name, func(t *testing.T) {
			pl, c := setup(t, nil, nodes, pods)
			p := framework.NewPodInfo(pod)
			fullState, full := preFilter(t, pl, p)
			counted := 0
			for _, bp := range pods {
				q := c.Nodes().Pod(bp.Namespace + "/" + bp.Name)
				n := c.Get(bp.Spec.NodeName)
				var fresh *preFilterState
				var freshState *framework.CycleState
				withoutPod(c, q, func() { freshState, fresh = preFilter(t, pl, p) })
				if !sameCounts(fresh, full) {
					counted++
				}

				removed := fullState.Clone()
				if st := pl.RemovePod(t.Context(), removed, p, q, n); !st.IsSuccess() {
					t.Fatalf("RemovePod(%s): %v", q.Key, st)
				}
				if got, _ := getPreFilterState(removed); !sameCounts(got, fresh) {
					t.Errorf("RemovePod(%s): counts %v min %v, fresh PreFilter has %v %v", q.Key, got.counts, got.min, fresh.counts, fresh.min)
				}
				added := freshState.Clone()
				if st := pl.AddPod(t.Context(), added, p, q, n); !st.IsSuccess() {
					t.Fatalf("AddPod(%s): %v", q.Key, st)
				}
				if got, _ := getPreFilterState(added); !sameCounts(got, full) {
					t.Errorf("AddPod(%s): counts %v min %v, full PreFilter has %v %v", q.Key, got.counts, got.min, full.counts, full.min)
				}
			}
			// The scenario exercises both pods that count and pods that do not.
			if counted == 0 || counted == len(pods) {
				t.Errorf("%d of %d pods count: the scenario tests nothing", counted, len(pods))
			}
			// The clones never touched the original.
			if _, again := preFilter(t, pl, p); !sameCounts(full, again) {
				t.Errorf("original state changed: %v %v, want %v %v", full.counts, full.min, again.counts, again.min)
			}
		})
	}
}

// Adding pods one domain after the other must keep the global minimum exact: with three
// empty zones, it stays 0 until every zone has a pod. (Upstream's two critical paths lose
// track of the third zone here.)
func TestAddPodKeepsMinimumExact(t *testing.T) {
	nodes := []*v1.Node{node("n1", "zone", "z1"), node("n2", "zone", "z2"), node("n3", "zone", "z3")}
	pl, c := setup(t, nil, nodes, nil)
	p := framework.NewPodInfo(incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj())
	state, s := preFilter(t, pl, p)
	for i, n := range []string{"n1", "n2", "n3"} {
		q := framework.NewPodInfo(bound("q"+n, n, "foo", ""))
		if st := pl.AddPod(t.Context(), state, p, q, c.Get(n)); !st.IsSuccess() {
			t.Fatal(st)
		}
		want := int32(0)
		if i == 2 {
			want = 1
		}
		if s.min[0] != want {
			t.Errorf("after adding to %s: min %d, want %d", n, s.min[0], want)
		}
	}
	// With 1/1/1 every zone accepts one more.
	for _, n := range c.NodeInfos() {
		if st := pl.Filter(t.Context(), state, p, n); !st.IsSuccess() {
			t.Errorf("%s: %v", n.Name, st)
		}
	}
}

func TestAddPodWithoutPreFilterIsAnError(t *testing.T) {
	pl, c := setup(t, nil, fourNodes(), nil)
	p := framework.NewPodInfo(incoming([]string{"foo", ""}, spread(1, "zone", hard, fooSelector)).Obj())
	q := framework.NewPodInfo(bound("q", "node-a", "foo", ""))
	if st := pl.AddPod(t.Context(), framework.NewCycleState(), p, q, c.Get("node-a")); st.Code() != framework.Error {
		t.Errorf("AddPod = %v, want Error", st)
	}
}
