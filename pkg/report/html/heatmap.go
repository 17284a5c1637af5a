package html

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// heatView is the per-node share of allocatable over time: a row per node (or per band of
// consecutive nodes on big clusters), a column per time bucket, drawn as one path per colour.
// Nodes with topology labels are sorted by them, under a header row per group.
type heatView struct {
	Rows    []heatRow
	Headers []heatRow
	Cells   []heatCells
	RowH    int
	Height  int
	AxisY   int
	Note    string
	Legend  []heatCells
	// Marks are the preemptions: where (the victim's node's row) and when.
	Marks []heatMark
}

type heatMark struct {
	X, Y  float64
	Title string
}

// preemptionMark is a victim's preemption, for the heatmap.
type preemptionMark struct {
	node  string
	at    float64
	title string
}

// heatMaxMarks bounds the preemptions drawn on a heatmap (the tables list them all).
const heatMaxMarks = 2000

// preemptionMarks lists the victims' preemptions: on their node, at their Preempted event
// (or, without one, the start of their deletion).
func preemptionMarks(r *report.Report, idx *podIndex) []preemptionMark {
	var out []preemptionMark
	for _, p := range r.Pods {
		if p.PreemptedBy == nil || p.Node == "" {
			continue
		}
		k := p.Namespace + "/" + p.Name
		at, ok := idx.preempted[k]
		if !ok {
			if p.DeletedAt == nil {
				continue
			}
			at = *p.DeletedAt
		}
		title := fmt.Sprintf("%s preempted on %s at %s by %s %s/%s", k, p.Node, fmtSeconds(at),
			p.PreemptedBy.Kind, p.PreemptedBy.Namespace, p.PreemptedBy.Name)
		out = append(out, preemptionMark{node: p.Node, at: at, title: title})
	}
	return out
}

type heatRow struct {
	Y     float64
	Label string
	Title string
}

type heatCells struct {
	Class string
	D     string
	Label string
}

// heatData is the heatmap in whole percents, for the tooltips; -1 where no node of the row
// existed.
type heatData struct {
	Name   string   `json:"name"`
	Rows   []string `json:"rows"`
	Y      []int    `json:"y"` // top of each row
	Bucket float64  `json:"bucket"`
	RowH   int      `json:"rowH"`
	V      [][]int  `json:"v"`
	// Max is, for rows that are bands of nodes, the busiest node's share.
	Max [][]int `json:"max,omitempty"`
}

const (
	heatClasses = 12 // 0: idle, 1-10: up to 10%...100%, 11: above allocatable
	heatHeaderH = 14
)

func heatClass(v float64) int {
	switch {
	case v <= 0.0005:
		return 0
	case v > 1.0005:
		return 11
	}
	return max(1, min(10, int(math.Ceil(v*10-1e-9))))
}

func (tl *timeline) heatmap(res string, topo *topology, marks []preemptionMark) (heatView, heatData) {
	var members []int // nodes that offer the resource
	member := make([]int, len(tl.nodes))
	for i, n := range tl.nodes {
		member[i] = -1
		if n.Allocatable[res] > 0 {
			member[i] = len(members)
			members = append(members, i)
		}
	}
	bucket := tl.end / heatBuckets
	used := tl.heatUsage(res, member, len(members), bucket)
	groups, level := topo.group(members)
	band := bandSize(groups)
	rows := 0
	for _, g := range groups {
		rows += (len(g.nodes) + band - 1) / band
	}

	hv := heatView{RowH: 16}
	if rows > 40 {
		hv.RowH = max(6, min(12, 600/rows))
	}
	hd := heatData{Name: res, Bucket: bucket, RowH: hv.RowH}
	if band > 1 {
		hd.Max = [][]int{}
	}
	paths := make([]strings.Builder, heatClasses)
	cw := plotWidth / heatBuckets
	labelEvery := (13 + hv.RowH - 1) / hv.RowH // labels at least 13 units apart
	absent := false
	rowOf := map[string]float64{} // node -> the middle of its row
	y := chartTop
	for _, g := range groups {
		if level >= 0 {
			hv.Headers = append(hv.Headers, heatRow{Y: float64(y), Label: g.label, Title: g.title})
			y += heatHeaderH
		}
		for k := 0; k*band < len(g.nodes); k++ {
			nodes := g.nodes[k*band : min((k+1)*band, len(g.nodes))]
			v, hottest := make([]int, heatBuckets), make([]int, heatBuckets)
			runStart, runClass := 0, -1
			for b := 0; b <= heatBuckets; b++ {
				cls := -1 // not drawn: past the end, or no node of the row existed
				if b < heatBuckets {
					lo, hi := float64(b)*bucket, float64(b+1)*bucket
					var sum, capacity, hot float64
					for _, i := range nodes {
						during := tl.spans[i].overlap(lo, hi)
						if during <= bucket*1e-9 {
							continue
						}
						c := float64(tl.nodes[i].Allocatable[res]) * during
						u := used[member[i]][b]
						sum, capacity, hot = sum+u, capacity+c, math.Max(hot, u/c)
					}
					v[b], hottest[b] = -1, -1
					if capacity > 0 {
						v[b], hottest[b] = int(math.Round(sum/capacity*100)), int(math.Round(hot*100))
						cls = heatClass(sum / capacity)
					} else {
						absent = true
					}
				}
				if cls != runClass {
					if runClass >= 0 {
						fmt.Fprintf(&paths[runClass], "M%d %dh%dv%dh-%dz", labelWidth+runStart*cw, y, (b-runStart)*cw, hv.RowH, (b-runStart)*cw)
					}
					runStart, runClass = b, cls
				}
			}
			for _, i := range nodes {
				rowOf[tl.nodes[i].Name] = float64(y) + float64(hv.RowH)/2
			}
			full := tl.nodes[nodes[0]].Name
			if len(nodes) > 1 {
				full = fmt.Sprintf("%s … %s (%d nodes)", full, tl.nodes[nodes[len(nodes)-1]].Name, len(nodes))
			}
			hr := heatRow{Y: float64(y + hv.RowH/2), Title: full}
			if k%labelEvery == 0 {
				hr.Label = shorten(full)
			}
			if g.title != "" {
				full += "\n" + g.title
				hr.Title = full
			}
			hv.Rows = append(hv.Rows, hr)
			hd.Rows, hd.Y, hd.V = append(hd.Rows, full), append(hd.Y, y), append(hd.V, v)
			if hd.Max != nil {
				hd.Max = append(hd.Max, hottest)
			}
			y += hv.RowH
		}
	}
	for c := range paths {
		if paths[c].Len() > 0 {
			hv.Cells = append(hv.Cells, heatCells{Class: "h" + strconv.Itoa(c), D: paths[c].String()})
		}
	}
	for _, m := range marks {
		if ry, ok := rowOf[m.node]; ok && len(hv.Marks) < heatMaxMarks {
			hv.Marks = append(hv.Marks, heatMark{X: tl.x(m.at), Y: ry, Title: m.title})
		}
	}
	hv.Legend = heatLegend(absent)
	hv.AxisY = y
	hv.Height = hv.AxisY + 22
	order := "input order"
	if len(topo.keys) > 0 {
		order = "topology order"
	}
	hv.Note = heatNote(res, order, len(members), rows, band, bucket, absent)
	if len(members) > 0 {
		hv.Note += topo.describe(level)
	}
	return hv, hd
}

// heatUsage is the requested resource-seconds per member node and bucket.
func (tl *timeline) heatUsage(res string, member []int, members int, bucket float64) [][]float64 {
	used := make([][]float64, members)
	for i := range used {
		used[i] = make([]float64, heatBuckets)
	}
	for _, l := range tl.lives {
		q := float64(l.Requests[res])
		k := member[tl.node[l.Node]]
		if q <= 0 || k < 0 || l.End <= l.Start {
			continue
		}
		first, last := min(int(l.Start/bucket), heatBuckets-1), min(int(l.End/bucket), heatBuckets-1)
		for b := first; b <= last; b++ {
			lo, hi := math.Max(l.Start, float64(b)*bucket), math.Min(l.End, float64(b+1)*bucket)
			if hi > lo {
				used[k][b] += q * (hi - lo)
			}
		}
	}
	return used
}

func heatLegend(absent bool) []heatCells {
	var out []heatCells
	for c := 0; c < heatClasses; c++ {
		l := strconv.Itoa((c-1)*10) + "–" + strconv.Itoa(c*10) + "%"
		switch c {
		case 0:
			l = "0%"
		case 11:
			l = ">100%"
		}
		out = append(out, heatCells{Class: "h" + strconv.Itoa(c), Label: l})
	}
	if absent {
		out = append(out, heatCells{Class: "hnone", Label: "no node"})
	}
	return out
}

func heatNote(res, order string, members, rows, band int, bucket float64, absent bool) string {
	var s string
	switch {
	case members == 0:
		return "No node offers " + res + "."
	case band > 1:
		s = fmt.Sprintf("%d nodes offer %s, shown as %d rows of up to %d consecutive nodes each (%s); a row's colour is the share of its nodes' combined allocatable requested, averaged over each %s column.",
			members, res, rows, band, order, fmtSeconds(bucket))
	default:
		s = fmt.Sprintf("One row per node that offers %s (%d, %s); colour is the share of its allocatable requested, averaged over each %s column.",
			res, members, order, fmtSeconds(bucket))
	}
	if absent {
		s += " A node counts only while it exists: blank cells are times when no node of the row existed."
	}
	return s
}
