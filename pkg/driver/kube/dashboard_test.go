package kube

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
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

// promQL pieces that are not metric names.
var (
	promStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers = regexp.MustCompile(`\{[^{}]*\}`)
	promRanges   = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`\b[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promKeywords = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "le"}
)

// metricNames lists the metric names a PromQL expression (or Grafana's label_values
// query) reads.
func metricNames(expr string) []string {
	expr = promStrings.ReplaceAllString(expr, `""`)
	expr = promMatchers.ReplaceAllString(expr, "")
	expr = promRanges.ReplaceAllString(expr, "")
	expr = promGrouping.ReplaceAllString(expr, "")
	var out []string
	for _, loc := range promIdent.FindAllStringIndex(expr, -1) {
		name := expr[loc[0]:loc[1]]
		rest := strings.TrimLeft(expr[loc[1]:], " ")
		before := expr[:loc[0]]
		switch {
		case strings.HasPrefix(rest, "("): // a function or an aggregation
		case strings.HasSuffix(before, "$") || strings.HasSuffix(before, "${"): // a Grafana variable
		case strings.HasSuffix(strings.TrimRight(before, " "), ","): // label_values' label
		case slices.Contains(promKeywords, name):
		default:
			out = append(out, name)
		}
	}
	return out
}

func TestMetricNames(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`histogram_quantile(0.99, sum by (le, plugin) (rate(scheduler_plugin_execution_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))`,
			"scheduler_plugin_execution_duration_seconds_bucket"},
		{`sum(rate(a_total{x="y(z)"}[5m])) / ignoring(code) b + on (k) group_left c offset 5m`, "a_total b c"},
		{`label_values(phalanx_build_info{job=~"$job"}, job)`, "phalanx_build_info"},
		{`max by (pod) (leader_election_master_status) > bool 0`, "leader_election_master_status"},
	}
	for _, tt := range tests {
		if got := strings.Join(metricNames(tt.expr), " "); got != tt.want {
			t.Errorf("metricNames(%s) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

// Every query of the dashboard, its variables' too, names metrics phalanx exports: a
// panel never stays empty for a typo or a renamed metric.
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
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title      string      `json:"title"`
		UID        string      `json:"uid"`
		Panels     []dashPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if dash.Title == "" || dash.UID == "" {
		t.Errorf("dashboard title %q, uid %q: both are needed to import it", dash.Title, dash.UID)
	}
	queries := map[string]string{} // query -> where
	var walk func(ps []dashPanel)
	walk = func(ps []dashPanel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				queries[tg.Expr] = "panel " + p.Title
			}
			if p.Type != "row" && len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			var s string
			if err := json.Unmarshal(v.Query, &s); err != nil {
				t.Fatalf("variable %s: query %s", v.Name, v.Query)
			}
			q.Query = s
		}
		queries[q.Query] = "variable " + v.Name
	}
	if len(queries) < 20 {
		t.Errorf("only %d queries in the dashboard", len(queries))
	}
	for q, where := range queries {
		names := metricNames(q)
		if len(names) == 0 {
			t.Errorf("%s: query %q names no metric", where, q)
		}
		for _, n := range names {
			if !known(n) {
				t.Errorf("%s: query %q reads %s, which phalanx does not export", where, q, n)
			}
		}
	}
}

type dashPanel struct {
	Type    string `json:"type"`
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []dashPanel `json:"panels"`
}
