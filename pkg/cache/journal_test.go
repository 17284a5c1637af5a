package cache

import (
	"fmt"
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// TestAffinityJournal: the journal names the live node of every add and removal of a pod
// with affinity terms (real, simulated, rolled back), in order, and nothing else; a
// position from before a node was added or removed, position 0, and one the journal has
// dropped are refused, so the reader walks every node.
func TestAffinityJournal(t *testing.T) {
	c := New()
	for i := range 3 {
		c.Nodes().AddNode(node(fmt.Sprintf("n%d", i)))
	}
	n0, n1, n2 := c.Get("n0"), c.Get("n1"), c.Get("n2")
	if _, _, ok := c.AffinityChangesSince(0); ok {
		t.Fatal("position 0 accepted")
	}
	_, pos, _ := c.AffinityChangesSince(0)
	expect := func(step string, want ...*framework.NodeInfo) {
		t.Helper()
		got, now, ok := c.AffinityChangesSince(pos)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("%s: journal %v (ok %v), want %v", step, names(got), ok, names(want))
		}
		pos = now
	}
	// testPod(i) has an anti-affinity term when i is a multiple of 3, none when i is 1.
	pod := func(i int, node string) *framework.PodInfo {
		p := testPod(i)
		p.Spec.NodeName = node
		return framework.NewPodInfo(p)
	}
	plain := pod(1, "n0")
	if err := c.Nodes().AddBoundPod(plain); err != nil {
		t.Fatal(err)
	}
	expect("a pod without terms bound")
	a := pod(3, "n1")
	if err := c.Nodes().AddBoundPod(a); err != nil {
		t.Fatal(err)
	}
	b := pod(6, "")
	if err := c.Nodes().AssumePod(b, "n2"); err != nil {
		t.Fatal(err)
	}
	expect("bound and assumed", n1, n2)
	cp := c.Checkpoint()
	c.RemovePod(a)
	p := pod(9, "")
	c.AddPod(p, "n0")
	c.AddPod(pod(7, ""), "n0")
	expect("simulated", n1, n0)
	c.Rollback(cp)
	expect("rolled back (newest first)", n0, n1)
	c.Nodes().ForgetPod(b.Key)
	expect("forgotten", n2)

	// A ghost's pods are in no index: its changes are not journaled, and removing or
	// adding a node refuses every earlier position.
	old := pos
	c.Nodes().RemoveNode("n1")
	if _, _, ok := c.AffinityChangesSince(old); ok {
		t.Fatal("a position from before a node was removed accepted")
	}
	_, pos, _ = c.AffinityChangesSince(0)
	c.Nodes().RemoveBoundPod(a.Key)
	expect("a pod deleted from a ghost")
	old = pos
	c.Nodes().AddNode(node("n3"))
	if _, _, ok := c.AffinityChangesSince(old); ok {
		t.Fatal("a position from before a node was added accepted")
	}
	_, pos, _ = c.AffinityChangesSince(0)

	// A reader too far behind is refused; one within the journal is not.
	start := pos
	cp = c.Checkpoint()
	for range maxJournal {
		c.AddPod(p, "n0")
		c.RemovePod(p)
	}
	c.Rollback(cp)
	if _, _, ok := c.AffinityChangesSince(start); ok {
		t.Fatal("a position the journal dropped accepted")
	}
	_, now, _ := c.AffinityChangesSince(0)
	if got, _, ok := c.AffinityChangesSince(now - 10); !ok || len(got) != 10 {
		t.Fatalf("a recent position: %d nodes (ok %v), want 10", len(got), ok)
	}
	if _, _, ok := c.AffinityChangesSince(now + 1); ok {
		t.Fatal("a position not yet given accepted")
	}
}

func names(nodes []*framework.NodeInfo) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}
