//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// Metrics the seed's upgrade and downgrade cases read.
const (
	metricPodPreemptions   = "scheduler_preemption_attempts_total"
	metricGroupPreemptions = "scheduler_podgroup_preemption_attempts_total"
)

// TestWorkloadAPIUpgradeDowngrade is the seed's upgrade -> downgrade -> upgrade path for
// a PodGroup as preemptor (KEP-5710, "Were upgrade and rollback tested?"), on the same
// etcd: the control plane goes from v1.36.3 with the workload API off, to v1.37.2 with it
// on, back to v1.36.3 off and to v1.37.2 on again, and phalanx (--podgroup-source=auto) is
// restarted with each, as a scheduler is upgraded with its API server.
//
// Gates off: a pod's spec.schedulingGroup is dropped by the API server, and the pod is
// scheduled (preempting) by itself, one by one; the group preemption metric does not move.
// Gates on: members of a v1beta1 gang wait for minCount, then are placed together, the
// group preempting as one (the group metric moves, the pod one does not).
func TestWorkloadAPIUpgradeDowngrade(t *testing.T) {
	c, release := upgradeCluster(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "upgrade")
	low := c.CreatePriorityClass(t, "low", 10)
	high := c.CreatePriorityClass(t, "high", 1000)
	// Six nodes of 2 CPUs, each full with two 1-CPU pods of low priority: every high pod
	// must preempt.
	var lows []string
	for range 6 {
		n := c.CreateNode(t, e2eutil.Node{CPU: "2", Memory: "8Gi", Labels: map[string]string{pinLabel: pinValue}})
		c.WaitNodeReady(t, n.Name)
		for j := range 2 {
			pod := e2eutil.Pod{Namespace: ns, Name: n.Name + "-low-" + string(rune('a'+j)), CPU: "1", Memory: "100Mi",
				Priority: low, GracePeriod: ptr[int64](1)}.Build()
			pod.Spec.NodeName = n.Name
			lows = append(lows, c.CreatePod(t, pod).Name)
		}
	}
	for _, name := range lows {
		c.WaitPodRunning(t, ns, name)
	}
	highPod := func(name, group string) *corev1.Pod {
		pod := pin(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi", Priority: high}.Build(), pinValue)
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr(group)}
		return pod
	}
	// oneByOne: the API server dropped the pods' schedulingGroup, and phalanx placed them
	// by preempting for each as a pod.
	oneByOne := func(p *e2eutil.Phalanx, names ...string) {
		t.Helper()
		for _, name := range names {
			got, err := c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.SchedulingGroup != nil {
				t.Errorf("%s: schedulingGroup %+v kept with the workload API off", name, got.Spec.SchedulingGroup)
			}
		}
		c.WaitPodsBound(t, ns, names, 2*time.Minute)
		waitMetric(t, p, metricPodPreemptions, func(v float64) bool { return v >= float64(len(names)) })
		if v := metricSum(t, p, metricGroupPreemptions); v != 0 {
			t.Errorf("%s = %v with the workload API off, want 0", metricGroupPreemptions, v)
		}
	}
	// asGang: the first member waits for the second, then both are placed by one group
	// preemption.
	asGang := func(p *e2eutil.Phalanx, group string, names ...string) {
		t.Helper()
		c.CreatePod(t, highPod(names[0], group))
		c.WaitNativePodGroupCondition(t, ns, group, v1alpha1.PodGroupScheduled, metav1.ConditionFalse, "", time.Minute)
		if pod, err := c.Client.CoreV1().Pods(ns).Get(ctx, names[0], metav1.GetOptions{}); err != nil || pod.Spec.NodeName != "" {
			t.Fatalf("%s bound to %q (%v) before its gang has minCount members", names[0], pod.Spec.NodeName, err)
		}
		c.CreatePod(t, highPod(names[1], group))
		c.WaitPodsBound(t, ns, names, 2*time.Minute)
		c.WaitNativePodGroupCondition(t, ns, group, v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
		waitMetric(t, p, metricGroupPreemptions, func(v float64) bool { return v >= 1 })
		if v := metricSum(t, p, metricPodPreemptions); v != 0 {
			t.Errorf("%s = %v for a gang, want 0 (the group preempts as one)", metricPodPreemptions, v)
		}
	}
	start := func(name string) *e2eutil.Phalanx {
		t.Helper()
		p := c.StartPhalanx(t, name)
		p.WaitReady(t)
		return p
	}

	// 1. v1.36.3, workload API off: the field is dropped, the pod scheduled by itself.
	release("v1.36.3", "off")
	p := start("upgrade-1")
	c.CreatePod(t, highPod("test-pod-1", "gang-test-a"))
	oneByOne(p, "test-pod-1")
	p.Stop(t)

	// 2. v1.37.2, on: two v1beta1 gangs; gang-test-a's members wait for each other.
	release("v1.37.2", "on")
	if v := c.NativeVersion(t); v != nativegroup.V1beta1 {
		t.Fatalf("v1.37.2 serves PodGroups as %q, want v1beta1", v)
	}
	for _, name := range []string{"gang-test-a", "gang-test-b"} {
		c.CreateNativePodGroup(t, &nativegroup.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
				Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}, PriorityClassName: high}})
	}
	p = start("upgrade-2")
	asGang(p, "gang-test-a", "test-pod-2", "test-pod-3")
	p.Stop(t)

	// 3. Downgrade to v1.36.3, off: a pod naming gang-test-b (created in step 2) is
	// scheduled at once, alone.
	release("v1.36.3", "off")
	p = start("upgrade-3")
	c.CreatePod(t, highPod("test-pod-4", "gang-test-b"))
	oneByOne(p, "test-pod-4")
	p.Stop(t)

	// 4. Upgrade again: gang-test-b's new members are a gang again.
	release("v1.37.2", "on")
	p = start("upgrade-4")
	asGang(p, "gang-test-b", "test-pod-5", "test-pod-6")
	p.Stop(t)
}

// upgradeCluster is the cluster of an upgrade test and the function that switches its
// release; it skips the test unless the run is on v1.37.2 with v1.36.3 built too, and
// switches back to v1.37.2 with the workload API on when the test ends.
func upgradeCluster(t *testing.T) (*e2eutil.Cluster, func(version, gates string)) {
	if v := os.Getenv("PHALANX_E2E_KUBE_VERSION"); v != "v1.37.2" {
		t.Skipf("runs on the v1.37.2 control plane (this one is %q)", v)
	}
	c := e2eutil.Connect(t)
	for _, v := range []string{"v1.36.3", "v1.37.2"} {
		if _, err := os.Stat(filepath.Join(c.BinDir, v, "kube-apiserver")); err != nil {
			t.Skipf("needs kube-apiserver %s built (E2E_KUBE_VERSION=%s hack/e2e.sh --build-only): %v", v, v, err)
		}
	}
	t.Cleanup(func() { c.SwitchRelease(t, "v1.37.2", "on") })
	return c, func(version, gates string) {
		t.Helper()
		c.SwitchRelease(t, version, gates)
	}
}

// TestWorkloadAPIUpgradeDowngradeVictim is the seed's path for a PodGroup as victim: on
// nodes that hold one pod each, a higher-priority pod that must take one low-priority
// member's node preempts that member alone while the workload API is off (the members
// are plain pods, their schedulingGroup dropped), and the whole group while it is on
// (a v1beta1 gang in disruption mode all).
func TestWorkloadAPIUpgradeDowngradeVictim(t *testing.T) {
	c, release := upgradeCluster(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	low := c.CreatePriorityClass(t, "low", 10)
	high := c.CreatePriorityClass(t, "high", 1000)
	// step creates a node pair for one step, the group's two low members on them, then a
	// high pod that must take the first member's node, and returns the members preempted.
	step := func(name, group string) []string {
		t.Helper()
		pinValue := e2eutil.UniqueName(t, name)
		for range 2 {
			n := c.CreateNode(t, e2eutil.Node{CPU: "1", Memory: "8Gi", Labels: map[string]string{pinLabel: pinValue}})
			c.WaitNodeReady(t, n.Name)
		}
		members := []string{name + "-0", name + "-1"}
		for _, m := range members {
			pod := pin(e2eutil.Pod{Namespace: ns, Name: m, SchedulerName: sched, CPU: "1", Memory: "100Mi", Priority: low}.Build(), pinValue)
			pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr(group)}
			c.CreatePod(t, pod)
		}
		// Bound is enough: kwok, which runs pods, may take a while to watch again after a
		// change of release, and preemption needs victims, not running ones.
		bound := c.WaitPodsBound(t, ns, members, 3*time.Minute)
		preemptor := e2eutil.Pod{Namespace: ns, Name: name + "-high", SchedulerName: sched, CPU: "1", Memory: "100Mi", Priority: high}.Build()
		preemptor.Spec.NodeSelector = map[string]string{corev1.LabelHostname: bound[members[0]].Spec.NodeName}
		c.CreatePod(t, preemptor)
		c.WaitPodsBound(t, ns, []string{preemptor.Name}, 3*time.Minute)
		// Read from the API server: the test's watches come and go with its restarts.
		var victims []string
		for _, m := range members {
			pod, err := c.Client.CoreV1().Pods(ns).Get(e2eutil.Context(t), m, metav1.GetOptions{})
			if apierrors.IsNotFound(err) || (err == nil && pod.DeletionTimestamp != nil) {
				victims = append(victims, m)
			} else if err != nil {
				t.Fatal(err)
			}
		}
		return victims
	}
	want := func(step string, got []string, n int) {
		t.Helper()
		if len(got) != n {
			t.Errorf("%s: victims %v, want %d", step, got, n)
		}
	}
	gang := func(name string) {
		c.CreateNativePodGroup(t, &nativegroup.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: schedulingv1beta1.PodGroupSpec{
				SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}},
				DisruptionMode:   &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}, PriorityClassName: low}})
	}
	run := func(name, group string, victims int) {
		t.Helper()
		p := c.StartPhalanx(t, name)
		p.WaitReady(t)
		want(name, step(name, group), victims)
		p.Stop(t)
	}

	release("v1.36.3", "off")
	run("v1", "gang-test-a", 1)
	release("v1.37.2", "on")
	gang("gang-test-a")
	gang("gang-test-b")
	run("v2", "gang-test-a", 2)
	release("v1.36.3", "off")
	run("v3", "gang-test-b", 1)
	release("v1.37.2", "on")
	run("v4", "gang-test-b", 2)
}

// metricSum is the sum of a metric's samples over its labels.
func metricSum(t *testing.T, p *e2eutil.Phalanx, name string) float64 {
	t.Helper()
	v, err := p.MetricSum(e2eutil.Context(t), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func waitMetric(t *testing.T, p *e2eutil.Phalanx, name string, ok func(float64) bool) {
	t.Helper()
	e2eutil.WaitFor(t, time.Minute, name, func(ctx context.Context) (bool, error) {
		v, err := p.MetricSum(ctx, name)
		return err == nil && ok(v), nil
	})
}
