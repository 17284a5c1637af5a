package metrics

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// observeAll gives every collector one sample, so that vectors show up when gathered.
func observeAll(m *Metrics) {
	m.ScheduleAttempts.WithLabelValues(ResultScheduled, "phalanx").Inc()
	m.SchedulingAttemptDuration.WithLabelValues(ResultUnschedulable, "phalanx").Observe(0.01)
	m.PendingPods.WithLabelValues("active").Set(3)
	m.PreemptionAttempts.Inc()
	m.PreemptionVictims.Observe(2)
	m.PreemptionGoroutineDuration.WithLabelValues(ResultError).Observe(0.5)
	m.PreemptionGoroutines.WithLabelValues(ResultError).Inc()
	m.PodGroupScheduleAttempts.WithLabelValues(ResultScheduled, "phalanx").Inc()
	m.PodGroupPlacements.WithLabelValues("generated").Inc()
	m.PodGroupPlacementDuration.WithLabelValues("generate").Observe(0.001)
	m.PodGroupPreemptionAttempts.WithLabelValues(ResultScheduled).Inc()
	m.PodGroupPreemptionAttemptDuration.Observe(0.001)
	m.PodGroupPreemptionVictims.Observe(4)
	m.PodGroupPreemptionReprieved.Inc()
	m.PodScheduled(3, time.Second)
	m.PodGroupScheduled(true, "phalanx", time.Minute)
	q := m.Queue()
	q.Incoming("active", "PodAdd")
	q.Unschedulable("NodeResourcesFit", "phalanx", 1)
	q.PendingGroups("gated", 1)
	f := m.Framework("phalanx")
	f.ExtensionPoint(PreFilter, "Success", time.Millisecond)
	f.Plugin(Filter, "NodeResourcesFit", "Unschedulable", time.Microsecond)
}

type family struct {
	typ    string
	labels []string
}

func gather(t *testing.T, m *Metrics) map[string]family {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]family{}
	for _, mf := range mfs {
		var labels []string
		if ms := mf.GetMetric(); len(ms) > 0 {
			for _, l := range ms[0].GetLabel() {
				labels = append(labels, l.GetName())
			}
		}
		sort.Strings(labels)
		out[mf.GetName()] = family{mf.GetType().String(), labels}
	}
	return out
}

// The names, types and labels of the pod metrics are kube-scheduler's, so existing
// dashboards work; the pod group metrics follow the same scheme. Every collector is
// registered, and nothing else.
func TestNewRegistersKubeSchedulerMetrics(t *testing.T) {
	m := New()
	observeAll(m)
	got := gather(t, m)
	want := map[string]family{
		"scheduler_schedule_attempts_total":                {"COUNTER", []string{"profile", "result"}},
		"scheduler_scheduling_attempt_duration_seconds":    {"HISTOGRAM", []string{"profile", "result"}},
		"scheduler_pending_pods":                           {"GAUGE", []string{"queue"}},
		"scheduler_preemption_attempts_total":              {"COUNTER", nil},
		"scheduler_preemption_victims":                     {"HISTOGRAM", nil},
		"scheduler_preemption_goroutines_duration_seconds": {"HISTOGRAM", []string{"result"}},
		"scheduler_preemption_goroutines_execution_total":  {"COUNTER", []string{"result"}},

		"scheduler_podgroup_schedule_attempts_total":             {"COUNTER", []string{"profile", "result"}},
		"scheduler_podgroup_placements_total":                    {"COUNTER", []string{"stage"}},
		"scheduler_podgroup_placement_duration_seconds":          {"HISTOGRAM", []string{"phase"}},
		"scheduler_podgroup_preemption_attempts_total":           {"COUNTER", []string{"result"}},
		"scheduler_podgroup_preemption_attempt_duration_seconds": {"HISTOGRAM", nil},
		"scheduler_podgroup_preemption_victims":                  {"HISTOGRAM", nil},
		"scheduler_podgroup_preemption_reprieved_total":          {"COUNTER", nil},

		"scheduler_pod_scheduling_sli_duration_seconds":        {"HISTOGRAM", []string{"attempts"}},
		"scheduler_unschedulable_pods":                         {"GAUGE", []string{"plugin", "profile"}},
		"scheduler_queue_incoming_pods_total":                  {"COUNTER", []string{"event", "queue"}},
		"scheduler_framework_extension_point_duration_seconds": {"HISTOGRAM", []string{"extension_point", "profile", "status"}},
		"scheduler_plugin_execution_duration_seconds":          {"HISTOGRAM", []string{"extension_point", "plugin", "status"}},
		"scheduler_podgroup_wait_duration_seconds":             {"HISTOGRAM", []string{"profile"}},
		"scheduler_pending_podgroups":                          {"GAUGE", []string{"queue"}},

		"phalanx_preemption_release_waits_total": {"COUNTER", []string{"event"}},
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("metric %s not registered", name)
			continue
		}
		if g.typ != w.typ || !slices.Equal(g.labels, w.labels) {
			t.Errorf("metric %s: %s %v, want %s %v", name, g.typ, g.labels, w.typ, w.labels)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected metric %s", name)
		}
	}
}

// The histograms dashboards read have kube-scheduler's buckets, so their quantiles mean
// the same.
func TestKubeSchedulerBuckets(t *testing.T) {
	m := New()
	observeAll(m)
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"scheduler_pod_scheduling_sli_duration_seconds":        prometheus.ExponentialBuckets(0.01, 2, 20),
		"scheduler_framework_extension_point_duration_seconds": prometheus.ExponentialBuckets(0.0001, 2, 12),
		"scheduler_plugin_execution_duration_seconds":          prometheus.ExponentialBuckets(0.00001, 1.5, 20),
		"scheduler_preemption_victims":                         prometheus.ExponentialBuckets(1, 2, 7),
	}
	for _, mf := range mfs {
		w, ok := want[mf.GetName()]
		if !ok {
			continue
		}
		delete(want, mf.GetName())
		var got []float64
		for _, b := range mf.GetMetric()[0].GetHistogram().GetBucket() {
			got = append(got, b.GetUpperBound())
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s buckets %v, want %v", mf.GetName(), got, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("not gathered: %v", want)
	}
}

// The SLI's attempts label is kube-scheduler's; a basic group has no gang wait; nil
// recorders record nothing.
func TestRecorders(t *testing.T) {
	m := New()
	for _, attempts := range []int{1, 14, 15, 40} {
		m.PodScheduled(attempts, time.Second)
	}
	m.PodGroupScheduled(false, "phalanx", time.Minute)
	mfs, _ := m.Registry.Gather()
	labels := map[string]bool{}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "scheduler_pod_scheduling_sli_duration_seconds":
			for _, x := range mf.GetMetric() {
				labels[x.GetLabel()[0].GetValue()] = true
			}
		case "scheduler_podgroup_wait_duration_seconds":
			t.Error("a basic group's wait was recorded")
		}
	}
	if len(labels) != 3 || !labels["1"] || !labels["14"] || !labels["15+"] {
		t.Errorf("attempts labels %v, want 1, 14 and 15+", labels)
	}
	var none *Metrics
	none.PodScheduled(1, time.Second)
	none.PodGroupScheduled(true, "p", time.Second)
	none.Queue().Incoming("active", "PodAdd")
	none.Queue().Unschedulable("X", "p", 1)
	none.Queue().PendingGroups("active", 1)
	none.Framework("p").ExtensionPoint(Score, "Success", time.Second)
	none.Framework("p").Plugin(Score, "X", "Success", time.Second)
}

func TestResultLabels(t *testing.T) {
	if ResultScheduled != "scheduled" || ResultUnschedulable != "unschedulable" || ResultError != "error" {
		t.Errorf("result labels %q %q %q differ from kube-scheduler's", ResultScheduled, ResultUnschedulable, ResultError)
	}
}

// Each scheduler has its own registry: simulations and tests never share counters.
func TestRegistriesAreIndependent(t *testing.T) {
	a, b := New(), New()
	if a.Registry == b.Registry {
		t.Fatal("two New() share a registry")
	}
	observeAll(a)
	a.ScheduleAttempts.WithLabelValues(ResultScheduled, "phalanx").Add(4)
	mfs, err := b.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount()); v != 0 {
				t.Errorf("metric %s of the second registry has %v after observing only the first", mf.GetName(), v)
			}
		}
	}
	got := map[string]float64{}
	mfs, _ = a.Registry.Gather()
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			got[mf.GetName()] += m.GetCounter().GetValue()
		}
	}
	if got["scheduler_schedule_attempts_total"] != 5 || got["scheduler_preemption_attempts_total"] != 1 ||
		got["scheduler_podgroup_preemption_reprieved_total"] != 1 {
		t.Errorf("first registry counters %v", got)
	}
}
