package interpodaffinity

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// rejection is what Filter says about a node: affinity (UnschedulableAndUnresolvable),
// anti (Unschedulable) or existing (Unschedulable); absent means it passes.
type rejection string

const (
	affinity rejection = "affinity"
	anti     rejection = "anti"
	existing rejection = "existing"
)

var wantStatus = map[rejection]struct {
	code   framework.Code
	reason string
}{
	affinity: {framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch},
	anti:     {framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch},
	existing: {framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch},
}

func TestFilter(t *testing.T) {
	db := func(name, ns, node string, kv ...string) *v1.Pod {
		return pod(name, ns, node, aff{}, append([]string{"app", "db"}, kv...)...)
	}
	web := func(name, ns, node string) *v1.Pod { return pod(name, ns, node, aff{}, "app", "web") }
	tests := []struct {
		name     string
		pod      *v1.Pod
		pods     []*v1.Pod
		wantSkip bool
		want     map[string]rejection // by node; absent: passes
	}{
		{
			name:     "no terms anywhere: skip",
			pod:      pod("p", "default", "", aff{}, "app", "web"),
			pods:     []*v1.Pod{db("d", "default", "n1"), pod("x", "default", "n2", aff{prefAnti: []v1.WeightedPodAffinityTerm{weighted(1, term("zone", "app", "web"))}})},
			wantSkip: true,
		},
		{
			name:     "existing anti-affinity that does not match the pod: skip",
			pod:      pod("p", "default", "", aff{}, "app", "web"),
			pods:     []*v1.Pod{pod("x", "default", "n1", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "db")}})},
			wantSkip: true,
		},
		{
			name: "affinity satisfied in the zone of a matching pod; other zones and nodes without the key fail",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "db")}}),
			pods: []*v1.Pod{db("d", "default", "n1")},
			want: map[string]rejection{"n3": affinity, "n4": affinity},
		},
		{
			name: "affinity with no matching pod and a pod not matching its own terms fails everywhere",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "db")}}, "app", "web"),
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n3": affinity, "n4": affinity},
		},
		{
			name: "self-affine first pod goes into any node that has the topology key",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "web")}}, "app", "web"),
			pods: []*v1.Pod{db("d", "default", "n1")},
			want: map[string]rejection{"n4": affinity},
		},
		{
			name: "self-affine pod follows an existing match instead of the exception",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "web")}}, "app", "web"),
			pods: []*v1.Pod{web("w", "default", "n3")},
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n4": affinity},
		},
		{
			name: "self-affine exception still applies when the only matching pods are in another namespace",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "web")}}, "app", "web"),
			pods: []*v1.Pod{web("w", "other", "n3")},
			want: map[string]rejection{"n4": affinity},
		},
		{
			name: "self-affine exception does not apply when the pod's own namespace is not covered",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{inNS(term("zone", "app", "web"), "other")}}, "app", "web"),
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n3": affinity, "n4": affinity},
		},
		{
			name: "affinity terms must all be met by one pod, and every topology key must be on the node",
			pod: pod("p", "default", "", aff{req: []v1.PodAffinityTerm{
				term("zone", "app", "db"), term(v1.LabelHostname, "tier", "backend"),
			}}),
			pods: []*v1.Pod{
				db("d1", "default", "n1"),                           // matches the first term only
				pod("b", "default", "n2", aff{}, "tier", "backend"), // the second only
				db("d2", "default", "n3", "tier", "backend"),        // both
			},
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n4": affinity},
		},
		{
			name: "affinity term listing namespaces",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{inNS(term("zone", "app", "db"), "other")}}),
			pods: []*v1.Pod{db("d1", "other", "n1"), db("d2", "default", "n3")},
			want: map[string]rejection{"n3": affinity, "n4": affinity},
		},
		{
			name: "affinity term with a namespace selector",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{nsSel(term("zone", "app", "db"), "team", "b")}}),
			pods: []*v1.Pod{db("d1", "team-a1", "n1"), db("d2", "team-b1", "n3")},
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n4": affinity},
		},
		{
			name: "anti-affinity on hostname rejects only the node with the matching pod",
			pod:  pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{term(v1.LabelHostname, "app", "web")}}, "app", "web"),
			pods: []*v1.Pod{web("w", "default", "n1")},
			want: map[string]rejection{"n1": anti},
		},
		{
			name: "anti-affinity on zone rejects the zone; a node without the key is in no zone",
			pod:  pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}}),
			pods: []*v1.Pod{web("w1", "default", "n1"), web("w2", "default", "n4")},
			want: map[string]rejection{"n1": anti, "n2": anti},
		},
		{
			name: "anti-affinity ignores matching pods in namespaces it does not cover",
			pod:  pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}}),
			pods: []*v1.Pod{web("w", "other", "n1")},
		},
		{
			name: "anti-affinity with a namespace selector",
			pod:  pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{nsSel(term(v1.LabelHostname, "app", "web"), "team", "a")}}),
			pods: []*v1.Pod{web("w1", "team-a1", "n1"), web("w2", "team-a2", "n2"), web("w3", "team-b1", "n3")},
			want: map[string]rejection{"n1": anti, "n2": anti},
		},
		{
			name: "anti-affinity with the empty namespace selector covers every namespace",
			pod:  pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{nsSel(term(v1.LabelHostname, "app", "web"))}}),
			pods: []*v1.Pod{web("w1", "other", "n1"), web("w3", "team-b1", "n3")},
			want: map[string]rejection{"n1": anti, "n3": anti},
		},
		{
			// Upstream folds the selector into a namespace list but keeps the selector on a
			// copy of the term only, so a selector matching an empty label set (NotIn,
			// DoesNotExist) ends up matching every namespace. phalanx applies the selector
			// as the API documents it.
			name: "anti-affinity with a NotIn namespace selector leaves out the namespaces it excludes",
			pod: pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{func() v1.PodAffinityTerm {
				t := term(v1.LabelHostname, "app", "web")
				t.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b"}},
				}}
				return t
			}()}}),
			pods: []*v1.Pod{web("w1", "team-a1", "n1"), web("w2", "other", "n2"), web("w3", "team-b1", "n3")},
			want: map[string]rejection{"n1": anti, "n2": anti},
		},
		{
			name: "any one anti-affinity term suffices to reject",
			pod: pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{
				term(v1.LabelHostname, "app", "web"), term("region", "app", "db"),
			}}),
			pods: []*v1.Pod{web("w", "default", "n1"), db("d", "default", "n4")},
			want: map[string]rejection{"n1": anti, "n4": anti},
		},
		{
			name: "existing pod's anti-affinity rejects its zone",
			pod:  pod("p", "default", "", aff{}, "app", "web"),
			pods: []*v1.Pod{pod("x", "default", "n1", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}})},
			want: map[string]rejection{"n1": existing, "n2": existing},
		},
		{
			name:     "existing pod's anti-affinity on a key its node lacks counts nowhere",
			pod:      pod("p", "default", "", aff{}, "app", "web"),
			pods:     []*v1.Pod{pod("x", "default", "n4", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}})},
			wantSkip: true,
		},
		{
			name: "existing pod's anti-affinity covers its own namespace by default",
			pod:  pod("p", "default", "", aff{}, "app", "web"),
			pods: []*v1.Pod{
				pod("x", "other", "n1", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}}),
				pod("y", "other", "n3", aff{anti: []v1.PodAffinityTerm{inNS(term("zone", "app", "web"), "default")}}),
			},
			want: map[string]rejection{"n3": existing},
		},
		{
			name: "existing pod's anti-affinity namespace selector is matched against the incoming pod's namespace labels",
			pod:  pod("p", "team-b1", "", aff{}, "app", "web"),
			pods: []*v1.Pod{
				pod("x", "team-a1", "n1", aff{anti: []v1.PodAffinityTerm{nsSel(term(v1.LabelHostname, "app", "web"), "team", "b")}}),
				pod("y", "team-a1", "n3", aff{anti: []v1.PodAffinityTerm{nsSel(term(v1.LabelHostname, "app", "web"), "team", "a")}}),
			},
			want: map[string]rejection{"n1": existing},
		},
		{
			name: "a node failing every rule reports affinity first",
			pod: pod("p", "default", "", aff{
				req:  []v1.PodAffinityTerm{term("zone", "app", "db")},
				anti: []v1.PodAffinityTerm{term("zone", "app", "web")},
			}, "app", "web"),
			pods: []*v1.Pod{
				db("d", "default", "n3"),
				web("w", "default", "n1"),
				pod("x", "default", "n2", aff{anti: []v1.PodAffinityTerm{term("region", "app", "web")}}),
			},
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n3": existing, "n4": affinity},
		},
		{
			name: "anti-affinity is reported before existing pods' anti-affinity",
			pod:  pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "db")}}, "app", "web"),
			pods: []*v1.Pod{
				db("d", "default", "n1"),
				pod("x", "default", "n2", aff{anti: []v1.PodAffinityTerm{term("region", "app", "web")}}),
			},
			want: map[string]rejection{"n1": anti, "n2": anti, "n3": existing},
		},
		{
			name: "pods on a deleted node do not count",
			pod:  pod("p", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "db")}}),
			pods: []*v1.Pod{db("d", "default", "gone")},
			want: map[string]rejection{"n1": affinity, "n2": affinity, "n3": affinity, "n4": affinity},
		},
		{
			name: "matchExpressions with NotIn select pods without the label too",
			pod: pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}},
				}},
				TopologyKey: v1.LabelHostname,
			}}}),
			pods: []*v1.Pod{web("w", "default", "n1"), pod("plain", "default", "n2", aff{})},
			want: map[string]rejection{"n2": anti},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCache(t, stdNodes(), tc.pods, stdNamespaces)
			pl := newPlugin(t, c, "")
			p := framework.NewPodInfo(tc.pod)
			state, s := preFilter(t, pl, p)
			if (s == nil) != tc.wantSkip {
				t.Fatalf("PreFilter skipped: %v, want %v", s == nil, tc.wantSkip)
			}
			if s == nil {
				return
			}
			for _, n := range c.NodeInfos() {
				got := pl.Filter(context.Background(), state, p, n)
				want, rejected := tc.want[n.Name]
				if !rejected {
					if !got.IsSuccess() {
						t.Errorf("node %s: got %v, want success", n.Name, got)
					}
					continue
				}
				w := wantStatus[want]
				if got.Code() != w.code || got.Message() != w.reason {
					t.Errorf("node %s: got %v, want %v: %s", n.Name, got, w.code, w.reason)
				}
			}
		})
	}
}

func TestFilterWithoutPreFilterIsAnError(t *testing.T) {
	c := newCache(t, stdNodes(), nil, nil)
	pl := newPlugin(t, c, "")
	st := pl.Filter(context.Background(), framework.NewCycleState(), testutil.Pod("p").Info(), c.Get("n1"))
	if st.Code() != framework.Error {
		t.Fatalf("got %v, want Error", st)
	}
}

func TestFilterDoesNotAllocate(t *testing.T) {
	nodes := append(stdNodes(), testutil.Node("n5").Labels("zone", "z1", "region", "r2").Obj())
	c := newCache(t, nodes, []*v1.Pod{
		pod("d", "default", "n1", aff{anti: []v1.PodAffinityTerm{term("region", "app", "other")}}, "app", "db"),
		pod("w", "default", "n3", aff{}, "app", "web"),
	}, nil)
	pl := newPlugin(t, c, "")
	p := framework.NewPodInfo(pod("p", "default", "", aff{
		req:  []v1.PodAffinityTerm{term("zone", "app", "db")},
		anti: []v1.PodAffinityTerm{term(v1.LabelHostname, "app", "web")},
	}, "app", "other"))
	state, _ := preFilter(t, pl, p)
	n := c.Get("n2")
	if allocs := testing.AllocsPerRun(100, func() {
		if st := pl.Filter(context.Background(), state, p, n); st.Code() != framework.Unschedulable {
			t.Fatalf("got %v", st)
		}
	}); allocs != 0 {
		t.Errorf("rejecting Filter allocates %v times per call", allocs)
	}
	n = c.Get("n5")
	if allocs := testing.AllocsPerRun(100, func() {
		if st := pl.Filter(context.Background(), state, p, n); !st.IsSuccess() {
			t.Fatalf("got %v", st)
		}
	}); allocs != 0 {
		t.Errorf("passing Filter allocates %v times per call", allocs)
	}
}
