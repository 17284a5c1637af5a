package html

import (
	"os"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// runScenarioReport simulates a scenario file (its Expectation aside) and returns the report.
// scenarioDir holds the scenario files (testdata/scenarios).
const scenarioDir = "../../../testdata/scenarios"

func runScenarioReport(t *testing.T, file string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, manifests := simtest.SplitScenario(t, data)
	return simtest.Simulate(t, string(manifests), 0, nil)
}

// A pod preempted for its GPUs: the node's devices are charted by class, the preemption
// is marked on the heatmap where and when it happened, the victim's timeline is running
// until it is preempted (red only from then), and the devices left free are counted.
func TestHTMLDevicesAndPreemptions(t *testing.T) {
	r := runScenarioReport(t, scenarioDir+"/dra/preemption-frees-devices.yaml")
	const res = "devices of class gpu.example.com"
	if len(r.Nodes) != 1 || r.Nodes[0].Allocatable[res] != 2 {
		t.Fatalf("nodes %+v: want node-1 with 2 %s", r.Nodes, res)
	}
	var busy []report.Lifetime
	for _, l := range r.Lifetimes {
		if l.Device != "" {
			busy = append(busy, l)
		}
	}
	// low held both GPUs from 0s until it was gone at 40s, when the run ends with high
	// bound (its GPU is in use at the end, a stretch of no time).
	if len(busy) != 2 || busy[0].Requests[res] != 1 || busy[0].Start != 0 || busy[0].End != 40 || busy[1].End != 40 {
		t.Errorf("device lifetimes %+v: want both GPUs busy from 0s to 40s", busy)
	}
	page := render(t, r)
	for _, want := range []string{
		">" + res + "</button>",
		`<circle class="pmark"`, "default/low preempted on node-1 at 10s by Pod default/high",
		"Devices at the end, by class", "<td>" + res + `</td><td class="num">2</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td>1 free: 1 node</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	tl, idx := newTimeline(r), newPodIndex(r)
	low := tl.ganttRow(r, idx, 0)
	var classes []string
	for _, b := range low.Bars {
		classes = append(classes, b.Class)
	}
	if strings.Join(classes, " ") != "g-running g-preempted" || len(low.Marks) != 1 || !low.Changed {
		t.Errorf("low's row: bars %v, marks %v, changed %v: want running then preempted, one mark", classes, low.Marks, low.Changed)
	}
}

func TestPodChanged(t *testing.T) {
	at := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		pod  report.Pod
		want bool
	}{
		{"bound at creation, still running", report.Pod{Phase: report.PhaseRunning, CreatedAt: at(0), BoundAt: at(0)}, false},
		{"waited before it was bound", report.Pod{Phase: report.PhaseRunning, CreatedAt: at(0), BoundAt: at(5)}, true},
		{"still pending", report.Pod{Phase: report.PhasePending, CreatedAt: at(0)}, true},
		{"preempted", report.Pod{Phase: report.PhasePreempted, CreatedAt: at(0), BoundAt: at(0), PreemptedBy: &report.ObjectRef{Kind: "Pod", Name: "x"}}, true},
		{"succeeded", report.Pod{Phase: report.PhaseSucceeded, CreatedAt: at(0), BoundAt: at(0)}, true},
		{"nominated", report.Pod{Phase: report.PhaseRunning, CreatedAt: at(0), BoundAt: at(0), NominatedNode: "n"}, true},
	}
	for _, tt := range tests {
		if got := podChanged(tt.pod); got != tt.want {
			t.Errorf("%s: changed %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Composites get their own table in the group section: each with its phase, conditions and
// child groups, linked both ways with the groups' rows.
func TestHTMLComposites(t *testing.T) {
	r := runScenarioReport(t, scenarioDir+"/composites/gang-all-or-nothing.yaml")
	if len(r.CompositePodGroups) != 1 || r.PodGroups[0].Parent != "job" {
		t.Fatalf("composites %+v, groups %+v", r.CompositePodGroups, r.PodGroups)
	}
	page := render(t, r)
	for _, want := range []string{
		"<h3>Composite pod groups</h3>",
		`<tr id="cpg-0"><td>default</td><td>job</td><td></td><td><span class="ph ph-scheduled">Scheduled</span></td>`,
		`<td>2<div class="members"><a class="m-scheduled" href="#pg-0" title="Scheduled">slice-a</a><a class="m-scheduled" href="#pg-1" title="Scheduled">slice-b</a></div></td>`,
		`<tr id="pg-0"><td>default</td><td>slice-a</td><td><a href="#cpg-0">job</a></td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	var buf strings.Builder
	if err := report.WriteText(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "COMPOSITE POD GROUP") || !strings.Contains(buf.String(), "slice-a    job") {
		t.Errorf("text report:\n%s", buf.String())
	}
}

// A composite that preempts is named in the preemption tables with its priority and
// outcome, linked to its row.
func TestHTMLCompositePreemptor(t *testing.T) {
	r := runScenarioReport(t, scenarioDir+"/composites/preempts-as-one-unit.yaml")
	page := render(t, r)
	want := `<td>CompositePodGroup <a href="#cpg-0">default/job</a></td><td class="num">100</td><td>Scheduled</td>`
	if !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}
