package interpodaffinity

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		raw        string
		wantWeight int32
		wantIgnore bool
		wantErr    string
	}{
		{raw: "", wantWeight: 1},
		{raw: "null", wantWeight: 1},
		{raw: "{}", wantWeight: 1},
		{raw: `{"hardPodAffinityWeight": 0}`, wantWeight: 0},
		{raw: `{"hardPodAffinityWeight": 100, "ignorePreferredTermsOfExistingPods": true}`, wantWeight: 100, wantIgnore: true},
		{raw: `{"hardPodAffinityWeight": 101}`, wantErr: "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
		{raw: `{"hardPodAffinityWeight": -1}`, wantErr: "not in valid range"},
		{raw: `{"hardPodAffinityWeigth": 2}`, wantErr: "unknown field"},
		{raw: `{"hardPodAffinityWeight": "2"}`, wantErr: "cannot unmarshal"},
		{raw: `{"hardPodAffinityWeight": 2} {}`, wantErr: "unexpected data"},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			args, err := ParseArgs(json.RawMessage(tc.raw))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *args.HardPodAffinityWeight != tc.wantWeight || args.IgnorePreferredTermsOfExistingPods != tc.wantIgnore {
				t.Errorf("got weight %d ignore %v, want %d %v", *args.HardPodAffinityWeight, args.IgnorePreferredTermsOfExistingPods, tc.wantWeight, tc.wantIgnore)
			}
		})
	}
	if _, err := New(json.RawMessage(`{"hardPodAffinityWeight": 200}`), &testutil.Handle{Cache: newCache(t, nil, nil, nil)}); err == nil {
		t.Error("New accepted invalid arguments")
	}
}

func TestEventsToRegister(t *testing.T) {
	pl := newPlugin(t, newCache(t, nil, nil, nil), "")
	events := pl.EventsToRegister()
	covered := func(e framework.ClusterEvent) bool {
		return slices.ContainsFunc(events, func(r framework.ClusterEvent) bool { return r.Matches(e) })
	}
	for _, e := range []framework.ClusterEvent{
		framework.EventAssignedPodAdd,
		framework.EventAssignedPodDelete,
		{Resource: framework.AssignedPod, Action: framework.UpdatePodLabel},
		framework.EventNodeAdd,
		{Resource: framework.Node, Action: framework.UpdateNodeLabel},
	} {
		if !covered(e) {
			t.Errorf("%v %v not registered", e.Resource, e.Action)
		}
	}
	for _, e := range []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.UpdatePodScaleDown},
		{Resource: framework.AssignedPod, Action: framework.UpdatePodToleration},
		{Resource: framework.UnscheduledPod, Action: framework.Add},
		{Resource: framework.Node, Action: framework.UpdateNodeTaint},
		{Resource: framework.Node, Action: framework.UpdateNodeAllocatable},
		{Resource: framework.Node, Action: framework.UpdateNodeCondition},
		{Resource: framework.Node, Action: framework.Delete},
	} {
		if covered(e) {
			t.Errorf("%v %v registered but cannot help", e.Resource, e.Action)
		}
	}
}

func TestRejectedByOtherPods(t *testing.T) {
	tests := []struct {
		name string
		st   *framework.Status
		want bool
	}{
		{"success", nil, false},
		{"affinity", framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch), false},
		{"anti-affinity", framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch), true},
		{"existing anti-affinity", framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch).WithPlugin(Name), true},
		{"another plugin", framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch).WithPlugin("Other"), false},
		{"other reason", framework.NewStatus(framework.Unschedulable, "Insufficient cpu"), false},
		{"error", framework.AsStatus(context.Canceled), false},
	}
	for _, tc := range tests {
		if got := RejectedByOtherPods(tc.st); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBlockingPods(t *testing.T) {
	pods := []*v1.Pod{
		pod("w1", "default", "n1", aff{}, "app", "web"),
		pod("w2", "default", "n2", aff{}, "app", "web"),
		pod("w3", "default", "n3", aff{}, "app", "web"),
		pod("w4", "other", "n2", aff{}, "app", "web"),
		// Hates web pods in its region: blocks n1, n2, n3.
		pod("x", "default", "n3", aff{anti: []v1.PodAffinityTerm{term("region", "app", "web")}}, "app", "x"),
		// Hates web pods on its node, but its node has no zone: blocks nothing.
		pod("y", "default", "n4", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}}),
		// Hates db pods: not the incoming pod.
		pod("z", "default", "n1", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "db")}}, "app", "web"),
	}
	c := newCache(t, stdNodes(), pods, stdNamespaces)
	pl := newPlugin(t, c, "")
	p := framework.NewPodInfo(pod("p", "default", "", aff{anti: []v1.PodAffinityTerm{term("zone", "app", "web")}}, "app", "web"))
	state, _ := preFilter(t, pl, p)
	want := map[string][]string{
		"n1": {"default/w1", "default/w2", "default/x", "default/z"},
		"n2": {"default/w1", "default/w2", "default/x", "default/z"},
		"n3": {"default/w3", "default/x"},
		"n4": nil,
	}
	for _, n := range c.NodeInfos() {
		var got []string
		for _, b := range BlockingPods(c, p, n) {
			got = append(got, b.Key)
		}
		if !slices.Equal(got, want[n.Name]) {
			t.Errorf("node %s: got %v, want %v", n.Name, got, want[n.Name])
		}
		// Removing the blockers makes the node pass, through the extensions too.
		sim := state.Clone()
		for _, b := range BlockingPods(c, p, n) {
			pl.RemovePod(context.Background(), sim, p, b, c.Get(b.NodeName))
		}
		if st := pl.Filter(context.Background(), sim, p, n); !st.IsSuccess() {
			t.Errorf("node %s: still rejected after removing the blockers: %v", n.Name, st)
		}
		if st := pl.Filter(context.Background(), state, p, n); st.IsSuccess() == (len(want[n.Name]) > 0) || (!st.IsSuccess() && !RejectedByOtherPods(st)) {
			t.Errorf("node %s: Filter says %v with blockers %v", n.Name, st, want[n.Name])
		}
	}
}

// TestBlockingPodsRandom: on random clusters, a node rejected for anti-affinity passes the
// anti-affinity checks once its blocking pods are removed, and a node not so rejected has
// no blocking pods.
func TestBlockingPodsRandom(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(15) {
		r := newRandomCluster(seed, 10, 100)
		c := r.cache()
		pl := newPlugin(t, c, "")
		for range 20 {
			p := framework.NewPodInfo(r.pod("", 2))
			state, s := preFilter(t, pl, p)
			if s == nil {
				continue
			}
			for _, n := range c.NodeInfos() {
				blockers := BlockingPods(c, p, n)
				blocked := !s.satisfiesAntiAffinity(n) || !s.satisfiesExistingAntiAffinity(n)
				if blocked != (len(blockers) > 0) {
					t.Fatalf("seed %d pod %s node %s: blocked %v but blockers %d", seed, p.Key, n.Name, blocked, len(blockers))
				}
				sim := state.Clone()
				for _, b := range blockers {
					pl.RemovePod(ctx, sim, p, b, c.Get(b.NodeName))
				}
				after, _ := readPreFilterState(sim)
				if !after.satisfiesAntiAffinity(n) || !after.satisfiesExistingAntiAffinity(n) {
					t.Fatalf("seed %d pod %s node %s: still blocked after removing %d pods", seed, p.Key, n.Name, len(blockers))
				}
			}
		}
	}
}
