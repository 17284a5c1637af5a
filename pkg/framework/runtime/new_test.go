package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
)

func defaultNames() []string {
	out := make([]string, len(config.DefaultPlugins))
	for i, d := range config.DefaultPlugins {
		out[i] = d.Name
	}
	return out
}

func without(names []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
}

func TestNewPluginSet(t *testing.T) {
	p := func(names ...string) []config.Plugin {
		out := make([]config.Plugin, len(names))
		for i, n := range names {
			out[i] = config.Plugin{Name: n}
		}
		return out
	}
	tests := []struct {
		name    string
		plugins config.Plugins
		want    []string
	}{
		{"defaults", config.Plugins{}, defaultNames()},
		{"disable one", config.Plugins{Disabled: p("NodePorts")}, without(defaultNames(), "NodePorts")},
		{"disable several", config.Plugins{Disabled: p("DefaultPreemption", "NodeResourcesBalancedAllocation")},
			without(defaultNames(), "DefaultPreemption", "NodeResourcesBalancedAllocation")},
		{"disable all", config.Plugins{Disabled: p("*")}, nil},
		{"disable all, enable some in the given order", config.Plugins{Disabled: p("*"), Enabled: p("DefaultBinder", "PrioritySort", "NodeName")},
			[]string{"DefaultBinder", "PrioritySort", "NodeName"}},
		{"re-enabling a default keeps its place", config.Plugins{Enabled: p("NodeAffinity")}, defaultNames()},
		{"disabled then enabled moves to the end", config.Plugins{Disabled: p("NodeAffinity"), Enabled: p("NodeAffinity")},
			append(without(defaultNames(), "NodeAffinity"), "NodeAffinity")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, plugins.NewRegistry(), config.Profile{SchedulerName: "s", Plugins: tt.plugins})
			if got := pluginNames(f.Plugins()); !slices.Equal(got, tt.want) {
				t.Errorf("plugins %v\nwant %v", got, tt.want)
			}
			if f.SchedulerName() != "s" {
				t.Errorf("scheduler name %q", f.SchedulerName())
			}
			hasSort := slices.Contains(tt.want, "PrioritySort")
			if (f.QueueSort() != nil) != hasSort || hasSort && f.QueueSort().Name() != "PrioritySort" {
				t.Errorf("queue sort %v, want PrioritySort: %v", f.QueueSort(), hasSort)
			}
			// DefaultPreemption and DynamicResources (which deallocates claims) are PostFilters.
			if f.HasPostFilter() != (slices.Contains(tt.want, "DefaultPreemption") || slices.Contains(tt.want, "DynamicResources")) {
				t.Errorf("HasPostFilter() = %v", f.HasPostFilter())
			}
		})
	}
}

// The default profile's filters split as the design says: node-object-only filters are
// static, NodeResourcesFit has a static precheck but stays dynamic.
func TestNewDefaultFilterClassification(t *testing.T) {
	f := build(t, plugins.NewRegistry(), config.Profile{SchedulerName: "s"})
	if !f.HasStaticFilters() {
		t.Error("default profile has no static filters")
	}
	got := pluginNames(f.ActiveDynamicFilters(framework.NewCycleState()))
	want := []string{"NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"}
	if !slices.Equal(got, want) {
		t.Errorf("dynamic filters %v, want %v", got, want)
	}
	events := f.EventsToRegister()
	for _, name := range []string{"TaintToleration", "PodTopologySpread", "InterPodAffinity", "NodeResourcesFit"} {
		if len(events[name]) == 0 {
			t.Errorf("no events registered for %s", name)
		}
	}
}

// A point's set changes that point alone: filters disabled or moved first there, their
// PreFilter still runs.
func TestNewPerPointSets(t *testing.T) {
	dynamic := []string{"NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"}
	tests := []struct {
		name        string
		plugins     config.Plugins
		wantDynamic []string
		wantPlugins []string
	}{
		{"defaults", config.Plugins{}, dynamic, defaultNames()},
		{"filter disabled", config.Plugins{Filter: config.PluginSet{Disabled: []config.Plugin{{Name: "InterPodAffinity"}}}},
			without(dynamic, "InterPodAffinity"), defaultNames()},
		{"filter re-enabled goes first", config.Plugins{Filter: config.PluginSet{Enabled: []config.Plugin{{Name: "InterPodAffinity"}}}},
			append([]string{"InterPodAffinity"}, without(dynamic, "InterPodAffinity")...), defaultNames()},
		{"enabled at one point only is built once, at the end", config.Plugins{
			Disabled: []config.Plugin{{Name: "NodePorts"}}, Filter: config.PluginSet{Enabled: []config.Plugin{{Name: "NodePorts"}}}},
			append(without(dynamic, "NodePorts"), "NodePorts"), append(without(defaultNames(), "NodePorts"), "NodePorts")},
		{"every filter off", config.Plugins{Filter: config.PluginSet{Disabled: []config.Plugin{{Name: "*"}}}}, nil, defaultNames()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, plugins.NewRegistry(), config.Profile{SchedulerName: "s", Plugins: tt.plugins})
			if got := pluginNames(f.ActiveDynamicFilters(framework.NewCycleState())); !slices.Equal(got, tt.wantDynamic) {
				t.Errorf("dynamic filters %v\nwant %v", got, tt.wantDynamic)
			}
			if got := pluginNames(f.Plugins()); !slices.Equal(got, tt.wantPlugins) {
				t.Errorf("plugins %v\nwant %v", got, tt.wantPlugins)
			}
		})
	}
	// PostFilter off: no preemption, though DefaultPreemption is built.
	f := build(t, plugins.NewRegistry(), config.Profile{Plugins: config.Plugins{PostFilter: config.PluginSet{Disabled: []config.Plugin{{Name: "*"}}}}})
	if f.HasPostFilter() {
		t.Error("PostFilter disabled, yet HasPostFilter()")
	}
	// Another QueueSort point set: PrioritySort off there leaves no queue sort.
	f = build(t, plugins.NewRegistry(), config.Profile{Plugins: config.Plugins{QueueSort: config.PluginSet{Disabled: []config.Plugin{{Name: "PrioritySort"}}}}})
	if f.QueueSort() != nil {
		t.Errorf("queue sort %s, want none", f.QueueSort().Name())
	}
}

func TestNewErrors(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name    string
		profile config.Profile
		// field, when set, is the *field.Error's Field; msg must appear in the error.
		field string
		typ   field.ErrorType
		msg   []string
	}{
		{name: "unknown plugin",
			profile: config.Profile{Plugins: config.Plugins{Enabled: []config.Plugin{{Name: "Nope"}}}},
			field:   "profiles[0].plugins.enabled[0].name", typ: field.ErrorTypeNotSupported,
			msg: []string{`"Nope"`, "NodeResourcesFit"}},
		{name: "unknown plugin after a known one",
			profile: config.Profile{Plugins: config.Plugins{Enabled: []config.Plugin{{Name: "NodeAffinity", Weight: 4}, {Name: "Nope"}}}},
			field:   "profiles[0].plugins.enabled[1].name", typ: field.ErrorTypeNotSupported, msg: []string{`"Nope"`}},
		{name: "unknown plugin disabled",
			profile: config.Profile{Plugins: config.Plugins{Disabled: []config.Plugin{{Name: "NodeResourceFit"}}}},
			field:   "profiles[0].plugins.disabled[0].name", typ: field.ErrorTypeNotSupported, msg: []string{`"NodeResourceFit"`, "NodeResourcesFit"}},
		{name: "unknown plugin at a point",
			profile: config.Profile{Plugins: config.Plugins{Score: config.PluginSet{Enabled: []config.Plugin{{Name: "Coscheduling"}}}}},
			field:   "profiles[0].plugins.score.enabled[0].name", typ: field.ErrorTypeNotSupported, msg: []string{`"Coscheduling"`}},
		{name: "unknown plugin disabled at a point",
			profile: config.Profile{Plugins: config.Plugins{Filter: config.PluginSet{Disabled: []config.Plugin{{Name: "*"}, {Name: "NodePort"}}}}},
			field:   "profiles[0].plugins.filter.disabled[1].name", typ: field.ErrorTypeNotSupported, msg: []string{`"NodePort"`}},
		{name: "* enabled",
			profile: config.Profile{Plugins: config.Plugins{Enabled: []config.Plugin{{Name: "*"}}}},
			field:   "profiles[0].plugins.enabled[0].name", typ: field.ErrorTypeNotSupported},
		{name: "enabled at a point it does not implement",
			profile: config.Profile{Plugins: config.Plugins{Score: config.PluginSet{Enabled: []config.Plugin{{Name: "NodePorts"}}}}},
			field:   "profiles[0].plugins.score.enabled[0].name", typ: field.ErrorTypeInvalid, msg: []string{"NodePorts", "score"}},
		{name: "args for a disabled plugin",
			profile: config.Profile{
				Plugins:      config.Plugins{Disabled: []config.Plugin{{Name: "NodeResourcesFit"}}},
				PluginConfig: []config.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{}`)}},
			},
			field: "profiles[0].pluginConfig", typ: field.ErrorTypeInvalid, msg: []string{"NodeResourcesFit", "not enabled"}},
		{name: "args for a plugin disabled by *",
			profile: config.Profile{
				Plugins:      config.Plugins{Disabled: []config.Plugin{{Name: "*"}}},
				PluginConfig: []config.PluginConfig{{Name: "InterPodAffinity", Args: raw(`{}`)}},
			},
			field: "profiles[0].pluginConfig", typ: field.ErrorTypeInvalid, msg: []string{"InterPodAffinity"}},
		{name: "args for an unknown plugin",
			profile: config.Profile{PluginConfig: []config.PluginConfig{{Name: "Nope", Args: raw(`{}`)}}},
			field:   "profiles[0].pluginConfig", typ: field.ErrorTypeInvalid, msg: []string{"Nope"}},
		{name: "unknown field in args",
			profile: config.Profile{PluginConfig: []config.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"bogus": 1}`)}}},
			msg:     []string{"profiles[0].pluginConfig", "NodeResourcesFit", "bogus"}},
		{name: "bad scoring strategy",
			profile: config.Profile{PluginConfig: []config.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy": {"type": "Nope"}}`)}}},
			msg:     []string{"profiles[0].pluginConfig", "NodeResourcesFit", "Nope"}},
		{name: "bad preemption args",
			profile: config.Profile{PluginConfig: []config.PluginConfig{{Name: "DefaultPreemption", Args: raw(`{"minCandidateNodesPercentage": 101}`)}}},
			msg:     []string{"profiles[0].pluginConfig", "DefaultPreemption", "minCandidateNodesPercentage"}},
		{name: "args of the wrong type",
			profile: config.Profile{PluginConfig: []config.PluginConfig{{Name: "PodTopologySpread", Args: raw(`[1]`)}}},
			msg:     []string{"profiles[0].pluginConfig", "PodTopologySpread"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := runtime.New(tt.profile, profilePath, plugins.NewRegistry(), options())
			if err == nil {
				t.Fatalf("New succeeded with plugins %v", pluginNames(f.Plugins()))
			}
			if tt.field != "" {
				var fe *field.Error
				if !errors.As(err, &fe) {
					t.Fatalf("error %v (%T) is not a field error", err, err)
				}
				if fe.Field != tt.field || fe.Type != tt.typ {
					t.Errorf("field error %s %s, want %s %s", fe.Field, fe.Type, tt.field, tt.typ)
				}
			}
			for _, m := range tt.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestNewGoodArgs(t *testing.T) {
	prof := config.Profile{PluginConfig: []config.PluginConfig{
		{Name: "NodeResourcesFit", Args: json.RawMessage(`{"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}}`)},
		{Name: "DefaultPreemption", Args: json.RawMessage(`{"minCandidateNodesPercentage": 20}`)},
	}}
	f := build(t, plugins.NewRegistry(), prof)
	if got := pluginNames(f.Plugins()); !slices.Contains(got, "NodeResourcesFit") || !slices.Contains(got, "DefaultPreemption") {
		t.Errorf("plugins %v, want NodeResourcesFit and DefaultPreemption built with their arguments", got)
	}
}

func TestNewMissingDefaultPlugin(t *testing.T) {
	r := plugins.NewRegistry()
	delete(r, "NodePorts")
	_, err := runtime.New(config.Profile{}, profilePath, r, options())
	if err == nil || !strings.Contains(err.Error(), `"NodePorts"`) {
		t.Errorf("error %v, want one naming the unregistered default NodePorts", err)
	}
	// Disabling it makes the profile valid again.
	build(t, r, config.Profile{Plugins: config.Plugins{Disabled: []config.Plugin{{Name: "NodePorts"}}}})
}

func TestNewPassesArgs(t *testing.T) {
	var got json.RawMessage
	r := runtime.Registry{"X": func(args json.RawMessage, h framework.Handle) (framework.Plugin, error) {
		got = args
		if h == nil || h.Metrics() == nil {
			t.Error("factory got no handle or no metrics")
		}
		return &plain{name: "X"}, nil
	}}
	build(t, r, config.Profile{
		Plugins:      config.Plugins{Disabled: []config.Plugin{{Name: "*"}}, Enabled: []config.Plugin{{Name: "X"}}},
		PluginConfig: []config.PluginConfig{{Name: "X", Args: json.RawMessage(`{"a":1}`)}},
	})
	if string(got) != `{"a":1}` {
		t.Errorf("factory got args %q", got)
	}
}

// Weights: a default plugin keeps its default weight unless enabled with another; other
// plugins weigh 1 unless given one. Two stand-in scorers under default names show it.
func TestNewWeights(t *testing.T) {
	registry := func() runtime.Registry {
		r := runtime.Registry{}
		for _, d := range config.DefaultPlugins {
			r[d.Name] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) { return &plain{name: d.Name}, nil }
		}
		// TaintToleration (default weight 3) scores 1, NodeAffinity (default 2) scores 10.
		r["TaintToleration"] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) {
			return &scorer{name: "TaintToleration", def: 1}, nil
		}
		r["NodeAffinity"] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) {
			return &scorer{name: "NodeAffinity", def: 10}, nil
		}
		r["Extra"] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) {
			return &scorer{name: "Extra", def: 100}, nil
		}
		return r
	}
	tests := []struct {
		name    string
		plugins config.Plugins
		want    int64
	}{
		{"default weights", config.Plugins{}, 3*1 + 2*10},
		{"enabling a default plugin with a weight", config.Plugins{Enabled: []config.Plugin{{Name: "TaintToleration", Weight: 7}}}, 7*1 + 2*10},
		{"enabling without a weight keeps the default", config.Plugins{Enabled: []config.Plugin{{Name: "NodeAffinity"}}}, 3*1 + 2*10},
		{"disabling", config.Plugins{Disabled: []config.Plugin{{Name: "NodeAffinity"}}}, 3 * 1},
		{"disabled then enabled without a weight weighs 1", config.Plugins{
			Disabled: []config.Plugin{{Name: "NodeAffinity"}}, Enabled: []config.Plugin{{Name: "NodeAffinity"}}}, 3*1 + 1*10},
		{"other plugin default weight 1", config.Plugins{Enabled: []config.Plugin{{Name: "Extra"}}}, 3*1 + 2*10 + 100},
		{"other plugin with a weight", config.Plugins{Enabled: []config.Plugin{{Name: "Extra", Weight: 4}}}, 3*1 + 2*10 + 400},
		// kube-scheduler's per-point sets.
		{"disabled at score only", config.Plugins{Score: config.PluginSet{Disabled: []config.Plugin{{Name: "NodeAffinity"}}}}, 3 * 1},
		{"re-enabled at score with a weight", config.Plugins{Score: config.PluginSet{Enabled: []config.Plugin{{Name: "NodeAffinity", Weight: 5}}}}, 3*1 + 5*10},
		{"re-enabled at score without a weight keeps the default", config.Plugins{Score: config.PluginSet{Enabled: []config.Plugin{{Name: "NodeAffinity"}}}}, 3*1 + 2*10},
		{"every scorer disabled at score, one enabled", config.Plugins{Score: config.PluginSet{
			Disabled: []config.Plugin{{Name: "*"}}, Enabled: []config.Plugin{{Name: "Extra", Weight: 2}}}}, 200},
		{"disabled everywhere, enabled at score", config.Plugins{
			Disabled: []config.Plugin{{Name: "NodeAffinity"}}, Score: config.PluginSet{Enabled: []config.Plugin{{Name: "NodeAffinity", Weight: 3}}}}, 3*1 + 3*10},
		{"a point's * disables every multi-point plugin there", config.Plugins{Score: config.PluginSet{Disabled: []config.Plugin{{Name: "*"}}}}, 0},
		{"another point's set changes nothing here", config.Plugins{Filter: config.PluginSet{Disabled: []config.Plugin{{Name: "*"}}}}, 3*1 + 2*10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, registry(), config.Profile{Plugins: tt.plugins})
			got, st := f.RunScorePlugins(context.Background(), framework.NewCycleState(), testPod, nodeInfos(2))
			if !st.IsSuccess() {
				t.Fatal(st)
			}
			for i, s := range got {
				if s != tt.want {
					t.Errorf("node n%d scored %d, want %d", i, s, tt.want)
				}
			}
		})
	}
}

// The example configuration of docs/configuration.md builds.
func TestNewFromParsedConfig(t *testing.T) {
	cfg, err := config.Parse([]byte(`
apiVersion: config.phalanx.dev/v1alpha1
kind: SchedulerConfiguration
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
- schedulerName: second
`))
	if err != nil {
		t.Fatal(err)
	}
	for i, prof := range cfg.Profiles {
		f, err := runtime.New(prof, field.NewPath("profiles").Index(i), plugins.NewRegistry(), options())
		if err != nil {
			t.Fatalf("profile %d: %v", i, err)
		}
		want := defaultNames()
		if i == 0 {
			want = without(want, "NodeResourcesBalancedAllocation")
		}
		if got := pluginNames(f.Plugins()); !slices.Equal(got, want) {
			t.Errorf("profile %d plugins %v, want %v", i, got, want)
		}
	}
}

// A KubeSchedulerConfiguration builds the profile it describes, and what the framework
// finds wrong is named as the file names it.
func TestNewFromKubeSchedulerConfiguration(t *testing.T) {
	cfg, err := config.Parse([]byte(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ml
  plugins:
    multiPoint:
      disabled: [{name: ImageLocality}, {name: NodePorts}]
    filter:
      disabled: [{name: InterPodAffinity}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {apiVersion: kubescheduler.config.k8s.io/v1, kind: NodeResourcesFitArgs, scoringStrategy: {type: MostAllocated}}
- schedulerName: bad
  plugins:
    score:
      enabled: [{name: NodeName}]
`))
	if err != nil {
		t.Fatal(err)
	}
	f, err := runtime.New(cfg.Profiles[0], field.NewPath("profiles").Index(0), plugins.NewRegistry(), options())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pluginNames(f.Plugins()), without(defaultNames(), "ImageLocality", "NodePorts"); !slices.Equal(got, want) {
		t.Errorf("plugins %v, want %v", got, want)
	}
	if got := pluginNames(f.ActiveDynamicFilters(framework.NewCycleState())); slices.Contains(got, "InterPodAffinity") || slices.Contains(got, "NodePorts") {
		t.Errorf("dynamic filters %v", got)
	}
	_, err = runtime.New(cfg.Profiles[1], field.NewPath("profiles").Index(1), plugins.NewRegistry(), options())
	if err == nil || !strings.Contains(err.Error(), "profiles[1].plugins.score.enabled[0].name") {
		t.Errorf("error %v, want one naming profiles[1].plugins.score.enabled[0].name", err)
	}
}

func TestRegistryNamesAndMerge(t *testing.T) {
	r := registryOf(&plain{name: "b"}, &plain{name: "a"})
	if got := r.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Names() = %v", got)
	}
	if err := r.Merge(registryOf(&plain{name: "c"})); err != nil || len(r) != 3 {
		t.Errorf("Merge: %v, %d plugins", err, len(r))
	}
	if err := r.Merge(registryOf(&plain{name: "a"})); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("Merge of a duplicate: %v", err)
	}
}
