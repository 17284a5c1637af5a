package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/plugins/topologyplacement"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const blockKey = "example.com/block"

// checkingGenerator is TopologyPlacement checking each list of placements it hands out
// against a fresh generation (a new plugin, so a new tree) made at the same moment, and
// remembering each list as first handed out, to check that no cycle wrote it since.
type checkingGenerator struct {
	framework.PlacementGeneratePlugin
	t     *testing.T
	args  json.RawMessage
	h     framework.Handle
	first map[*framework.Placement]string
	lists [][]*framework.Placement
	// calls counts the generations, shared those that handed out a list again.
	calls, shared int
}

func (c *checkingGenerator) GeneratePlacements(ctx context.Context, state *framework.CycleState, g *framework.GroupInfo, pending []*framework.PodInfo, parents []*framework.Placement) ([]*framework.Placement, *framework.Status) {
	out, st := c.PlacementGeneratePlugin.GeneratePlacements(ctx, state, g, pending, parents)
	fresh, err := topologyplacement.New(c.args, c.h)
	if err != nil {
		c.t.Fatal(err)
	}
	want, wantSt := fresh.(framework.PlacementGeneratePlugin).GeneratePlacements(ctx, state, g, pending, parents)
	c.calls++
	if st.Code() != wantSt.Code() || st.Message() != wantSt.Message() {
		c.t.Errorf("generation %d for %s: status %v, a fresh one %v", c.calls, g.Key, st, wantSt)
	}
	if got, want := testutil.DescribePlacements(out), testutil.DescribePlacements(want); got != want {
		c.t.Errorf("generation %d for %s:\n%swant those of a fresh generation\n%s", c.calls, g.Key, got, want)
	}
	if len(out) > 0 {
		if _, ok := c.first[out[0]]; ok {
			c.shared++
		} else {
			c.first[out[0]] = testutil.DescribePlacements(out)
			c.lists = append(c.lists, out)
		}
	}
	return out, st
}

// TestGangCyclesShareFreshPlacements runs gangs through group cycles that place them,
// pin one to its running members, fail, and preempt, and checks that every generation
// gives what a fresh one would (TopologyPlacement hands an unpinned group the placements
// it generated before, decision 67), that later cycles did get them again, and that no
// cycle changed them.
func TestGangCyclesShareFreshPlacements(t *testing.T) {
	reg := plugins.NewRegistry()
	gen := &checkingGenerator{t: t, first: map[*framework.Placement]string{}}
	real := reg[topologyplacement.Name]
	reg[topologyplacement.Name] = func(args json.RawMessage, h framework.Handle) (framework.Plugin, error) {
		pl, err := real(args, h)
		if err != nil {
			return nil, err
		}
		gen.PlacementGeneratePlugin, gen.args, gen.h = pl.(framework.PlacementGeneratePlugin), args, h
		return gen, nil
	}
	fc := &fakeCluster{binds: map[string]string{}}
	s, err := New(Options{Config: config.Default(), Registry: reg, Clock: &fixedClock{t: time.Unix(1000, 0)}, Client: fc, Exec: inline{}, Logger: klog.Background(), AnySchedulerName: true})
	if err != nil {
		t.Fatal(err)
	}
	fc.s = s
	// Four racks of two 4-cpu nodes in two blocks; block-1's nodes are full of pods that
	// may be preempted.
	for r := range 4 {
		for i := range 2 {
			node := fmt.Sprintf("n-%d-%d", r, i)
			s.AddNode(testutil.Node(node).Labels(rackKey, fmt.Sprintf("rack-%d", r), blockKey, fmt.Sprintf("block-%d", r/2)).
				Capacity("cpu", "4", "memory", "8Gi").Obj())
			if r >= 2 {
				s.AddPod(testutil.Pod(node+"-busy").Req("cpu", "4").Node(node).Obj())
			}
		}
	}
	gang := func(name string, pg *v1alpha1.PodGroup, members int, cpu string) {
		s.AddPodGroup(pg)
		for m := range members {
			s.AddPod(testutil.Pod(fmt.Sprintf("%s-%d", name, m)).Labels(v1alpha1.LabelPodGroup, name).
				Priority(*pg.Spec.Priority).Req("cpu", cpu).Obj())
		}
		drain(s)
	}
	blockGang := func(name string, minCount, priority int32) *v1alpha1.PodGroup {
		pg := podGroup(name, minCount, false, priority)
		pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{
			{Key: blockKey}, {Key: rackKey, Mode: v1alpha1.TopologyModePreferred}}}
		return pg
	}
	// A rack each (rack-0 and rack-1); the second finds the first's placements.
	gang("a", rackGroup("a", 2, 0), 2, "3")
	gang("b", rackGroup("b", 2, 0), 2, "3")
	// A third member of a: pinned to a's rack, full.
	s.AddPod(testutil.Pod("a-2").Labels(v1alpha1.LabelPodGroup, "a").Req("cpu", "3").Obj())
	drain(s)
	// Three members fit in no rack (a cpu free on each node): in block-0, one rack after
	// the other.
	gang("c", blockGang("c", 3, 0), 3, "1")
	// No rack has room: a gang of a higher priority preempts.
	gang("d", rackGroup("d", 2, 100), 2, "3")
	// Too large for any rack.
	gang("e", rackGroup("e", 3, 0), 3, "3")

	for _, m := range []string{"a-0", "a-1", "b-0", "b-1", "c-0", "c-1", "c-2", "d-0", "d-1"} {
		if _, ok := fc.binds["default/"+m]; !ok {
			t.Errorf("%s not bound (binds %v)", m, fc.binds)
		}
	}
	if len(fc.binds) != 9 {
		t.Errorf("binds %v, want a's and b's first two members, c's three and d's two", fc.binds)
	}
	if fc.deleted == 0 {
		t.Errorf("no victims: the preempting gang did not preempt")
	}
	if gen.shared == 0 {
		t.Errorf("%d generations and none handed out placements again", gen.calls)
	}
	for _, list := range gen.lists {
		if got, want := testutil.DescribePlacements(list), gen.first[list[0]]; got != want {
			t.Errorf("placements changed after they were handed out:\n%swant\n%s", got, want)
		}
	}
	t.Logf("%d generations, %d of them shared, %d lists; binds %v", gen.calls, gen.shared, len(gen.lists), fc.binds)
}
