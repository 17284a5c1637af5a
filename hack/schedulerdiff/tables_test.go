package schedulerdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/dynamicresources"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/imagelocality"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/interpodaffinity"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/nodeaffinity"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/nodename"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/nodeports"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/noderesources"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/nodeunschedulable"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/nodevolumelimits"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/podtopologyspread"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/tainttoleration"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/volumebinding"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/volumerestrictions"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/volumezone"
)

// normalized is a case's cluster as both schedulers' caches can hold it: every pod has a
// name and a UID (upstream's tables often leave them out, and phalanx's cache keys pods by
// them; namespaces are left as upstream wrote them, "" included), and pods bound to no node
// of the case are left out. Upstream's plugin runs on the same objects, so a change that
// mattered would fail the transcription check.
func normalized(tc *tables.Case) *Case {
	c := &Case{Namespaces: tc.Namespaces, Storage: tc.Storage}
	if tc.DRA != nil {
		c.Classes, c.Slices, c.Claims = tc.DRA.Classes, tc.DRA.Slices, tc.DRA.Claims
	}
	for _, n := range tc.Nodes {
		c.Nodes = append(c.Nodes, n.DeepCopy())
	}
	fix := func(p *v1.Pod, i int) *v1.Pod {
		p = p.DeepCopy()
		if p.Name == "" {
			p.Name = fmt.Sprintf("pod-%d", i)
		}
		if p.UID == "" {
			p.UID = types.UID(fmt.Sprintf("%s-%s-%d", p.Namespace, p.Name, i))
		}
		return p
	}
	nodes := map[string]bool{}
	for _, n := range c.Nodes {
		nodes[n.Name] = true
	}
	for i, p := range tc.Pods {
		// A pod on no node of the case is on no node a plugin reads (upstream's snapshot
		// keeps it apart from the nodes; phalanx's cache holds bound pods only).
		if nodes[p.Spec.NodeName] {
			c.Pods = append(c.Pods, fix(p, i))
		}
	}
	pod := tc.Pod
	if pod.Name == "" {
		pod = pod.DeepCopy()
		pod.Name = "incoming"
	}
	c.Pod = fix(pod, len(tc.Pods))
	return c
}

// phalanxArgs is a plugin's internal arguments in their v1 form, as JSON.
func phalanxArgs(args runtime.Object) (json.RawMessage, error) {
	if args == nil {
		return nil, nil
	}
	v1args, err := scheme.Scheme.ConvertToVersion(args, configv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(v1args)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "kind")
	delete(m, "apiVersion")
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	return json.Marshal(m)
}

// verdictOf is a stated status as the harness compares it.
func verdictOf(s *fwk.Status) Verdict { return upstreamVerdict(s) }

// checkStated compares what kube-scheduler's plugin said with what its test states.
func checkStated(tc *tables.Case, got *PluginResult) string {
	var out []string
	if tc.MessagesOnly {
		return checkMessages(tc, got)
	}
	if tc.WantPreFilter != nil {
		want, _ := preFilterVerdict(verdictOf(tc.WantPreFilter))
		if got.PreFilter == nil || got.PreFilter.Code != want.Code {
			out = append(out, fmt.Sprintf("PreFilter: got %v, upstream's test states %v", got.PreFilter, want))
		}
	}
	if tc.CheckPreFilterNodes && !slices.Equal(got.PreFilterNodes, tc.WantPreFilterNodes) {
		out = append(out, fmt.Sprintf("PreFilter nodes: got %v, upstream's test states %v", got.PreFilterNodes, tc.WantPreFilterNodes))
	}
	if tc.CheckFilter && got.Filter != nil {
		for _, n := range slices.Sorted(maps.Keys(got.Filter)) {
			want := verdictOf(tc.WantFilter[n])
			if g := got.Filter[n]; g.Code != want.Code || (!tc.FilterCodesOnly && !slices.Equal(g.Reasons, want.Reasons)) {
				out = append(out, fmt.Sprintf("Filter %s: got %v, upstream's test states %v", n, g, want))
			}
		}
	}
	if tc.WantScoreError != (got.ScoreError != "") {
		out = append(out, fmt.Sprintf("Score failed: got %q, upstream's test states a failure: %v", got.ScoreError, tc.WantScoreError))
	}
	if tc.WantScores != nil && !tc.WantScoreError {
		for _, n := range slices.Sorted(maps.Keys(tc.WantScores)) {
			if got.Score[n] != tc.WantScores[n] {
				out = append(out, fmt.Sprintf("Score %s: got %d, upstream's test states %d", n, got.Score[n], tc.WantScores[n]))
			}
		}
	}
	return strings.Join(out, "\n")
}

// checkMessages is checkStated for a table that states failed statuses by their message
// (tables.Case.MessagesOnly): a stated success must be one, a stated failure a failure
// whose message holds the stated one.
func checkMessages(tc *tables.Case, got *PluginResult) string {
	var out []string
	check := func(what string, w Verdict, g *Verdict) {
		msg := func(v Verdict) string { return strings.Join(v.Reasons, ", ") }
		switch {
		case g == nil:
			out = append(out, fmt.Sprintf("%s: did not run, upstream's test states %v", what, w))
		case (w.Code == "Success") != (g.Code == "Success"), !strings.Contains(msg(*g), msg(w)):
			out = append(out, fmt.Sprintf("%s: got %v, upstream's test states %v", what, g, w))
		}
	}
	if tc.WantPreFilter != nil {
		// A Skip is a success the harness does not filter after, as PluginResult reads it.
		want, _ := preFilterVerdict(verdictOf(tc.WantPreFilter))
		check("PreFilter", *want, got.PreFilter)
	}
	if tc.CheckFilter && got.Filter != nil {
		for _, n := range slices.Sorted(maps.Keys(got.Filter)) {
			g := got.Filter[n]
			check("Filter "+n, verdictOf(tc.WantFilter[n]), &g)
		}
	}
	return strings.Join(out, "\n")
}

// upstreamTables are the transcribed tables, by plugin, in the order they are reported.
var upstreamTables = []struct {
	plugin string
	cases  func() []tables.Case
}{
	{"NodeResourcesFit", noderesources.Cases},
	{"NodeAffinity", nodeaffinity.Cases},
	{"TaintToleration", tainttoleration.Cases},
	{"InterPodAffinity", interpodaffinity.Cases},
	{"PodTopologySpread", podtopologyspread.Cases},
	{"NodePorts", nodeports.Cases},
	{"NodeName", nodename.Cases},
	{"NodeUnschedulable", nodeunschedulable.Cases},
	{"VolumeRestrictions", volumerestrictions.Cases},
	{"NodeResourcesBalancedAllocation", noderesources.BalancedCases},
	{"ImageLocality", imagelocality.Cases},
	{"VolumeZone", volumezone.Cases},
	{"NodeVolumeLimits", nodevolumelimits.Cases},
	{"VolumeBinding", volumebinding.Cases},
	{"DynamicResources", dynamicresources.Cases},
}

// TestUpstreamTables runs the cases of kube-scheduler's own table-driven plugin tests
// through both schedulers' plugins: kube-scheduler's must give the outcome its test states,
// phalanx's the same PreFilter code and nodes, Filter code and reasons, and normalized
// scores on every node. A case listed in TableDifferences is run and counted, and must
// still disagree (a listed case that agrees fails: the list is kept exact).
func TestUpstreamTables(t *testing.T) {
	ctx := t.Context()
	ph := NewPhalanx()
	up, err := NewUpstream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	byNamespaces := map[string]*Upstream{}
	for _, tbl := range upstreamTables {
		var cases, agreed, listed, notRun int
		for _, tc := range tbl.cases() {
			cases++
			// Upstream's tables sometimes repeat a name: the second is "name (2)".
			base := tc.Name
			for i := 2; seen[tc.ID()]; i++ {
				tc.Name = fmt.Sprintf("%s (%d)", base, i)
			}
			seen[tc.ID()] = true
			if tc.NotRun != "" {
				notRun++
				t.Logf("%s: not run: %s", tc.ID(), tc.NotRun)
				continue
			}
			u, stop := up, func() {}
			if tc.Storage != nil || tc.DRA != nil {
				// A case's own storage objects: informers of its own, stopped after it.
				namespaces := Namespaces
				if tc.Namespaces != nil {
					namespaces = tc.Namespaces
				}
				var cctx context.Context
				cctx, stop = context.WithCancel(ctx)
				// kube-scheduler's DynamicResources indexes the informers' pods by
				// claim when it is built: a case of its own builds it on informers of
				// its own.
				storage := tc.Storage
				if storage == nil {
					storage = StorageObjects()
				}
				if u, err = NewUpstreamWith(cctx, nil, namespaces, storage); err != nil {
					t.Fatal(err)
				}
			} else if tc.Namespaces != nil {
				if u, err = upstreamIn(t, byNamespaces, tc.Namespaces); err != nil {
					t.Fatal(err)
				}
			}
			switch runTableCase(t, u, ph, tc) {
			case "agreed":
				agreed++
			case "listed":
				listed++
			}
			stop()
		}
		t.Logf("%s: upstream cases %d, not run %d, agreed %d, listed differences %d", tbl.plugin, cases, notRun, agreed, listed)
		fmt.Printf("schedulerdiff upstream tables %s: cases %d, not run %d, agreed %d, listed differences %d\n", tbl.plugin, cases, notRun, agreed, listed)
	}
	for id, d := range TableDifferences {
		if !seen[id] {
			t.Errorf("TableDifferences lists %q, which no transcribed case is", id)
		}
		if !slices.ContainsFunc(Differences, func(x Difference) bool { return x.ID == d }) {
			t.Errorf("TableDifferences: %q is explained by %q, which Differences does not list", id, d)
		}
	}
}

// runTableCase runs one case through both plugins and says "agreed", "listed" (a listed
// difference) or "" (the case failed, with the test's error); a panic in either plugin is
// that case's failure.
func runTableCase(t *testing.T, up *Upstream, ph *Phalanx, tc tables.Case) (outcome string) {
	ctx := t.Context()
	id := tc.ID()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", id, r)
			outcome = ""
		}
	}()
	c := normalized(&tc)
	pl, err := up.Build(ctx, tc.Plugin, tc.Args)
	if tc.WantArgsError {
		if err == nil {
			t.Errorf("%s: kube-scheduler accepts the arguments its test states it refuses (a transcription mistake)", id)
			return
		}
		args, err := phalanxArgs(tc.Args)
		if err == nil {
			_, err = ph.PluginWith(ctx, tc.Plugin, args, c, nil)
		}
		reason, isListed := TableDifferences[id]
		switch {
		case err == nil && isListed:
			return "listed"
		case err == nil:
			t.Errorf("%s: kube-scheduler refuses the arguments, phalanx accepts them", id)
			return ""
		case isListed:
			t.Errorf("%s: listed as a difference (%s) but phalanx agrees: remove it from TableDifferences", id, reason)
			return ""
		}
		return "agreed"
	}
	if err != nil {
		t.Errorf("%s: kube-scheduler's plugin: %v", id, err)
		return
	}
	var all []string
	for _, n := range c.Nodes {
		all = append(all, n.Name)
	}
	scoreOn := all
	if tc.ScoreOn != nil {
		scoreOn = tc.ScoreOn
	}
	if tc.WantScores == nil && !tc.WantScoreError {
		// A Filter table: score the nodes a cycle would score, those the plugin's
		// PreFilter and Filter let through.
		scoreOn = nil
		if r := up.Run(ctx, pl, c, nil); r.PreFilter.Code == "Success" {
			for _, n := range all {
				if v, ok := r.Filter[n]; !ok || v.Code == "Success" {
					if r.PreFilterNodes == nil || slices.Contains(r.PreFilterNodes, n) {
						scoreOn = append(scoreOn, n)
					}
				}
			}
		}
	}
	want := up.Run(ctx, pl, c, scoreOn)
	if d := checkStated(&tc, want); d != "" {
		t.Errorf("%s: kube-scheduler does not give what its test states (a transcription mistake):\n%s", id, d)
		return
	}
	args, err := phalanxArgs(tc.Args)
	if err != nil {
		t.Errorf("%s: arguments: %v", id, err)
		return
	}
	got, err := ph.PluginWith(ctx, tc.Plugin, args, c, scoreOn)
	if err != nil {
		t.Errorf("%s: phalanx's plugin: %v", id, err)
		return
	}
	// A listed difference in what a verdict says (Difference.Reads) is read as the
	// generated cases read it.
	read := readVerdicts(tc.Plugin, got.Filter)
	diff := got.Diff(want)
	reason, isListed := TableDifferences[id]
	if read != "" && diff == "" && !isListed {
		return "listed"
	}
	if d := SkippedBy(tc.Plugin, c); d != "" && diff != "" && !isListed {
		// A case a listed difference's predicate concerns, as the generated cases.
		return "listed"
	}
	switch {
	case diff == "" && isListed:
		t.Errorf("%s: listed as a difference (%s) but phalanx agrees: remove it from TableDifferences", id, reason)
	case diff == "":
		return "agreed"
	case isListed:
		return "listed"
	default:
		t.Errorf("%s: phalanx disagrees with kube-scheduler:\n%s\ncase:\n%s", id, diff, describe(c))
	}
	return ""
}

// upstreamIn returns the Upstream whose informers hold these namespaces, made once.
func upstreamIn(t *testing.T, made map[string]*Upstream, namespaces []*v1.Namespace) (*Upstream, error) {
	var key strings.Builder
	for _, ns := range namespaces {
		fmt.Fprintf(&key, "%s%v;", ns.Name, ns.Labels)
	}
	if u, ok := made[key.String()]; ok {
		return u, nil
	}
	u, err := NewUpstreamIn(t.Context(), nil, namespaces)
	if err != nil {
		return nil, err
	}
	made[key.String()] = u
	return u, nil
}

// TestUpstreamTablesCheckTheTranscription: a case whose stated outcome is not what
// kube-scheduler's plugin gives is reported (Filter code, reasons, scores, PreFilter nodes),
// so that TestUpstreamTables' agreement is with upstream's own expectations.
func TestUpstreamTablesCheckTheTranscription(t *testing.T) {
	up, err := NewUpstream(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(tc tables.Case) string {
		t.Helper()
		c := normalized(&tc)
		up := up
		if tc.Storage != nil || tc.DRA != nil {
			storage := tc.Storage
			if storage == nil {
				storage = StorageObjects()
			}
			var err error
			if up, err = NewUpstreamWith(t.Context(), nil, Namespaces, storage); err != nil {
				t.Fatal(err)
			}
		}
		pl, err := up.Build(t.Context(), tc.Plugin, tc.Args)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, n := range c.Nodes {
			all = append(all, n.Name)
		}
		return checkStated(&tc, up.Run(t.Context(), pl, c, all))
	}
	byName := map[string]tables.Case{}
	for _, tbl := range upstreamTables {
		for _, tc := range tbl.cases() {
			byName[tc.ID()] = tc
		}
	}
	get := func(id string) tables.Case {
		tc, ok := byName[id]
		if !ok {
			t.Fatalf("no case %q", id)
		}
		if d := run(tc); d != "" {
			t.Fatalf("%s as transcribed: %s", id, d)
		}
		return tc
	}
	unschedulable := get("nodeunschedulable/node_unschedulable_test.go TestNodeUnschedulable Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)")
	taint := get("tainttoleration/taint_toleration_test.go TestTaintTolerationFilter A pod having no tolerations can't be scheduled onto a node with nonempty taints")
	scores := get("nodeaffinity/node_affinity_test.go TestNodeAffinityPriority all nodes are same priority as NodeAffinity is nil")
	prefilter := get("nodename/node_name_test.go TestNodeName_PreFilter assigned pod with nodeName set, prefilter restricts to assigned node")
	zone := get("volumezone/volume_zone_test.go TestSingleZone beta zone label doesn't match")
	binding := get("volumebinding/volume_binding_test.go TestVolumeBinding local volumes with close capacity are preferred")
	topology := get("dynamicresources/dynamicresources_test.go TestPlugin wrong-topology")
	for name, tc := range map[string]tables.Case{
		"a rejection stated as a pass": func() tables.Case {
			tc := unschedulable
			tc.WantFilter = nil
			return tc
		}(),
		"other reasons": func() tables.Case {
			tc := taint
			tc.WantFilter = tables.FilterOn(tc.Nodes[0].Name, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) had taints"))
			return tc
		}(),
		"other scores": func() tables.Case {
			tc := scores
			tc.WantScores = map[string]int64{tc.Nodes[0].Name: 1}
			return tc
		}(),
		"a rejection for want of a case's own volume stated as a pass": func() tables.Case {
			tc := zone
			tc.WantFilter = nil
			return tc
		}(),
		"other scores of a case's own volumes": func() tables.Case {
			tc := binding
			tc.WantScores = maps.Clone(tc.WantScores)
			for n := range tc.WantScores {
				tc.WantScores[n]++
			}
			return tc
		}(),
		"a rejection of a case's own devices stated as a pass": func() tables.Case {
			tc := topology
			tc.WantFilter = nil
			return tc
		}(),
		"another message of a case's own devices": func() tables.Case {
			tc := topology
			tc.WantFilter = tables.FilterOn(tc.Nodes[0].Name, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "cannot allocate all claims"))
			return tc
		}(),
		"other PreFilter nodes": func() tables.Case {
			tc := prefilter
			tc.WantPreFilterNodes = []string{"bar"}
			return tc
		}(),
	} {
		if d := run(tc); d == "" {
			t.Errorf("%s: the mistake went unnoticed", name)
		}
	}
}
