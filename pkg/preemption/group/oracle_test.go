package group_test

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// The group oracle starts with every unit off and the members placed; a unit put back
// stays back when the members still fit: as they are, by moving those that no longer fit,
// or by placing them all again, and only when the room the vectors show may hold them.
func TestGroupOracle(t *testing.T) {
	// Three 2-cpu nodes, each with a lower-priority pod: v1 (1 cpu) on n1, v2 and v3 (2
	// cpu) on n2 and n3. With them all off, the two 2-cpu members go to n1 and n2.
	cluster := func(extra ...*v1.Pod) ([]*v1.Node, []*v1.Pod) {
		return cpuNodes("2", "n1", "n2", "n3"), append([]*v1.Pod{
			low("v1", 1, "1", "n1"), low("v2", 1, "2", "n2"), low("v3", 1, "2", "n3"),
		}, extra...)
	}
	twoMembers := []*v1.Pod{member("m1", "2"), member("m2", "2")}
	type op struct {
		keep bool // keep, else drop
		unit string
		want bool
	}
	keep := func(unit string, want bool) op { return op{keep: true, unit: unit, want: want} }
	drop := func(unit string) op { return op{unit: unit} }
	withPort := func(name string) *v1.Pod {
		return testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "g").Priority(groupPriority).Req("cpu", "1").HostPort(8080).Obj()
	}
	apart := func(name string) *v1.Pod {
		return testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "g", "app", "g").Priority(groupPriority).Req("cpu", "2").
			PodAntiAffinity(v1.LabelHostname, map[string]string{"app": "g"}).Obj()
	}
	tests := []struct {
		name      string
		extra     []*v1.Pod
		members   []*v1.Pod
		minCount  int32
		wantStart bool
		ops       []op
		// want is the placement after the ops; wantPlaces the Place calls they made.
		want       []string
		wantPlaces []string
		// wantOn says where the units' pods are after the ops ("": off).
		wantOn map[string]string
	}{
		{
			name:    "a unit returning where no member runs: kept, nothing placed",
			members: twoMembers, minCount: 2, wantStart: true,
			ops:    []op{keep("default/v3", true)},
			want:   []string{"m1 n1", "m2 n2"},
			wantOn: map[string]string{"v3": "n3"},
		},
		{
			name:    "a unit returning onto a member: the member moves alone",
			members: twoMembers, minCount: 2, wantStart: true,
			ops:        []op{keep("default/v1", true)},
			want:       []string{"m2 n2", "m1 n3"},
			wantPlaces: []string{"m1"},
			wantOn:     map[string]string{"v1": "n1"},
		},
		{
			name:    "the room check refuses without placing anything",
			members: twoMembers, minCount: 2, wantStart: true,
			// With v3 back, the room left (n3 full, n1 half) holds one member, not two.
			ops:    []op{keep("default/v3", true), keep("default/v1", false)},
			want:   []string{"m1 n1", "m2 n2"},
			wantOn: map[string]string{"v3": "n3", "v1": ""},
		},
		{
			name:    "drop returns to the state before the keep, placement included",
			members: twoMembers, minCount: 2, wantStart: true,
			ops:        []op{keep("default/v1", true), drop("default/v1")},
			want:       []string{"m1 n1", "m2 n2"},
			wantPlaces: []string{"m1"},
			wantOn:     map[string]string{"v1": ""},
		},
		{
			name:    "a returning pod's host port: the member on its node moves",
			extra:   []*v1.Pod{testutil.Pod("porter").Priority(1).HostPort(8080).Node("n1").Obj()},
			members: []*v1.Pod{withPort("m1"), withPort("m2")}, minCount: 2, wantStart: true,
			ops:        []op{keep("default/porter", true)},
			want:       []string{"m2 n2", "m1 n3"},
			wantPlaces: []string{"m1"},
			wantOn:     map[string]string{"porter": "n1"},
		},
		{
			name:    "members whose constraints involve other pods never move alone",
			members: []*v1.Pod{apart("m1"), apart("m2")}, minCount: 2, wantStart: true,
			ops:        []op{keep("default/v1", true)},
			want:       []string{"m1 n2", "m2 n3"},
			wantPlaces: []string{"m1 m2"},
		},
		{
			name:    "the members do not fit even with every unit off",
			members: []*v1.Pod{member("m1", "2"), member("m2", "2"), member("m3", "2"), member("m4", "2")}, minCount: 4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes, pods := cluster(tc.extra...)
			ge := newGroupEnv(t, nodes, pods, groupEnvOptions{minCount: tc.minCount})
			ctx := context.Background()
			cp := ge.c.Checkpoint()
			defer ge.c.Rollback(cp)
			o, ok, err := ge.part(nil, tc.members...).StartOracle(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.wantStart {
				t.Fatalf("started %v, want %v", ok, tc.wantStart)
			}
			if !ok {
				return
			}
			ge.placer.places = nil
			for _, op := range tc.ops {
				if !op.keep {
					if err := o.Drop(op.unit); err != nil {
						t.Fatal(err)
					}
					continue
				}
				got, err := o.Keep(op.unit)
				if err != nil {
					t.Fatal(err)
				}
				if got != op.want {
					t.Errorf("keep %s: %v, want %v", op.unit, got, op.want)
				}
			}
			if got := o.Placement(); !slices.Equal(got, tc.want) {
				t.Errorf("placement %v, want %v", got, tc.want)
			}
			if !slices.Equal(ge.placer.places, tc.wantPlaces) {
				t.Errorf("Place calls %q, want %q", ge.placer.places, tc.wantPlaces)
			}
			for name, node := range tc.wantOn {
				if got := ge.nodeOf(name); got != node {
					t.Errorf("%s is on %q, want %q", name, got, node)
				}
			}
		})
	}
}
