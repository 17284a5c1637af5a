package html

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// podIndex finds pods, their lifetimes and the events about them.
type podIndex struct {
	pod        map[string]int     // "ns/name" -> index in Report.Pods
	life       map[string]int     // "ns/name" -> index in Report.Lifetimes
	firstEvent map[string]float64 // "ns/name" -> time of the first event about the pod
	preempted  map[string]float64 // "ns/name" -> time of its Preempted event
	group      map[string]int     // "ns/name" -> index in Report.PodGroups
	members    map[string][]int   // group "ns/name" -> member pod indices, input order
}

func newPodIndex(r *report.Report) *podIndex {
	x := &podIndex{pod: map[string]int{}, life: map[string]int{}, firstEvent: map[string]float64{},
		preempted: map[string]float64{}, group: map[string]int{}, members: map[string][]int{}}
	for i, p := range r.Pods {
		k := p.Namespace + "/" + p.Name
		if _, dup := x.pod[k]; !dup {
			x.pod[k] = i
		}
		if p.PodGroup != "" {
			g := p.Namespace + "/" + p.PodGroup
			x.members[g] = append(x.members[g], i)
		}
	}
	for i, l := range r.Lifetimes {
		if l.Pod == "" {
			continue // a device's
		}
		if _, dup := x.life[l.Pod]; !dup {
			x.life[l.Pod] = i
		}
	}
	for i, g := range r.PodGroups {
		k := g.Namespace + "/" + g.Name
		if _, dup := x.group[k]; !dup {
			x.group[k] = i
		}
	}
	for _, e := range r.Events {
		k, ok := strings.CutPrefix(e.Object, "Pod/")
		if !ok {
			continue
		}
		if _, seen := x.firstEvent[k]; !seen {
			x.firstEvent[k] = e.Time
		}
		if _, seen := x.preempted[k]; !seen && e.Reason == "Preempted" {
			x.preempted[k] = e.Time
		}
	}
	return x
}

type ganttSection struct {
	Views []ganttView
	Shown int
	Total int
	// Namespaces and Groups of the pods shown, for the filter; Changed counts those that
	// did not just run from their creation to the end.
	Namespaces []string
	Groups     []string
	Changed    int
}

type ganttView struct {
	Title  string
	Height int
	Rows   []ganttRow
}

type ganttRow struct {
	Header bool
	Y      int
	Label  string
	Title  string
	Bars   []ganttBar
	// Marks are preemptions, Done a success, at these x.
	Marks []float64
	Done  []float64
	// What the filter reads.
	Namespace, Group string
	Changed          bool
}

type ganttBar struct {
	X, W  float64
	Class string
}

const ganttRowH = 14

// gantt draws the first pods in input order twice: grouped by node and, when there are
// groups, by PodGroup.
func (tl *timeline) gantt(r *report.Report, idx *podIndex) ganttSection {
	n := min(len(r.Pods), ganttMaxPods)
	sec := ganttSection{Shown: n, Total: len(r.Pods)}
	if n == 0 {
		return sec
	}
	for _, p := range r.Pods[:n] {
		if !slices.Contains(sec.Namespaces, p.Namespace) {
			sec.Namespaces = append(sec.Namespaces, p.Namespace)
		}
		if g := p.Namespace + "/" + p.PodGroup; p.PodGroup != "" && !slices.Contains(sec.Groups, g) {
			sec.Groups = append(sec.Groups, g)
		}
		if podChanged(p) {
			sec.Changed++
		}
	}
	slices.Sort(sec.Namespaces)
	slices.Sort(sec.Groups)
	start := func(i int) float64 {
		p := r.Pods[i]
		if li, ok := idx.life[p.Namespace+"/"+p.Name]; ok {
			return r.Lifetimes[li].Start
		}
		return math.Inf(1)
	}
	byNode := groupPods(n, func(i int) (string, int) {
		node := r.Pods[i].Node
		if node == "" {
			return "not scheduled", len(tl.nodes) + 1
		}
		if k, ok := tl.node[node]; ok {
			return node, k
		}
		return node, len(tl.nodes)
	}, start)
	sec.Views = append(sec.Views, tl.ganttView(r, idx, "By node", byNode, tl.nodeHeader))
	if len(idx.members) > 0 {
		byGroup := groupPods(n, func(i int) (string, int) {
			p := r.Pods[i]
			if p.PodGroup == "" {
				return "no pod group", len(r.PodGroups) + 1
			}
			k := p.Namespace + "/" + p.PodGroup
			if g, ok := idx.group[k]; ok {
				return k, g
			}
			return k, len(r.PodGroups)
		}, func(int) float64 { return 0 })
		sec.Views = append(sec.Views, tl.ganttView(r, idx, "By pod group", byGroup, nil))
	}
	return sec
}

type podGroupRows struct {
	name string
	pods []int
}

// groupPods groups pod indices [0,n) by key, groups in rank order (then name), pods by
// their order key (then input order).
func groupPods(n int, key func(int) (string, int), order func(int) float64) []podGroupRows {
	type grp struct {
		podGroupRows
		rank int
	}
	byName := map[string]*grp{}
	var all []*grp
	for i := 0; i < n; i++ {
		name, rank := key(i)
		g := byName[name]
		if g == nil {
			g = &grp{podGroupRows: podGroupRows{name: name}, rank: rank}
			byName[name] = g
			all = append(all, g)
		}
		g.pods = append(g.pods, i)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank
		}
		return all[i].name < all[j].name
	})
	out := make([]podGroupRows, len(all))
	for i, g := range all {
		sort.SliceStable(g.pods, func(a, b int) bool { return order(g.pods[a]) < order(g.pods[b]) })
		out[i] = g.podGroupRows
	}
	return out
}

// ganttView lays out the rows; header, when set, completes a group's header row.
func (tl *timeline) ganttView(r *report.Report, idx *podIndex, title string, groups []podGroupRows, header func(*ganttRow, string)) ganttView {
	v := ganttView{Title: title}
	y := 2
	for _, g := range groups {
		h := ganttRow{Header: true, Y: y, Label: shorten(g.name) + fmt.Sprintf(" · %d", len(g.pods)), Title: g.name}
		if header != nil {
			header(&h, g.name)
		}
		v.Rows = append(v.Rows, h)
		y += ganttRowH
		for _, i := range g.pods {
			row := tl.ganttRow(r, idx, i)
			row.Y = y
			v.Rows = append(v.Rows, row)
			y += ganttRowH
		}
	}
	v.Height = y + 8
	return v
}

// nodeHeader shows, for a node that did not last the whole run, when it existed.
func (tl *timeline) nodeHeader(h *ganttRow, name string) {
	k, ok := tl.node[name]
	if !ok {
		return
	}
	n, s := tl.nodes[k], tl.spans[k]
	if n.CreatedAt <= 0 && n.DeletedAt == nil {
		return
	}
	h.Title += "\nnode created at " + fmtSeconds(n.CreatedAt)
	if n.DeletedAt != nil {
		h.Title += ", deleted at " + fmtSeconds(*n.DeletedAt)
	}
	x0, x1 := tl.x(s.from), tl.x(s.to)
	h.Bars = append(h.Bars, ganttBar{X: x0, W: math.Max(x1-x0, 1.5), Class: "g-node"})
}

// podChanged tells a pod whose fate is worth finding: anything but running from its
// creation to the end (it waited, was preempted or deleted, succeeded, or still waits).
func podChanged(p report.Pod) bool {
	if p.Phase != report.PhaseRunning || p.PreemptedBy != nil || p.NominatedNode != "" || p.BoundAt == nil {
		return true
	}
	return p.CreatedAt != nil && *p.BoundAt > *p.CreatedAt
}

func (tl *timeline) ganttRow(r *report.Report, idx *podIndex, i int) ganttRow {
	p := r.Pods[i]
	k := p.Namespace + "/" + p.Name
	row := ganttRow{Label: shorten(k), Namespace: p.Namespace, Changed: podChanged(p)}
	if p.PodGroup != "" {
		row.Group = p.Namespace + "/" + p.PodGroup
	}
	bar := func(from, to float64, class string) {
		x0, x1 := tl.x(from), tl.x(to)
		row.Bars = append(row.Bars, ganttBar{X: x0, W: math.Max(x1-x0, 1.5), Class: class})
	}
	lines := []string{k + " — " + p.Phase}
	// The pod is pending from its creation; a report without it has the first event.
	created, seen := idx.firstEvent[k]
	from := " (first event)"
	if p.CreatedAt != nil {
		created, seen, from = *p.CreatedAt, true, ""
		lines = append(lines, "created at "+fmtSeconds(created))
	}
	// It terminates from the start of its deletion; a report without it has the preemption.
	deleted, deleting := idx.preempted[k]
	if p.DeletedAt != nil {
		deleted, deleting = *p.DeletedAt, true
	}
	requests := p.Requests
	li, bound := idx.life[k]
	switch {
	case bound:
		l := r.Lifetimes[li]
		if requests == nil {
			requests = l.Requests
		}
		if tl.noTime && l.Phase == report.PhaseRunning {
			l.End = tl.end
		}
		if seen && created < l.Start {
			bar(created, l.Start, "g-pend")
			lines = append(lines, "pending from "+fmtSeconds(created)+from+" until "+fmtSeconds(l.Start))
		}
		// Coloured by its state at each moment: running, then terminating (red when
		// preempted, grey when deleted otherwise) until it is gone.
		terminating := deleting && deleted < l.End
		runEnd := l.End
		if terminating {
			runEnd = math.Max(deleted, l.Start)
		}
		bar(l.Start, runEnd, "g-running")
		lines = append(lines, "on "+l.Node+" from "+fmtSeconds(l.Start)+" to "+fmtSeconds(l.End))
		if terminating {
			cls := "g-deleted"
			if p.PreemptedBy != nil || p.Phase == report.PhasePreempted {
				cls = "g-preempted"
			}
			bar(runEnd, l.End, cls)
			lines = append(lines, "terminating from "+fmtSeconds(deleted)+" until gone at "+fmtSeconds(l.End))
		}
		if p.Phase == report.PhaseSucceeded {
			row.Done = append(row.Done, tl.x(l.End))
		}
		if at, ok := idx.preempted[k]; ok {
			row.Marks = append(row.Marks, tl.x(at))
		}
	case seen && p.Phase == report.PhasePending:
		bar(created, tl.end, "g-pend")
		lines = append(lines, "pending since "+fmtSeconds(created)+from)
	case seen && deleting: // deleted before it was ever bound
		bar(created, math.Max(created, deleted), "g-pend")
		bar(deleted, deleted, "g-"+phaseClass(p.Phase))
		lines = append(lines, "pending from "+fmtSeconds(created)+from+" until deleted at "+fmtSeconds(deleted))
	case seen:
		bar(created, created, "g-"+phaseClass(p.Phase))
		if p.CreatedAt == nil {
			lines = append(lines, "first event at "+fmtSeconds(created))
		}
	}
	if p.PreemptedBy != nil {
		by := p.PreemptedBy.Kind + " " + p.PreemptedBy.Namespace + "/" + p.PreemptedBy.Name
		if at, ok := idx.preempted[k]; ok {
			by += " at " + fmtSeconds(at)
		}
		lines = append(lines, "preempted by "+by)
	}
	if p.PodGroup != "" {
		lines = append(lines, "pod group "+p.PodGroup)
	}
	lines = append(lines, "priority "+strconv.Itoa(int(p.Priority)))
	if s := fmtRequests(requests); s != "" {
		lines = append(lines, "requests "+s)
	}
	if p.NominatedNode != "" {
		lines = append(lines, "nominated node "+p.NominatedNode)
	}
	if p.Message != "" {
		lines = append(lines, p.Message)
	}
	row.Title = strings.Join(lines, "\n")
	return row
}

// fmtRequests writes requests as "cpu 0.5 cores, memory 1 GiB", cpu and memory first; the
// pod count every pod requests is left out.
func fmtRequests(req map[string]int64) string {
	var names []string
	for name, q := range req {
		if q > 0 && name != "pods" {
			names = append(names, name)
		}
	}
	rank := func(n string) int {
		switch n {
		case "cpu":
			return 0
		case "memory":
			return 1
		}
		return 2
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := rank(names[i]), rank(names[j]); a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + fmtQuantity(n, req[n])
	}
	return strings.Join(parts, ", ")
}
