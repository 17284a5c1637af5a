package queue

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// The queue's metrics follow its entries: incoming counts by pool and event, the plugins
// holding entries back, the groups by pool.
func TestQueueMetrics(t *testing.T) {
	m := metrics.New()
	c := &fakeClock{t: time.Unix(0, 0)}
	gate := "G"
	q := newTestQueue(c, Options{
		Metrics: m.Queue(),
		Events:  map[string][]framework.ClusterEvent{"A": {framework.EventNodeAdd}, gate: {framework.EventNodeAdd}},
		PreEnqueue: func(e *Entry) *framework.Status {
			if e.Key == "gated" && gate != "" {
				return framework.NewStatus(framework.UnschedulableAndUnresolvable, "held").WithPlugin(gate)
			}
			return nil
		},
	})
	unschedulable := func(plugin string) float64 {
		return value(t, m.UnschedulablePods.WithLabelValues(plugin, "p"))
	}
	incoming := func(queue, event string) float64 {
		return value(t, m.QueueIncomingPods.WithLabelValues(queue, event))
	}
	groups := func(queue string) float64 { return value(t, m.PendingPodGroups.WithLabelValues(queue)) }

	pod := entry("pod", 0)
	pod.Profile = "p"
	q.Add(pod)
	group := entry("group", 0)
	group.Profile, group.Group = "p", struct{}{}
	q.Add(group)
	gated := entry("gated", 0)
	gated.Profile = "p"
	q.Add(gated)
	if incoming("active", "PodAdd") != 2 || incoming("gated", "PodAdd") != 1 || unschedulable(gate) != 1 || groups("active") != 1 {
		t.Fatalf("after adding: active %v, gated %v, held by G %v, groups active %v",
			incoming("active", "PodAdd"), incoming("gated", "PodAdd"), unschedulable(gate), groups("active"))
	}
	if !group.Added.Equal(c.t) {
		t.Errorf("group added at %v, want %v", group.Added, c.t)
	}

	// Both fail: the pod for A and B, the group for A.
	for q.Pop() != nil {
	}
	if groups("active") != 0 {
		t.Errorf("a group in flight is pending in a pool: %v", groups("active"))
	}
	q.Requeue(pod, sets.New("A", "B"), false)
	q.Requeue(group, sets.New("A"), false)
	if unschedulable("A") != 2 || unschedulable("B") != 1 || groups("unschedulable") != 1 || incoming("unschedulable", "ScheduleAttemptFailure") != 2 {
		t.Fatalf("after failing: A %v, B %v, groups %v", unschedulable("A"), unschedulable("B"), groups("unschedulable"))
	}
	c.step(time.Minute)
	q.OnEvent(framework.EventNodeAdd, nil)
	if unschedulable("A") != 0 || unschedulable("B") != 0 || groups("unschedulable") != 0 || groups("active") != 1 {
		t.Errorf("after the event: A %v, B %v, groups unschedulable %v, active %v",
			unschedulable("A"), unschedulable("B"), groups("unschedulable"), groups("active"))
	}
	if incoming("active", "NodeAdd") != 2 {
		t.Errorf("moved by NodeAdd: %v, want 2", incoming("active", "NodeAdd"))
	}
	// The gate lifts on an event it registered.
	gate = ""
	q.OnEvent(framework.EventNodeAdd, nil)
	if unschedulable("G") != 0 || incoming("active", "NodeAdd") != 3 {
		t.Errorf("after the gate lifted: held by G %v, active by NodeAdd %v", unschedulable("G"), incoming("active", "NodeAdd"))
	}
	q.Delete("group")
	if groups("active") != 0 {
		t.Errorf("deleted group still pending: %v", groups("active"))
	}
}

// value reads a counter or a gauge.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue() + m.GetGauge().GetValue()
}
