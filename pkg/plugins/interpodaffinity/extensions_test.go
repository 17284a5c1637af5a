package interpodaffinity

import (
	"context"
	"maps"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
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

func sameCounts(s *preFilterState, existingAnti, affinity, anti pairCounts) bool {
	eq := func(a, b pairCounts) bool { return maps.EqualFunc(a, b, maps.Equal) }
	return eq(s.existingAnti, existingAnti) && eq(s.affinity, affinity) && eq(s.anti, anti)
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
			if !sameCounts(s, ea, af, an) {
				t.Fatalf("seed %d pod %s: counts\n got %v %v %v\nwant %v %v %v", seed, p.Key, s.existingAnti, s.affinity, s.anti, ea, af, an)
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
			deepCopy := func(m pairCounts) pairCounts {
				out := pairCounts{}
				for k, values := range m {
					out[k] = map[string]int64{}
					for v, c := range values {
						out[k][v] = c
					}
				}
				return out
			}
			orig := &preFilterState{existingAnti: deepCopy(s.existingAnti), affinity: deepCopy(s.affinity), anti: deepCopy(s.anti)}
			check := func(what string, got *preFilterState, want *preFilterState) {
				t.Helper()
				if want == nil { // PreFilter skipped: nothing counted
					want = &preFilterState{}
				}
				if !sameCounts(got, want.existingAnti, want.affinity, want.anti) {
					t.Fatalf("seed %d pod %s: %s\n got %v %v %v\nwant %v %v %v", seed, p.Key, what,
						got.existingAnti, got.affinity, got.anti, want.existingAnti, want.affinity, want.anti)
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
					check("after RemovePod "+victim.Key, simState, without)
					check("original after RemovePod on a clone", s, orig)
					if st := pl.AddPod(ctx, sim, p, victim, n); !st.IsSuccess() {
						t.Fatal(st)
					}
					check("after RemovePod+AddPod "+victim.Key, simState, s)
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
				check("after AddPod "+added.Key, simState, with)
				check("original after AddPod on a clone", s, orig)
				if st := pl.RemovePod(ctx, sim, p, added, n); !st.IsSuccess() {
					t.Fatal(st)
				}
				check("after AddPod+RemovePod "+added.Key, simState, s)
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
