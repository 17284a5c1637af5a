package html

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// occupancyResources are cpu and memory, then every other resource some node offers, except
// the pod count and ephemeral storage nobody asks for.
func occupancyResources(tl *timeline) []string {
	offered, asked := map[string]bool{}, map[string]bool{}
	for _, n := range tl.nodes {
		for k, v := range n.Allocatable {
			if v > 0 {
				offered[k] = true
			}
		}
	}
	for _, l := range tl.lives {
		for k, v := range l.Requests {
			if v > 0 {
				asked[k] = true
			}
		}
	}
	var out, more []string
	for _, k := range []string{"cpu", "memory"} {
		if offered[k] {
			out = append(out, k)
		}
	}
	for k := range offered {
		switch {
		case k == "cpu" || k == "memory" || k == "pods":
		case k == "ephemeral-storage" && !asked[k]:
		default:
			more = append(more, k)
		}
	}
	sort.Strings(more)
	return append(out, more...)
}

type resourceView struct {
	Name      string
	Index     int
	Chart     chartView
	Heat      heatView
	chartData chartData
	heatData  heatData
}

// chartView is the cluster-wide share of allocatable requested, a step chart.
type chartView struct {
	Line, Area string
	Height     int
	AxisY      int
	Grid       []gridLine
	Peak, Avg  float64
	PeakAt     string
	Total      string // the most allocatable there was at once
	Varies     bool   // nodes came or went during the run
}

type gridLine struct {
	Y     float64
	Label string
}

// chartData gives, per pixel column, the lowest and highest share in tenths of a percent.
type chartData struct {
	Name string `json:"name"`
	Lo   []int  `json:"lo"`
	Hi   []int  `json:"hi"`
}

const chartTop, chartPlotH = 8, 110

// clusterChart is the share of the allocatable of the nodes that exist at each moment that
// bound pods request: nodes coming and going change the denominator.
func (tl *timeline) clusterChart(res string) (chartView, chartData) {
	type change struct {
		t         float64
		used, cap int64
	}
	var ch []change
	varies := false
	for i, n := range tl.nodes {
		a, s := n.Allocatable[res], tl.spans[i]
		if a <= 0 || s.to <= s.from {
			continue
		}
		ch = append(ch, change{t: s.from, cap: a})
		varies = varies || s.from > 0
		if s.to < tl.end { // a node still there at the end does not leave
			ch = append(ch, change{t: s.to, cap: -a})
			varies = true
		}
	}
	for _, l := range tl.lives {
		q := l.Requests[res]
		if q <= 0 || l.End <= l.Start {
			continue
		}
		ch = append(ch, change{t: l.Start, used: q})
		if l.End < tl.end { // a pod still there at the end does not leave
			ch = append(ch, change{t: l.End, used: -q})
		}
	}
	slices.SortFunc(ch, func(a, b change) int { return cmp.Compare(a.t, b.t) }) // ties add up: order is moot

	// Decimate to the pixel: per column the range of shares it saw and the one it ends on.
	lo, hi, last := make([]float64, plotWidth), make([]float64, plotWidth), make([]float64, plotWidth)
	touched := make([]bool, plotWidth)
	var cur, total, maxTotal int64
	prevT, prevV, integral, peak, peakAt := 0.0, 0.0, 0.0, 0.0, 0.0
	for i := 0; i < len(ch); {
		t := ch[i].t
		for ; i < len(ch) && ch[i].t == t; i++ {
			cur += ch[i].used
			total += ch[i].cap
		}
		maxTotal = max(maxTotal, total)
		v := share(cur, total)
		integral += prevV * (t - prevT)
		c := min(int((t/tl.end)*plotWidth), plotWidth-1)
		if !touched[c] {
			touched[c], lo[c], hi[c] = true, prevV, prevV
		}
		lo[c], hi[c], last[c] = math.Min(lo[c], v), math.Max(hi[c], v), v
		if v > peak {
			peak, peakAt = v, t
		}
		prevT, prevV = t, v
	}
	integral += prevV * (tl.end - prevT)

	ymax := math.Max(1, peak)
	y := func(v float64) string { return f1(chartTop + (1-v/ymax)*chartPlotH) }
	var b strings.Builder
	b.WriteString("M" + f1(labelWidth) + " " + y(0))
	data := chartData{Name: res, Lo: make([]int, plotWidth), Hi: make([]int, plotWidth)}
	v := 0.0
	for c := 0; c < plotWidth; c++ {
		if touched[c] {
			b.WriteString("H" + f1(float64(labelWidth+c)))
			for _, s := range []float64{lo[c], hi[c], last[c]} {
				b.WriteString("V" + y(s))
			}
			data.Lo[c], data.Hi[c] = tenths(lo[c]), tenths(hi[c])
			v = last[c]
			continue
		}
		data.Lo[c], data.Hi[c] = tenths(v), tenths(v)
	}
	b.WriteString("H" + f1(labelWidth+plotWidth))
	line := b.String()
	cv := chartView{
		Line: line, Area: line + "V" + y(0) + "Z", Height: chartTop + chartPlotH + 22, AxisY: chartTop + chartPlotH,
		Peak: peak, Avg: integral / tl.end, PeakAt: fmtSeconds(peakAt), Total: fmtQuantity(res, maxTotal), Varies: varies,
	}
	for _, g := range []float64{0, 0.25, 0.5, 0.75, 1} {
		cv.Grid = append(cv.Grid, gridLine{Y: chartTop + (1-g/ymax)*chartPlotH, Label: strconv.Itoa(int(g*100)) + "%"})
	}
	if ymax > 1 {
		cv.Grid = append(cv.Grid, gridLine{Y: chartTop, Label: strconv.Itoa(int(math.Round(ymax*100))) + "%"})
	}
	return cv, data
}

func share(q, total int64) float64 {
	if total <= 0 {
		return 0
	}
	return float64(q) / float64(total)
}

func tenths(v float64) int { return int(math.Round(v * 1000)) }
