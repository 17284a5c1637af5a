package html

import (
	"math"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// timeline holds what the time charts share: the run's span, the nodes by name and when
// each existed.
type timeline struct {
	end    float64 // seconds drawn; at least the run's virtual time
	noTime bool    // no virtual time elapsed: the charts show the final state over [0,1)
	nodes  []report.Node
	node   map[string]int
	spans  []span            // per node: when it existed, clipped to [0,end]
	lives  []report.Lifetime // on known nodes, clipped to [0,end]
}

// span is a stretch of time [from,to).
type span struct{ from, to float64 }

// overlap is how long s and [lo,hi) share.
func (s span) overlap(lo, hi float64) float64 {
	return math.Max(0, math.Min(s.to, hi)-math.Max(s.from, lo))
}

func newTimeline(r *report.Report) *timeline {
	tl := &timeline{end: r.Summary.VirtualSeconds, node: map[string]int{}}
	for _, n := range r.Nodes {
		if _, dup := tl.node[n.Name]; !dup {
			tl.node[n.Name] = len(tl.nodes)
			tl.nodes = append(tl.nodes, n)
		}
	}
	for _, l := range r.Lifetimes {
		tl.end = math.Max(tl.end, l.End)
	}
	for _, e := range r.Events {
		tl.end = math.Max(tl.end, e.Time)
	}
	for _, p := range r.Pods {
		for _, t := range []*float64{p.CreatedAt, p.DeletedAt} {
			if t != nil {
				tl.end = math.Max(tl.end, *t)
			}
		}
	}
	if tl.end <= 0 {
		tl.end, tl.noTime = 1, true
	}
	for _, n := range tl.nodes {
		// A node still there at the end lasts to the end, also when no time elapsed.
		s := span{from: tl.clip(n.CreatedAt), to: tl.end}
		if n.DeletedAt != nil {
			s.to = math.Max(s.from, tl.clip(*n.DeletedAt))
		}
		tl.spans = append(tl.spans, s)
	}
	for _, l := range r.Lifetimes {
		if _, ok := tl.node[l.Node]; !ok {
			continue
		}
		l.Start = math.Max(0, l.Start)
		if tl.noTime && l.Phase == report.PhaseRunning {
			l.End = tl.end
		}
		l.End = math.Min(math.Max(l.End, l.Start), tl.end)
		tl.lives = append(tl.lives, l)
	}
	return tl
}

func (tl *timeline) clip(t float64) float64 { return math.Min(math.Max(t, 0), tl.end) }

// x is the horizontal position of a time.
func (tl *timeline) x(t float64) float64 {
	return labelWidth + tl.clip(t)/tl.end*plotWidth
}

type tick struct {
	X     float64
	Label string
}

func (tl *timeline) ticks() []tick {
	if tl.noTime {
		return []tick{{X: tl.x(0), Label: "0s"}}
	}
	step := niceStep(tl.end / 8)
	var out []tick
	for i := 0; ; i++ {
		t := float64(i) * step
		if t > tl.end*(1+1e-9) {
			break
		}
		out = append(out, tick{X: tl.x(t), Label: fmtSeconds(t)})
	}
	return out
}

// niceStep is the smallest round duration not below s: 1-2-5 fractions of a second, then
// 1, 2, 5, 10, 15 and 30 seconds, minutes and hours, then 1-2-5 days.
func niceStep(s float64) float64 {
	if s < 1 {
		p := math.Pow(10, math.Floor(math.Log10(s)))
		for _, m := range []float64{1, 2, 5} {
			if m*p >= s*(1-1e-9) {
				return m * p
			}
		}
		return 1
	}
	for _, c := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400} {
		if c >= s*(1-1e-9) {
			return c
		}
	}
	return 86400 * niceStep(s/86400)
}
