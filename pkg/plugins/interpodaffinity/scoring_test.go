package interpodaffinity

import (
	"context"
	"fmt"
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// score runs PreScore, Score on every node and NormalizeScore; raw is nil on Skip.
func score(t *testing.T, pl *InterPodAffinity, c *cache.Cache, p *framework.PodInfo) (raw, normalized map[string]int64) {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	st := pl.PreScore(ctx, state, p, c.NodeInfos())
	if st.IsSkip() {
		return nil, nil
	}
	if !st.IsSuccess() {
		t.Fatalf("PreScore: %v", st)
	}
	raw = map[string]int64{}
	nodes := c.NodeInfos()
	scores := make([]int64, len(nodes))
	for i, n := range nodes {
		s, st := pl.Score(ctx, state, p, n)
		if !st.IsSuccess() {
			t.Fatalf("Score: %v", st)
		}
		raw[n.Name] = s
		scores[i] = s
	}
	if st := pl.ScoreExtensions().NormalizeScore(ctx, state, p, nodes, scores); !st.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", st)
	}
	normalized = map[string]int64{}
	for i, s := range scores {
		normalized[nodes[i].Name] = s
	}
	return raw, normalized
}

func TestScore(t *testing.T) {
	db := func(name, node string) *v1.Pod { return pod(name, "default", node, aff{}, "app", "db") }
	web := func(name, node string) *v1.Pod { return pod(name, "default", node, aff{}, "app", "web") }
	prefAff := func(w int32, t v1.PodAffinityTerm) aff {
		return aff{prefAff: []v1.WeightedPodAffinityTerm{weighted(w, t)}}
	}
	prefAnti := func(w int32, t v1.PodAffinityTerm) aff {
		return aff{prefAnti: []v1.WeightedPodAffinityTerm{weighted(w, t)}}
	}
	tests := []struct {
		name            string
		args            string
		pod             *v1.Pod
		pods            []*v1.Pod
		wantRaw, wantNo map[string]int64 // nil: Skip
	}{
		{
			name: "no terms anywhere: skip",
			pod:  web("p", ""),
			pods: []*v1.Pod{db("d", "n1")},
		},
		{
			name:    "preferred affinity scores the zone of matching pods",
			pod:     pod("p", "default", "", prefAff(5, term("zone", "app", "db"))),
			pods:    []*v1.Pod{db("d1", "n1"), db("d2", "n2"), web("w", "n3")},
			wantRaw: map[string]int64{"n1": 10, "n2": 10, "n3": 0, "n4": 0},
			wantNo:  map[string]int64{"n1": 100, "n2": 100, "n3": 0, "n4": 0},
		},
		{
			name:    "preferred anti-affinity scores against the node of matching pods",
			pod:     pod("p", "default", "", prefAnti(10, term(v1.LabelHostname, "app", "web"))),
			pods:    []*v1.Pod{web("w", "n1")},
			wantRaw: map[string]int64{"n1": -10, "n2": 0, "n3": 0, "n4": 0},
			wantNo:  map[string]int64{"n1": 0, "n2": 100, "n3": 100, "n4": 100},
		},
		{
			name:    "preferred terms respect namespaces and namespace selectors",
			pod:     pod("p", "default", "", prefAff(3, nsSel(term(v1.LabelHostname, "app", "db"), "team", "a"))),
			pods:    []*v1.Pod{pod("d1", "team-a1", "n1", aff{}, "app", "db"), pod("d2", "team-b1", "n2", aff{}, "app", "db"), db("d3", "n3")},
			wantRaw: map[string]int64{"n1": 3, "n2": 0, "n3": 0, "n4": 0},
			wantNo:  map[string]int64{"n1": 100, "n2": 0, "n3": 0, "n4": 0},
		},
		{
			name:    "existing pod's required affinity earns hardPodAffinityWeight (default 1)",
			pod:     web("p", ""),
			pods:    []*v1.Pod{pod("x", "default", "n3", aff{req: []v1.PodAffinityTerm{term("zone", "app", "web")}})},
			wantRaw: map[string]int64{"n1": 0, "n2": 0, "n3": 1, "n4": 0},
			wantNo:  map[string]int64{"n1": 0, "n2": 0, "n3": 100, "n4": 0},
		},
		{
			name:    "hardPodAffinityWeight scales",
			args:    `{"hardPodAffinityWeight": 7}`,
			pod:     web("p", ""),
			pods:    []*v1.Pod{pod("x", "default", "n1", aff{req: []v1.PodAffinityTerm{term("zone", "app", "web")}})},
			wantRaw: map[string]int64{"n1": 7, "n2": 7, "n3": 0, "n4": 0},
			wantNo:  map[string]int64{"n1": 100, "n2": 100, "n3": 0, "n4": 0},
		},
		{
			name: "hardPodAffinityWeight 0 ignores existing required affinity",
			args: `{"hardPodAffinityWeight": 0}`,
			pod:  web("p", ""),
			pods: []*v1.Pod{pod("x", "default", "n1", aff{req: []v1.PodAffinityTerm{term("zone", "app", "web")}})},
		},
		{
			name:    "existing pods' preferred terms count for the incoming pod",
			pod:     web("p", ""),
			pods:    []*v1.Pod{pod("x", "default", "n1", prefAnti(4, term("zone", "app", "web"))), pod("y", "default", "n3", prefAff(2, term("region", "app", "web")))},
			wantRaw: map[string]int64{"n1": -2, "n2": -2, "n3": 2, "n4": 0},
			wantNo:  map[string]int64{"n1": 0, "n2": 0, "n3": 100, "n4": 50},
		},
		{
			name:    "existing pods' terms match the incoming pod's namespace labels",
			pod:     pod("p", "team-b1", "", aff{}, "app", "web"),
			pods:    []*v1.Pod{pod("x", "team-a1", "n1", prefAff(4, nsSel(term(v1.LabelHostname, "app", "web"), "team", "b")))},
			wantRaw: map[string]int64{"n1": 4, "n2": 0, "n3": 0, "n4": 0},
			wantNo:  map[string]int64{"n1": 100, "n2": 0, "n3": 0, "n4": 0},
		},
		{
			name: "ignorePreferredTermsOfExistingPods skips a pod without preferred terms",
			args: `{"ignorePreferredTermsOfExistingPods": true}`,
			pod:  web("p", ""),
			pods: []*v1.Pod{pod("x", "default", "n1", prefAnti(4, term("zone", "app", "web")))},
		},
		{
			name:    "ignorePreferredTermsOfExistingPods still counts existing terms for a pod with its own",
			args:    `{"ignorePreferredTermsOfExistingPods": true}`,
			pod:     pod("p", "default", "", prefAff(1, term(v1.LabelHostname, "app", "db")), "app", "web"),
			pods:    []*v1.Pod{db("d", "n3"), pod("x", "default", "n1", prefAnti(4, term("zone", "app", "web")))},
			wantRaw: map[string]int64{"n1": -4, "n2": -4, "n3": 1, "n4": 0},
			wantNo:  map[string]int64{"n1": 0, "n2": 0, "n3": 100, "n4": 80},
		},
		{
			name:    "terms that cancel out still score (all equal, all 0)",
			pod:     pod("p", "default", "", aff{prefAff: []v1.WeightedPodAffinityTerm{weighted(5, term("zone", "app", "db"))}, prefAnti: []v1.WeightedPodAffinityTerm{weighted(5, term("zone", "app", "db"))}}),
			pods:    []*v1.Pod{db("d", "n1")},
			wantRaw: map[string]int64{"n1": 0, "n2": 0, "n3": 0, "n4": 0},
			wantNo:  map[string]int64{"n1": 0, "n2": 0, "n3": 0, "n4": 0},
		},
		{
			name: "matches only in a domain no node has: skip",
			pod:  pod("p", "default", "", prefAff(5, term("rack", "app", "db"))),
			pods: []*v1.Pod{db("d", "n1")},
		},
		{
			name:    "normalisation truncates",
			pod:     pod("p", "default", "", aff{prefAff: []v1.WeightedPodAffinityTerm{weighted(1, term(v1.LabelHostname, "app", "db")), weighted(2, term(v1.LabelHostname, "app", "web"))}}),
			pods:    []*v1.Pod{db("d", "n1"), web("w", "n2"), db("d2", "n3"), web("w2", "n3")},
			wantRaw: map[string]int64{"n1": 1, "n2": 2, "n3": 3, "n4": 0},
			wantNo:  map[string]int64{"n1": 33, "n2": 66, "n3": 100, "n4": 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCache(t, stdNodes(), tc.pods, stdNamespaces)
			pl := newPlugin(t, c, tc.args)
			raw, normalized := score(t, pl, c, framework.NewPodInfo(tc.pod))
			if !maps.Equal(raw, tc.wantRaw) || (raw == nil) != (tc.wantRaw == nil) {
				t.Errorf("raw scores: got %v, want %v", raw, tc.wantRaw)
			}
			if !maps.Equal(normalized, tc.wantNo) {
				t.Errorf("normalized scores: got %v, want %v", normalized, tc.wantNo)
			}
		})
	}
}

// TestPreScoreMatchesReference compares the domain scores with a literal transcription of
// upstream (every pod of every node scanned) over random clusters.
func TestPreScoreMatchesReference(t *testing.T) {
	for seed := range uint64(25) {
		r := newRandomCluster(seed, 12, 150)
		c := r.cache()
		for _, weight := range []int32{0, 1, 9} {
			pl := newPlugin(t, c, fmt.Sprintf(`{"hardPodAffinityWeight": %d}`, weight))
			for range 20 {
				p := framework.NewPodInfo(r.pod("", 2))
				want, matched := refPreScore(c, p, int64(weight))
				state := framework.NewCycleState()
				st := pl.PreScore(context.Background(), state, p, nil)
				if st.IsSkip() != !matched {
					t.Fatalf("seed %d pod %s: skip %v, want %v", seed, p.Key, st.IsSkip(), !matched)
				}
				if st.IsSkip() {
					continue
				}
				got := state.Read(preScoreStateKey).(*preScoreState).domains
				if !maps.EqualFunc(got, want, maps.Equal) {
					t.Fatalf("seed %d pod %s weight %d:\n got %v\nwant %v", seed, p.Key, weight, got, want)
				}
			}
		}
	}
}

func TestScoreWithoutPreScoreIsAnError(t *testing.T) {
	c := newCache(t, stdNodes(), nil, nil)
	pl := newPlugin(t, c, "")
	p := framework.NewPodInfo(pod("p", "default", "", aff{}))
	if _, st := pl.Score(context.Background(), framework.NewCycleState(), p, c.Get("n1")); st.Code() != framework.Error {
		t.Errorf("Score: got %v, want Error", st)
	}
	if st := pl.NormalizeScore(context.Background(), framework.NewCycleState(), p, nil, nil); st.Code() != framework.Error {
		t.Errorf("NormalizeScore: got %v, want Error", st)
	}
}
