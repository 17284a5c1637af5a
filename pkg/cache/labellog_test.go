package cache

import (
	"fmt"
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// TestLabelChanges: a label's changes name every pod carrying it that starts or ceases to
// count (bound, assumed, simulated, rolled back newest first, marked terminating and
// back; a pod added terminating is no change), and nothing else; the zero position, a
// label no pod carries, a position of a list dropped with its last pod, another list's
// position and one the log has dropped are refused.
func TestLabelChanges(t *testing.T) {
	c := New()
	c.Nodes().AddNode(node("n0"))
	c.Nodes().AddNode(node("n1"))
	n0, n1 := c.Get("n0"), c.Get("n1")
	pod := func(i int, node string) *framework.PodInfo {
		p := testPod(i) // app a<i%3>
		p.Spec.NodeName = node
		return framework.NewPodInfo(p)
	}
	if _, _, ok := c.LabelChangesSince("app", "a0", framework.LabelPosition{}); ok {
		t.Fatal("a label no pod carries has changes")
	}
	a := pod(0, "n0")
	if err := c.Nodes().AddBoundPod(a); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.LabelChangesSince("app", "a0", framework.LabelPosition{}); ok {
		t.Fatal("the zero position accepted")
	}
	_, pos, _ := c.LabelChangesSince("app", "a0", framework.LabelPosition{})
	// A change names its pod by its namespace and its labels (the map, which is the pod's
	// own): change says which pod it is, by the map's identity.
	change := func(p *framework.PodInfo, n *framework.NodeInfo, delta int32) string {
		return fmt.Sprintf("%s/%p on %s %+d", p.Pod.Namespace, p.Pod.Labels, n.Name, delta)
	}
	expect := func(step string, want ...string) {
		t.Helper()
		got, now, ok := c.LabelChangesSince("app", "a0", pos)
		var names []string
		for _, ch := range got {
			names = append(names, fmt.Sprintf("%s/%p on %s %+d", ch.Namespace, ch.Labels, ch.Node.Name, ch.Delta))
		}
		if !ok || !slices.Equal(names, want) {
			t.Fatalf("%s: changes %v (ok %v), want %v", step, names, ok, want)
		}
		pos = now
	}
	expect("nothing yet")
	b, other := pod(3, ""), pod(1, "n1")
	if err := c.Nodes().AssumePod(b, "n1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Nodes().AddBoundPod(other); err != nil {
		t.Fatal(err)
	}
	expect("assumed; another label's pod bound", change(b, n1, 1))
	cp := c.Checkpoint()
	s := pod(6, "")
	c.RemovePod(a)
	c.AddPod(s, "n1")
	expect("simulated", change(a, n0, -1), change(s, n1, 1))
	c.Rollback(cp)
	expect("rolled back", change(s, n1, -1), change(a, n0, 1))
	c.Nodes().SetLeaving(a, true)
	c.Nodes().SetLeaving(a, true)
	c.Nodes().SetLeaving(a, false)
	expect("terminating and back", change(a, n0, -1), change(a, n0, 1))
	leaving := pod(9, "n0")
	leaving.Terminating = true
	if err := c.Nodes().AddBoundPod(leaving); err != nil {
		t.Fatal(err)
	}
	c.Nodes().RemoveBoundPod(leaving.Key)
	expect("a terminating pod bound and deleted")

	// Another label's position is not this one's.
	_, otherPos, _ := c.LabelChangesSince("app", "a1", framework.LabelPosition{})
	if _, _, ok := c.LabelChangesSince("app", "a0", otherPos); ok {
		t.Fatal("another label's position accepted")
	}

	// The log keeps its newest changes: a reader too far behind counts afresh.
	behind := pos
	for i := range maxLabelLog {
		c.Nodes().SetLeaving(a, i%2 == 0)
	}
	if _, _, ok := c.LabelChangesSince("app", "a0", behind); ok {
		t.Fatal("a position the log dropped accepted")
	}
	// A posting of few pods keeps a log in proportion (its deleted pods' labels with it).
	if n := len(c.Nodes().labels.keys["app"].values["a0"].log.changes); n > minLabelLog {
		t.Fatalf("the log of a posting of 2 pods keeps %d changes, want at most %d", n, minLabelLog)
	}
	_, pos, _ = c.LabelChangesSince("app", "a0", framework.LabelPosition{})
	c.Nodes().SetLeaving(a, true) // the loop left it counting
	expect("after the drop", change(a, n0, -1))

	// The list goes with its last pod; a new one starts afresh.
	c.Nodes().RemoveBoundPod(a.Key)
	c.Nodes().ForgetPod(b.Key)
	if err := c.Nodes().AddBoundPod(pod(12, "n1")); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.LabelChangesSince("app", "a0", pos); ok {
		t.Fatal("a dropped list's position accepted")
	}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
}
