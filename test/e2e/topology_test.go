//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// rack is a topology domain of the test: its name (the label's value) and the CPUs of
// each of its nodes.
type rack struct {
	name string
	cpus []string
}

// createRacks creates the racks' nodes, labelled key=<rack> and pinLabel=pinValue, and
// returns the rack of each node.
func createRacks(t *testing.T, c *e2eutil.Cluster, key, pinValue string, racks []rack) map[string]string {
	t.Helper()
	rackOf := map[string]string{}
	for _, r := range racks {
		for _, cpu := range r.cpus {
			n := c.CreateNode(t, e2eutil.Node{CPU: cpu, Memory: "8Gi", Labels: map[string]string{key: r.name, pinLabel: pinValue}})
			rackOf[n.Name] = r.name
		}
	}
	for n := range rackOf {
		c.WaitNodeReady(t, n)
	}
	return rackOf
}

// topologyGang is a gang PodGroup of minCount held in one domain of key.
func topologyGang(ns, name string, minCount int32, key string) *v1alpha1.PodGroup {
	pg := gangGroup(ns, name, minCount, "", nil)
	pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{
		Topology: []v1alpha1.TopologyConstraint{{Key: key}},
	}
	return pg
}

// TestTopologyPlacement is KEP-5732's Required topology level on a real API server:
// a gang with spec.schedulingConstraints.topology [{key: <rack label>}] is placed with
// every member in one rack, the only one that can hold it, although the cluster as a
// whole could hold it spread; when no rack can, it stays Pending with nothing bound, and
// its PodGroupScheduled condition, its FailedScheduling event and its members say why.
func TestTopologyPlacement(t *testing.T) {
	t.Run("one-rack-fits", testTopologyOneRackFits)
	t.Run("no-rack-fits", testTopologyNoRackFits)
}

// Racks of 2 x 1, 2 x 2 and 1 x 3 CPUs (9 CPUs); a gang of 4 x 1 CPU fits only in r2.
func testTopologyOneRackFits(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "topo")
	key := "e2e.phalanx.dev/rack-" + pinValue[len(pinValue)-6:]
	rackOf := createRacks(t, c, key, pinValue, []rack{
		{"r1", []string{"1", "1"}},
		{"r2", []string{"2", "2"}},
		{"r3", []string{"3"}},
	})
	h := c.RecordPods(t, ns)
	gh := c.RecordPodGroups(t, ns)
	p := c.StartPhalanx(t, "topology")
	p.WaitReady(t)

	// Members first, then the group (see TestPodGroupPreemption).
	var members []string
	for i := range 4 {
		name := fmt.Sprintf("train-%d", i)
		members = append(members, name)
		c.CreatePod(t, pin(member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi"}.Build(), "train"), pinValue))
	}
	c.CreatePodGroup(t, topologyGang(ns, "train", 4, key))

	bound := c.WaitPodsBound(t, ns, members, time.Minute)
	perNode := map[string]int{}
	for name, pod := range bound {
		perNode[pod.Spec.NodeName]++
		if r := rackOf[pod.Spec.NodeName]; r != "r2" {
			t.Errorf("%s bound to %s in rack %q, want rack r2", name, pod.Spec.NodeName, r)
		}
		h.WaitBound(t, name)
		if got := h.Nodes(name); len(got) != 1 {
			t.Errorf("%s bound to %v", name, got)
		}
	}
	t.Logf("members per node: %v", perNode)
	cond := c.WaitPodGroupCondition(t, ns, "train", v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	if cond.Reason != v1alpha1.PodGroupReasonScheduled {
		t.Errorf("PodGroupScheduled reason %q, want %q", cond.Reason, v1alpha1.PodGroupReasonScheduled)
	}
	if phase := c.GetPodGroup(t, ns, "train").Status.Phase; phase != v1alpha1.PodGroupPhaseScheduled {
		t.Errorf("phase %q, want Scheduled", phase)
	}
	ev := c.WaitEvent(t, ns, "train", "Scheduled", time.Minute)
	if want := fmt.Sprintf("Scheduled 4 pods of pod group %s/train in %s=r2", ns, key); ev.Note != want {
		t.Errorf("Scheduled event %q, want %q", ev.Note, want)
	}
	// The pod and PodGroup informers are separate watches: phalanx may see the group before
	// all its members, and say it waits for them; it must never have failed to place it.
	for _, cd := range gh.Conditions("train", v1alpha1.PodGroupScheduled) {
		if cd.Status != metav1.ConditionTrue && !strings.HasPrefix(cd.Message, "waiting for minCount pods") {
			t.Errorf("train had PodGroupScheduled %+v before it was placed", cd)
		}
	}
	for stage, want := range map[string]float64{"generated": 3, "pruned": 2, "evaluated": 1, "feasible": 1} {
		if v, ok, err := p.Metric(ctx, "scheduler_podgroup_placements_total", `stage="`+stage+`"`); err != nil || !ok || v != want {
			t.Errorf("scheduler_podgroup_placements_total{stage=%s} = %v (found %v, err %v), want %v", stage, v, ok, err, want)
		}
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// Racks of 1 x 3 CPUs and 3 x 1.5 CPUs (7.5 CPUs, room for six 1-CPU pods spread over
// both); a gang of 4 x 1 CPU fits in neither: ra is too small, and each node of rb holds
// one member.
func testTopologyNoRackFits(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "topo")
	key := "e2e.phalanx.dev/rack-" + pinValue[len(pinValue)-6:]
	createRacks(t, c, key, pinValue, []rack{
		{"ra", []string{"3"}},
		{"rb", []string{"1500m", "1500m", "1500m"}},
	})
	h := c.RecordPods(t, ns)
	gh := c.RecordPodGroups(t, ns)
	p := c.StartPhalanx(t, "topology")
	p.WaitReady(t)

	var members []string
	for i := range 4 {
		name := fmt.Sprintf("train-%d", i)
		members = append(members, name)
		c.CreatePod(t, pin(member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi"}.Build(), "train"), pinValue))
	}
	c.CreatePodGroup(t, topologyGang(ns, "train", 4, key))

	// The placement search's verdict, then what preemption (which has nothing to take)
	// adds to it.
	const want = "no placement can hold the 4 pods needed: of 2 placements, 2 too small in aggregate."
	cond := c.WaitPodGroupCondition(t, ns, "train", v1alpha1.PodGroupScheduled, metav1.ConditionFalse, "", time.Minute)
	if cond.Reason != v1alpha1.PodGroupReasonUnschedulable || !strings.HasPrefix(cond.Message, want) {
		t.Errorf("PodGroupScheduled = False/%s %q, want Unschedulable %q...", cond.Reason, cond.Message, want)
	}
	ev := c.WaitEvent(t, ns, "train", "FailedScheduling", time.Minute)
	if ev.Type != corev1.EventTypeWarning || ev.Note != cond.Message {
		t.Errorf("FailedScheduling event %s %q, want a Warning %q", ev.Type, ev.Note, cond.Message)
	}
	for _, name := range members {
		e2eutil.WaitFor(t, time.Minute, name+"'s PodScheduled condition", func(context.Context) (bool, error) {
			return h.Condition(name, corev1.PodScheduled, corev1.ConditionFalse) != nil, nil
		})
		if cd := h.Condition(name, corev1.PodScheduled, corev1.ConditionFalse); cd.Reason != corev1.PodReasonUnschedulable || cd.Message != cond.Message {
			t.Errorf("%s: PodScheduled False/%s %q, want Unschedulable %q", name, cd.Reason, cd.Message, cond.Message)
		}
	}
	// Give phalanx time to do something wrong (a retry, a partial placement), then look.
	time.Sleep(3 * time.Second)
	for _, name := range members {
		if nodes := h.Nodes(name); len(nodes) > 0 {
			t.Errorf("%s was bound to %v", name, nodes)
		}
		if noms := h.Nominations(name); len(noms) > 0 {
			t.Errorf("%s was nominated to %v", name, noms)
		}
	}
	pg := c.GetPodGroup(t, ns, "train")
	if pg.Status.Phase != v1alpha1.PodGroupPhasePending {
		t.Errorf("phase %q, want Pending", pg.Status.Phase)
	}
	for _, cd := range gh.Conditions("train", v1alpha1.PodGroupScheduled) {
		if cd.Status == metav1.ConditionTrue {
			t.Errorf("train had PodGroupScheduled %+v", cd)
		}
	}
	if v, ok, err := p.Metric(ctx, "scheduler_podgroup_placements_total", `stage="feasible"`); err != nil || (ok && v != 0) {
		t.Errorf("scheduler_podgroup_placements_total{stage=feasible} = %v (err %v), want 0", v, err)
	}
	if v, ok, err := p.Metric(ctx, "scheduler_podgroup_placements_total", `stage="pruned"`); err != nil || !ok || v < 2 {
		t.Errorf("scheduler_podgroup_placements_total{stage=pruned} = %v (found %v, err %v), want at least 2", v, ok, err)
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}
