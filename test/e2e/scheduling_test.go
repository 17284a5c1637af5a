//go:build e2e

package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

const zoneLabel = "e2e.phalanx.dev/zone"

// requireZone makes a pod require nodes whose zone label is one of zones.
func requireZone(p *corev1.Pod, zones ...string) *corev1.Pod {
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: zoneLabel, Operator: corev1.NodeSelectorOpIn, Values: zones,
			}}}},
		},
	}}
	return p
}

// TestScheduling: pods land on kwok nodes within their resources and their node
// affinity; a pod too big for every node stays Pending with kube-scheduler's
// diagnosis in its PodScheduled condition and a FailedScheduling event; another
// scheduler's pod is left alone.
func TestScheduling(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	a := c.CreateReadyNode(t, e2eutil.Node{CPU: "2", Memory: "4Gi", Labels: map[string]string{zoneLabel: "a"}})
	b := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi", Labels: map[string]string{zoneLabel: "b"}})
	p := c.StartPhalanx(t, "scheduling")
	p.WaitReady(t)

	pod := func(name, cpu string) *corev1.Pod {
		return e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: e2eutil.SchedulerName(t), CPU: cpu, Memory: "100Mi"}.Build()
	}
	// zone-a takes most of node a; the small pods fill what is left of both nodes.
	c.CreatePod(t, requireZone(pod("zone-a", "1500m"), "a"))
	c.CreatePod(t, requireZone(pod("zone-b", "1"), "b"))
	small := []string{"small-1", "small-2", "small-3", "small-4", "small-5"}
	for _, n := range small {
		c.CreatePod(t, pod(n, "500m"))
	}
	c.CreatePod(t, pod("too-big", "5"))
	c.CreatePod(t, requireZone(pod("no-zone", "100m"), "c"))
	other := e2eutil.Pod{Namespace: ns, Name: "other-scheduler", SchedulerName: "someone-else", CPU: "100m"}.Build()
	c.CreatePod(t, other)

	bound := c.WaitPodsBound(t, ns, append([]string{"zone-a", "zone-b"}, small...), 2*time.Minute)
	if n := bound["zone-a"].Spec.NodeName; n != a.Name {
		t.Errorf("zone-a bound to %s, want %s (node affinity)", n, a.Name)
	}
	if n := bound["zone-b"].Spec.NodeName; n != b.Name {
		t.Errorf("zone-b bound to %s, want %s (node affinity)", n, b.Name)
	}
	// 1.5 + 1 + 5 x 0.5 = 5 CPUs on 6: resources decide where the small pods go.
	used := map[string]int64{}
	for _, p := range bound {
		used[p.Spec.NodeName] += p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
	}
	for _, n := range []*corev1.Node{a, b} {
		if alloc := n.Status.Allocatable.Cpu().MilliValue(); used[n.Name] > alloc {
			t.Errorf("node %s: %dm CPU requested by its pods, allocatable %dm", n.Name, used[n.Name], alloc)
		}
	}
	for name := range bound {
		c.WaitPodRunning(t, ns, name)
	}

	// too-big: PodScheduled=False, reason Unschedulable, kube-scheduler's wording.
	wantMsg := regexp.MustCompile(`^0/2 nodes are available: 2 Insufficient cpu\.`)
	var cond corev1.PodCondition
	e2eutil.WaitFor(t, time.Minute, "too-big's PodScheduled condition", func(ctx context.Context) (bool, error) {
		pod, err := c.Client.CoreV1().Pods(ns).Get(ctx, "too-big", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cd := range pod.Status.Conditions {
			if cd.Type == corev1.PodScheduled {
				cond = cd
				return true, nil
			}
		}
		return false, nil
	})
	if cond.Status != corev1.ConditionFalse || cond.Reason != corev1.PodReasonUnschedulable || !wantMsg.MatchString(cond.Message) {
		t.Errorf("too-big PodScheduled = %s/%s %q, want False/Unschedulable matching %s", cond.Status, cond.Reason, cond.Message, wantMsg)
	}
	ev := c.WaitEvent(t, ns, "too-big", "FailedScheduling", time.Minute)
	if ev.Type != corev1.EventTypeWarning || ev.ReportingController != "phalanx" || !wantMsg.MatchString(ev.Note) {
		t.Errorf("FailedScheduling event %s from %s: %q, want a Warning from phalanx matching %s", ev.Type, ev.ReportingController, ev.Note, wantMsg)
	}
	ev = c.WaitEvent(t, ns, "no-zone", "FailedScheduling", time.Minute)
	if !strings.Contains(ev.Note, "2 node(s) didn't match Pod's node affinity/selector") {
		t.Errorf("no-zone FailedScheduling %q: want the node affinity diagnosis", ev.Note)
	}

	// Scheduled events, one per bound pod, with kube-scheduler's message.
	for name := range bound {
		c.WaitEvent(t, ns, name, "Scheduled", time.Minute)
	}
	events := c.Events(t, ns)
	for name, pod := range bound {
		evs := e2eutil.EventsFor(events, name, "Scheduled")
		if len(evs) != 1 || e2eutil.EventCount(&evs[0]) != 1 {
			t.Errorf("%s: %d Scheduled events, want 1", name, len(evs))
			continue
		}
		if want := "Successfully assigned " + ns + "/" + name + " to " + pod.Spec.NodeName; evs[0].Note != want {
			t.Errorf("%s: Scheduled %q, want %q", name, evs[0].Note, want)
		}
	}

	// Another scheduler's pod: no condition, no event, no node.
	got, err := c.Client.CoreV1().Pods(ns).Get(ctx, other.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "" || len(got.Status.Conditions) > 0 || len(e2eutil.EventsFor(events, other.Name, "")) > 0 {
		t.Errorf("phalanx touched a pod of another scheduler: node %q, conditions %v", got.Spec.NodeName, got.Status.Conditions)
	}

	if v, ok, err := p.Metric(ctx, "scheduler_schedule_attempts_total", `profile="`+e2eutil.SchedulerName(t)+`",result="scheduled"`); err != nil || !ok || v < float64(len(bound)) {
		t.Errorf("scheduler_schedule_attempts_total{result=scheduled} = %v (found %v, err %v), want >= %d", v, ok, err, len(bound))
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}
