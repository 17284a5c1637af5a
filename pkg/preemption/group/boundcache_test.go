package group_test

import (
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// Placement preemption remembers each placement's disruption bound across decisions: a
// remembered bound is exactly the one computed again, and is computed again only when
// what it read changed (the placement's pods, pods starting to leave, a victim group's
// priority, the preemptor's shape), or when the preemptor owns pods there.
func TestCachedBounds(t *testing.T) {
	inGroup := func(name, group string, prio int32, cpu, node string) *v1.Pod {
		return testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, group).Priority(prio).Req("cpu", cpu).Node(node).Obj()
	}
	// Four racks of two 4-cpu nodes, nearly full: the first runs one of the group's own
	// members, the third the pods of another group (a unit of disruption mode All).
	nodes := cpuNodes("4", "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7")
	pods := []*v1.Pod{
		inGroup("own", "g", groupPriority, "1", "n0"), low("a0", 1, "3", "n0"), low("a1", 2, "4", "n1"),
		low("b0", 1, "2", "n2"), low("b1", 1, "2", "n2"), low("b3", 2, "3", "n3"),
		inGroup("v0", "v", 5, "4", "n4"), inGroup("v1", "v", 5, "4", "n5"),
		low("c0", 3, "4", "n6"), low("c1", 3, "3", "n7"),
	}
	ge := newGroupEnv(t, nodes, pods, groupEnvOptions{minCount: 3, groups: []*framework.GroupInfo{podGroup("v", 5, 1, true)}})
	var racks []*framework.Placement
	for i := 0; i < len(nodes); i += 2 {
		racks = append(racks, &framework.Placement{Nodes: []*framework.NodeInfo{ge.c.Get(nodes[i].Name), ge.c.Get(nodes[i+1].Name)}})
	}
	big := []*v1.Pod{member("m1", "3"), member("m2", "3")}
	small := []*v1.Pod{member("m1", "1"), member("m2", "1")}
	pod := func(name string) *framework.PodInfo { return ge.c.Nodes().Pod("default/" + name) }
	steps := []struct {
		name    string
		change  func(t *testing.T)
		members []*v1.Pod
		// computed is how many racks' bounds are computed rather than remembered.
		computed int
	}{
		{name: "the first decision computes every rack", members: big, computed: 4},
		{name: "nothing changed: only the rack running the group's own member", members: big, computed: 1},
		{
			name: "a pod bound in the second rack",
			change: func(t *testing.T) {
				if err := ge.c.Nodes().AddBoundPod(framework.NewPodInfo(low("b2", 2, "1", "n3"))); err != nil {
					t.Fatal(err)
				}
			},
			members: big, computed: 2,
		},
		{
			name:    "a pod of the fourth rack starts leaving",
			change:  func(*testing.T) { ge.c.Nodes().SetLeaving(pod("c1"), true) },
			members: big, computed: 2,
		},
		{
			name:    "the third rack's group gets another priority",
			change:  func(*testing.T) { ge.c.Groups().SetGroup(podGroup("v", 7, 1, true)) },
			members: big, computed: 2,
		},
		{name: "another shape computes every rack", members: small, computed: 4},
		{
			name:    "a pod removed from the second rack",
			change:  func(*testing.T) { ge.c.Nodes().RemoveBoundPod("default/b0") },
			members: small, computed: 2,
		},
	}
	for _, s := range steps {
		if s.change != nil {
			s.change(t)
		}
		part := ge.part(nil, s.members...)
		costs, ok, computed := part.CachedBounds(racks)
		if computed != s.computed {
			t.Errorf("%s: %d racks computed, want %d", s.name, computed, s.computed)
		}
		wantCosts, wantOK := part.FreshBounds(racks)
		for i := range racks {
			if ok[i] != wantOK[i] || (wantOK[i] && costs[i] != wantCosts[i]) {
				t.Errorf("%s: rack %d: bound %+v (%v), computed afresh %+v (%v)", s.name, i, costs[i], ok[i], wantCosts[i], wantOK[i])
			}
		}
	}
}

// BenchmarkPlacementBounds times the bounds of 400 racks of 16 nodes for one decision of
// a wave: computed afresh for every rack, and remembered with one rack changed since the
// last decision (as when the previous gang preempted there).
func BenchmarkPlacementBounds(b *testing.B) {
	const racks, perRack = 400, 16
	var names []string
	var pods []*v1.Pod
	for i := range racks * perRack {
		n := "n" + strconv.Itoa(i)
		names = append(names, n)
		for j := range 6 {
			pods = append(pods, low(n+"-"+strconv.Itoa(j), int32(1+j%3), "10", n))
		}
	}
	ge := newGroupEnv(b, cpuNodes("64", names...), pods, groupEnvOptions{minCount: 8})
	var list []*framework.Placement
	for r := range racks {
		rack := &framework.Placement{}
		for _, n := range names[r*perRack : (r+1)*perRack] {
			rack.Nodes = append(rack.Nodes, ge.c.Get(n))
		}
		list = append(list, rack)
	}
	var members []*v1.Pod
	for i := range 8 {
		members = append(members, member("m"+strconv.Itoa(i), "60"))
	}
	part := ge.part(nil, members...)
	b.Run("computed", func(b *testing.B) {
		for b.Loop() {
			part.FreshBounds(list)
		}
	})
	b.Run("remembered", func(b *testing.B) {
		part.CachedBounds(list)
		extra := framework.NewPodInfo(low("extra", 1, "1", names[0]))
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				if err := ge.c.Nodes().AddBoundPod(extra); err != nil {
					b.Fatal(err)
				}
			} else {
				ge.c.Nodes().RemoveBoundPod(extra.Key)
			}
			if _, _, computed := part.CachedBounds(list); computed != 1 {
				b.Fatalf("%d racks computed, want 1", computed)
			}
		}
	})
}
