package group_test

import (
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
	var racks [][]*framework.NodeInfo
	for i := 0; i < len(nodes); i += 2 {
		racks = append(racks, []*framework.NodeInfo{ge.c.Get(nodes[i].Name), ge.c.Get(nodes[i+1].Name)})
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
			change:  func(*testing.T) { ge.c.Nodes().RemovePod(pod("b0")) },
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
		for i, rack := range racks {
			wantCost, wantOK := part.FreshBound(rack)
			if ok[i] != wantOK || (wantOK && costs[i] != wantCost) {
				t.Errorf("%s: rack %d: bound %+v (%v), computed afresh %+v (%v)", s.name, i, costs[i], ok[i], wantCost, wantOK)
			}
		}
	}
}
