//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

func ptr[T any](v T) *T { return &v }

// TestPreemptionExample1 is Example 1 of the Pod Preemption design, with grace periods
// of seconds: one node of 10 CPUs runs A (grace 6 s) and B (grace 3 s), priority 100,
// 5 CPUs each. C (priority 1000, 10 CPUs) and D (priority 50, 2 CPUs) arrive. phalanx
// preempts A and B (DisruptionTarget condition, Preempted event), nominates C to the
// node, and binds C once both are gone; D, behind C's nomination, never gets the room
// B leaves. Run with asynchronous preemption (the default) and with
// --async-preemption=false.
func TestPreemptionExample1(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			testExample1(t, async)
		})
	}
}

func testExample1(t *testing.T, async bool) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	node := c.CreateReadyNode(t, e2eutil.Node{CPU: "10", Memory: "16Gi"})
	p100 := c.CreatePriorityClass(t, "p100", 100)
	p1000 := c.CreatePriorityClass(t, "p1000", 1000)
	p50 := c.CreatePriorityClass(t, "p50", 50)
	h := c.RecordPods(t, ns)

	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "a", NodeName: node.Name, CPU: "5", Priority: p100, GracePeriod: ptr[int64](6)}.Build())
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "b", NodeName: node.Name, CPU: "5", Priority: p100, GracePeriod: ptr[int64](3)}.Build())
	c.WaitPodRunning(t, ns, "a")
	c.WaitPodRunning(t, ns, "b")

	p := c.StartPhalanx(t, "example1", fmt.Sprintf("--async-preemption=%v", async))
	p.WaitReady(t)
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "c", SchedulerName: e2eutil.SchedulerName(t), CPU: "10", Priority: p1000}.Build())
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "d", SchedulerName: e2eutil.SchedulerName(t), CPU: "2", Priority: p50}.Build())

	bound := c.WaitPodsBound(t, ns, []string{"c"}, 2*time.Minute)
	if got := bound["c"].Spec.NodeName; got != node.Name {
		t.Fatalf("c bound to %s, want %s", got, node.Name)
	}
	c.WaitPodGone(t, ns, "a", time.Minute)
	c.WaitPodGone(t, ns, "b", time.Minute)
	// D waits for a retry that cannot help it: give it one, then look.
	c.WaitEvent(t, ns, "d", "FailedScheduling", time.Minute)
	for _, name := range []string{"a", "b"} {
		c.WaitEvent(t, ns, name, "Preempted", time.Minute)
	}
	c.WaitEvent(t, ns, "c", "Scheduled", time.Minute)

	events := c.Events(t, ns)
	for _, victim := range []string{"a", "b"} {
		cond := h.Condition(victim, corev1.DisruptionTarget, corev1.ConditionTrue)
		if cond == nil || cond.Reason != "PreemptionByScheduler" {
			t.Errorf("%s: DisruptionTarget condition %+v, want True with reason PreemptionByScheduler", victim, cond)
		}
		evs := e2eutil.EventsFor(events, victim, "Preempted")
		if len(evs) != 1 || e2eutil.EventCount(&evs[0]) != 1 {
			t.Errorf("%s: %d Preempted events, want 1", victim, len(evs))
			continue
		}
		want := "Preempted by pod " + ns + "/c on node " + node.Name
		if evs[0].Note != want || evs[0].Related == nil || evs[0].Related.Name != "c" {
			t.Errorf("%s: Preempted %q (related %v), want %q related to c", victim, evs[0].Note, evs[0].Related, want)
		}
	}
	if noms := h.Nominations("c"); len(noms) == 0 || noms[0] != node.Name {
		t.Errorf("c's nominatedNodeName history %v, want %s before its binding", noms, node.Name)
	}
	if nodes := h.Nodes("d"); len(nodes) > 0 {
		t.Errorf("d was bound to %v: it took the room preempted for c", nodes)
	}
	if noms := h.Nominations("d"); len(noms) > 0 {
		t.Errorf("d was nominated to %v: it cannot preempt anyone", noms)
	}
	if h.Deleting("d") || h.Deleting("c") {
		t.Errorf("c or d was deleted")
	}
	if evs := e2eutil.EventsFor(events, "c", "Scheduled"); len(evs) != 1 {
		t.Errorf("c: %d Scheduled events, want 1", len(evs))
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestManyPreemptors: 20 full nodes of 4 CPUs run 80 low-priority pods of 1 CPU; 50
// high-priority pods of 1 CPU arrive at once. Exactly 50 victims must go, each for one
// preemptor, and every node must get as many preemptors as it lost victims.
func TestManyPreemptors(t *testing.T) {
	const nodes, perNode, preemptors = 20, 4, 50
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	low := c.CreatePriorityClass(t, "low", 10)
	high := c.CreatePriorityClass(t, "high", 1000)
	h := c.RecordPods(t, ns)

	var names []string
	victimNode := map[string]string{}
	for range nodes {
		n := c.CreateNode(t, e2eutil.Node{CPU: fmt.Sprint(perNode), Memory: "16Gi"})
		names = append(names, n.Name)
	}
	for _, n := range names {
		c.WaitNodeReady(t, n)
	}
	createPods(t, c, nodes*perNode, func(i int) *corev1.Pod {
		return e2eutil.Pod{Namespace: ns, Name: fmt.Sprintf("low-%03d", i), NodeName: names[i/perNode], CPU: "1", Priority: low, GracePeriod: ptr[int64](2)}.Build()
	})
	for i := range nodes * perNode {
		victimNode[fmt.Sprintf("low-%03d", i)] = names[i/perNode]
	}
	waitRunning(t, c, ns, nodes*perNode)

	p := c.StartPhalanx(t, "many-preemptors")
	p.WaitReady(t)
	var high50 []string
	for i := range preemptors {
		high50 = append(high50, fmt.Sprintf("high-%03d", i))
	}
	createPods(t, c, preemptors, func(i int) *corev1.Pod {
		return e2eutil.Pod{Namespace: ns, Name: high50[i], SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Priority: high}.Build()
	})
	bound := c.WaitPodsBound(t, ns, high50, 3*time.Minute)
	// Everything is placed; a preemption still in flight would show up now.
	time.Sleep(3 * time.Second)
	// Events are written in the background: wait until each victim's is there.
	var events []eventsv1.Event
	// (A victim deleted without one fails below, after this gives up.)
	_ = e2eutil.Poll(e2eutil.Context(t), 30*time.Second, func(ctx context.Context) (bool, error) {
		list, err := c.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		events = list.Items
		for v := range victimNode {
			if h.Deleting(v) && len(e2eutil.EventsFor(events, v, "Preempted")) == 0 {
				return false, nil
			}
		}
		return true, nil
	})

	victimsPerNode := map[string]int{}
	victims := 0
	preemptedFor := map[string]int{}
	for v, node := range victimNode {
		evs := e2eutil.EventsFor(events, v, "Preempted")
		if !h.Deleting(v) {
			if len(evs) > 0 {
				t.Errorf("%s has a Preempted event but was not deleted", v)
			}
			continue
		}
		victims++
		victimsPerNode[node]++
		total := 0
		for i := range evs {
			total += e2eutil.EventCount(&evs[i])
			if evs[i].Related != nil {
				preemptedFor[evs[i].Related.Name]++
			}
		}
		if total != 1 {
			t.Errorf("victim %s preempted %d times, want once", v, total)
		}
	}
	if victims != preemptors {
		t.Errorf("%d victims for %d preemptors of the same size: want exactly %d", victims, preemptors, preemptors)
	}
	preemptorsPerNode := map[string]int{}
	for _, pod := range bound {
		preemptorsPerNode[pod.Spec.NodeName]++
	}
	for _, n := range names {
		if preemptorsPerNode[n] != victimsPerNode[n] {
			t.Errorf("node %s: %d preemptors bound, %d victims deleted", n, preemptorsPerNode[n], victimsPerNode[n])
		}
	}
	for name, n := range preemptedFor {
		if n > 1 {
			t.Errorf("preemptor %s preempted %d pods, one was enough", name, n)
		}
	}
	for _, name := range high50 {
		h.WaitBound(t, name)
		if nodes := h.Nodes(name); len(nodes) != 1 {
			t.Errorf("%s bound to %v", name, nodes)
		}
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestPreemptionRefused: the API server refuses to delete the only possible victim (a
// ValidatingAdmissionPolicy). The preemption fails, the preemptor is left
// un-nominated and is retried (the error count of the preemption goroutines rises);
// once the policy goes, a retry succeeds.
func TestPreemptionRefused(t *testing.T) {
	const protected = "phalanx-e2e/protected"
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	node := c.CreateReadyNode(t, e2eutil.Node{CPU: "2", Memory: "4Gi"})
	low := c.CreatePriorityClass(t, "low", 10)
	high := c.CreatePriorityClass(t, "high", 1000)
	h := c.RecordPods(t, ns)
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "victim", NodeName: node.Name, CPU: "2", Priority: low,
		Labels: map[string]string{protected: "true"}}.Build())
	c.WaitPodRunning(t, ns, "victim")
	allow := c.DenyPodDeletion(t, ns, protected, "victim")

	p := c.StartPhalanx(t, "refused")
	p.WaitReady(t)
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "preemptor", SchedulerName: e2eutil.SchedulerName(t), CPU: "2", Priority: high}.Build())

	var errors float64
	e2eutil.WaitFor(t, 2*time.Minute, "failed preemptions to be retried", func(ctx context.Context) (bool, error) {
		v, _, err := p.Metric(ctx, "scheduler_preemption_goroutines_execution_total", `result="error"`)
		errors = v
		return err == nil && v >= 3, err
	})
	t.Logf("preemption goroutines ended in error %v times", errors)
	c.WaitEvent(t, ns, "preemptor", "FailedScheduling", time.Minute)
	var failed bool
	for _, e := range e2eutil.EventsFor(c.Events(t, ns), "preemptor", "FailedScheduling") {
		if e.Action == "Preempting" && strings.HasPrefix(e.Note, "preemption failed, will retry") {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no FailedScheduling event says the preemption failed")
	}
	// Each attempt nominates the preemptor with its PodScheduled condition, as kube-scheduler
	// does, and its failure clears the nomination (docs/decisions/0071): between attempts
	// the preemptor has neither a node nor a nomination.
	e2eutil.WaitFor(t, time.Minute, "the failed preemption's nomination to be cleared", func(ctx context.Context) (bool, error) {
		pre, err := c.Client.CoreV1().Pods(ns).Get(ctx, "preemptor", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if pre.Spec.NodeName != "" {
			t.Fatalf("preemptor bound to %q while its victim cannot go", pre.Spec.NodeName)
		}
		return pre.Status.NominatedNodeName == "", nil
	})
	if h.Deleting("victim") {
		t.Errorf("the protected victim was deleted")
	}

	// Without the policy, a retry succeeds.
	allow()
	bound := c.WaitPodsBound(t, ns, []string{"preemptor"}, 2*time.Minute)
	if bound["preemptor"].Spec.NodeName != node.Name {
		t.Errorf("preemptor bound to %s, want %s", bound["preemptor"].Spec.NodeName, node.Name)
	}
	if !h.Deleting("victim") {
		t.Errorf("the victim was not deleted once allowed")
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// createPods creates pod(0..n-1) from a few goroutines (one by one, the tests would
// measure round trips rather than the scheduler).
func createPods(t testing.TB, c *e2eutil.Cluster, n int, pod func(i int) *corev1.Pod) {
	t.Helper()
	if err := createPodsErr(e2eutil.Context(t), c, n, pod); err != nil {
		t.Fatal(err)
	}
}

// createPodsErr is createPods for goroutines other than the test's.
func createPodsErr(ctx context.Context, c *e2eutil.Cluster, n int, pod func(i int) *corev1.Pod) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				p := pod(i)
				_, errs[i] = c.Client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("creating pod %d: %w", i, err)
		}
	}
	return nil
}

// waitRunning waits until n pods of ns run.
func waitRunning(t *testing.T, c *e2eutil.Cluster, ns string, n int) {
	t.Helper()
	e2eutil.WaitFor(t, 2*time.Minute, fmt.Sprintf("%d pods running in %s", n, ns), func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		running := 0
		for i := range list.Items {
			if e2eutil.PodRunning(&list.Items[i]) {
				running++
			}
		}
		return running >= n, nil
	})
}
