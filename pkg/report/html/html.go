// Package html is the simulation's HTML report: one self-contained page, with occupancy
// charts per resource and device class, a node heatmap grouped by topology, pod timelines
// by state, and tables of preemptions, groups and events. `phalanx simulate -o html` and
// `phalanx whatif -o html` write it.
package html

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// The HTML report is one file a person opens without a network: CSS, SVG and a little JS are
// inline, and everything drawn is computed here so that the page renders at once. Runs of any
// size give a page of bounded size: charts are decimated to the pixel, the node heatmap
// aggregates rows, and lists stop at a limit with a note (-o json has everything).
//
// The page is built in parts, one file each: timeline.go (the time axis and when nodes
// existed), occupancy.go (the cluster-wide charts), heatmap.go and
// topology.go (the per-node heatmap and its topology grouping), pods.go (pod
// timelines) and tables.go (preemptions, groups, events).

//go:embed html.tmpl
var htmlTemplateText string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"phase":      phaseClass,
	"pct":        func(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" },
	"n":          f1,
	"add":        func(a, b int) int { return a + b },
	"sub":        func(a, b int) int { return a - b },
	"labelWidth": func() int { return labelWidth },
	"plotWidth":  func() int { return plotWidth },
	"plotEnd":    func() int { return labelWidth + plotWidth },
	"chartWidth": func() int { return chartWidth },
	"axisAt":     func(t []tick, y int) axisView { return axisView{Y: y, Ticks: t} },
}).Parse(htmlTemplateText))

type axisView struct {
	Y     int
	Ticks []tick
}

// Geometry of every time chart (SVG user units, ~pixels) and the limits that bound the page.
const (
	labelWidth    = 230
	plotWidth     = 900
	chartWidth    = labelWidth + plotWidth + 20
	heatBuckets   = 100 // time columns of the node heatmap; plotWidth/heatBuckets is whole
	heatMaxRows   = 100 // more nodes than this are shown as bands of consecutive nodes
	heatMaxGroups = 32  // topology groups of the heatmap, each with a header row
	ganttMaxPods  = 500
	listMaxRows   = 1000 // victims, preemptors, preemption events
	groupMaxRows  = 500
	eventMaxRows  = 2000
	groupMembers  = 24 // members listed by name in a group's row
	labelMaxLen   = 34
)

// Header is the caller's heading of the HTML report, and a section it puts above the
// simulation's (`phalanx whatif` puts its answer there); the zero Header is the plain
// simulation report.
type Header struct {
	Title string
	Intro template.HTML
}

// Write writes a self-contained HTML report.
func Write(w io.Writer, r *report.Report, h Header) error {
	p := buildPage(r)
	p.Title, p.Intro = h.Title, h.Intro
	if p.Title == "" {
		p.Title = "phalanx simulation report"
	}
	bw := bufio.NewWriter(w)
	if err := htmlTemplate.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

type page struct {
	Title      string
	Intro      template.HTML
	Summary    report.Summary
	Duration   string
	NodeCount  int
	GroupCount int
	EventCount int
	Violations []string
	NoTime     bool
	Axis       []tick
	Resources  []resourceView
	Gantt      ganttSection
	Preempt    preemptSection
	Groups     groupSection
	Devices    deviceSection
	Events     eventSection
	Data       pageData // for the tooltips
}

// pageData is what the page's script reads; the picture itself never needs it.
type pageData struct {
	End    float64     `json:"end"`
	Charts []chartData `json:"charts"`
	Heats  []heatData  `json:"heats"`
}

func buildPage(r *report.Report) *page {
	tl := newTimeline(r)
	p := &page{
		Summary:    r.Summary,
		Duration:   fmtSeconds(r.Summary.VirtualSeconds),
		NodeCount:  len(tl.nodes),
		GroupCount: len(r.PodGroups),
		EventCount: len(r.Events),
		Violations: r.Violations,
		NoTime:     tl.noTime,
		Axis:       tl.ticks(),
		Data:       pageData{End: tl.end},
	}
	topo := newTopology(tl.nodes)
	idx := newPodIndex(r)
	marks := preemptionMarks(r, idx)
	for i, res := range occupancyResources(tl) {
		rv := resourceView{Name: res, Index: i}
		rv.Chart, rv.chartData = tl.clusterChart(res)
		rv.Heat, rv.heatData = tl.heatmap(res, topo, marks)
		p.Data.Charts = append(p.Data.Charts, rv.chartData)
		p.Data.Heats = append(p.Data.Heats, rv.heatData)
		p.Resources = append(p.Resources, rv)
	}
	p.Gantt = tl.gantt(r, idx)
	p.Preempt = preemptions(r, idx)
	p.Groups = groups(r, idx)
	p.Devices = devices(r)
	p.Events = events(r)
	return p
}

// phaseClass is the CSS class suffix of a pod or group phase.
func phaseClass(phase string) string {
	switch phase {
	case report.PhasePending, report.PhaseRunning, report.PhaseSucceeded, report.PhasePreempted, report.PhaseDeleted, "Scheduled":
		return strings.ToLower(phase)
	}
	return "other"
}

// fmtSeconds writes virtual seconds as 1h2m3.5s, to the millisecond.
func fmtSeconds(s float64) string {
	if s < 0 {
		return "-" + fmtSeconds(-s)
	}
	ms := int64(math.Round(s * 1000))
	if ms < 60000 {
		return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
	}
	var b strings.Builder
	if h := ms / 3600000; h > 0 {
		b.WriteString(strconv.FormatInt(h, 10) + "h")
	}
	if m := ms / 60000 % 60; m > 0 {
		b.WriteString(strconv.FormatInt(m, 10) + "m")
	}
	if rest := ms % 60000; rest > 0 {
		b.WriteString(strconv.FormatFloat(float64(rest)/1000, 'f', -1, 64) + "s")
	}
	return b.String()
}

// fmtQuantity writes a total of a resource the way a person reads it: cores, GiB, a count.
func fmtQuantity(res string, q int64) string {
	switch res {
	case "cpu":
		if q == 1000 {
			return "1 core"
		}
		return strconv.FormatFloat(float64(q)/1000, 'f', -1, 64) + " cores"
	case "memory", "ephemeral-storage":
		return strconv.FormatFloat(math.Round(float64(q)/(1<<30)*10)/10, 'f', -1, 64) + " GiB"
	}
	if strings.HasPrefix(res, "hugepages-") {
		return strconv.FormatFloat(math.Round(float64(q)/(1<<20)*10)/10, 'f', -1, 64) + " MiB"
	}
	return strconv.FormatInt(q, 10)
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// shorten keeps labels inside the label column; the full text is in the tooltip.
func shorten(s string) string {
	r := []rune(s)
	if len(r) <= labelMaxLen {
		return s
	}
	return string(r[:labelMaxLen-1]) + "…"
}
