package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// A set's version names one state of its nodes: through random real changes, simulations
// (adds of a few pending pods, removals, nested checkpoints) rolled back, leaving marks
// and node updates, every version a set shows is held to the nodes' Generations (and
// LeavingGenerations) it was first seen with, so a bound remembered at a version is never
// reused for other nodes' states. Versions must also come back (rollbacks, the same
// simulated adds again), or the placement caches would never hit.
func TestNodeSetVersions(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 17))
			c := New()
			for i := range 4 {
				c.Nodes().AddNode(node(fmt.Sprintf("n%d", i)))
			}
			nodes := func(idx ...int) []*framework.NodeInfo {
				var out []*framework.NodeInfo
				for _, i := range idx {
					out = append(out, c.Get(fmt.Sprintf("n%d", i)))
				}
				return out
			}
			// Overlapping sets: racks, the block, a set across racks; one found by its nodes.
			sets := []*framework.NodeSet{
				framework.NewNodeSet(nodes(0, 1)), framework.NewNodeSet(nodes(2, 3)),
				framework.NewNodeSet(nodes(0, 1, 2, 3)), c.NodeSetOf(nodes(1, 2)),
			}
			if again := c.NodeSetOf(nodes(1, 2)); again != sets[3] {
				t.Fatalf("NodeSetOf gave another set for the same nodes")
			}
			var bound []*framework.PodInfo
			next := 0
			bind := func() {
				p := testPod(next)
				next++
				p.Spec.NodeName = fmt.Sprintf("n%d", rng.IntN(4))
				pi := framework.NewPodInfo(p)
				if err := c.Nodes().AddBoundPod(pi); err != nil {
					t.Fatal(err)
				}
				bound = append(bound, pi)
			}
			for range 10 {
				bind()
			}
			var pending []*framework.PodInfo
			for i := range 4 {
				pending = append(pending, framework.NewPodInfo(testPod(1000+i)))
			}
			// Pods nominated to nodes, which a cycle adds in one walk (AddNominatedPods).
			for i := range 3 {
				c.Nominations().Nominate(framework.NewPodInfo(testPod(2000+i)), fmt.Sprintf("n%d", rng.IntN(4)))
			}
			type seenKey struct {
				set     int
				version int64
			}
			seenPods, seenLeaving := map[seenKey][]int64{}, map[seenKey][]int64{}
			reused := 0
			last := make([]int64, len(sets))
			check := func(step string) {
				t.Helper()
				for i, s := range sets {
					v := c.NodeSetVersion(s)
					var gens, leaving []int64
					for _, n := range s.Nodes {
						gens = append(gens, n.Generation)
						leaving = append(leaving, n.LeavingGeneration)
					}
					if old, ok := seenPods[seenKey{i, v.Pods}]; ok {
						if !slices.Equal(old, gens) {
							t.Fatalf("%s: version %d of set %d names two states: generations %v and %v", step, v.Pods, i, old, gens)
						}
						if v.Pods != last[i] {
							reused++
						}
					}
					last[i] = v.Pods
					if old, ok := seenLeaving[seenKey{i, v.Leaving}]; ok && !slices.Equal(old, leaving) {
						t.Fatalf("%s: leaving version %d of set %d names two states: %v and %v", step, v.Leaving, i, old, leaving)
					}
					seenPods[seenKey{i, v.Pods}], seenLeaving[seenKey{i, v.Leaving}] = gens, leaving
				}
			}
			check("start")
			for round := range 40 {
				cp := c.Checkpoint()
				var inner framework.Checkpoint
				for step := range 8 {
					where := fmt.Sprintf("round %d step %d", round, step)
					switch rng.IntN(7) {
					case 0, 1:
						if pi := pending[rng.IntN(len(pending))]; pi.NodeName == "" {
							c.AddPod(pi, fmt.Sprintf("n%d", rng.IntN(4)))
						}
					case 2:
						if pi := bound[rng.IntN(len(bound))]; pi.NodeName != "" {
							c.RemovePod(pi)
						}
					case 3:
						if inner == 0 {
							inner = c.Checkpoint()
						} else {
							c.Rollback(inner)
							inner = 0
						}
					case 4:
						// A preemption carried out marks a victim leaving, under the cycle's
						// checkpoint; the mark is real and stays after the rollback.
						if pi := bound[rng.IntN(len(bound))]; pi.NodeName != "" {
							c.Nodes().SetLeaving(pi, !pi.Terminating)
						}
					case 5:
						if pi := pending[rng.IntN(len(pending))]; pi.NodeName == "" {
							pi.Terminating = !pi.Terminating
						}
					case 6:
						c.AddNominatedPods(func(*framework.PodInfo) bool { return true })
					}
					check(where)
				}
				c.Rollback(cp)
				check(fmt.Sprintf("round %d rolled back", round))
				// Real changes between cycles.
				switch rng.IntN(5) {
				case 0:
					bind()
				case 1:
					if pi := bound[rng.IntN(len(bound))]; pi.NodeName != "" {
						c.Nodes().RemoveBoundPod(pi.Key)
					}
				case 2:
					n := node(fmt.Sprintf("n%d", rng.IntN(4)))
					n.Labels["round"] = fmt.Sprint(round)
					c.Nodes().AddNode(n)
				}
				if err := c.Verify(); err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("round %d, real changes", round))
			}
			if reused == 0 {
				t.Errorf("no version came back")
			}
			// A node added changes the layout: the sets register again, with new versions;
			// a set with a node no longer in the cache matches nothing.
			before := c.NodeSetVersion(sets[0])
			c.Nodes().AddNode(node("n9"))
			if after := c.NodeSetVersion(sets[0]); after == before {
				t.Errorf("a set kept its version across a layout change")
			}
			check("a node added")
			c.Nodes().RemoveNode("n3")
			if a, b := c.NodeSetVersion(sets[1]), c.NodeSetVersion(sets[1]); a == b {
				t.Errorf("a set with a removed node gave one version twice: %v", a)
			}
		})
	}
}

// Every simulated move's node-set record is popped by its rollback, and Verify says so
// when one is left behind.
func TestNodeSetUndoRecordsPopped(t *testing.T) {
	c := New()
	for i := range 2 {
		c.Nodes().AddNode(node(fmt.Sprintf("n%d", i)))
	}
	set := framework.NewNodeSet([]*framework.NodeInfo{c.Get("n0"), c.Get("n1")})
	before := c.NodeSetVersion(set)
	cp := c.Checkpoint()
	c.Nodes().AddPod(framework.NewPodInfo(testPod(1)), "n0")
	c.Nodes().AddPod(framework.NewPodInfo(testPod(2)), "n1")
	if c.nodes.sets.top() == 0 {
		t.Fatal("a simulated add on a registered set's node pushed no undo record")
	}
	c.Rollback(cp)
	if got := c.nodes.sets.top(); got != 0 {
		t.Fatalf("%d undo record words left after the rollback", got)
	}
	if got := c.NodeSetVersion(set); got != before {
		t.Fatalf("set version %v after the rollback, want %v", got, before)
	}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	c.nodes.sets.undo = append(c.nodes.sets.undo, 1, 2, 3, 0)
	if err := c.Verify(); err == nil {
		t.Fatal("Verify did not report a node-set undo record left outside a simulation")
	}
}

// TestNodeSetFreshSteps: a change to a Generation taken just now looks no step up, yet
// gives what looking up would: two sets at one version step to one version (the second
// finds the step the first made), sets at different versions to fresh ones, and each
// step is remembered both ways, so the same change from the same state later (no longer
// fresh) gives the same version, and the change back gives the version before.
func TestNodeSetFreshSteps(t *testing.T) {
	for _, tc := range []struct {
		name string
		same bool // both sets at one version before the change
	}{{"one version", true}, {"two versions", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			c.Nodes().AddNode(node("n0"))
			n := c.Get("n0")
			a, b := framework.NewNodeSet([]*framework.NodeInfo{n}), framework.NewNodeSet([]*framework.NodeInfo{n})
			c.NodeSetVersion(a)
			c.NodeSetVersion(b)
			ns := &c.nodes.sets
			if tc.same {
				ns.versions[b.Slot] = ns.versions[a.Slot]
			}
			va, vb := ns.versions[a.Slot].Pods, ns.versions[b.Slot].Pods
			from := n.Generation
			n.Generation = framework.NextGeneration()
			ns.simulated(n, from, nil, true)
			wa, wb := ns.versions[a.Slot].Pods, ns.versions[b.Slot].Pods
			if wa == va || wb == vb {
				t.Fatalf("a set kept its version through a change: %d->%d, %d->%d", va, wa, vb, wb)
			}
			if (wa == wb) != tc.same {
				t.Errorf("versions after %d and %d, want them equal: %v", wa, wb, tc.same)
			}
			for _, s := range []struct{ v, w int64 }{{va, wa}, {vb, wb}} {
				if got := ns.step(n.Index, s.v, n.Generation, from); got != s.w {
					t.Errorf("the same change from %d again gives %d, want %d", s.v, got, s.w)
				}
				if got := ns.step(n.Index, s.w, from, n.Generation); got != s.v {
					t.Errorf("the change back from %d gives %d, want %d", s.w, got, s.v)
				}
			}
		})
	}
}
