package html

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

func f64(v float64) *float64 { return &v }

// smallReport is a two-node run with a pod preempted by a pod, a pod preempted by a group,
// a gang, a succeeded pod and a pod left pending with a message that needs escaping.
func smallReport() *report.Report {
	const gi = int64(1) << 30
	return &report.Report{
		Nodes: []report.Node{
			{Name: "node-a", Allocatable: map[string]int64{"cpu": 4000, "memory": 8 * gi, "pods": 110, "nvidia.com/gpu": 2, "ephemeral-storage": 100 * gi}},
			{Name: "node-b", Allocatable: map[string]int64{"cpu": 4000, "memory": 8 * gi, "pods": 110}},
		},
		Pods: []report.Pod{
			{Namespace: "default", Name: "low", Phase: report.PhasePreempted, Node: "node-a", BoundAt: f64(0), Priority: 0,
				PreemptedBy: &report.ObjectRef{Kind: "Pod", Namespace: "default", Name: "high"}},
			{Namespace: "default", Name: "high", Phase: report.PhaseRunning, Node: "node-a", BoundAt: f64(60), Priority: 1000},
			{Namespace: "ml", Name: "w-0", Phase: report.PhaseRunning, Node: "node-b", BoundAt: f64(40), Priority: 500, PodGroup: "trainer"},
			{Namespace: "ml", Name: "w-1", Phase: report.PhaseRunning, Node: "node-b", BoundAt: f64(40), Priority: 500, PodGroup: "trainer"},
			{Namespace: "ml", Name: "batch", Phase: report.PhasePreempted, Node: "node-b", BoundAt: f64(0), Priority: 10,
				PreemptedBy: &report.ObjectRef{Kind: "PodGroup", Namespace: "ml", Name: "trainer"}},
			{Namespace: "default", Name: "done", Phase: report.PhaseSucceeded, Node: "node-b", BoundAt: f64(0)},
			{Namespace: "default", Name: "stuck", Phase: report.PhasePending, Priority: 5,
				Message: `0/2 nodes are available: <b>"insufficient" cpu & 'gpu'</b>`},
		},
		PodGroups: []report.Group{
			{Namespace: "ml", Name: "trainer", Phase: "Scheduled", Conditions: []report.Condition{
				{Type: "PodGroupScheduled", Status: "True", Reason: "Scheduled", Message: "minCount <2> & met"}}},
		},
		Lifetimes: []report.Lifetime{
			{Pod: "default/low", Node: "node-a", Start: 0, End: 60, Phase: report.PhasePreempted, Requests: map[string]int64{"cpu": 3000, "memory": 2 * gi, "pods": 1, "nvidia.com/gpu": 2}},
			{Pod: "default/high", Node: "node-a", Start: 60, End: 120, Phase: report.PhaseRunning, Requests: map[string]int64{"cpu": 2000, "memory": gi, "pods": 1, "nvidia.com/gpu": 1}},
			{Pod: "ml/w-0", Node: "node-b", Start: 40, End: 120, Phase: report.PhaseRunning, Requests: map[string]int64{"cpu": 1000, "pods": 1}},
			{Pod: "ml/w-1", Node: "node-b", Start: 40, End: 120, Phase: report.PhaseRunning, Requests: map[string]int64{"cpu": 1000, "pods": 1}},
			{Pod: "ml/batch", Node: "node-b", Start: 0, End: 40, Phase: report.PhasePreempted, Requests: map[string]int64{"cpu": 3000, "pods": 1}},
			{Pod: "default/done", Node: "node-b", Start: 0, End: 20, Phase: report.PhaseSucceeded, Requests: map[string]int64{"cpu": 500, "pods": 1}},
		},
		Events: []report.Event{
			{Time: 0, Object: "Pod/default/low", Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned default/low to node-a"},
			{Time: 10, Object: "Pod/ml/w-0", Type: "Warning", Reason: "FailedScheduling", Message: "0/2 nodes are available: 2 Insufficient cpu."},
			{Time: 10, Object: "Pod/ml/batch", Type: "Normal", Reason: "Preempted", Message: "Preempted by podgroup ml/trainer on node node-b"},
			{Time: 30, Object: "Pod/default/high", Type: "Warning", Reason: "FailedScheduling", Message: "0/2 nodes are available: <insufficient> cpu."},
			{Time: 30, Object: "Pod/default/low", Type: "Normal", Reason: "Preempted", Message: "Preempted by pod default/high on node node-a"},
			{Time: 40, Object: "Pod/ml/w-0", Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned ml/w-0 to node-b"},
			{Time: 60, Object: "Pod/default/high", Type: "Normal", Reason: "Scheduled", Message: "Successfully assigned default/high to node-a"},
			{Time: 61, Object: "Pod/default/stuck", Type: "Warning", Reason: "FailedScheduling", Message: `0/2 nodes are available: <b>"insufficient" cpu & 'gpu'</b>`},
		},
		Summary: report.Summary{Pods: 7, Running: 3, Pending: 1, Succeeded: 1, Preempted: 2, VirtualSeconds: 120},
	}
}

func render(t testing.TB, r *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r, Header{}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.String()
}

func TestWriteHTMLContents(t *testing.T) {
	page := render(t, smallReport())
	for _, want := range []string{
		"<!DOCTYPE html>",
		// header
		`<b>7</b><span>pods</span>`, `<b>2m</b><span>virtual time</span>`,
		// sections
		`id="occupancy"`, `id="pods"`, `id="preemptions"`, `id="groups"`, `id="events"`,
		// occupancy: cpu, memory and the gpu; the requested ephemeral storage nobody asks for is left out
		`data-tab="0" class="on">cpu</button>`, `>memory</button>`, `>nvidia.com/gpu</button>`,
		`<svg class="chart" data-chart="0"`, `<svg class="heat" data-heat="0"`,
		"Peak 81.2% at 0s", // node-a 3000 + node-b 3000 + 500 of 8000 cpu
		">node-a<title>node-a</title>", ">node-b<title>node-b</title>",
		"One row per node that offers nvidia.com/gpu (1, input order)",
		// timelines, both groupings
		">By node</button>", ">By pod group</button>", "node-a · 2", "ml/trainer · 2", "not scheduled · 1",
		"default/high — Running", "preempted by Pod default/high at 30s", "preempted by PodGroup ml/trainer at 10s",
		"pending from 30s (first event)", // default/high waited from its first event to its binding at 60s
		`class="g-mark"`, `class="g-running"`, `class="g-preempted"`,
		// the pod filter
		`id="pf-changed"`, `<option>ml/trainer</option>`,
		// preemptions
		`<td>default/low</td>`, `<td>Pod <a href="#pg-0">`, // not a group member: no anchor
		`<td>PodGroup <a href="#pg-0">ml/trainer</a></td>`, `<td class="num">500</td><td>Scheduled</td>`,
		"<td>Running on node-a</td>",
		"Preempted by pod default/high on node node-a",
		// groups
		`<tr id="pg-0"><td>ml</td><td>trainer</td>`, "<b>PodGroupScheduled</b>=True (Scheduled)", "2 · 2 Running",
		// events with the filter
		`<option value="FailedScheduling">FailedScheduling</option>`, `<tr data-reason="Preempted">`,
		// escaping
		"minCount &lt;2&gt; &amp; met", "&lt;insufficient&gt; cpu.",
		"&lt;b&gt;&#34;insufficient&#34; cpu &amp; &#39;gpu&#39;&lt;/b&gt;",
	} {
		if want == `<td>Pod <a href="#pg-0">` {
			if strings.Contains(page, want) {
				t.Errorf("page links pod preemptor default/high to a group it is not in")
			}
			continue
		}
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, absent := range []string{`<b>"insufficient"`, "<insufficient>", "minCount <2>", ">ephemeral-storage</button>", ">pods</button>"} {
		if strings.Contains(page, absent) {
			t.Errorf("page contains %q", absent)
		}
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	page := render(t, smallReport())
	for _, ref := range []string{"http:", "https:", "//cdn", "src=", "<link", "@import", "url(", "@font-face"} {
		if strings.Contains(page, ref) {
			t.Errorf("page refers to something outside itself: %q", ref)
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link %q leaves the page", m[1])
		}
	}
	if n := strings.Count(page, "<script>"); n != 1 || strings.Count(page, "</script>") != 1 {
		t.Errorf("want one inline script, got %d", n)
	}
}

func TestWriteHTMLDeterministic(t *testing.T) {
	// Maps are built afresh and ranged over in random order: the output must not care.
	first := render(t, smallReport())
	for i := 0; i < 5; i++ {
		if again := render(t, smallReport()); again != first {
			t.Fatalf("render %d differs from the first", i+2)
		}
	}
	// A fresh copy of the same large run each time, so map order differs between renders.
	a, b := render(t, syntheticReport(300, 1200)), render(t, syntheticReport(300, 1200))
	if a != b {
		t.Fatal("large report renders differ")
	}
}

func TestWriteHTMLEmpty(t *testing.T) {
	page := render(t, &report.Report{})
	for _, want := range []string{"No node reports allocatable resources.", "No pods.", "No pod was preempted.", "No pod groups.", "No events."} {
		if !strings.Contains(page, want) {
			t.Errorf("empty report lacks %q", want)
		}
	}
}

func TestWriteHTMLNoVirtualTime(t *testing.T) {
	r := &report.Report{
		Nodes:     []report.Node{{Name: "n", Allocatable: map[string]int64{"cpu": 1000}}},
		Pods:      []report.Pod{{Namespace: "d", Name: "p", Phase: report.PhaseRunning, Node: "n", BoundAt: f64(0)}},
		Lifetimes: []report.Lifetime{{Pod: "d/p", Node: "n", Phase: report.PhaseRunning, Requests: map[string]int64{"cpu": 250}}},
		Summary:   report.Summary{Pods: 1, Running: 1},
	}
	page := render(t, r)
	for _, want := range []string{"No virtual time elapsed: the charts show the final state.", "Peak 25.0% at 0s"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="moment"`) {
		t.Errorf("a run without virtual time has a moment slider")
	}
}

// The moment slider runs over the plot's columns, starting at the end; the page's script
// draws the cursors and says what is there (hack/browsertest drives it in a browser).
func TestWriteHTMLMomentSlider(t *testing.T) {
	page := render(t, smallReport())
	want := `<input id="moment" type="range" min="0" max="` + strconv.Itoa(plotWidth) + `" step="1" value="` + strconv.Itoa(plotWidth) + `"`
	if !strings.Contains(page, want) || !strings.Contains(page, `<output id="moment-at" for="moment">`) {
		t.Errorf("page lacks the moment slider %s", want)
	}
}

func TestClusterChart(t *testing.T) {
	r := &report.Report{
		Nodes: []report.Node{{Name: "a", Allocatable: map[string]int64{"cpu": 1000}}, {Name: "b", Allocatable: map[string]int64{"cpu": 1000}}},
		Lifetimes: []report.Lifetime{
			{Pod: "d/1", Node: "a", Start: 0, End: 50, Requests: map[string]int64{"cpu": 1000}},
			{Pod: "d/2", Node: "b", Start: 25, End: 100, Requests: map[string]int64{"cpu": 500}},
			{Pod: "d/3", Node: "gone", Start: 0, End: 100, Requests: map[string]int64{"cpu": 500}}, // unknown node: ignored
		},
		Summary: report.Summary{VirtualSeconds: 100},
	}
	tl := newTimeline(r)
	cv, data := tl.clusterChart("cpu")
	// 50% until 25s, 75% until 50s, 25% until 100s.
	if cv.Peak != 0.75 || cv.PeakAt != "25s" {
		t.Errorf("peak = %v at %s, want 0.75 at 25s", cv.Peak, cv.PeakAt)
	}
	if want := (0.5*25 + 0.75*25 + 0.25*50) / 100; math.Abs(cv.Avg-want) > 1e-9 {
		t.Errorf("average = %v, want %v", cv.Avg, want)
	}
	if cv.Total != "2 cores" {
		t.Errorf("total = %q", cv.Total)
	}
	for _, c := range []struct{ col, lo, hi int }{{0, 0, 500}, {100, 500, 500}, {225, 500, 750}, {300, 750, 750}, {450, 250, 750}, {899, 250, 250}} {
		if data.Lo[c.col] != c.lo || data.Hi[c.col] != c.hi {
			t.Errorf("column %d: %d..%d, want %d..%d", c.col, data.Lo[c.col], data.Hi[c.col], c.lo, c.hi)
		}
	}
}

func TestHeatmap(t *testing.T) {
	t.Run("a row per node", func(t *testing.T) {
		tl := newTimeline(smallReport())
		hv, hd := heatmapOf(tl, "cpu")
		if len(hv.Rows) != 2 || hd.Rows[0] != "node-a" || hd.Rows[1] != "node-b" {
			t.Fatalf("rows = %v", hd.Rows)
		}
		// node-a: 3000/4000 until 60s, then 2000/4000; buckets are 1.2s.
		if hd.V[0][0] != 75 || hd.V[0][49] != 75 || hd.V[0][50] != 50 || hd.V[0][99] != 50 {
			t.Errorf("node-a = %v", hd.V[0])
		}
		// node-b: 3500/4000 until 20s, 3000 until 40s, then 2000.
		if hd.V[1][0] != 88 || hd.V[1][20] != 75 || hd.V[1][40] != 50 {
			t.Errorf("node-b = %v", hd.V[1])
		}
	})
	t.Run("bands of nodes", func(t *testing.T) {
		r := syntheticReport(250, 1000)
		hv, hd := heatmapOf(newTimeline(r), "cpu")
		if len(hv.Rows) != 84 || hd.Rows[0] != "node-00000 … node-00002 (3 nodes)" || hd.Rows[83] != "node-00249" {
			t.Errorf("%d rows: first %q, last %q", len(hv.Rows), hd.Rows[0], hd.Rows[len(hd.Rows)-1])
		}
		if !strings.Contains(hv.Note, "250 nodes offer cpu, shown as 84 rows of up to 3 consecutive nodes") {
			t.Errorf("note = %q", hv.Note)
		}
	})
	t.Run("a band's busiest node", func(t *testing.T) {
		r := &report.Report{Summary: report.Summary{VirtualSeconds: 10}}
		for i := 0; i < 150; i++ {
			r.Nodes = append(r.Nodes, report.Node{Name: fmt.Sprint("n", i), Allocatable: map[string]int64{"cpu": 1000}})
		}
		r.Lifetimes = []report.Lifetime{{Pod: "d/p", Node: "n2", End: 10, Requests: map[string]int64{"cpu": 1000}}}
		_, hd := heatmapOf(newTimeline(r), "cpu")
		if len(hd.Rows) != 75 || hd.Rows[1] != "n2 … n3 (2 nodes)" {
			t.Fatalf("rows %d, second %q", len(hd.Rows), hd.Rows[1])
		}
		if hd.V[1][0] != 50 || hd.Max[1][0] != 100 || hd.V[0][0] != 0 || hd.Max[0][0] != 0 {
			t.Errorf("band n2-n3 = %d%% (busiest %d%%), band n0-n1 = %d%% (busiest %d%%)", hd.V[1][0], hd.Max[1][0], hd.V[0][0], hd.Max[0][0])
		}
		if _, small := heatmapOf(newTimeline(smallReport()), "cpu"); small.Max != nil {
			t.Error("rows of one node carry a busiest node")
		}
	})
	t.Run("only nodes that offer the resource", func(t *testing.T) {
		_, hd := heatmapOf(newTimeline(smallReport()), "nvidia.com/gpu")
		if len(hd.Rows) != 1 || hd.V[0][0] != 100 || hd.V[0][99] != 50 {
			t.Errorf("gpu rows %v values %v", hd.Rows, hd.V)
		}
	})
}

// heatmapOf is the heatmap of a resource with the nodes' own topology, as the page draws it.
func heatmapOf(tl *timeline, res string) (heatView, heatData) {
	return tl.heatmap(res, newTopology(tl.nodes), nil)
}

func TestHeatClass(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int
	}{{0, 0}, {0.0001, 0}, {0.01, 1}, {0.1, 1}, {0.1001, 2}, {0.55, 6}, {0.999, 10}, {1, 10}, {1.2, 11}} {
		if got := heatClass(c.v); got != c.want {
			t.Errorf("heatClass(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestFmtSeconds(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{{0, "0s"}, {0.25, "0.25s"}, {59.9994, "59.999s"}, {60, "1m"}, {90.5, "1m30.5s"}, {3600, "1h"}, {86400 + 61, "24h1m1s"}} {
		if got := fmtSeconds(c.s); got != c.want {
			t.Errorf("fmtSeconds(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ s, want float64 }{{0.03, 0.05}, {0.3, 0.5}, {0.7, 1}, {1, 1}, {1.5, 2}, {7, 10}, {12, 15}, {37.5, 60}, {61, 120}, {700, 900}, {86400, 86400}, {3 * 86400, 5 * 86400}} {
		if got := niceStep(c.s); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("niceStep(%v) = %v, want %v", c.s, got, c.want)
		}
	}
}

// syntheticReport is a big run: nodes with cpu, memory and on every tenth node gpus; pods
// arriving over an hour, a tenth of them preempted, in gangs of eight.
func syntheticReport(nodes, pods int) *report.Report {
	const gi = int64(1) << 30
	r := &report.Report{Summary: report.Summary{Pods: pods, VirtualSeconds: 3600}}
	for i := 0; i < nodes; i++ {
		alloc := map[string]int64{"cpu": 32000, "memory": 128 * gi, "pods": 110}
		if i%10 == 0 {
			alloc["nvidia.com/gpu"] = 8
		}
		r.Nodes = append(r.Nodes, report.Node{Name: fmt.Sprintf("node-%05d", i), Allocatable: alloc})
	}
	groups := pods / 8
	for g := 0; g < groups; g++ {
		r.PodGroups = append(r.PodGroups, report.Group{Namespace: "batch", Name: fmt.Sprintf("job-%05d", g), Phase: "Scheduled",
			Conditions: []report.Condition{{Type: "PodGroupScheduled", Status: "True", Reason: "Scheduled"}}})
	}
	for i := 0; i < pods; i++ {
		name := fmt.Sprintf("pod-%06d", i)
		node := fmt.Sprintf("node-%05d", (i*7919)%nodes)
		start := float64((i * 37) % 3000)
		p := report.Pod{Namespace: "batch", Name: name, Phase: report.PhaseRunning, Node: node, BoundAt: f64(start),
			Priority: int32(i % 3 * 100), PodGroup: fmt.Sprintf("job-%05d", i/8)}
		lt := report.Lifetime{Pod: "batch/" + name, Node: node, Start: start, End: 3600, Phase: report.PhaseRunning,
			Requests: map[string]int64{"cpu": int64(1000 + i%8*500), "memory": int64(1+i%4) * gi, "pods": 1}}
		if (i*7919)%nodes%10 == 0 {
			lt.Requests["nvidia.com/gpu"] = 1
		}
		r.Events = append(r.Events, report.Event{Time: start, Object: "Pod/batch/" + name, Type: "Normal", Reason: "Scheduled",
			Message: "Successfully assigned batch/" + name + " to " + node})
		switch {
		case i%10 == 3:
			end := start + 300
			p.Phase, lt.Phase, lt.End = report.PhasePreempted, report.PhasePreempted, end
			p.PreemptedBy = &report.ObjectRef{Kind: "PodGroup", Namespace: "batch", Name: fmt.Sprintf("job-%05d", (i/8+1)%groups)}
			r.Events = append(r.Events, report.Event{Time: end - 30, Object: "Pod/batch/" + name, Type: "Normal", Reason: "Preempted",
				Message: "Preempted by podgroup batch/" + p.PreemptedBy.Name + " on node " + node})
			r.Summary.Preempted++
		case i%10 == 5:
			p.Phase, lt.Phase, lt.End = report.PhaseSucceeded, report.PhaseSucceeded, start+600
			r.Summary.Succeeded++
		default:
			r.Summary.Running++
		}
		r.Pods = append(r.Pods, p)
		r.Lifetimes = append(r.Lifetimes, lt)
	}
	return r
}

func TestWriteHTMLLargeRunStaysSmall(t *testing.T) {
	r := syntheticReport(5000, 20000)
	page := render(t, r)
	t.Logf("5,000 nodes, 20,000 pods, %d events: %d bytes", len(r.Events), len(page))
	if len(page) > 5<<20 {
		t.Errorf("page is %d bytes, want at most 5 MiB", len(page))
	}
	for _, want := range []string{
		"The first 500 of 20000 pods in input order",
		"5000 nodes offer cpu, shown as 100 rows of up to 50 consecutive nodes",
		"500 nodes offer nvidia.com/gpu, shown as 100 rows of up to 5 consecutive nodes",
		"The first 1000 of 2000 victims.",
		"The first 500 of 2500 pod groups.",
		"the first 2000 are listed.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func BenchmarkWriteHTMLLarge(b *testing.B) {
	r := syntheticReport(5000, 20000)
	var buf bytes.Buffer
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := Write(&buf, r, Header{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/page")
}

// lifecycleReport is one node created at 50s and deleted at 150s next to one that stays,
// and pods whose creation and deletion the report knows.
func lifecycleReport() *report.Report {
	return &report.Report{
		Nodes: []report.Node{
			{Name: "stays", Allocatable: map[string]int64{"cpu": 1000}},
			{Name: "comes", Allocatable: map[string]int64{"cpu": 1000}, CreatedAt: 50, DeletedAt: f64(150)},
		},
		Pods: []report.Pod{
			{Namespace: "d", Name: "killed", Phase: report.PhaseDeleted, Node: "stays", BoundAt: f64(20), CreatedAt: f64(10), DeletedAt: f64(100),
				Requests: map[string]int64{"cpu": 500}},
			{Namespace: "d", Name: "waits", Phase: report.PhasePending, CreatedAt: f64(40), Requests: map[string]int64{"cpu": 4000}},
		},
		PodGroups: []report.Group{{Namespace: "d", Name: "g", Phase: "Pending", MinCount: 4, Priority: func() *int32 { v := int32(42); return &v }()}},
		Lifetimes: []report.Lifetime{{Pod: "d/killed", Node: "stays", Start: 20, End: 130, Phase: report.PhaseDeleted, Requests: map[string]int64{"cpu": 500}}},
		Events:    []report.Event{{Time: 0, Object: "Pod/d/waits", Reason: "FailedScheduling"}}, // earlier than its creation: ignored
		Summary:   report.Summary{Pods: 2, Pending: 1, Deleted: 1, VirtualSeconds: 200},
	}
}

func TestGanttLifecycle(t *testing.T) {
	r := lifecycleReport()
	tl := newTimeline(r)
	idx := newPodIndex(r)
	x := func(s float64) float64 { return labelWidth + s/200*plotWidth }
	bars := func(row ganttRow) map[string]ganttBar {
		out := map[string]ganttBar{}
		for _, b := range row.Bars {
			out[b.Class] = b
		}
		return out
	}
	killed := bars(tl.ganttRow(r, idx, 0))
	// Coloured by state at each moment: pending, running until its deletion at 100s,
	// then terminating (deleted) until gone at 130s.
	for class, want := range map[string][2]float64{"g-pend": {10, 20}, "g-running": {20, 100}, "g-deleted": {100, 130}} {
		b, ok := killed[class]
		if !ok || math.Abs(b.X-x(want[0])) > 1e-9 || math.Abs(b.X+b.W-x(want[1])) > 1e-9 {
			t.Errorf("killed: %s bar %+v (present %v), want %v..%v s", class, b, ok, want[0], want[1])
		}
	}
	waits := tl.ganttRow(r, idx, 1)
	if b := bars(waits)["g-pend"]; len(waits.Bars) != 1 || b.X != x(40) || b.X+b.W != x(200) {
		t.Errorf("waits: bars %+v, want pending from 40s to the end", waits.Bars)
	}
	if !strings.Contains(waits.Title, "pending since 40s\n") || strings.Contains(waits.Title, "first event") ||
		!strings.Contains(waits.Title, "requests cpu 4 cores") {
		t.Errorf("waits: title %q", waits.Title)
	}
	page := render(t, r)
	for _, want := range []string{
		"terminating from 1m40s until gone at 2m10s",
		`<td class="num">42</td><td class="num">4</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestOccupancyWhileNodesExist(t *testing.T) {
	r := lifecycleReport()
	tl := newTimeline(r)
	cv, data := tl.clusterChart("cpu")
	// 500m of 1 core from 20s, of 2 cores from 50s; the pod leaves at 130s, "comes" at 150s.
	if cv.Total != "2 cores" || !cv.Varies {
		t.Errorf("total %q varies %v, want 2 cores, varying", cv.Total, cv.Varies)
	}
	if cv.Peak != 0.5 || cv.PeakAt != "20s" {
		t.Errorf("peak %v at %s", cv.Peak, cv.PeakAt)
	}
	for _, c := range []struct{ col, lo, hi int }{{100, 500, 500}, {300, 250, 250}, {700, 0, 0}} {
		if data.Lo[c.col] != c.lo || data.Hi[c.col] != c.hi {
			t.Errorf("column %d: %d..%d, want %d..%d", c.col, data.Lo[c.col], data.Hi[c.col], c.lo, c.hi)
		}
	}
	hv, hd := heatmapOf(tl, "cpu")
	// "comes" exists from bucket 25 (50s) to bucket 75 (150s); buckets are 2s.
	if got := hd.V[1]; got[0] != -1 || got[24] != -1 || got[25] != 0 || got[74] != 0 || got[75] != -1 || got[99] != -1 {
		t.Errorf("comes = %v", got)
	}
	if hd.V[0][10] != 50 || hd.V[0][70] != 0 || hd.Y[0] != chartTop || hd.Y[1] != chartTop+hv.RowH {
		t.Errorf("stays = %v, tops %v", hd.V[0], hd.Y)
	}
	if !strings.Contains(hv.Note, "blank cells are times when no node of the row existed") || hv.Legend[len(hv.Legend)-1].Class != "hnone" {
		t.Errorf("note %q, legend %v", hv.Note, hv.Legend)
	}
	for _, c := range hv.Cells {
		if c.Class == "h0" && strings.Contains(c.D, fmt.Sprintf("M%d %d", labelWidth, chartTop+hv.RowH)) {
			t.Errorf("comes is drawn idle from 0s, before it existed: %s", c.D)
		}
	}
}

func TestGroupPriorityFromGroup(t *testing.T) {
	r := smallReport()
	prio := int32(900) // differs from the members' 500: the group's own wins
	r.PodGroups[0].Priority, r.PodGroups[0].MinCount = &prio, 2
	page := render(t, r)
	for _, want := range []string{`<td class="num">900</td><td class="num">2</td>`, `<td>PodGroup <a href="#pg-0">ml/trainer</a></td><td class="num">900</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
