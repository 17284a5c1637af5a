package interpodaffinity

import (
	"context"
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// refFilter is upstream's Filter over the reference counts.
func refFilter(p *framework.PodInfo, existingAntiCounts, affinityCounts, antiCounts pairCounts, n *framework.NodeInfo) rejection {
	lbls := n.Node().Labels
	podsExist := true
	for _, t := range p.RequiredAffinity {
		v, ok := lbls[t.TopologyKey]
		if !ok {
			return affinity
		}
		if affinityCounts.get(t.TopologyKey, v) <= 0 {
			podsExist = false
		}
	}
	if !podsExist && !(len(affinityCounts) == 0 && refMatchesAll(foldNamespaces(p.RequiredAffinity), p)) {
		return affinity
	}
	for _, t := range p.RequiredAntiAffinity {
		if v, ok := lbls[t.TopologyKey]; ok && antiCounts.get(t.TopologyKey, v) > 0 {
			return anti
		}
	}
	for k, v := range lbls {
		if existingAntiCounts.get(k, v) > 0 {
			return existing
		}
	}
	return ""
}

func statusRejection(t *testing.T, st *framework.Status) rejection {
	t.Helper()
	if st.IsSuccess() {
		return ""
	}
	for r, w := range wantStatus {
		if st.Code() == w.code && st.Message() == w.reason {
			return r
		}
	}
	t.Fatalf("unexpected status %v", st)
	return ""
}

func sameCounts(t testing.TB, s *preFilterState, existingAnti, affinity, anti pairCounts) bool {
	t.Helper()
	return sameCountsOf(countsOf(t, s), [3]pairCounts{existingAnti, affinity, anti})
}

func sameCountsOf(a, b [3]pairCounts) bool {
	for i := range a {
		if !maps.EqualFunc(a[i], b[i], maps.Equal) {
			return false
		}
	}
	return true
}

// TestPreFilterAndFilterMatchReference compares the counts and every Filter answer with a
// literal transcription of upstream over random clusters.
func TestPreFilterAndFilterMatchReference(t *testing.T) {
	for seed := range uint64(25) {
		r := newRandomCluster(seed, 12, 150)
		c := r.cache()
		pl := newPlugin(t, c, "")
		for range 30 {
			p := framework.NewPodInfo(r.pod("", 2))
			ea, af, an := refPreFilter(c, p)
			state, s := preFilter(t, pl, p)
			wantSkip := len(ea) == 0 && len(p.RequiredAffinity) == 0 && len(p.RequiredAntiAffinity) == 0
			if (s == nil) != wantSkip {
				t.Fatalf("seed %d pod %s: skipped %v, want %v", seed, p.Key, s == nil, wantSkip)
			}
			if s == nil {
				continue
			}
			if !sameCounts(t, s, ea, af, an) {
				t.Fatalf("seed %d pod %s: counts\n got %v\nwant %v %v %v", seed, p.Key, countsOf(t, s), ea, af, an)
			}
			for _, n := range c.NodeInfos() {
				got := statusRejection(t, pl.Filter(context.Background(), state, p, n))
				if want := refFilter(p, ea, af, an, n); got != want {
					t.Fatalf("seed %d pod %s node %s: got %q, want %q", seed, p.Key, n.Name, got, want)
				}
			}
		}
	}
}

// TestAddRemovePodRoundTrip checks that RemovePod of a pod gives the state PreFilter
// computes without it, that AddPod brings back the state with it, and that Clone shields
// the original from both.
func TestAddRemovePodRoundTrip(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(10) {
		r := newRandomCluster(seed, 10, 80)
		c := r.cache()
		pl := newPlugin(t, c, "")
		for range 15 {
			p := framework.NewPodInfo(r.pod("", 2))
			full, s := preFilter(t, pl, p)
			if s == nil {
				continue
			}
			// A copy made independently of Clone, which is under test.
			orig := countsOf(t, s)
			check := func(what string, got *preFilterState, want [3]pairCounts) {
				t.Helper()
				if have := countsOf(t, got); !sameCountsOf(have, want) {
					t.Fatalf("seed %d pod %s: %s\n got %v\nwant %v", seed, p.Key, what, have, want)
				}
			}

			// Removing each existing pod, as preemption does.
			for _, n := range c.NodeInfos() {
				for _, victim := range append([]*framework.PodInfo(nil), n.Pods...) {
					cp := c.Checkpoint()
					c.RemovePod(victim)
					_, without := preFilter(t, pl, p)
					c.Rollback(cp)

					sim := full.Clone()
					if st := pl.RemovePod(ctx, sim, p, victim, n); !st.IsSuccess() {
						t.Fatal(st)
					}
					simState, _ := readPreFilterState(sim)
					check("after RemovePod "+victim.Key, simState, countsOf(t, without))
					check("original after RemovePod on a clone", s, orig)
					if st := pl.AddPod(ctx, sim, p, victim, n); !st.IsSuccess() {
						t.Fatal(st)
					}
					check("after RemovePod+AddPod "+victim.Key, simState, orig)
				}
			}

			// Adding a new pod, as nomination does.
			for _, n := range c.NodeInfos() {
				added := framework.NewPodInfo(r.pod("", 2))
				cp := c.Checkpoint()
				c.AddPod(added, n.Name)
				_, with := preFilter(t, pl, p)
				c.Rollback(cp)

				sim := full.Clone()
				if st := pl.AddPod(ctx, sim, p, added, n); !st.IsSuccess() {
					t.Fatal(st)
				}
				simState, _ := readPreFilterState(sim)
				check("after AddPod "+added.Key, simState, countsOf(t, with))
				check("original after AddPod on a clone", s, orig)
				if st := pl.RemovePod(ctx, sim, p, added, n); !st.IsSuccess() {
					t.Fatal(st)
				}
				check("after AddPod+RemovePod "+added.Key, simState, orig)
			}
		}
	}
}

func TestExtensionsWithoutPreFilterAreAnError(t *testing.T) {
	c := newCache(t, stdNodes(), nil, nil)
	pl := newPlugin(t, c, "")
	p := framework.NewPodInfo(pod("p", "default", "", aff{}))
	if st := pl.AddPod(context.Background(), framework.NewCycleState(), p, p, c.Get("n1")); st.Code() != framework.Error {
		t.Errorf("AddPod: got %v, want Error", st)
	}
	if st := pl.RemovePod(context.Background(), framework.NewCycleState(), p, p, c.Get("n1")); st.Code() != framework.Error {
		t.Errorf("RemovePod: got %v, want Error", st)
	}
}

// TestFilterNodeOutsideSnapshot: Filter finds the domain of a node its index does not hold
// (a copy of a node, a zone no node has, no zone at all) from its labels, with upstream's
// answers.
func TestFilterNodeOutsideSnapshot(t *testing.T) {
	for seed := range uint64(10) {
		r := newRandomCluster(seed, 12, 150)
		c := r.cache()
		pl := newPlugin(t, c, "")
		var outside []*framework.NodeInfo
		for _, n := range r.nodes {
			outside = append(outside, framework.NewNodeInfo(n))
		}
		outside = append(outside,
			framework.NewNodeInfo(testutil.Node("new-zone").Labels("zone", "z9", "region", "r0").Obj()),
			framework.NewNodeInfo(testutil.Node("no-labels").Obj()))
		// The first of a self-affine group may go to any node with the key, a new zone's too.
		probes := []*framework.PodInfo{framework.NewPodInfo(pod("solo", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "solo")}}, "app", "solo"))}
		for range 30 {
			probes = append(probes, framework.NewPodInfo(r.pod("", 2)))
		}
		for _, p := range probes {
			ea, af, an := refPreFilter(c, p)
			state, s := preFilter(t, pl, p)
			if s == nil {
				continue
			}
			for _, n := range outside {
				got := statusRejection(t, pl.Filter(context.Background(), state, p, n))
				if want := refFilter(p, ea, af, an, n); got != want {
					t.Fatalf("seed %d pod %s node %s: got %q, want %q", seed, p.Key, n.Name, got, want)
				}
			}
		}
	}
}
