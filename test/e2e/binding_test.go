//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestRateLimitedBindingsDoNotTimeOut (issue 9): far more bindings than the client's
// rate limit lets through in a request's deadline. They wait for their turn in phalanx's
// own queue, and the deadline covers only the request: no binding fails, none is
// retried, no pod is marked SchedulerError, none is left behind. (Before, the deadline
// covered the rate limiter's wait: every binding queued for more than 30 s failed with
// "rate: Wait(n=1) would exceed context deadline", was reported and retried.)
func TestRateLimitedBindingsDoNotTimeOut(t *testing.T) {
	const nodes, pods = 5, 80
	c := e2eutil.Connect(t)
	ns, h, nodeList, names := pendingPods(t, c, nodes, pods)
	// 2 requests a second: the last bindings wait 40 s for a token.
	p := c.StartPhalanx(t, "rate-limited", "--leader-elect=false", "--kube-api-qps=2", "--kube-api-burst=1", "--debug-endpoints")
	bound := c.WaitPodsBound(t, ns, names, 3*time.Minute)

	checkBoundOnce(t, c, ns, h, names)
	checkCapacity(t, nodeList, bound)
	checkNeverMarkedErrorWhileBound(t, h, names)
	if n := metric(t, p, "scheduler_schedule_attempts_total", `profile="`+e2eutil.SchedulerName(t)+`",result="error"`); n != 0 {
		t.Errorf("%v scheduling attempts ended in an error, want none", n)
	}
	p.WaitCacheConsistent(t, 30*time.Second)
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestBindingOutcomeUnknown (issue 9): etcd freezes while bindings are in flight, for
// longer than phalanx's request deadline. Requests time out on the client, and some of
// them commit once etcd is back: phalanx reads those pods back instead of reporting a
// failure, so no bound pod is ever marked SchedulerError, none is bound twice, and the
// cache matches the cluster afterwards (no assumption left behind, no pod lost).
func TestBindingOutcomeUnknown(t *testing.T) {
	const nodes, pods = 10, 300
	c := e2eutil.Connect(t)
	ns, h, nodeList, names := pendingPods(t, c, nodes, pods)
	// A steady stream of bindings, so that some are in flight when etcd stops.
	p := c.StartPhalanx(t, "outcome-unknown", "--leader-elect=false", "--kube-api-qps=40", "--kube-api-burst=1",
		"--kube-api-timeout=2s", "--debug-endpoints")
	e2eutil.WaitFor(t, 2*time.Minute, "some pods bound", func(ctx context.Context) (bool, error) {
		return countBound(ctx, c, ns) >= 40, nil
	})
	c.PauseComponent(t, e2eutil.Etcd)
	time.Sleep(6 * time.Second)
	c.ResumeComponent(t, e2eutil.Etcd)
	bound := c.WaitPodsBound(t, ns, names, 3*time.Minute)
	h.WaitAllBound(t, names, time.Minute)

	for _, name := range names {
		if nodes := h.Nodes(name); len(nodes) != 1 {
			t.Errorf("%s bound to %v, want one node", name, nodes)
		}
	}
	checkCapacity(t, nodeList, bound)
	checkNeverMarkedErrorWhileBound(t, h, names)
	for _, outcome := range []string{"bound", "not-bound"} {
		t.Logf("bindings read back after an error: %s %v", outcome,
			metric(t, p, "phalanx_api_binding_outcomes_resolved_total", `outcome="`+outcome+`"`))
	}
	p.WaitCacheConsistent(t, 30*time.Second)
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// checkNeverMarkedErrorWhileBound checks no version of a bound pod said PodScheduled=
// False with reason SchedulerError: a failure reported for a binding the server made.
func checkNeverMarkedErrorWhileBound(t *testing.T, h *e2eutil.PodHistory, names []string) {
	t.Helper()
	for _, name := range names {
		for _, v := range h.Versions(name) {
			if v.Spec.NodeName == "" {
				continue
			}
			for _, cond := range v.Status.Conditions {
				if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonSchedulerError {
					t.Errorf("%s, bound to %s, says PodScheduled=False: %s", name, v.Spec.NodeName, cond.Message)
				}
			}
		}
	}
}

// metric reads one sample of phalanx's metrics (0 when absent).
func metric(t *testing.T, p *e2eutil.Phalanx, name, labels string) float64 {
	t.Helper()
	v, _, err := p.Metric(e2eutil.Context(t), name, labels)
	if err != nil {
		t.Fatalf("metric %s{%s}: %v", name, labels, err)
	}
	return v
}

// pendingReason says why a pending pod waits, from its PodScheduled condition ("" when
// it says nothing).
func pendingReason(pod *corev1.Pod) string {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return strings.TrimSpace(cond.Reason + ": " + cond.Message)
		}
	}
	return ""
}

// TestThrottledByPriorityAndFairness (issue 9): the API server's Priority and Fairness
// puts phalanx's ServiceAccount in a priority level of a few seats that rejects what it
// cannot queue (429). With its defaults (no client-side limit under APF), phalanx is
// throttled by the server, halves its calls in flight, and still binds every pod, with
// no pod lost and none marked SchedulerError while bound.
func TestThrottledByPriorityAndFairness(t *testing.T) {
	// The server's Retry-After grows with the rate it rejects at: a few dozen pods take a
	// minute or so.
	const nodes, pods = 5, 50
	c := e2eutil.Connect(t)
	c.ThrottleServiceAccount(t, e2eutil.PhalanxNamespace, e2eutil.PhalanxServiceAccount, 1)
	ns, h, nodeList, names := pendingPods(t, c, nodes, pods)
	p := c.StartPhalanx(t, "throttled", "--leader-elect=false", "--debug-endpoints")
	bound := c.WaitPodsBound(t, ns, names, 3*time.Minute)
	h.WaitAllBound(t, names, time.Minute)

	for _, name := range names {
		if nodes := h.Nodes(name); len(nodes) != 1 {
			t.Errorf("%s bound to %v, want one node", name, nodes)
		}
	}
	checkCapacity(t, nodeList, bound)
	checkNeverMarkedErrorWhileBound(t, h, names)
	throttled := metric(t, p, "phalanx_api_throttled_total", "")
	t.Logf("throttled %v times; window now %v", throttled, metric(t, p, "phalanx_api_calls_window", ""))
	if throttled == 0 {
		t.Error("never throttled: the priority level did not bite, the test proves nothing")
	}
	p.WaitCacheConsistent(t, 30*time.Second)
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// pendingPods makes a namespace (its pods recorded), nodes kwok nodes of 8 CPUs, and
// pods pending pods of 100m for the test's scheduler name.
func pendingPods(t *testing.T, c *e2eutil.Cluster, nodes, pods int) (string, *e2eutil.PodHistory, []*corev1.Node, []string) {
	t.Helper()
	ns := c.CreateNamespace(t)
	h := c.RecordPods(t, ns)
	nodeList := createNodes(t, c, nodes, "8")
	names := make([]string, pods)
	for i := range names {
		names[i] = fmt.Sprintf("pod-%03d", i)
	}
	createPods(t, c, pods, func(i int) *corev1.Pod {
		return e2eutil.Pod{Namespace: ns, Name: names[i], SchedulerName: e2eutil.SchedulerName(t), CPU: "100m"}.Build()
	})
	return ns, h, nodeList, names
}
