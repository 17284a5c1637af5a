package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

const fullExample = `
apiVersion: config.phalanx.dev/v1alpha1
kind: SchedulerConfiguration
parallelism: 8
percentageOfNodesToScore: 30
podInitialBackoff: 2s
podMaxBackoff: 1m
podMaxInUnschedulablePodsDuration: 90s
gangWaitTimeout: 10m
seed: 42
profiles:
- schedulerName: phalanx
  plugins:
    disabled: [{name: NodeResourcesBalancedAllocation}]
    enabled: [{name: NodeResourcesFit, weight: 2}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: nvidia.com/gpu, weight: 5}]
- schedulerName: batch
  plugins:
    disabled: [{name: "*"}]
    enabled: [{name: PrioritySort}, {name: DefaultBinder}]
`

// jsonEqual compares JSON documents by meaning, not bytes.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestParseFullExample(t *testing.T) {
	c, err := Parse([]byte(fullExample))
	if err != nil {
		t.Fatal(err)
	}
	args := c.Profiles[0].PluginConfig[0].Args
	wantArgs := `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"nvidia.com/gpu","weight":5}]}}`
	if !jsonEqual(t, args, []byte(wantArgs)) {
		t.Errorf("args %s, want %s", args, wantArgs)
	}
	c.Profiles[0].PluginConfig[0].Args = nil
	want := &Configuration{
		APIVersion:                        APIVersion,
		Kind:                              Kind,
		Parallelism:                       8,
		PercentageOfNodesToScore:          30,
		PodInitialBackoff:                 Duration{2 * time.Second},
		PodMaxBackoff:                     Duration{time.Minute},
		PodMaxInUnschedulablePodsDuration: Duration{90 * time.Second},
		GangWaitTimeout:                   Duration{10 * time.Minute},
		ReleaseWaitTimeout:                Duration{DefaultReleaseWaitTimeout},
		FeasiblePlacementsToFind:          DefaultFeasiblePlacementsToFind,
		Seed:                              42,
		Profiles: []Profile{
			{
				SchedulerName: "phalanx",
				Plugins: Plugins{
					Disabled: []Plugin{{Name: "NodeResourcesBalancedAllocation"}},
					Enabled:  []Plugin{{Name: "NodeResourcesFit", Weight: 2}},
				},
				PluginConfig: []PluginConfig{{Name: "NodeResourcesFit"}},
			},
			{
				SchedulerName: "batch",
				Plugins: Plugins{
					Disabled: []Plugin{{Name: "*"}},
					Enabled:  []Plugin{{Name: "PrioritySort"}, {Name: "DefaultBinder"}},
				},
			},
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", c, want)
	}
}

func TestDefaults(t *testing.T) {
	want := &Configuration{
		APIVersion:                        APIVersion,
		Kind:                              Kind,
		Parallelism:                       16,
		PodInitialBackoff:                 Duration{time.Second},
		PodMaxBackoff:                     Duration{10 * time.Second},
		PodMaxInUnschedulablePodsDuration: Duration{5 * time.Minute},
		GangWaitTimeout:                   Duration{5 * time.Minute},
		ReleaseWaitTimeout:                Duration{DefaultReleaseWaitTimeout},
		FeasiblePlacementsToFind:          DefaultFeasiblePlacementsToFind,
		Seed:                              1,
		Profiles:                          []Profile{{SchedulerName: DefaultSchedulerName}},
	}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default()\n%+v\nwant\n%+v", got, want)
	}
	if errs := Validate(Default()); len(errs) > 0 {
		t.Errorf("Default() does not validate: %v", errs)
	}
	tests := []struct {
		name string
		in   string
		want func(c *Configuration)
	}{
		{"empty document", "", func(*Configuration) {}},
		{"only the header", "apiVersion: config.phalanx.dev/v1alpha1\nkind: SchedulerConfiguration\n", func(*Configuration) {}},
		{"profiles without names", "profiles: [{}, {schedulerName: b}]", func(c *Configuration) {
			c.Profiles = []Profile{{SchedulerName: DefaultSchedulerName}, {SchedulerName: "b"}}
		}},
		{"given profiles replace the default one", "profiles: [{schedulerName: only}]", func(c *Configuration) {
			c.Profiles = []Profile{{SchedulerName: "only"}}
		}},
		{"set fields kept, others defaulted", "parallelism: 3\npodMaxBackoff: 1m\nseed: -7", func(c *Configuration) {
			c.Parallelism = 3
			c.PodMaxBackoff = Duration{time.Minute}
			c.Seed = -7
		}},
		{"a feature gate switched off", "featureGates: {OpportunisticBatching: false}", func(c *Configuration) {
			c.FeatureGates = map[string]bool{OpportunisticBatching: false}
		}},
		{"zero values mean defaults", "parallelism: 0\npercentageOfNodesToScore: 0\npodInitialBackoff: 0s\nseed: 0", func(*Configuration) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			w := Default()
			tt.want(w)
			if !reflect.DeepEqual(got, w) {
				t.Errorf("parsed\n%+v\nwant\n%+v", got, w)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// want lists substrings of the error: the field path and what is wrong.
		want []string
	}{
		{"unknown top-level field", "parallelizm: 4", []string{"unknown field", "parallelizm"}},
		{"unknown profile field", "profiles: [{name: x}]", []string{"unknown field", "name"}},
		{"unknown plugin field", "profiles: [{plugins: {enabled: [{name: X, wieght: 2}]}}]", []string{"unknown field", "wieght"}},
		{"wrong type", "parallelism: many", []string{"parallelism"}},
		{"not YAML", "profiles: [", []string{"yaml"}},
		{"duplicate key", "seed: 1\nseed: 2", []string{"seed"}},
		{"bad apiVersion", "apiVersion: v1", []string{"apiVersion", `"v1"`, "config.phalanx.dev/v1alpha1"}},
		{"bad kind", "kind: KubeSchedulerConfiguration", []string{"kind", "KubeSchedulerConfiguration", "SchedulerConfiguration"}},
		{"negative parallelism", "parallelism: -1", []string{"parallelism", "-1", "at least 1"}},
		{"negative feasiblePlacementsToFind", "feasiblePlacementsToFind: -1", []string{"feasiblePlacementsToFind", "at least 1"}},
		{"percentage 101", "percentageOfNodesToScore: 101", []string{"percentageOfNodesToScore", "101", "between 0 and 100"}},
		{"negative percentage", "percentageOfNodesToScore: -1", []string{"percentageOfNodesToScore", "-1"}},
		{"unknown feature gate", "featureGates:\n  GenericWorkload: true", []string{"featureGates", "GenericWorkload", "OpportunisticBatching"}},
		{"negative initial backoff", "podInitialBackoff: -1s", []string{"podInitialBackoff", "must be positive"}},
		{"initial backoff above the max", "podInitialBackoff: 20s\npodMaxBackoff: 10s", []string{"podMaxBackoff", "10s", "podInitialBackoff"}},
		{"initial backoff above the default max", "podInitialBackoff: 11s", []string{"podMaxBackoff", "must not be less than podInitialBackoff"}},
		{"duration without a unit", "podMaxBackoff: '10'", []string{"missing unit"}},
		{"duration as a number", "podMaxBackoff: 10", []string{"podMaxBackoff"}},
		{"duplicate scheduler names", "profiles: [{schedulerName: a}, {schedulerName: b}, {schedulerName: a}]",
			[]string{"profiles[2].schedulerName", "Duplicate value", `"a"`}},
		{"duplicate default scheduler names", "profiles: [{}, {schedulerName: phalanx}]",
			[]string{"profiles[1].schedulerName", `"phalanx"`}},
		{"duplicate pluginConfig", "profiles: [{pluginConfig: [{name: A}, {name: B}, {name: A}]}]",
			[]string{"profiles[0].pluginConfig[2].name", "Duplicate value", `"A"`}},
		{"pluginConfig names are per profile", "profiles: [{schedulerName: x}, {schedulerName: y, pluginConfig: [{name: A}, {name: A}]}]",
			[]string{"profiles[1].pluginConfig[1].name"}},
		{"weight above 100", "profiles: [{plugins: {enabled: [{name: A}, {name: B, weight: 101}]}}]",
			[]string{"profiles[0].plugins.enabled[1].weight", "101", "between 0 and 100"}},
		{"negative weight", "profiles: [{plugins: {enabled: [{name: A, weight: -1}]}}]",
			[]string{"profiles[0].plugins.enabled[0].weight", "-1"}},
		{"plugin without a name", "profiles: [{plugins: {enabled: [{weight: 3}]}}]",
			[]string{"profiles[0].plugins.enabled[0].name", "Required value"}},
		{"unknown extension point", "profiles: [{plugins: {scores: {enabled: [{name: A}]}}}]", []string{"unknown field", "scores"}},
		{"unknown field in a point's set", "profiles: [{plugins: {score: {enable: [{name: A}]}}}]", []string{"unknown field", "enable"}},
		{"weight above 100 at a point", "profiles: [{plugins: {score: {enabled: [{name: A, weight: 101}]}}}]",
			[]string{"profiles[0].plugins.score.enabled[0].weight", "101"}},
		{"nameless plugin disabled at a point", "profiles: [{plugins: {filter: {disabled: [{}]}}}]",
			[]string{"profiles[0].plugins.filter.disabled[0].name", "Required value"}},
		{"every error reported", "apiVersion: x\nparallelism: -2\npercentageOfNodesToScore: 200",
			[]string{"apiVersion", "parallelism", "percentageOfNodesToScore"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkParseError(t, tt.in, tt.want) })
	}
}

// checkParseError checks Parse refuses in with an error that mentions every want (the
// field path and what is wrong), and returns no configuration with it.
func checkParseError(t *testing.T, in string, want []string) {
	t.Helper()
	c, err := Parse([]byte(in))
	if err == nil {
		t.Fatalf("Parse succeeded: %+v", c)
	}
	if c != nil {
		t.Errorf("Parse returned a configuration with the error %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// Per-point sets read as kube-scheduler's, and every point has one.
func TestParsePerPointSets(t *testing.T) {
	c, err := Parse([]byte(`
profiles:
- plugins:
    disabled: [{name: NodePorts}]
    preEnqueue: {disabled: [{name: SchedulingGates}]}
    queueSort: {enabled: [{name: PrioritySort}]}
    preFilter: {disabled: [{name: "*"}]}
    filter: {enabled: [{name: NodePorts}]}
    postFilter: {disabled: [{name: DefaultPreemption}]}
    preScore: {disabled: [{name: InterPodAffinity}]}
    score: {disabled: [{name: "*"}], enabled: [{name: NodeResourcesFit, weight: 5}]}
    reserve: {disabled: [{name: VolumeBinding}]}
    permit: {disabled: [{name: "*"}]}
    preBind: {disabled: [{name: DynamicResources}]}
    bind: {enabled: [{name: DefaultBinder}]}
    placementGenerate: {disabled: [{name: DRAPlacement}]}
    placementScore: {enabled: [{name: PlacementPodCount, weight: 9}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Profiles[0].Plugins
	points := p.Points()
	if len(points) != 13 {
		t.Fatalf("%d points", len(points))
	}
	for _, ps := range points {
		if len(ps.Set.Enabled)+len(ps.Set.Disabled) == 0 {
			t.Errorf("point %s read nothing", ps.Point)
		}
	}
	if !reflect.DeepEqual(p.Score, PluginSet{Disabled: []Plugin{{Name: "*"}}, Enabled: []Plugin{{Name: "NodeResourcesFit", Weight: 5}}}) {
		t.Errorf("score %+v", p.Score)
	}
	if !reflect.DeepEqual(p.Disabled, []Plugin{{Name: "NodePorts"}}) {
		t.Errorf("disabled %+v", p.Disabled)
	}
	out, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out)
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Errorf("round trip of\n%s\ngave %+v, %v", out, back, err)
	}
	// Unset points are not written out.
	out, _ = yaml.Marshal(Default())
	if strings.Contains(string(out), "score") || strings.Contains(string(out), "plugins") {
		t.Errorf("defaults written as\n%s", out)
	}
}

// Validate itself rejects what the defaults would otherwise fill in, for configurations
// built in code.
func TestValidateUndefaulted(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(c *Configuration)
		field string
	}{
		{"parallelism 0", func(c *Configuration) { c.Parallelism = 0 }, "parallelism"},
		{"initial backoff 0", func(c *Configuration) { c.PodInitialBackoff = Duration{} }, "podInitialBackoff"},
		{"max backoff below initial", func(c *Configuration) { c.PodMaxBackoff = Duration{time.Millisecond} }, "podMaxBackoff"},
		{"no apiVersion", func(c *Configuration) { c.APIVersion = "" }, "apiVersion"},
		{"no kind", func(c *Configuration) { c.Kind = "" }, "kind"},
		{"weight 101", func(c *Configuration) { c.Profiles[0].Plugins.Enabled = []Plugin{{Name: "A", Weight: 101}} }, "profiles[0].plugins.enabled[0].weight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(c)
			errs := Validate(c)
			if len(errs) != 1 || errs[0].Field != tt.field {
				t.Errorf("errors %v, want one for %s", errs, tt.field)
			}
		})
	}
	ok := Default()
	ok.Profiles[0].Plugins.Enabled = []Plugin{{Name: "A", Weight: 100}, {Name: "B", Weight: 0}}
	ok.PercentageOfNodesToScore = 100
	ok.PodMaxBackoff = ok.PodInitialBackoff
	if errs := Validate(ok); len(errs) > 0 {
		t.Errorf("boundary values rejected: %v", errs)
	}
}

func TestDurationRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{0, time.Nanosecond, 1500 * time.Millisecond, 5 * time.Minute,
		time.Hour + 2*time.Minute + 3*time.Second, -time.Second, 1<<63 - 1} {
		data, err := json.Marshal(Duration{d})
		if err != nil {
			t.Fatal(err)
		}
		if want := `"` + d.String() + `"`; string(data) != want {
			t.Errorf("Marshal(%v) = %s, want %s", d, data, want)
		}
		var back Duration
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("Unmarshal(%s): %v", data, err)
		}
		if back.Duration != d {
			t.Errorf("round trip of %v gave %v", d, back.Duration)
		}
	}
	for _, bad := range []string{`10`, `"10"`, `"ten seconds"`, `{}`} {
		var d Duration
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Unmarshal(%s) accepted: %v", bad, d)
		}
	}
}

// A parsed configuration written back out parses to the same configuration.
func TestConfigurationRoundTrip(t *testing.T) {
	for _, in := range []string{fullExample, ""} {
		c, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parsing\n%s: %v", out, err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Errorf("round trip\n%s\ngave %+v\nwant %+v", out, back, c)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte(fullExample), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("parallelism: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(good)
	if err != nil || c.Parallelism != 8 {
		t.Errorf("Load(good) = %+v, %v", c, err)
	}
	if _, err := Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") || !strings.Contains(err.Error(), "parallelism") {
		t.Errorf("Load(bad) error %v, want it to name the file and the field", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !os.IsNotExist(err) {
		t.Errorf("Load(missing) error %v, want not-exist", err)
	}
}
