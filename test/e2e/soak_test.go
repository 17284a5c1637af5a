//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// The soak's shape: soakPods pod creations over soakDuration on soakNodes nodes of 8
// CPUs, about twice what they hold at once.
const (
	soakPods     = 10000
	soakDuration = 150 * time.Second
	soakNodes    = 40
	gangSize     = 4
)

// soakPod is what the soak makes of its i-th creation.
type soakPod struct {
	name, cpu, class string
	// gang is the pod's PodGroup ("" for none); first says it creates the group.
	gang  string
	first bool
	// life is how long after its creation it is deleted; 0 keeps it to the end.
	life time.Duration
}

// soakPlan decides pod i: seven in ten are low-priority pods living a few seconds,
// one in ten a high-priority pod that preempts them when the nodes are full, one in ten
// a big low-priority pod deleted while it is likely still pending, one in ten a member
// of a gang of four. The last tenth lives to the end, to be checked there.
func soakPlan(i int, rnd *rand.Rand) soakPod {
	life := func(lo, hi int) time.Duration {
		if i >= soakPods*9/10 {
			return 0
		}
		return time.Duration(lo+rnd.IntN(hi-lo)) * time.Second
	}
	switch i % 10 {
	case 7:
		return soakPod{name: fmt.Sprintf("high-%05d", i), cpu: "1", class: "high", life: life(5, 15)}
	case 8:
		return soakPod{name: fmt.Sprintf("big-%05d", i), cpu: "4", class: "low", life: life(1, 3)}
	case 9:
		// Members of a gang are the i%10 == 9 creations of forty consecutive ones, and
		// live as long as the first.
		g := i / (10 * gangSize)
		first := g * 10 * gangSize
		return soakPod{name: fmt.Sprintf("gang-%05d", i), cpu: "1", class: "low", gang: fmt.Sprintf("g-%04d", g),
			first: (i/10)%gangSize == 0, life: soakPlan(first, rand.New(rand.NewPCG(uint64(first), 9))).life}
	default:
		return soakPod{name: fmt.Sprintf("low-%05d", i), cpu: "500m", class: "low", life: life(3, 12)}
	}
}

// TestSoak (issue 9): 10,000 pods created and deleted over a few minutes, with
// preemptions and gangs; phalanx is killed and restarted twice and kube-apiserver
// restarted once meanwhile. No node is ever over-committed; at the end every pod is
// bound to one node only, or pending with a reason, and phalanx's cache matches the
// cluster.
func TestSoak(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	classes := map[string]string{"low": c.CreatePriorityClass(t, "low", 10), "high": c.CreatePriorityClass(t, "high", 1000)}
	h := c.RecordPods(t, ns)
	nodeList := createNodes(t, c, soakNodes, "8")
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	groups := dyn.Resource(v1alpha1.SchemeGroupVersion.WithResource("podgroups")).Namespace(ns)
	args := []string{"--leader-elect=false", "--debug-endpoints"}
	p := c.StartPhalanx(t, "soak-1", args...)
	p.WaitReady(t)

	// retry makes a call until it succeeds, is moot (the object is there, or gone), or
	// the test ends: the API server restarts in the middle.
	retry := func(call func() error) error {
		for {
			err := call()
			if err == nil || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err) || ctx.Err() != nil {
				return nil
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	var created, deleted atomic.Int64
	var deletions sync.WaitGroup
	deleteLater := func(sp soakPod) {
		if sp.life == 0 {
			return
		}
		deletions.Add(1)
		time.AfterFunc(sp.life, func() {
			defer deletions.Done()
			_ = retry(func() error { return c.Client.CoreV1().Pods(ns).Delete(ctx, sp.name, metav1.DeleteOptions{}) })
			if sp.first {
				_ = retry(func() error { return groups.Delete(ctx, sp.gang, metav1.DeleteOptions{}) })
			}
			deleted.Add(1)
		})
	}
	create := func(i int) {
		sp := soakPlan(i, rand.New(rand.NewPCG(uint64(i), 9)))
		if sp.first {
			pg := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": v1alpha1.SchemeGroupVersion.String(), "kind": "PodGroup",
				"metadata": map[string]any{"name": sp.gang, "namespace": ns},
				"spec": map[string]any{
					"schedulingPolicy":  map[string]any{"gang": map[string]any{"minCount": int64(gangSize)}},
					"priorityClassName": classes[sp.class],
				},
			}}
			_ = retry(func() error { _, err := groups.Create(ctx, pg, metav1.CreateOptions{}); return err })
		}
		pod := e2eutil.Pod{Namespace: ns, Name: sp.name, SchedulerName: e2eutil.SchedulerName(t), CPU: sp.cpu, Priority: classes[sp.class]}.Build()
		if sp.gang != "" {
			pod.Labels = map[string]string{v1alpha1.LabelPodGroup: sp.gang}
		}
		_ = retry(func() error {
			_, err := c.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
			return err
		})
		created.Add(1)
		deleteLater(sp)
	}

	// Create at a steady pace from a few goroutines, checking capacity as we go.
	start := time.Now()
	interval := soakDuration / soakPods
	var next atomic.Int64
	var creators sync.WaitGroup
	for range 16 {
		creators.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= soakPods || ctx.Err() != nil {
					return
				}
				if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
					time.Sleep(d)
				}
				create(i)
			}
		})
	}
	overcommits := make(chan string, 100)
	stopChecks := make(chan struct{})
	var checks sync.WaitGroup
	checks.Go(func() {
		for {
			select {
			case <-stopChecks:
				return
			case <-time.After(5 * time.Second):
			}
			if msg := overcommitted(ctx, c, ns, nodeList); msg != "" {
				select {
				case overcommits <- msg:
				default:
				}
			}
		}
	})

	// The disruptions, a quarter of the way through, half way and three quarters.
	wait := func(frac float64) { time.Sleep(time.Until(start.Add(time.Duration(frac * float64(soakDuration))))) }
	wait(0.25)
	p.Kill(t)
	t.Logf("killed phalanx after %d creations", created.Load())
	p = c.StartPhalanx(t, "soak-2", args...)
	wait(0.5)
	c.RestartAPIServer(t, 5*time.Second)
	t.Logf("restarted kube-apiserver after %d creations", created.Load())
	wait(0.75)
	p.Kill(t)
	t.Logf("killed phalanx after %d creations", created.Load())
	p = c.StartPhalanx(t, "soak-3", args...)
	creators.Wait()
	deletions.Wait()
	t.Logf("%d pods created, %d deleted in %v", created.Load(), deleted.Load(), time.Since(start).Round(time.Second))

	// Settle: every pod left is bound, or pending with a reason, and the cache matches.
	var pending map[string]string
	var boundNow int
	e2eutil.WaitFor(t, 2*time.Minute, "every pod bound or pending with a reason", func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		pending, boundNow = map[string]string{}, 0
		settled := true
		for i := range list.Items {
			pod := &list.Items[i]
			switch {
			case pod.DeletionTimestamp != nil:
				settled = false // the last deletions finishing
			case pod.Spec.NodeName != "":
				boundNow++
			default:
				pending[pod.Name] = pendingReason(pod)
				settled = settled && pending[pod.Name] != ""
			}
		}
		return settled, nil
	})
	close(stopChecks)
	checks.Wait()
	close(overcommits)
	for msg := range overcommits {
		t.Errorf("during the soak: %s", msg)
	}
	if msg := overcommitted(ctx, c, ns, nodeList); msg != "" {
		t.Errorf("at the end: %s", msg)
	}
	for name, reason := range pending {
		if strings.Contains(reason, "already in the cache") || strings.Contains(reason, "Binding rejected") {
			t.Errorf("%s pending: %s", name, reason)
		}
	}
	for _, name := range h.Names() {
		if nodes := h.Nodes(name); len(nodes) > 1 {
			t.Errorf("%s bound to %v", name, nodes)
		}
	}
	cmp := p.WaitCacheConsistent(t, time.Minute)
	t.Logf("at the end: %d pods bound, %d pending with a reason; phalanx's cache holds %d bound and %d pending pods",
		boundNow, len(pending), cmp.BoundPods, cmp.PendingPods)
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// overcommitted lists the nodes whose bound pods (terminating ones included: they hold
// their room until they are gone) request more CPU than the node has ("" for none).
func overcommitted(ctx context.Context, c *e2eutil.Cluster, ns string, nodes []*corev1.Node) string {
	list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ""
	}
	used := map[string]int64{}
	for i := range list.Items {
		if pod := &list.Items[i]; pod.Spec.NodeName != "" {
			used[pod.Spec.NodeName] += pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		}
	}
	msg := ""
	for _, n := range nodes {
		if alloc := n.Status.Allocatable.Cpu().MilliValue(); used[n.Name] > alloc {
			msg += fmt.Sprintf("node %s: %dm CPU requested, %dm allocatable; ", n.Name, used[n.Name], alloc)
		}
	}
	return msg
}
