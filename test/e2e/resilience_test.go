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

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// Short leases for the tests that kill a leader, so the next one takes over in seconds
// rather than kube-scheduler's 15.
var shortLease = []string{
	"--leader-elect-lease-duration=8s",
	"--leader-elect-renew-deadline=6s",
	"--leader-elect-retry-period=1s",
}

// TestKillAndRestart: phalanx is SIGKILLed while it schedules 220 pods, and started
// again. Every pod ends up bound exactly once, within the nodes' resources: none lost,
// no binding refused as a double.
func TestKillAndRestart(t *testing.T) {
	const nodes, pods = 10, 220
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	h := c.RecordPods(t, ns)
	nodeList := createNodes(t, c, nodes, "8")

	// A low request rate for the first process keeps it binding for seconds, so the
	// kill lands mid-run however fast the machine is.
	first := c.StartPhalanx(t, "first", append([]string{"--kube-api-qps=20", "--kube-api-burst=20"}, shortLease...)...)
	first.WaitReady(t)
	names := make([]string, pods)
	for i := range names {
		names[i] = fmt.Sprintf("pod-%03d", i)
	}
	created := make(chan error, 1)
	go func() {
		created <- createPodsErr(e2eutil.Context(t), c, pods, func(i int) *corev1.Pod {
			return e2eutil.Pod{Namespace: ns, Name: names[i], SchedulerName: e2eutil.SchedulerName(t), CPU: "250m", Memory: "64Mi"}.Build()
		})
	}()
	// Kill it once it has bound some, but not all.
	var boundAtKill int
	e2eutil.WaitFor(t, 2*time.Minute, "some pods bound", func(ctx context.Context) (bool, error) {
		boundAtKill = countBound(ctx, c, ns)
		return boundAtKill >= 40, nil
	})
	first.Kill(t)
	boundAtKill = countBound(e2eutil.Context(t), c, ns)
	t.Logf("killed phalanx with %d of %d pods bound", boundAtKill, pods)
	if err := <-created; err != nil {
		t.Fatal(err)
	}
	if boundAtKill >= pods {
		t.Fatalf("all %d pods were bound before the kill: the test proves nothing", pods)
	}

	second := c.StartPhalanx(t, "second", shortLease...)
	bound := c.WaitPodsBound(t, ns, names, 3*time.Minute)
	time.Sleep(2 * time.Second) // let the last events land

	checkBoundOnce(t, c, ns, h, names)
	checkCapacity(t, nodeList, bound)
	if code := second.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestAPIServerRestart: kube-apiserver stops for 10 s and comes back. phalanx rides it
// out without restarting (its informers re-list and re-watch) and schedules the pods
// created afterwards. Leader election is off: a leader that cannot renew its Lease for
// the renew deadline (10 s) exits on purpose, to be restarted by its Deployment.
func TestAPIServerRestart(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	createNodes(t, c, 3, "4")
	p := c.StartPhalanx(t, "apiserver-restart", "--leader-elect=false")
	p.WaitReady(t)

	before := []string{"before-0", "before-1", "before-2", "before-3", "before-4"}
	createPods(t, c, len(before), func(i int) *corev1.Pod {
		return e2eutil.Pod{Namespace: ns, Name: before[i], SchedulerName: e2eutil.SchedulerName(t), CPU: "100m"}.Build()
	})
	c.WaitPodsBound(t, ns, before, 2*time.Minute)

	c.RestartAPIServer(t, 10*time.Second)
	if p.Exited() {
		t.Fatalf("phalanx exited (status %d) while the API server was down", p.ExitCode())
	}
	after := []string{"after-0", "after-1", "after-2", "after-3", "after-4"}
	e2eutil.WaitFor(t, time.Minute, "pod creation after the restart", func(ctx context.Context) (bool, error) {
		// The API server may still refuse requests for a moment after /readyz.
		_, err := c.Client.CoreV1().Pods(ns).Get(ctx, before[0], metav1.GetOptions{})
		return err == nil, nil
	})
	createPods(t, c, len(after), func(i int) *corev1.Pod {
		return e2eutil.Pod{Namespace: ns, Name: after[i], SchedulerName: e2eutil.SchedulerName(t), CPU: "100m"}.Build()
	})
	c.WaitPodsBound(t, ns, after, 3*time.Minute)
	if p.Exited() {
		t.Fatalf("phalanx exited (status %d)", p.ExitCode())
	}
	if !p.Ready(e2eutil.Context(t)) {
		t.Errorf("phalanx not ready after the API server came back")
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestLeaderFailover: two replicas with leader election; the leader is SIGKILLed.
// The standby (Ready all along) takes the Lease and schedules the pods created after,
// and no pod is bound twice.
func TestLeaderFailover(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	h := c.RecordPods(t, ns)
	nodeList := createNodes(t, c, 4, "4")

	replicas := []*e2eutil.Phalanx{
		c.StartPhalanx(t, "replica-0", shortLease...),
		c.StartPhalanx(t, "replica-1", shortLease...),
	}
	for _, r := range replicas {
		r.WaitReady(t)
	}
	var leader, standby *e2eutil.Phalanx
	e2eutil.WaitFor(t, time.Minute, "one leader", func(ctx context.Context) (bool, error) {
		l0, l1 := replicas[0].IsLeader(ctx), replicas[1].IsLeader(ctx)
		switch {
		case l0 && !l1:
			leader, standby = replicas[0], replicas[1]
		case l1 && !l0:
			leader, standby = replicas[1], replicas[0]
		default:
			return false, nil
		}
		return true, nil
	})
	holder := leaseHolder(t, c)
	t.Logf("leader %s holds the Lease as %s", leader.Name, holder)

	var names []string
	batch := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s-%02d", prefix, i))
		}
		createPods(t, c, n, func(i int) *corev1.Pod {
			return e2eutil.Pod{Namespace: ns, Name: out[i], SchedulerName: e2eutil.SchedulerName(t), CPU: "100m"}.Build()
		})
		names = append(names, out...)
		return out
	}
	c.WaitPodsBound(t, ns, batch("first", 30), 2*time.Minute)
	if !standby.Ready(ctx) {
		t.Errorf("the standby replica is not ready")
	}

	leader.Kill(t)
	second := batch("second", 30)
	e2eutil.WaitFor(t, time.Minute, "the standby to take the Lease", func(ctx context.Context) (bool, error) {
		now := leaseHolderOrEmpty(ctx, c)
		return now != "" && now != holder && standby.IsLeader(ctx), nil
	})
	t.Logf("Lease now held by %s", leaseHolder(t, c))
	c.WaitPodsBound(t, ns, second, 2*time.Minute)
	bound := c.WaitPodsBound(t, ns, names, time.Minute)
	time.Sleep(2 * time.Second)

	checkBoundOnce(t, c, ns, h, names)
	checkCapacity(t, nodeList, bound)
	if code := standby.Stop(t); code != 0 {
		t.Errorf("the new leader exited %d after SIGTERM, want 0", code)
	}
	// SIGTERM released the Lease.
	if now := leaseHolder(t, c); now != "" {
		t.Errorf("Lease still held by %q after the leader's SIGTERM", now)
	}
}

// TestLeaseLost: another holder takes the Lease from under the leader (as when the
// leader could not renew it in time). The leader stops and exits with status 1, so
// that its Deployment restarts it clean, as kube-scheduler does.
func TestLeaseLost(t *testing.T) {
	c := e2eutil.Connect(t)
	p := c.StartPhalanx(t, "lease-lost", shortLease...)
	p.WaitReady(t)
	e2eutil.WaitFor(t, time.Minute, "phalanx to lead", func(ctx context.Context) (bool, error) {
		return p.IsLeader(ctx), nil
	})
	leases := c.Client.CoordinationV1().Leases(e2eutil.PhalanxNamespace)
	t.Cleanup(func() {
		// Free the Lease for the next test.
		_ = leases.Delete(context.Background(), e2eutil.PhalanxLease, metav1.DeleteOptions{})
	})
	e2eutil.WaitFor(t, time.Minute, "the Lease to be taken", func(ctx context.Context) (bool, error) {
		l, err := leases.Get(ctx, e2eutil.PhalanxLease, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		thief, duration := "e2e-thief", int32(3600)
		now := metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = &thief, &duration
		l.Spec.AcquireTime, l.Spec.RenewTime = &now, &now
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		return err == nil, nil // a conflict with a renewal: try again
	})
	e2eutil.WaitFor(t, time.Minute, "phalanx to exit", func(context.Context) (bool, error) {
		return p.Exited(), nil
	})
	if code := p.ExitCode(); code != 1 {
		t.Errorf("phalanx exited %d after losing its Lease, want 1", code)
	}
}

func createNodes(t *testing.T, c *e2eutil.Cluster, n int, cpu string) []*corev1.Node {
	t.Helper()
	var nodes []*corev1.Node
	for range n {
		nodes = append(nodes, c.CreateNode(t, e2eutil.Node{CPU: cpu, Memory: "16Gi"}))
	}
	for i, node := range nodes {
		nodes[i] = c.WaitNodeReady(t, node.Name)
	}
	return nodes
}

func countBound(ctx context.Context, c *e2eutil.Cluster, ns string) int {
	list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range list.Items {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// checkBoundOnce checks each pod was bound to one node only, has at most one Scheduled
// event (a killed process may not have written its last ones) naming that node, and
// no binding was refused.
func checkBoundOnce(t *testing.T, c *e2eutil.Cluster, ns string, h *e2eutil.PodHistory, names []string) {
	t.Helper()
	events := c.Events(t, ns)
	h.WaitAllBound(t, names, time.Minute)
	for _, name := range names {
		nodes := h.Nodes(name)
		if len(nodes) != 1 {
			t.Errorf("%s bound to %v, want one node", name, nodes)
			continue
		}
		scheduled := e2eutil.EventsFor(events, name, "Scheduled")
		count := 0
		for i := range scheduled {
			count += e2eutil.EventCount(&scheduled[i])
			if !strings.HasSuffix(scheduled[i].Note, " to "+nodes[0]) {
				t.Errorf("%s: Scheduled %q, but it is bound to %s", name, scheduled[i].Note, nodes[0])
			}
		}
		if count > 1 {
			t.Errorf("%s: %d Scheduled events: bound more than once", name, count)
		}
		for _, e := range e2eutil.EventsFor(events, name, "FailedScheduling") {
			if strings.Contains(e.Note, "Binding rejected") {
				t.Errorf("%s: %s", name, e.Note)
			}
		}
	}
}

// checkCapacity checks no node has more CPU requested than it has.
func checkCapacity(t *testing.T, nodes []*corev1.Node, pods map[string]*corev1.Pod) {
	t.Helper()
	used := map[string]int64{}
	for _, p := range pods {
		used[p.Spec.NodeName] += p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
	}
	for _, n := range nodes {
		if alloc := n.Status.Allocatable.Cpu().MilliValue(); used[n.Name] > alloc {
			t.Errorf("node %s: %dm CPU requested, %dm allocatable", n.Name, used[n.Name], alloc)
		}
	}
}

func leaseHolderOrEmpty(ctx context.Context, c *e2eutil.Cluster) string {
	l, err := c.Client.CoordinationV1().Leases(e2eutil.PhalanxNamespace).Get(ctx, e2eutil.PhalanxLease, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func leaseHolder(t *testing.T, c *e2eutil.Cluster) string {
	t.Helper()
	return leaseHolderOrEmpty(e2eutil.Context(t), c)
}
