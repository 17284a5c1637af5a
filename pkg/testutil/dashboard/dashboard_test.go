package dashboard

import (
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestSelectors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`histogram_quantile(0.99, sum by (le, plugin) (rate(scheduler_plugin_execution_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))`,
			`scheduler_plugin_execution_duration_seconds_bucket{job=~"$job"} with le, plugin`},
		{`sum(rate(a_total{x="y(z)"}[5m])) / ignoring(code) b + on (k) group_left c offset 5m`, `a_total{x="y(z)"}; b; c`},
		{`label_values(phalanx_build_info{job=~"$job"}, job)`, `phalanx_build_info{job=~"$job"} with job`},
		{`label_values(scheduler_schedule_attempts_total{job=~"$job"}, profile)`, `scheduler_schedule_attempts_total{job=~"$job"} with profile`},
		{`max by (pod) (leader_election_master_status) > bool 0`, `leader_election_master_status with pod`},
		{`sum(rate(x_total{a="1", b!~'2|3'}[5m])) by (result) / sum without (c) (y)`, `x_total{a="1", b!~"2|3"} with result; y`},
		{`count by (git_version, git_commit) (phalanx_build_info{job=~"$job"})`, `phalanx_build_info{job=~"$job"} with git_version, git_commit`},
		{`{__name__="up", job="x"} * 2e3`, `up{__name__="up", job="x"}`},
		{`sum by (class) (rate(phalanx_api_calls_superseded_total{job=~"${job}"}[$__rate_interval]))`, `phalanx_api_calls_superseded_total{job=~"${job}"} with class`},
	}
	for _, tt := range tests {
		sels, err := Selectors(tt.expr)
		if err != nil {
			t.Errorf("Selectors(%s): %v", tt.expr, err)
			continue
		}
		var got []string
		for _, s := range sels {
			got = append(got, s.String())
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("Selectors(%s) = %s, want %s", tt.expr, g, tt.want)
		}
	}
	for _, bad := range []string{`sum(x`, `x)`, `x{a=}`, `x{a="b}`} {
		if _, err := Selectors(bad); err == nil {
			t.Errorf("Selectors(%s): no error", bad)
		}
	}
}

func TestMissing(t *testing.T) {
	scrape := `# TYPE a_total counter
a_total{class="binding",profile="p"} 0
# TYPE h histogram
h_bucket{result="x",le="1"} 0
h_bucket{result="x",le="+Inf"} 0
h_sum{result="x"} 0
h_count{result="x"} 0
# TYPE g gauge
g 1
`
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(scrape))
	if err != nil {
		t.Fatal(err)
	}
	queries := []Query{
		{`sum by (class) (rate(a_total{job=~"$job", profile=~"$profile"}[5m]))`, "has class and profile"},
		{`sum by (outcome) (rate(a_total[5m]))`, "no outcome"},
		{`a_total{profile="q"}`, "another profile"},
		{`histogram_quantile(0.9, sum by (le, result) (rate(h_bucket[5m])))`, "histogram"},
		{`sum(h_count{result!="x"})`, "histogram count not x"},
		{`max by (pod) (g{job="j"})`, "target labels"},
		{`missing_total`, "not exported"},
	}
	got, err := Missing(queries, families, map[string]string{"profile": "p"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`another profile: no series of a_total{profile="q"}`,
		`histogram count not x: no series of h_count{result!="x"}`,
		`no outcome: no series of a_total with outcome`,
		`not exported: no series of missing_total`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Missing:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
