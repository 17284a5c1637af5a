package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The report's geometry (pkg/report/html): the plot starts labelWidth units from the left
// and is plotWidth wide; the moment slider runs over the plot's columns.
const (
	labelWidth = 230
	plotWidth  = 900
)

// Limits of the page (pkg/report/html): lists stop there.
const (
	ganttMaxPods = 500
	eventMaxRows = 2000
	groupMaxRows = 500
)

// jsonReport is what the tests read of `-o json` (docs/simulate-report.schema.json).
type jsonReport struct {
	Pods []struct {
		Namespace     string   `json:"namespace"`
		Name          string   `json:"name"`
		Phase         string   `json:"phase"`
		Node          string   `json:"node"`
		NominatedNode string   `json:"nominatedNode"`
		PodGroup      string   `json:"podGroup"`
		CreatedAt     *float64 `json:"createdAt"`
		BoundAt       *float64 `json:"boundAt"`
		DeletedAt     *float64 `json:"deletedAt"`
		PreemptedBy   *struct {
			Name string `json:"name"`
		} `json:"preemptedBy"`
		Devices []string `json:"devices"`
		Volumes []string `json:"volumes"`
	} `json:"pods"`
	PodGroups []struct {
		Name string `json:"name"`
	} `json:"podGroups"`
	Events []struct {
		Object  string `json:"object"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"events"`
	Claims  []any `json:"claims"`
	Summary struct {
		VirtualSeconds float64 `json:"virtualSeconds"`
	} `json:"summary"`
}

// reportCase is one report: the command that writes it (`-o html --out` and `-o json
// --out` are added) and what its page has beyond the simulation's sections.
type reportCase struct {
	name    string
	args    []string
	whatif  bool // the answer on top
	devices bool // the Devices and volumes section
}

var reportCases = []reportCase{
	{name: "simulate training gang", args: []string{"simulate", "-f", "examples/training-gang-preempts-batch"}},
	{name: "simulate small cluster", args: []string{"simulate", "-f", "examples/small-cluster"}},
	{name: "simulate gpus", args: []string{"simulate", "-f", "examples/gpus-dra-interconnect"}, devices: true},
	{name: "whatif job", args: []string{"whatif", "--snapshot", "examples/whatif/cluster.yaml", "-f", "examples/whatif/job.yaml"}, whatif: true},
	{name: "whatif gang job", args: []string{"whatif", "--snapshot", "examples/whatif/cluster.yaml", "-f", "examples/whatif/gang-job.yaml"}, whatif: true},
}

// write runs the case's command twice, for the HTML page and the JSON report it shows.
func (c reportCase) write(t *testing.T) (htmlFile string, r jsonReport) {
	dir := t.TempDir()
	htmlFile, jsonFile := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.json")
	phalanx(t, append(slices.Clone(c.args), "-o", "html", "--out", htmlFile)...)
	if c.whatif {
		// whatif's JSON is its answer; the simulation's report is what `simulate` gives
		// for the cluster with the new objects, which the page's tables are checked by
		// counts of its own DOM instead.
		return htmlFile, r
	}
	phalanx(t, append(slices.Clone(c.args), "-o", "json", "--out", jsonFile)...)
	readJSON(t, jsonFile, &r)
	return htmlFile, r
}

func TestReportsInBrowser(t *testing.T) {
	for _, c := range reportCases {
		t.Run(c.name, func(t *testing.T) {
			file, r := c.write(t)
			tb := open(t, file)
			figure(t, "report %q opened in %.0f ms (load event)", c.name, float64(tb.opened.Microseconds())/1000)
			tb.noErrors(t)

			checkSections(t, tb, c, r)
			tb.noErrors(t)
			checkResourceTabs(t, tb)
			tb.noErrors(t)
			checkPodFilter(t, tb, c, r)
			tb.noErrors(t)
			checkEventFilter(t, tb, c, r)
			tb.noErrors(t)
			checkMoment(t, tb, c, r)
			tb.noErrors(t)
			checkTooltips(t, tb)
			tb.noErrors(t)
		})
	}
}

// sectionState is what the page shows of one section.
type sectionState struct {
	ID      string `json:"id"`
	Heading string `json:"heading"`
	Height  int    `json:"height"`
	Visible bool   `json:"visible"`
}

// checkSections: every section the generator emits is in the page, in order, laid out
// with a height and its heading, and holds what the run has.
func checkSections(t *testing.T, tb *tab, c reportCase, r jsonReport) {
	t.Helper()
	got := eval[[]sectionState](t, tb, `Array.from(document.querySelectorAll("body > section")).map(function (s) {
		var h = s.querySelector("h2"), b = s.getBoundingClientRect(), st = getComputedStyle(s);
		return {id: s.id, heading: h ? h.textContent : "", height: Math.round(b.height), visible: st.display !== "none" && st.visibility !== "hidden"};
	})`)
	want := []string{"occupancy", "pods", "preemptions", "groups"}
	if c.devices {
		want = append(want, "devices")
	}
	want = append(want, "events")
	if c.whatif {
		want = append([]string{"answer"}, want...)
	}
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
		if s.Heading == "" || s.Height <= 0 || !s.Visible {
			t.Errorf("section %q is not rendered: heading %q, height %d, visible %v", s.ID, s.Heading, s.Height, s.Visible)
		}
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("sections %v, want %v", ids, want)
	}
	// Every link of the navigation leads to a section of the page.
	if broken := eval[[]string](t, tb, `Array.from(document.querySelectorAll("nav a")).filter(function (a) {
		return !document.getElementById(a.getAttribute("href").slice(1));
	}).map(function (a) { return a.getAttribute("href"); })`); len(broken) > 0 {
		t.Errorf("navigation links to missing sections: %v", broken)
	}

	// What each section draws is there and laid out (an SVG that fails to parse or a
	// path with a bad "d" has no box).
	type drawn struct {
		Charts, ChartBoxes, Heats, HeatBoxes, Gantts, GanttRows, Tabs int
	}
	d := eval[drawn](t, tb, `(function () {
		function boxed(sel) { return Array.from(document.querySelectorAll(sel)).filter(function (e) { return e.getBBox().width > 0; }).length; }
		var views = document.querySelectorAll("svg.gantt");
		return {Charts: document.querySelectorAll("svg.chart").length, ChartBoxes: boxed("svg.chart path.line"),
			Heats: document.querySelectorAll("svg.heat").length, HeatBoxes: boxed("svg.heat path"),
			Gantts: views.length, GanttRows: views.length ? views[0].querySelectorAll("g.gr").length : 0,
			Tabs: document.querySelectorAll('.tabs[data-tabs="res"] button').length};
	})()`)
	// Only the first resource's panel shows until its tab is clicked.
	if d.Charts == 0 || d.Charts != d.Tabs || d.ChartBoxes != 1 {
		t.Errorf("occupancy: %d resource tabs, %d charts, %d of them drawn", d.Tabs, d.Charts, d.ChartBoxes)
	}
	if d.Heats != d.Charts || d.HeatBoxes == 0 {
		t.Errorf("occupancy: %d heatmaps for %d charts, %d cells drawn", d.Heats, d.Charts, d.HeatBoxes)
	}
	if d.Gantts == 0 {
		t.Errorf("pod timelines: no timeline drawn")
	}
	if !c.whatif && d.GanttRows != min(len(r.Pods), ganttMaxPods) {
		t.Errorf("pod timelines: %d rows, want %d", d.GanttRows, min(len(r.Pods), ganttMaxPods))
	}
	if c.whatif {
		if n := eval[int](t, tb, `document.querySelectorAll("#answer table tr").length`); n < 2 {
			t.Errorf("the answer has %d table rows, want a header and a workload", n)
		}
		return
	}
	victims := 0
	for _, p := range r.Pods {
		if p.PreemptedBy != nil {
			victims++
		}
	}
	rows := eval[int](t, tb, `(function () { var t = document.querySelector("#preemptions table"); return t ? t.tBodies[0].rows.length : 0; })()`)
	if rows != victims {
		t.Errorf("preemptions: %d victims listed, the run preempted %d", rows, victims)
	}
	if n := eval[int](t, tb, `document.querySelectorAll("#groups tr[id]").length`); n != min(len(r.PodGroups), groupMaxRows) {
		t.Errorf("pod groups: %d rows, the run has %d groups", n, len(r.PodGroups))
	}
	if n := eval[int](t, tb, `document.querySelectorAll("#ev-rows tr").length`); n != min(len(r.Events), eventMaxRows) {
		t.Errorf("events: %d rows, the run has %d events", n, len(r.Events))
	}
	if c.devices {
		withDevices := 0
		for _, p := range r.Pods {
			if len(p.Devices) > 0 || len(p.Volumes) > 0 {
				withDevices++
			}
		}
		n := eval[int](t, tb, `document.querySelectorAll("#devices table").length`)
		if n == 0 || withDevices == 0 {
			t.Errorf("devices: %d tables, %d pods with devices or volumes", n, withDevices)
		}
	}
}

// checkResourceTabs: each resource's tab shows its panel and hides the others'.
func checkResourceTabs(t *testing.T, tb *tab) {
	t.Helper()
	n := eval[int](t, tb, `document.querySelectorAll('.tabs[data-tabs="res"] button').length`)
	for i := n - 1; i >= 0; i-- {
		tb.do(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.tabs[data-tabs="res"] button[data-tab="%d"]`, i))))
		shown := eval[[]string](t, tb, `Array.from(document.querySelectorAll('.panel[data-panel="res"]')).filter(function (p) { return !p.hidden && p.getBoundingClientRect().height > 0; }).map(function (p) { return p.getAttribute("data-tab"); })`)
		if !slices.Equal(shown, []string{fmt.Sprint(i)}) {
			t.Errorf("after clicking resource tab %d the panels shown are %v", i, shown)
		}
		type drawn struct{ Line, Cells int }
		d := eval[drawn](t, tb, fmt.Sprintf(`(function () {
			var p = document.querySelector('.panel[data-panel="res"][data-tab="%d"]');
			function boxed(sel) { return Array.from(p.querySelectorAll(sel)).filter(function (e) { return e.getBBox().width > 0; }).length; }
			return {Line: boxed("svg.chart path.line"), Cells: boxed("svg.heat path")};
		})()`, i))
		if d.Line != 1 || d.Cells == 0 {
			t.Errorf("resource tab %d: %d chart lines and %d heatmap cells drawn", i, d.Line, d.Cells)
		}
	}
}

// shownRows is the pods' rows shown in each timeline view (by node, by pod group).
const shownRows = `Array.from(document.querySelectorAll("svg.gantt")).map(function (svg) {
	return Array.from(svg.querySelectorAll("g.gr")).filter(function (g) { return getComputedStyle(g).display !== "none"; }).length;
})`

// checkPodFilter: each of the pod filter's controls keeps the rows it should, in every
// view, and the headers of groups left empty go.
func checkPodFilter(t *testing.T, tb *tab, c reportCase, r jsonReport) {
	t.Helper()
	all := eval[[]int](t, tb, shownRows)
	if len(all) == 0 {
		t.Fatal("no pod timeline")
	}
	expect := func(what string, want int) {
		t.Helper()
		got := eval[[]int](t, tb, shownRows)
		for i, n := range got {
			if n != want {
				t.Errorf("%s: view %d shows %d pods, want %d", what, i, n, want)
			}
		}
		if count := eval[string](t, tb, `document.getElementById("pf-count").textContent`); count != fmt.Sprintf("%d shown", want) {
			t.Errorf("%s: the count says %q, want %q", what, count, fmt.Sprintf("%d shown", want))
		}
		// A header shows only while a row under it does.
		if bad := eval[int](t, tb, `Array.from(document.querySelectorAll("svg.gantt")).reduce(function (bad, svg) {
			var gs = Array.from(svg.querySelectorAll("g.gh, g.gr"));
			gs.forEach(function (g, i) {
				if (!g.classList.contains("gh")) return;
				var kept = false;
				for (var j = i + 1; j < gs.length && !gs[j].classList.contains("gh"); j++) if (gs[j].style.display !== "none") kept = true;
				if (kept !== (g.style.display !== "none")) bad++;
			});
			return bad;
		}, 0)`); bad > 0 {
			t.Errorf("%s: %d group headers shown without rows or hidden with rows", what, bad)
		}
	}
	pods := r.Pods[:min(len(r.Pods), ganttMaxPods)]

	// Only the pods that changed.
	if !c.whatif {
		changed := 0
		for _, p := range pods {
			if p.Phase != "Running" || p.PreemptedBy != nil || p.NominatedNode != "" || p.BoundAt == nil ||
				(p.CreatedAt != nil && *p.BoundAt > *p.CreatedAt) {
				changed++
			}
		}
		tb.do(t, chromedp.Click(chromedp.CSS("#pf-changed")))
		expect("only the pods that changed", changed)
		tb.do(t, chromedp.Click(chromedp.CSS("#pf-changed")))
		expect("all pods again", len(pods))
	}

	// By pod group, and the pods of none.
	groups := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#pf-group option")).map(function (o) { return o.value; }).filter(function (v) { return v; })`)
	if !c.whatif && len(r.PodGroups) > 0 && len(groups) == 0 {
		t.Errorf("the run has pod groups but the filter offers none")
	}
	for _, g := range groups {
		tb.do(t, setValue("#pf-group", g))
		if c.whatif {
			if n := eval[[]int](t, tb, shownRows); n[0] == 0 || n[0] >= all[0] {
				t.Errorf("pod group %q: %d of %d pods shown", g, n[0], all[0])
			}
			continue
		}
		want := 0
		for _, p := range pods {
			if (g == "-" && p.PodGroup == "") || p.Namespace+"/"+p.PodGroup == g {
				want++
			}
		}
		expect("pod group "+g, want)
	}
	if len(groups) > 0 {
		tb.do(t, setValue("#pf-group", ""))
	}

	// By namespace.
	namespaces := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#pf-ns option")).map(function (o) { return o.value; }).filter(function (v) { return v; })`)
	for _, ns := range namespaces {
		tb.do(t, setValue("#pf-ns", ns))
		want := 0
		for _, p := range pods {
			if p.Namespace == ns {
				want++
			}
		}
		if !c.whatif {
			expect("namespace "+ns, want)
		}
	}
	if len(namespaces) > 0 {
		tb.do(t, setValue("#pf-ns", ""))
	}

	// By text: the first pod's name keeps that pod and only rows that mention it.
	first := eval[string](t, tb, `document.querySelector("svg.gantt g.gr text").textContent`)
	q := first[strings.LastIndex(first, "/")+1:]
	tb.do(t, setValue("#pf-text", strings.ToUpper(q)))
	type textCheck struct{ Shown, Wrong, Missing int }
	tc := eval[textCheck](t, tb, fmt.Sprintf(`(function () {
		var q = %q, r = {Shown: 0, Wrong: 0, Missing: 0};
		document.querySelectorAll("svg.gantt g.gr").forEach(function (g) {
			var has = g.textContent.toLowerCase().indexOf(q) >= 0, shown = g.style.display !== "none";
			if (shown) r.Shown++;
			if (shown && !has) r.Wrong++;
			if (!shown && has) r.Missing++;
		});
		return r;
	})()`, strings.ToLower(q)))
	if tc.Shown == 0 || tc.Wrong > 0 || tc.Missing > 0 {
		t.Errorf("text %q: %d rows shown, %d without it, %d with it hidden", q, tc.Shown, tc.Wrong, tc.Missing)
	}
	tb.do(t, setValue("#pf-text", ""))
	if got := eval[[]int](t, tb, shownRows); !slices.Equal(got, all) {
		t.Errorf("with the filter cleared the views show %v pods, at first %v", got, all)
	}
	// The rows are laid out again one under the other: no two shown rows overlap, and the
	// timeline is as tall as its rows.
	tb.do(t, chromedp.Click(chromedp.CSS("#pf-changed")))
	if bad := eval[string](t, tb, `(function () {
		var out = "";
		document.querySelectorAll("svg.gantt").forEach(function (svg) {
			var ys = [];
			svg.querySelectorAll("g.gh, g.gr").forEach(function (g) {
				if (g.style.display === "none") return;
				ys.push(+/translate\(0,([0-9.]+)\)/.exec(g.getAttribute("transform"))[1]);
			});
			for (var i = 1; i < ys.length; i++) if (ys[i] - ys[i-1] !== 14) out += "row " + i + " at " + ys[i] + " after " + ys[i-1] + "; ";
			var h = +svg.getAttribute("height"), want = (ys.length ? ys[ys.length-1] + 14 : 2) + 8;
			if (h !== want) out += "height " + h + ", want " + want + "; ";
		});
		return out;
	})()`); bad != "" {
		t.Errorf("the filtered timelines are not laid out: %s", bad)
	}
	tb.do(t, chromedp.Click(chromedp.CSS("#pf-changed")))
}

// checkEventFilter: by reason, the rows of that reason; by text, the rows that contain it.
func checkEventFilter(t *testing.T, tb *tab, c reportCase, r jsonReport) {
	t.Helper()
	shown := func() int {
		return eval[int](t, tb, `Array.from(document.querySelectorAll("#ev-rows tr")).filter(function (tr) { return tr.getBoundingClientRect().height > 0; }).length`)
	}
	total := shown()
	reasons := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#ev-reason option")).map(function (o) { return o.value; }).filter(function (v) { return v; })`)
	if len(reasons) == 0 {
		t.Fatal("the events' filter offers no reason")
	}
	sum := 0
	for _, reason := range reasons {
		tb.do(t, setValue("#ev-reason", reason))
		got := shown()
		sum += got
		if c.whatif {
			continue
		}
		want := 0
		for _, e := range r.Events[:min(len(r.Events), eventMaxRows)] {
			if e.Reason == reason {
				want++
			}
		}
		if got != want {
			t.Errorf("events of reason %s: %d shown, want %d", reason, got, want)
		}
	}
	if sum != total {
		t.Errorf("the reasons' rows add up to %d of %d events", sum, total)
	}
	tb.do(t, setValue("#ev-reason", ""))
	obj := eval[string](t, tb, `document.querySelector("#ev-rows tr td:nth-child(2)").textContent`)
	tb.do(t, setValue("#ev-text", obj))
	if !c.whatif {
		want := 0
		for _, e := range r.Events[:min(len(r.Events), eventMaxRows)] {
			if strings.Contains(strings.ToLower(e.Object+e.Reason+e.Message), strings.ToLower(obj)) {
				want++
			}
		}
		if got := shown(); got != want {
			t.Errorf("events containing %q: %d shown, want %d", obj, got, want)
		}
	} else if got := shown(); got == 0 || got >= total {
		t.Errorf("events containing %q: %d of %d shown", obj, got, total)
	}
	tb.do(t, setValue("#ev-text", ""))
	if got := shown(); got != total {
		t.Errorf("with the filter cleared %d of %d events are shown", got, total)
	}
}

// moment is what the slider's readout says.
type momentState struct {
	Text    string    `json:"text"`
	Cursors []float64 `json:"cursors"`
	Charts  int       `json:"charts"`
}

const readMoment = `(function () {
	return {text: document.getElementById("moment-at").textContent,
		cursors: Array.from(document.querySelectorAll("svg line.mcursor")).map(function (l) { return +l.getAttribute("x1"); }),
		charts: document.querySelectorAll("svg.chart, svg.heat, svg.gantt, svg.gantt-axis").length};
})()`

// checkMoment: the slider puts a cursor on every time chart at its moment and says what
// is there: at the start, the pods bound at once run; while pods wait, they are pending.
func checkMoment(t *testing.T, tb *tab, c reportCase, r jsonReport) {
	t.Helper()
	// A run where no virtual time elapsed has no moments: its charts show the final state.
	noTime := eval[bool](t, tb, `document.querySelector("#occupancy").textContent.indexOf("No virtual time elapsed") >= 0`)
	if !c.whatif && noTime != (r.Summary.VirtualSeconds == 0) {
		t.Errorf("the page says no virtual time elapsed: %v; the run took %vs", noTime, r.Summary.VirtualSeconds)
	}
	if slider := eval[bool](t, tb, `!!document.getElementById("moment")`); slider == noTime {
		t.Fatalf("a moment slider: %v, with no virtual time: %v", slider, noTime)
	}
	if noTime {
		return
	}
	set := func(v int) momentState {
		t.Helper()
		tb.do(t, setValue("#moment", fmt.Sprint(v)))
		m := eval[momentState](t, tb, readMoment)
		if len(m.Cursors) != m.Charts {
			t.Errorf("moment %d: %d cursors on %d time charts", v, len(m.Cursors), m.Charts)
		}
		for _, x := range m.Cursors {
			if x != float64(labelWidth+v) {
				t.Errorf("moment %d: a cursor at x=%v, want %d", v, x, labelWidth+v)
				break
			}
		}
		return m
	}
	atEnd := eval[momentState](t, tb, readMoment)
	if len(atEnd.Cursors) != 0 || !strings.HasPrefix(atEnd.Text, "t ≈ ") {
		t.Errorf("before the slider moves: %d cursors, readout %q", len(atEnd.Cursors), atEnd.Text)
	}
	start := set(0)
	if !strings.HasPrefix(start.Text, "t ≈ 0s: ") {
		t.Errorf("at the start the readout says %q", start.Text)
	}
	if c.whatif {
		if mid := set(plotWidth / 2); mid.Text == start.Text {
			t.Errorf("the readout did not change with the moment: %q", mid.Text)
		}
		return
	}
	end := r.Summary.VirtualSeconds
	pods := r.Pods[:min(len(r.Pods), ganttMaxPods)]
	running0 := 0
	for _, p := range pods {
		if p.BoundAt != nil && *p.BoundAt == 0 && (p.DeletedAt == nil || *p.DeletedAt > 0) {
			running0++
		}
	}
	if want := fmt.Sprintf(" %d running,", running0); !strings.Contains(start.Text, want) {
		t.Errorf("at the start the readout says %q, want %q", start.Text, want)
	}
	// The middle of the first wait of at least four columns: the pods waiting over that
	// whole stretch are pending there.
	px := end / plotWidth
	for _, p := range pods {
		if p.CreatedAt == nil || p.BoundAt == nil || *p.BoundAt-*p.CreatedAt < 4*px {
			continue
		}
		v := int((*p.CreatedAt + *p.BoundAt) / 2 / px)
		lo, hi := float64(v-1)*px, float64(v+1)*px
		pending := 0
		for _, q := range pods {
			if q.CreatedAt != nil && *q.CreatedAt <= lo && (q.BoundAt == nil || *q.BoundAt >= hi) && (q.DeletedAt == nil || *q.DeletedAt >= hi) {
				pending++
			}
		}
		m := set(v)
		if want := fmt.Sprintf(" %d pending,", pending); !strings.Contains(m.Text, want) {
			t.Errorf("at moment %d (%.0fs, while %s waits) the readout says %q, want %q", v, float64(v)*px, p.Name, m.Text, want)
		}
		if m.Text == start.Text {
			t.Errorf("the readout did not change with the moment: %q", m.Text)
		}
		break
	}
	// The filters narrow what the readout counts.
	set(0)
	tb.do(t, setValue("#pf-text", "no pod has this name"))
	if m := eval[momentState](t, tb, readMoment); !strings.Contains(m.Text, "pods shown: 0 running, 0 pending, 0 terminating") {
		t.Errorf("with every pod filtered out the readout says %q", m.Text)
	}
	tb.do(t, setValue("#pf-text", ""))
}

// checkTooltips: hovering the charts shows their tooltip without an error.
func checkTooltips(t *testing.T, tb *tab) {
	t.Helper()
	for _, sel := range []string{"svg.chart", "svg.heat"} {
		tip := eval[string](t, tb, fmt.Sprintf(`(function () {
			var svg = document.querySelector(%q), row = svg.querySelector("text:not(.hdr):not(.tl)");
			svg.scrollIntoView();
			// The middle of the plot, on the first row of a heatmap (its label's height).
			var p = svg.createSVGPoint();
			p.x = %d + %d / 2; p.y = row ? +row.getAttribute("y") : svg.viewBox.baseVal.height / 2;
			p = p.matrixTransform(svg.getScreenCTM());
			svg.dispatchEvent(new MouseEvent("mousemove", {clientX: p.x, clientY: p.y, bubbles: true}));
			var tip = document.getElementById("tip");
			return tip.style.display === "block" ? tip.textContent : "";
		})()`, sel, labelWidth, plotWidth))
		if !strings.HasPrefix(tip, "t ≈ ") && !strings.Contains(tip, "–") {
			t.Errorf("hovering %s shows the tooltip %q", sel, tip)
		}
	}
}

// TestConsoleErrorsAreCaught holds the test's listener to what it must catch: a console
// error and an uncaught exception.
func TestConsoleErrorsAreCaught(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(file, []byte(`<!DOCTYPE html><html><body><script>
console.error("broken on purpose");
null.x;
</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := open(t, file)
	ft := &fakeT{TB: t}
	tb.noErrors(ft)
	if len(ft.errors) != 2 || !strings.Contains(ft.errors[0], "broken on purpose") || !strings.Contains(ft.errors[1], "null") {
		t.Errorf("the listener reported %q, want the console error and the exception", ft.errors)
	}
}

// fakeT records the errors a check reports instead of failing the test.
type fakeT struct {
	testing.TB
	errors []string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Helper() {}
