package kube

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/phalanx-dev/phalanx/pkg/testutil/dashboard"
)

// dashboardFile is the Grafana dashboard shipped in config/.
const dashboardFile = configDir + "/grafana/phalanx-dashboard.json"

// exportedMetrics names every metric /metrics serves, from the collectors' descriptions
// (so a metric counts before it has a sample).
func exportedMetrics(t *testing.T, d *Driver) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, r := range d.registries {
		ch := make(chan *prometheus.Desc, 64)
		go func() { r.Describe(ch); close(ch) }()
		for desc := range ch {
			if m := fqName.FindStringSubmatch(desc.String()); m != nil {
				names[m[1]] = true
			}
		}
	}
	return names
}

// Every query of the dashboard, its variables' too, names metrics phalanx exports: a
// panel never stays empty for a typo or a renamed metric. (That each has a series from
// the start is test/e2e's TestDashboardSeries, against a running scheduler.)
func TestDashboardQueriesExportedMetrics(t *testing.T) {
	d, err := New(validOptions())
	if err != nil {
		t.Fatal(err)
	}
	exported := exportedMetrics(t, d)
	for _, want := range []string{"scheduler_pod_scheduling_sli_duration_seconds", "phalanx_api_calls_queued", "go_goroutines", "phalanx_build_info"} {
		if !exported[want] {
			t.Fatalf("exported metrics lack %s: %v", want, exported)
		}
	}
	known := func(name string) bool {
		if exported[name] {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && exported[base] {
				return true
			}
		}
		return false
	}
	dash, err := dashboard.Load(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	if dash.Title == "" || dash.UID == "" {
		t.Errorf("dashboard title %q, uid %q: both are needed to import it", dash.Title, dash.UID)
	}
	for _, p := range dash.Empty {
		t.Errorf("panel %q has no query", p)
	}
	if len(dash.Queries) < 20 {
		t.Errorf("only %d queries in the dashboard", len(dash.Queries))
	}
	for _, q := range dash.Queries {
		sels, err := dashboard.Selectors(q.Expr)
		if err != nil {
			t.Errorf("%s: %v", q.Where, err)
			continue
		}
		if len(sels) == 0 {
			t.Errorf("%s: query %q names no metric", q.Where, q.Expr)
		}
		for _, s := range sels {
			if !known(s.Metric) {
				t.Errorf("%s: query %q reads %s, which phalanx does not export", q.Where, q.Expr, s.Metric)
			}
		}
	}
}

// filledByFirstPod are the dashboard's metrics that get their series when the scheduler
// leads, makes its first API request and schedules its first pod, which every healthy
// scheduler does at once (test/e2e's TestDashboardSeries checks them on a running one).
var filledByFirstPod = []string{
	"leader_election_master_status", "rest_client_requests_total", "phalanx_api_call_duration_seconds_bucket",
	"scheduler_framework_extension_point_duration_seconds_bucket", "scheduler_plugin_execution_duration_seconds_bucket",
	"scheduler_pod_scheduling_sli_duration_seconds_bucket", "scheduler_queue_incoming_pods_total",
	"scheduler_scheduling_attempt_duration_seconds_bucket",
}

// A driver just made, before it has led, scheduled or called anything, already has a
// series for every selector of the dashboard's queries but those of filledByFirstPod:
// the labelled counters and gauges of rarer events (a binding whose outcome had to be
// read back, a superseded call, a pod group, a preemption) are initialised for every
// label value they know, so their panels read 0, not "No data" (issue 29).
func TestDashboardSeriesBeforeFirstEvent(t *testing.T) {
	d, err := New(validOptions())
	if err != nil {
		t.Fatal(err)
	}
	dash, err := dashboard.Load(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]*dto.MetricFamily{}
	for _, r := range d.registries {
		fs, err := r.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			families[f.GetName()] = f
		}
	}
	missing, err := dashboard.Missing(dash.Queries, families, map[string]string{"profile": "phalanx"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		if !slices.ContainsFunc(filledByFirstPod, func(name string) bool { return strings.Contains(m, " of "+name+"{") }) {
			t.Error(m)
		}
	}
}
