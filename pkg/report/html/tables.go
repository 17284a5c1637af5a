package html

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

type preemptSection struct {
	Victims        []victimRow
	VictimTotal    int
	Preemptors     []preemptorRow
	PreemptorTotal int
	Events         []eventRow
	EventTotal     int
}

type victimRow struct {
	Time      string
	Victim    string
	Priority  int32
	Node      string
	Group     string
	Phase     string
	ByKind    string
	By        string
	ByAnchor  string
	ByPrio    string
	ByOutcome string
	time      float64
	order     int
}

type preemptorRow struct {
	Kind, Name, Anchor string
	Victims            int
	Nodes              string
	First              string
	first              float64
}

func preemptions(r *report.Report, idx *podIndex) preemptSection {
	var sec preemptSection
	var victims []victimRow
	type agg struct {
		row   preemptorRow
		nodes map[string]bool
	}
	byPreemptor := map[string]*agg{}
	for i, p := range r.Pods {
		if p.PreemptedBy == nil && p.Phase != report.PhasePreempted {
			continue
		}
		k := p.Namespace + "/" + p.Name
		at, ok := idx.preempted[k]
		if !ok {
			if li, bound := idx.life[k]; bound {
				at = r.Lifetimes[li].End
			}
		}
		v := victimRow{Time: fmtSeconds(at), Victim: k, Priority: p.Priority, Node: p.Node, Group: p.PodGroup,
			Phase: p.Phase, By: "unknown", time: at, order: i}
		if b := p.PreemptedBy; b != nil {
			v.ByKind, v.By = b.Kind, b.Namespace+"/"+b.Name
			v.ByPrio, v.ByOutcome, v.ByAnchor = preemptorFacts(r, idx, b)
			a := byPreemptor[b.Kind+"/"+v.By]
			if a == nil {
				a = &agg{row: preemptorRow{Kind: b.Kind, Name: v.By, Anchor: v.ByAnchor, first: at}, nodes: map[string]bool{}}
				byPreemptor[b.Kind+"/"+v.By] = a
			}
			a.row.Victims++
			a.row.first = math.Min(a.row.first, at)
			if p.Node != "" {
				a.nodes[p.Node] = true
			}
		}
		victims = append(victims, v)
	}
	sort.SliceStable(victims, func(i, j int) bool {
		if victims[i].time != victims[j].time {
			return victims[i].time < victims[j].time
		}
		return victims[i].order < victims[j].order
	})
	sec.VictimTotal = len(victims)
	sec.Victims = victims[:min(len(victims), listMaxRows)]

	for _, a := range byPreemptor {
		nodes := make([]string, 0, len(a.nodes))
		for n := range a.nodes {
			nodes = append(nodes, n)
		}
		sort.Strings(nodes)
		if len(nodes) > 5 {
			nodes = append(nodes[:5], fmt.Sprintf("… %d more", len(a.nodes)-5))
		}
		a.row.Nodes = strings.Join(nodes, ", ")
		a.row.First = fmtSeconds(a.row.first)
		sec.Preemptors = append(sec.Preemptors, a.row)
	}
	sort.Slice(sec.Preemptors, func(i, j int) bool {
		a, b := sec.Preemptors[i], sec.Preemptors[j]
		if a.first != b.first {
			return a.first < b.first
		}
		return a.Kind+"/"+a.Name < b.Kind+"/"+b.Name
	})
	sec.PreemptorTotal = len(sec.Preemptors)
	sec.Preemptors = sec.Preemptors[:min(len(sec.Preemptors), listMaxRows)]

	for _, e := range r.Events {
		if e.Reason == "Preempted" || e.Reason == "FailedScheduling" {
			if sec.EventTotal < listMaxRows {
				sec.Events = append(sec.Events, newEventRow(e))
			}
			sec.EventTotal++
		}
	}
	return sec
}

// preemptorFacts are the preemptor's priority, what became of it and the anchor of its
// group's row.
func preemptorFacts(r *report.Report, idx *podIndex, b *report.ObjectRef) (prio, outcome, anchor string) {
	k := b.Namespace + "/" + b.Name
	if b.Kind == "Pod" {
		if i, ok := idx.pod[k]; ok {
			p := r.Pods[i]
			outcome = p.Phase
			if p.Node != "" {
				outcome += " on " + p.Node
			}
			if p.PodGroup != "" {
				if g, ok := idx.group[p.Namespace+"/"+p.PodGroup]; ok {
					anchor = "pg-" + strconv.Itoa(g)
				}
			}
			return strconv.Itoa(int(p.Priority)), outcome, anchor
		}
		return "", "", ""
	}
	switch b.Kind {
	case "PodGroup":
		var g *report.Group
		if gi, ok := idx.group[k]; ok {
			g = &r.PodGroups[gi]
			outcome, anchor = g.Phase, "pg-"+strconv.Itoa(gi)
		}
		prio = groupPriority(r, idx, g, k)
	case "CompositePodGroup":
		if ci, ok := compositeIndex(r)[k]; ok {
			c := r.CompositePodGroups[ci]
			outcome, anchor = c.Phase, "cpg-"+strconv.Itoa(ci)
			if c.Priority != nil {
				prio = strconv.Itoa(int(*c.Priority))
			}
		}
	}
	return prio, outcome, anchor
}

// compositeIndex maps "ns/name" to the index of a composite in Report.CompositePodGroups.
func compositeIndex(r *report.Report) map[string]int {
	out := map[string]int{}
	for i, c := range r.CompositePodGroups {
		if _, dup := out[c.Namespace+"/"+c.Name]; !dup {
			out[c.Namespace+"/"+c.Name] = i
		}
	}
	return out
}

// groupPriority is the group's own priority; for a group without one (a report that lacks
// it, or a group no class gave one) its members', which validation makes equal.
func groupPriority(r *report.Report, idx *podIndex, g *report.Group, k string) string {
	if g != nil && g.Priority != nil {
		return strconv.Itoa(int(*g.Priority))
	}
	if m := idx.members[k]; len(m) > 0 {
		return strconv.Itoa(int(r.Pods[m[0]].Priority))
	}
	return ""
}

type groupSection struct {
	Rows  []groupRow
	Total int
	// Composites are the CompositePodGroups, each with its child groups and composites.
	Composites     []compositeRow
	CompositeTotal int
}

type groupRow struct {
	Anchor     string
	Namespace  string
	Name       string
	Parent     link // its composite, if any
	Phase      string
	Priority   string
	MinCount   int32 // 0 when the report does not say
	Conditions []report.Condition
	Members    int
	Counts     []phaseCount
	Listed     []memberRow
	More       int
}

type phaseCount struct {
	Phase string
	N     int
}

type memberRow struct {
	Name, Phase, Node string
}

var phaseOrder = []string{report.PhaseRunning, report.PhaseSucceeded, report.PhasePending, report.PhasePreempted, report.PhaseDeleted}

// link names a group or composite, with the anchor of its row when it has one.
type link struct {
	Name, Anchor, Phase string
}

// compositeRow is a CompositePodGroup: its spec as read, status and children.
type compositeRow struct {
	Anchor        string
	Namespace     string
	Name          string
	Parent        link
	Phase         string
	Priority      string
	MinGroupCount int32
	Conditions    []report.Condition
	Children      []link
}

// parentLink is the link to a group's or composite's parent composite ("" when none).
func parentLink(r *report.Report, composites map[string]int, namespace, parent string) link {
	l := link{Name: parent}
	if i, ok := composites[namespace+"/"+parent]; ok && parent != "" {
		l.Anchor = "cpg-" + strconv.Itoa(i)
	}
	return l
}

// compositeRows lists the composites with their children, groups first.
func compositeRows(r *report.Report, idx *podIndex) []compositeRow {
	composites := compositeIndex(r)
	children := map[string][]link{}
	for gi, g := range r.PodGroups {
		if g.Parent != "" {
			k := g.Namespace + "/" + g.Parent
			children[k] = append(children[k], link{Name: g.Name, Anchor: "pg-" + strconv.Itoa(gi), Phase: g.Phase})
		}
	}
	for ci, c := range r.CompositePodGroups {
		if c.Parent != "" {
			k := c.Namespace + "/" + c.Parent
			children[k] = append(children[k], link{Name: c.Name, Anchor: "cpg-" + strconv.Itoa(ci), Phase: c.Phase})
		}
	}
	var out []compositeRow
	for ci, c := range r.CompositePodGroups[:min(len(r.CompositePodGroups), groupMaxRows)] {
		row := compositeRow{Anchor: "cpg-" + strconv.Itoa(ci), Namespace: c.Namespace, Name: c.Name, Phase: c.Phase,
			Parent: parentLink(r, composites, c.Namespace, c.Parent), MinGroupCount: c.MinCount, Conditions: c.Conditions,
			Children: children[c.Namespace+"/"+c.Name]}
		if c.Priority != nil {
			row.Priority = strconv.Itoa(int(*c.Priority))
		}
		out = append(out, row)
	}
	return out
}

func groups(r *report.Report, idx *podIndex) groupSection {
	sec := groupSection{Total: len(r.PodGroups), CompositeTotal: len(r.CompositePodGroups), Composites: compositeRows(r, idx)}
	composites := compositeIndex(r)
	for gi, g := range r.PodGroups[:min(len(r.PodGroups), groupMaxRows)] {
		k := g.Namespace + "/" + g.Name
		row := groupRow{Anchor: "pg-" + strconv.Itoa(gi), Namespace: g.Namespace, Name: g.Name, Phase: g.Phase,
			Parent:   parentLink(r, composites, g.Namespace, g.Parent),
			Priority: groupPriority(r, idx, &g, k), MinCount: g.MinCount, Conditions: g.Conditions}
		m := idx.members[k]
		row.Members = len(m)
		counts := map[string]int{}
		for j, i := range m {
			p := r.Pods[i]
			counts[p.Phase]++
			if j < groupMembers {
				row.Listed = append(row.Listed, memberRow{Name: p.Name, Phase: p.Phase, Node: p.Node})
			}
		}
		row.More = len(m) - len(row.Listed)
		for _, ph := range phaseOrder {
			if counts[ph] > 0 {
				row.Counts = append(row.Counts, phaseCount{ph, counts[ph]})
				delete(counts, ph)
			}
		}
		var other []string
		for ph := range counts {
			other = append(other, ph)
		}
		sort.Strings(other)
		for _, ph := range other {
			row.Counts = append(row.Counts, phaseCount{ph, counts[ph]})
		}
		sec.Rows = append(sec.Rows, row)
	}
	return sec
}

type eventSection struct {
	Rows    []eventRow
	Total   int
	Reasons []phaseCount
}

type eventRow struct {
	Time                          string
	Object, Type, Reason, Message string
}

func newEventRow(e report.Event) eventRow {
	return eventRow{Time: fmtSeconds(e.Time), Object: e.Object, Type: e.Type, Reason: e.Reason, Message: e.Message}
}

func events(r *report.Report) eventSection {
	sec := eventSection{Total: len(r.Events)}
	counts := map[string]int{}
	for i, e := range r.Events {
		counts[e.Reason]++
		if i < eventMaxRows {
			sec.Rows = append(sec.Rows, newEventRow(e))
		}
	}
	for reason, n := range counts {
		sec.Reasons = append(sec.Reasons, phaseCount{reason, n})
	}
	sort.Slice(sec.Reasons, func(i, j int) bool { return sec.Reasons[i].Phase < sec.Reasons[j].Phase })
	return sec
}
