package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

var (
	unsched  = framework.Unschedulable
	unres    = framework.UnschedulableAndUnresolvable
	newSt    = framework.NewStatus
	testPod  = framework.NewPodInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}})
	errBoom  = errors.New("boom")
	nodeSet  = func(names ...string) map[string]struct{} { m := map[string]struct{}{}; addAll(m, names); return m }
	nodeInfo = func(name string) *framework.NodeInfo {
		return framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
)

func addAll(m map[string]struct{}, names []string) {
	for _, n := range names {
		m[n] = struct{}{}
	}
}

func nodeInfos(n int) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, n)
	for i := range out {
		out[i] = nodeInfo(fmt.Sprintf("n%d", i))
		out[i].Index = i
	}
	return out
}

func TestRunScorePlugins(t *testing.T) {
	nodes := nodeInfos(3) // n0, n1, n2
	// scaleTo100 maps the highest score to 100, as many NormalizeScore implementations do.
	scaleTo100 := func(s []int64) *framework.Status {
		var top int64
		for _, x := range s {
			top = max(top, x)
		}
		for i := range s {
			if top > 0 {
				s[i] = s[i] * framework.MaxNodeScore / top
			}
		}
		return nil
	}
	tests := []struct {
		name    string
		plugins []*scorer
		weights map[string]int32
		skip    []string
		want    []int64
		wantErr string
	}{
		{name: "no score plugins", want: []int64{0, 0, 0}},
		{name: "weight defaults to 1",
			plugins: []*scorer{{name: "A", scores: map[string]int64{"n0": 10, "n1": 20, "n2": 30}}},
			want:    []int64{10, 20, 30}},
		{name: "weights multiply and sum",
			plugins: []*scorer{
				{name: "A", scores: map[string]int64{"n0": 10, "n1": 20, "n2": 30}},
				{name: "B", scores: map[string]int64{"n0": 100, "n1": 0, "n2": 50}},
			},
			weights: map[string]int32{"A": 2, "B": 3},
			want:    []int64{20 + 300, 40, 60 + 150}},
		{name: "normalised before weighting",
			plugins: []*scorer{{name: "A", scores: map[string]int64{"n0": 1, "n1": 2, "n2": 4}, normalize: scaleTo100}},
			weights: map[string]int32{"A": 2},
			want:    []int64{50, 100, 200}},
		{name: "raw scores out of range are fine when normalised into range",
			plugins: []*scorer{{name: "A", scores: map[string]int64{"n0": 1000, "n1": 2000, "n2": 4000}, normalize: scaleTo100}},
			want:    []int64{25, 50, 100}},
		{name: "skipped plugins do not score",
			plugins: []*scorer{{name: "A", def: 10}, {name: "B", def: 7}},
			skip:    []string{"A"},
			want:    []int64{7, 7, 7}},
		{name: "score above the maximum",
			plugins: []*scorer{{name: "A", def: 50}, {name: "B", scores: map[string]int64{"n1": 101}}},
			wantErr: `plugin "B" returned score 101 for node "n1", outside [0, 100]`},
		{name: "negative score",
			plugins: []*scorer{{name: "A", scores: map[string]int64{"n2": -1}}},
			wantErr: `plugin "A" returned score -1 for node "n2"`},
		{name: "normalised out of range",
			plugins: []*scorer{{name: "A", def: 10, normalize: func(s []int64) *framework.Status {
				s[0] = 200
				return nil
			}}},
			wantErr: `plugin "A" returned score 200 for node "n0"`},
		{name: "score error",
			plugins: []*scorer{{name: "A", def: 1}, {name: "B", status: framework.AsStatus(errBoom)}},
			wantErr: "boom"},
		{name: "normalize error",
			plugins: []*scorer{{name: "A", def: 1, normalize: func([]int64) *framework.Status {
				return framework.AsStatus(errBoom)
			}}},
			wantErr: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pls []framework.Plugin
			var enabled []config.Plugin
			for _, p := range tt.plugins {
				pls = append(pls, p)
				enabled = append(enabled, config.Plugin{Name: p.name, Weight: tt.weights[p.name]})
			}
			f := build(t, registryOf(pls...), config.Profile{Plugins: config.Plugins{Disabled: []config.Plugin{{Name: "*"}}, Enabled: enabled}})
			state := framework.NewCycleState()
			for _, s := range tt.skip {
				if state.SkipScorePlugins == nil {
					state.SkipScorePlugins = map[string]bool{}
				}
				state.SkipScorePlugins[s] = true
			}
			got, st := f.RunScorePlugins(context.Background(), state, testPod, nodes)
			if tt.wantErr != "" {
				if st.Code() != framework.Error || !strings.Contains(st.Message(), tt.wantErr) {
					t.Fatalf("status %v, want an Error containing %q", st, tt.wantErr)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("totals %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRunScorePluginsErrorNamesPlugin(t *testing.T) {
	f := only(t, &scorer{name: "A", def: 1}, &scorer{name: "B", status: newSt(framework.Error, "bad")})
	_, st := f.RunScorePlugins(context.Background(), framework.NewCycleState(), testPod, nodeInfos(2))
	if st.Plugin() != "B" {
		t.Errorf("plugin %q, want B", st.Plugin())
	}
	g := only(t, &scorer{name: "N", def: 1, normalize: func([]int64) *framework.Status { return newSt(framework.Error, "x") }})
	_, st = g.RunScorePlugins(context.Background(), framework.NewCycleState(), testPod, nodeInfos(2))
	if st.Plugin() != "N" {
		t.Errorf("normalize failure plugin %q, want N", st.Plugin())
	}
}

// Many nodes go through the parallel path, and score buffers are reused across calls with
// different node counts and different active plugins: every call must still be exact.
func TestRunScorePluginsManyNodesAndReuse(t *testing.T) {
	a := &scorer{name: "A", scores: map[string]int64{}}
	b := &scorer{name: "B", scores: map[string]int64{}}
	all := nodeInfos(500)
	for i, n := range all {
		a.scores[n.Name] = int64(i % 101)
		b.scores[n.Name] = int64((i * 7) % 101)
	}
	f := build(t, registryOf(a, b), config.Profile{Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}},
		Enabled:  []config.Plugin{{Name: "A", Weight: 2}, {Name: "B", Weight: 5}},
	}})
	for _, tc := range []struct {
		n     int
		skipB bool
	}{{500, false}, {40, false}, {300, true}, {1, false}, {500, false}, {33, true}} {
		nodes := all[:tc.n]
		state := framework.NewCycleState()
		if tc.skipB {
			state.SkipScorePlugins = map[string]bool{"B": true}
		}
		got, st := f.RunScorePlugins(context.Background(), state, testPod, nodes)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		if len(got) != len(nodes) {
			t.Fatalf("%d nodes (skip B %v): %d totals", tc.n, tc.skipB, len(got))
		}
		for i, s := range got {
			want := 2 * a.scores[nodes[i].Name]
			if !tc.skipB {
				want += 5 * b.scores[nodes[i].Name]
			}
			if s != want {
				t.Fatalf("%d nodes (skip B %v): node %s scored %d, want %d", tc.n, tc.skipB, nodes[i].Name, s, want)
			}
		}
	}
}

func TestRunPreScorePluginsSkip(t *testing.T) {
	a := &scorer{name: "A", def: 10, preScore: newSt(framework.Skip)}
	b := &scorer{name: "B", def: 3}
	f := only(t, a, b)
	state := framework.NewCycleState()
	if st := f.RunPreScorePlugins(context.Background(), state, testPod, nodeInfos(1)); !st.IsSuccess() {
		t.Fatal(st)
	}
	if !state.SkipScorePlugins["A"] || state.SkipScorePlugins["B"] {
		t.Errorf("skip set %v, want only A", state.SkipScorePlugins)
	}
	got, _ := f.RunScorePlugins(context.Background(), state, testPod, nodeInfos(1))
	if got[0] != 3 {
		t.Errorf("score %d, want 3 (A skipped)", got[0])
	}
	c := &scorer{name: "C", preScore: newSt(framework.Error, "x")}
	if st := only(t, c).RunPreScorePlugins(context.Background(), framework.NewCycleState(), testPod, nil); st.Code() != framework.Error || st.Plugin() != "C" {
		t.Errorf("PreScore error: %v from %q", st, st.Plugin())
	}
}

func TestRunPreFilterPlugins(t *testing.T) {
	pf := func(name string, result *framework.PreFilterResult, st *framework.Status) *preFilter {
		return &preFilter{filter: filter{name: name}, result: result, preStatus: st}
	}
	narrow := func(names ...string) *framework.PreFilterResult {
		return &framework.PreFilterResult{NodeNames: nodeSet(names...)}
	}
	tests := []struct {
		name       string
		plugins    []*preFilter
		wantNodes  []string // nil: all nodes
		wantBy     []string
		wantCode   framework.Code
		wantMsg    string
		wantPlugin string
		wantCalled []string
		wantSkip   []string
	}{
		{name: "nobody narrows",
			plugins:    []*preFilter{pf("A", nil, nil), pf("B", &framework.PreFilterResult{}, nil)},
			wantCalled: []string{"A", "B"}},
		{name: "one narrows",
			plugins:   []*preFilter{pf("A", nil, nil), pf("B", narrow("n1", "n2"), nil)},
			wantNodes: []string{"n1", "n2"}, wantBy: []string{"B"}, wantCalled: []string{"A", "B"}},
		{name: "intersection, plugins sorted",
			plugins:   []*preFilter{pf("Zeta", narrow("n1", "n2", "n3"), nil), pf("Alpha", narrow("n2", "n3", "n4"), nil), pf("Mid", narrow("n3", "n2"), nil)},
			wantNodes: []string{"n2", "n3"}, wantBy: []string{"Alpha", "Mid", "Zeta"}, wantCalled: []string{"Zeta", "Alpha", "Mid"}},
		{name: "one plugin empty",
			plugins:  []*preFilter{pf("A", narrow(), nil), pf("B", nil, nil)},
			wantCode: unres, wantMsg: "node(s) didn't satisfy plugin A", wantPlugin: "A", wantCalled: []string{"A"}},
		{name: "several plugins disjoint",
			plugins:  []*preFilter{pf("A", narrow("n1"), nil), pf("X", nil, nil), pf("B", narrow("n2"), nil), pf("C", narrow("n2"), nil)},
			wantCode: unres, wantMsg: "node(s) didn't satisfy plugin(s) [A B] simultaneously", wantPlugin: "B", wantCalled: []string{"A", "X", "B"}},
		{name: "rejection stops the chain",
			plugins:  []*preFilter{pf("A", narrow("n1"), nil), pf("B", nil, newSt(unsched, "no")), pf("C", nil, nil)},
			wantCode: unsched, wantMsg: "no", wantPlugin: "B", wantCalled: []string{"A", "B"}},
		{name: "error stops the chain",
			plugins:  []*preFilter{pf("A", nil, framework.AsStatus(errBoom)), pf("B", nil, nil)},
			wantCode: framework.Error, wantMsg: "boom", wantPlugin: "A", wantCalled: []string{"A"}},
		{name: "skip is recorded and its result ignored",
			plugins:   []*preFilter{pf("A", narrow(), newSt(framework.Skip)), pf("B", narrow("n1"), nil), pf("C", nil, newSt(framework.Skip))},
			wantNodes: []string{"n1"}, wantBy: []string{"B"}, wantCalled: []string{"A", "B", "C"}, wantSkip: []string{"A", "C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log calls
			pls := make([]framework.Plugin, len(tt.plugins))
			for i, p := range tt.plugins {
				p.log = &log
				pls[i] = p
			}
			f := only(t, pls...)
			state := framework.NewCycleState()
			res, st := f.RunPreFilterPlugins(context.Background(), state, testPod)
			if st.Code() != tt.wantCode || st.Message() != tt.wantMsg || st.Plugin() != tt.wantPlugin {
				t.Errorf("status %v from %q, want %v %q from %q", st, st.Plugin(), tt.wantCode, tt.wantMsg, tt.wantPlugin)
			}
			var called []string
			for _, c := range log {
				called = append(called, strings.TrimSuffix(c, ".PreFilter"))
			}
			if !slices.Equal(called, tt.wantCalled) {
				t.Errorf("called %v, want %v", called, tt.wantCalled)
			}
			if got := slices.Sorted(maps.Keys(state.SkipFilterPlugins)); !slices.Equal(got, tt.wantSkip) {
				t.Errorf("skipped %v, want %v", got, tt.wantSkip)
			}
			if tt.wantCode != framework.Success {
				if res != nil {
					t.Errorf("result %v with a failure", res)
				}
				return
			}
			if tt.wantNodes == nil {
				if res != nil {
					t.Errorf("result %v, want nil (all nodes)", res.NodeNames)
				}
				return
			}
			if res == nil {
				t.Fatal("result nil, want narrowed nodes")
			}
			if got := slices.Sorted(maps.Keys(res.NodeNames)); !slices.Equal(got, tt.wantNodes) {
				t.Errorf("nodes %v, want %v", got, tt.wantNodes)
			}
			if !slices.Equal(res.Plugins, tt.wantBy) {
				t.Errorf("narrowed by %v, want %v", res.Plugins, tt.wantBy)
			}
		})
	}
}

// A plugin whose PreFilter returned Skip is left out of Filter, the static filters, the
// static filter key and the PreFilter extensions for the rest of the cycle.
func TestPreFilterSkipSkipsFilters(t *testing.T) {
	reject := func(msg string) *framework.Status { return newSt(unres, msg) }
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprintf("skip=%v", skip), func(t *testing.T) {
			var pre *framework.Status
			if skip {
				pre = newSt(framework.Skip)
			}
			var log calls
			dyn := &preFilter{filter: filter{name: "Dyn", status: reject("dyn"), log: &log}, preStatus: pre}
			st := &staticPreFilter{preFilter: preFilter{filter: filter{name: "Static", status: reject("static"), log: &log}, preStatus: pre}, key: "K1"}
			pc := &precheck{preFilter: preFilter{filter: filter{name: "Pre", status: reject("pre"), log: &log}, preStatus: pre}, key: "K2", precheckStatus: reject("precheck")}
			f := only(t, st, pc, dyn)
			state := framework.NewCycleState()
			if _, s := f.RunPreFilterPlugins(context.Background(), state, testPod); !s.IsSuccess() {
				t.Fatal(s)
			}
			node := nodeInfo("n")
			ctx := context.Background()
			filterSt := f.RunFilterPlugins(ctx, state, testPod, node)
			staticSt := f.RunStaticFilterPlugins(ctx, state, testPod, node)
			active := pluginNames(f.ActiveDynamicFilters(state))
			dynSt := runtime.RunFilters(ctx, f.ActiveDynamicFilters(state), state, testPod, node)
			key := f.StaticFilterKey(state, testPod)
			f.RunPreFilterExtensionAddPod(ctx, state, testPod, testPod, node)
			f.RunPreFilterExtensionRemovePod(ctx, state, testPod, testPod, node)
			if skip {
				if filterSt != nil || staticSt != nil || dynSt != nil {
					t.Errorf("skipped plugins ran: filter %v static %v dynamic %v", filterSt, staticSt, dynSt)
				}
				if len(active) != 0 {
					t.Errorf("active dynamic filters %v, want none", active)
				}
				if strings.Contains(key, "K1") || strings.Contains(key, "K2") {
					t.Errorf("static filter key %q includes a skipped plugin's key", key)
				}
				if want := []string{"Static.PreFilter", "Pre.PreFilter", "Dyn.PreFilter"}; !slices.Equal(log, want) {
					t.Errorf("calls %v, want only %v", log, want)
				}
				return
			}
			if filterSt.Message() != "static" || filterSt.Plugin() != "Static" {
				t.Errorf("filter: %v from %q, want the first plugin's rejection", filterSt, filterSt.Plugin())
			}
			if staticSt.Message() != "static" || staticSt.Plugin() != "Static" {
				t.Errorf("static filters: %v from %q", staticSt, staticSt.Plugin())
			}
			if !slices.Equal(active, []string{"Pre", "Dyn"}) {
				t.Errorf("active dynamic filters %v, want [Pre Dyn]", active)
			}
			if dynSt.Message() != "pre" || dynSt.Plugin() != "Pre" {
				t.Errorf("dynamic filters: %v from %q", dynSt, dynSt.Plugin())
			}
			if !strings.Contains(key, "K1") || !strings.Contains(key, "K2") {
				t.Errorf("static filter key %q lacks a plugin's key", key)
			}
			if !slices.Contains(log, "Dyn.AddPod") || !slices.Contains(log, "Dyn.RemovePod") {
				t.Errorf("extensions not run: %v", log)
			}
		})
	}
}

func TestFilterClassification(t *testing.T) {
	var log calls
	s1 := &static{filter: filter{name: "S1", log: &log}, key: "a"}
	pc := &precheck{preFilter: preFilter{filter: filter{name: "P", log: &log}}, key: "b"}
	d := &filter{name: "D", log: &log}
	s2 := &static{filter: filter{name: "S2", log: &log}, key: "c"}
	f := only(t, s1, pc, d, s2, &plain{name: "Plain"})
	state := framework.NewCycleState()
	if !f.HasStaticFilters() {
		t.Error("HasStaticFilters() = false")
	}
	// A StaticPrecheckPlugin stays dynamic: its Filter depends on the pods on the node.
	if got := pluginNames(f.ActiveDynamicFilters(state)); !slices.Equal(got, []string{"P", "D"}) {
		t.Errorf("dynamic filters %v, want [P D]", got)
	}
	node := nodeInfo("n")
	if st := f.RunStaticFilterPlugins(context.Background(), state, testPod, node); st != nil {
		t.Fatal(st)
	}
	if want := []string{"S1.Filter", "S2.Filter", "P.StaticPrecheck"}; !slices.Equal(log, want) {
		t.Errorf("static run called %v, want %v", log, want)
	}
	log = nil
	if st := f.RunFilterPlugins(context.Background(), state, testPod, node); st != nil {
		t.Fatal(st)
	}
	if want := []string{"S1.Filter", "P.Filter", "D.Filter", "S2.Filter"}; !slices.Equal(log, want) {
		t.Errorf("full filter run called %v, want %v", log, want)
	}
	if key := f.StaticFilterKey(state, testPod); key != "test\x00a\x00c\x00b" {
		t.Errorf("static filter key %q", key)
	}
	// Static keys from different profiles never collide.
	other := build(t, registryOf(s1, pc, d, s2), config.Profile{SchedulerName: "other", Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}}, Enabled: []config.Plugin{{Name: "S1"}, {Name: "P"}, {Name: "D"}, {Name: "S2"}}}})
	if other.StaticFilterKey(state, testPod) == f.StaticFilterKey(state, testPod) {
		t.Error("two profiles share a static filter key")
	}
	if only(t, d).HasStaticFilters() {
		t.Error("a dynamic filter counts as static")
	}
	if !only(t, pc).HasStaticFilters() {
		t.Error("a precheck plugin does not count as having a static part")
	}
}

func TestRunFilterFailures(t *testing.T) {
	tests := []struct {
		name       string
		status     *framework.Status
		wantCode   framework.Code
		wantMsg    string
		wantPlugin string
	}{
		{"unschedulable", newSt(unsched, "full"), unsched, "full", "F"},
		{"unresolvable", newSt(unres, "no"), unres, "no", "F"},
		{"error wrapped", framework.AsStatus(errBoom), framework.Error, `running "F" filter plugin: boom`, "F"},
		{"unexpected code is an error", newSt(framework.Wait, "hm"), framework.Error, `running "F" filter plugin: unexpected status Wait`, "F"},
		{"skip is an error too", newSt(framework.Skip), framework.Error, `running "F" filter plugin: unexpected status Skip`, "F"},
		{"plugin name kept when set", newSt(unsched, "x").WithPlugin("Inner"), unsched, "x", "Inner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log calls
			f := only(t, &filter{name: "OK", log: &log}, &filter{name: "F", status: tt.status, log: &log}, &filter{name: "After", log: &log})
			st := f.RunFilterPlugins(context.Background(), framework.NewCycleState(), testPod, nodeInfo("n"))
			if st.Code() != tt.wantCode || !strings.HasPrefix(st.Message(), tt.wantMsg) || st.Plugin() != tt.wantPlugin {
				t.Errorf("status %v from %q, want %v %q from %q", st, st.Plugin(), tt.wantCode, tt.wantMsg, tt.wantPlugin)
			}
			if slices.Contains(log, "After.Filter") {
				t.Error("filtering went on after a failure")
			}
		})
	}
}

func TestRunPermitPlugins(t *testing.T) {
	wait := func(d time.Duration) *permit { return &permit{status: newSt(framework.Wait), timeout: d} }
	tests := []struct {
		name       string
		plugins    []*permit
		wantCode   framework.Code
		wantWait   time.Duration
		wantPlugin string
	}{
		{"none", nil, framework.Success, 0, ""},
		{"all allow", []*permit{{}, {}}, framework.Success, 0, ""},
		{"one waits", []*permit{{}, wait(10 * time.Second)}, framework.Wait, 10 * time.Second, ""},
		{"shortest wait", []*permit{wait(10 * time.Second), wait(3 * time.Second), {}, wait(7 * time.Second)}, framework.Wait, 3 * time.Second, ""},
		{"shortest is the first", []*permit{wait(time.Second), wait(time.Minute)}, framework.Wait, time.Second, ""},
		{"rejection wins over waits", []*permit{wait(time.Second), {status: newSt(unsched, "no")}, wait(time.Millisecond)}, unsched, 0, "P1"},
		{"error", []*permit{{status: framework.AsStatus(errBoom)}}, framework.Error, 0, "P0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pls := make([]framework.Plugin, len(tt.plugins))
			for i, p := range tt.plugins {
				p.name = fmt.Sprintf("P%d", i)
				pls[i] = p
			}
			st, d := only(t, pls...).RunPermitPlugins(context.Background(), framework.NewCycleState(), testPod, "n")
			if st.Code() != tt.wantCode || d != tt.wantWait || st.Plugin() != tt.wantPlugin {
				t.Errorf("got %v %v from %q, want %v %v from %q", st, d, st.Plugin(), tt.wantCode, tt.wantWait, tt.wantPlugin)
			}
		})
	}
}

func TestRunPostFilterPlugins(t *testing.T) {
	nominate := &framework.PostFilterResult{NominatedNodeName: "n1"}
	tests := []struct {
		name        string
		plugins     []*postFilter
		wantResult  *framework.PostFilterResult
		wantCode    framework.Code
		wantReasons []string
		wantPlugin  string
		wantCalled  []string
	}{
		{name: "first success ends the chain",
			plugins:    []*postFilter{{name: "A", status: newSt(unsched, "a")}, {name: "B", result: nominate}, {name: "C"}},
			wantResult: nominate, wantCalled: []string{"A", "B"}},
		{name: "reasons joined",
			plugins:  []*postFilter{{name: "A", status: newSt(unsched, "a1", "a2")}, {name: "B", status: newSt(unres, "b")}},
			wantCode: unsched, wantReasons: []string{"a1", "a2", "b"}, wantCalled: []string{"A", "B"}},
		{name: "result of a failed plugin kept",
			plugins:    []*postFilter{{name: "A", result: nominate, status: newSt(unsched, "a")}, {name: "B", status: newSt(unsched, "b")}},
			wantResult: nominate, wantCode: unsched, wantReasons: []string{"a", "b"}, wantCalled: []string{"A", "B"}},
		{name: "error stops the chain",
			plugins:  []*postFilter{{name: "A", status: newSt(unsched, "a")}, {name: "B", status: framework.AsStatus(errBoom)}, {name: "C"}},
			wantCode: framework.Error, wantReasons: []string{"boom"}, wantPlugin: "B", wantCalled: []string{"A", "B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log calls
			pls := make([]framework.Plugin, len(tt.plugins))
			for i, p := range tt.plugins {
				p.log = &log
				pls[i] = p
			}
			f := only(t, pls...)
			if !f.HasPostFilter() {
				t.Error("HasPostFilter() = false")
			}
			res, st := f.RunPostFilterPlugins(context.Background(), framework.NewCycleState(), testPod, framework.NewNodeToStatus())
			if res != tt.wantResult {
				t.Errorf("result %v, want %v", res, tt.wantResult)
			}
			if st.Code() != tt.wantCode || !slices.Equal(st.Reasons(), tt.wantReasons) || st.Plugin() != tt.wantPlugin {
				t.Errorf("status %v %q from %q, want %v %q from %q", st.Code(), st.Reasons(), st.Plugin(), tt.wantCode, tt.wantReasons, tt.wantPlugin)
			}
			var called []string
			for _, c := range log {
				called = append(called, strings.TrimSuffix(c, ".PostFilter"))
			}
			if !slices.Equal(called, tt.wantCalled) {
				t.Errorf("called %v, want %v", called, tt.wantCalled)
			}
		})
	}
}

func TestRunBindPlugins(t *testing.T) {
	skip := newSt(framework.Skip)
	tests := []struct {
		name       string
		plugins    []*binder
		wantCode   framework.Code
		wantMsg    string
		wantPlugin string
		wantCalled []string
	}{
		{name: "first binds", plugins: []*binder{{name: "A"}, {name: "B"}}, wantCalled: []string{"A"}},
		{name: "skip passes on", plugins: []*binder{{name: "A", status: skip}, {name: "B"}, {name: "C"}}, wantCalled: []string{"A", "B"}},
		{name: "failure after skip", plugins: []*binder{{name: "A", status: skip}, {name: "B", status: framework.AsStatus(errBoom)}},
			wantCode: framework.Error, wantMsg: "boom", wantPlugin: "B", wantCalled: []string{"A", "B"}},
		{name: "everyone skips", plugins: []*binder{{name: "A", status: skip}, {name: "B", status: skip}},
			wantCode: framework.Error, wantMsg: "no bind plugin bound pod ns/p", wantCalled: []string{"A", "B"}},
		{name: "no bind plugin", wantCode: framework.Error, wantMsg: "no bind plugin bound pod ns/p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log calls
			pls := make([]framework.Plugin, len(tt.plugins))
			for i, p := range tt.plugins {
				p.log = &log
				pls[i] = p
			}
			st := only(t, pls...).RunBindPlugins(context.Background(), framework.NewCycleState(), testPod, "n")
			if st.Code() != tt.wantCode || st.Message() != tt.wantMsg || st.Plugin() != tt.wantPlugin {
				t.Errorf("status %v from %q, want %v %q from %q", st, st.Plugin(), tt.wantCode, tt.wantMsg, tt.wantPlugin)
			}
			var called []string
			for _, c := range log {
				called = append(called, strings.TrimSuffix(c, ".Bind"))
			}
			if !slices.Equal(called, tt.wantCalled) {
				t.Errorf("called %v, want %v", called, tt.wantCalled)
			}
		})
	}
}

func TestRunReservePlugins(t *testing.T) {
	var log calls
	f := only(t, &reserve{name: "A", log: &log}, &reserve{name: "B", status: newSt(unsched, "no"), log: &log}, &reserve{name: "C", log: &log})
	st := f.RunReservePluginsReserve(context.Background(), framework.NewCycleState(), testPod, "n")
	if st.Code() != unsched || st.Plugin() != "B" {
		t.Errorf("reserve: %v from %q, want Unschedulable from B", st, st.Plugin())
	}
	f.RunReservePluginsUnreserve(context.Background(), framework.NewCycleState(), testPod, "n")
	want := []string{"A.Reserve", "B.Reserve", "C.Unreserve", "B.Unreserve", "A.Unreserve"}
	if !slices.Equal(log, want) {
		t.Errorf("calls %v, want %v", log, want)
	}
}

func TestRunPreEnqueuePlugins(t *testing.T) {
	f := only(t, &preEnqueue{name: "A"}, &preEnqueue{name: "B", status: newSt(framework.Pending, "gated")}, &preEnqueue{name: "C", status: newSt(unsched, "c")})
	st := f.RunPreEnqueuePlugins(context.Background(), testPod)
	if st.Code() != framework.Pending || st.Plugin() != "B" || st.Message() != "gated" {
		t.Errorf("status %v from %q, want Pending gated from B", st, st.Plugin())
	}
	if st := only(t, &preEnqueue{name: "A"}).RunPreEnqueuePlugins(context.Background(), testPod); st != nil {
		t.Errorf("status %v, want nil", st)
	}
}

func TestHasActivePreFilterExtensions(t *testing.T) {
	with := &preFilter{filter: filter{name: "With"}}
	without := &noExtensions{preFilter{filter: filter{name: "Without"}}}
	tests := []struct {
		name    string
		plugins []framework.Plugin
		skip    []string
		want    bool
	}{
		{"none", nil, nil, false},
		{"no extensions", []framework.Plugin{without}, nil, false},
		{"extensions", []framework.Plugin{without, with}, nil, true},
		{"extensions skipped", []framework.Plugin{without, with}, []string{"With"}, false},
		{"other plugin skipped", []framework.Plugin{without, with}, []string{"Without"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			for _, s := range tt.skip {
				if state.SkipFilterPlugins == nil {
					state.SkipFilterPlugins = map[string]bool{}
				}
				state.SkipFilterPlugins[s] = true
			}
			if got := only(t, tt.plugins...).HasActivePreFilterExtensions(state); got != tt.want {
				t.Errorf("HasActivePreFilterExtensions() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRunGroupPreEnqueuePlugins(t *testing.T) {
	g := &framework.GroupInfo{Key: "ns/g"}
	f := only(t, &groupPreEnqueue{name: "A"}, &groupPreEnqueue{name: "B", status: newSt(framework.Pending, "wait")}, &groupPreEnqueue{name: "C", status: newSt(unsched, "c")})
	st := f.RunGroupPreEnqueuePlugins(context.Background(), g, nil, 0)
	if st.Code() != framework.Pending || st.Plugin() != "B" || st.Message() != "wait" {
		t.Errorf("status %v from %q, want Pending wait from B", st, st.Plugin())
	}
	if st := only(t, &groupPreEnqueue{name: "A"}).RunGroupPreEnqueuePlugins(context.Background(), g, nil, 0); st != nil {
		t.Errorf("status %v, want nil", st)
	}
}

func TestRunPodGroupPostFilterPlugins(t *testing.T) {
	nominate := &framework.PodGroupPostFilterResult{Nominations: map[*framework.PodInfo]string{testPod: "n1"}}
	tests := []struct {
		name        string
		plugins     []*groupPostFilter
		wantResult  *framework.PodGroupPostFilterResult
		wantCode    framework.Code
		wantReasons []string
		wantPlugin  string
		wantCalled  []string
	}{
		{name: "first success ends the chain",
			plugins:    []*groupPostFilter{{name: "A", status: newSt(unsched, "a")}, {name: "B", result: nominate}, {name: "C"}},
			wantResult: nominate, wantCalled: []string{"A", "B"}},
		{name: "reasons joined",
			plugins:  []*groupPostFilter{{name: "A", status: newSt(unsched, "a1", "a2")}, {name: "B", status: newSt(unres, "b")}},
			wantCode: unsched, wantReasons: []string{"a1", "a2", "b"}, wantCalled: []string{"A", "B"}},
		{name: "result of a failed plugin kept",
			plugins:    []*groupPostFilter{{name: "A", result: nominate, status: newSt(unsched, "a")}, {name: "B", status: newSt(unsched, "b")}},
			wantResult: nominate, wantCode: unsched, wantReasons: []string{"a", "b"}, wantCalled: []string{"A", "B"}},
		{name: "error stops the chain",
			plugins:  []*groupPostFilter{{name: "A", status: framework.AsStatus(errBoom)}, {name: "B"}},
			wantCode: framework.Error, wantReasons: []string{"boom"}, wantPlugin: "A", wantCalled: []string{"A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log calls
			pls := make([]framework.Plugin, len(tt.plugins))
			for i, p := range tt.plugins {
				p.log = &log
				pls[i] = p
			}
			res, st := only(t, pls...).RunPodGroupPostFilterPlugins(context.Background(), &framework.GroupAttempt{Group: &framework.GroupInfo{Key: "ns/g"}})
			if res != tt.wantResult {
				t.Errorf("result %v, want %v", res, tt.wantResult)
			}
			if st.Code() != tt.wantCode || !slices.Equal(st.Reasons(), tt.wantReasons) || st.Plugin() != tt.wantPlugin {
				t.Errorf("status %v %q from %q, want %v %q from %q", st.Code(), st.Reasons(), st.Plugin(), tt.wantCode, tt.wantReasons, tt.wantPlugin)
			}
			var called []string
			for _, c := range log {
				called = append(called, strings.TrimSuffix(c, ".PodGroupPostFilter"))
			}
			if !slices.Equal(called, tt.wantCalled) {
				t.Errorf("called %v, want %v", called, tt.wantCalled)
			}
		})
	}
}
