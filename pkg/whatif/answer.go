package whatif

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// SchemaVersion is the version of -o json's shape (docs/whatif-report.schema.json): it
// changes when a field changes meaning or goes away; new fields keep it.
const SchemaVersion = 1

// Answer is what `phalanx whatif` says.
type Answer struct {
	SchemaVersion int `json:"schemaVersion"`
	// AllSchedule is true when every pod of every new workload is bound.
	AllSchedule bool       `json:"allSchedule"`
	Workloads   []Workload `json:"workloads"`
	// Cluster is what was simulated besides the new objects.
	Cluster Cluster `json:"cluster"`
	// VirtualSeconds is how far the what-if run went.
	VirtualSeconds float64 `json:"virtualSeconds"`
	// Violations are broken invariants of either run (with invariant checks on).
	Violations []string `json:"violations,omitempty"`
}

// Cluster counts the cluster's objects as the runs started.
type Cluster struct {
	Nodes   int `json:"nodes"`
	Pods    int `json:"pods"`
	Pending int `json:"pending"`
}

// Workload is the answer for one new workload: a Job, Deployment, ReplicaSet,
// StatefulSet or JobSet, the pods of one PodGroup, or a pod. Times are virtual seconds
// from now.
type Workload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// PodGroup is the group its pods belong to ("" when none).
	PodGroup string `json:"podGroup,omitempty"`
	Priority int32  `json:"priority"`
	// Pods is how many pods it made, Bound how many of them were bound.
	Pods  int `json:"pods"`
	Bound int `json:"bound"`
	// Schedules: every pod it made was bound (or ran to completion).
	Schedules bool `json:"schedules"`
	// StartsAt is when its last pod was bound (null when it never is);
	// WaitsForVictims how long of that it waited for its victims to go (their grace
	// periods), from its first preemption.
	StartsAt        *float64 `json:"startsAt"`
	WaitsForVictims *float64 `json:"waitsForVictims,omitempty"`
	// Nodes are the nodes its pods were bound to, with how many on each.
	Nodes []NodePods `json:"nodes"`
	// Domains are, for its group's topology keys and the zone and region, the values its
	// nodes have: one value is one domain.
	Domains []Domain `json:"domains"`
	// Waiting are its pods never bound, and why.
	Waiting []WaitingPod `json:"waiting"`
	// Preempts are the pods it preempts.
	Preempts []Victim `json:"preempts"`
	// Overtakes are already-pending pods that run later, or not at all, because of the
	// new work; OvertakenBy already-pending pods of its priority or higher bound while it
	// waited.
	Overtakes   []PendingPod `json:"overtakes"`
	OvertakenBy []PendingPod `json:"overtakenBy"`
}

// NodePods is a node and how many of a workload's pods it holds.
type NodePods struct {
	Node string `json:"node"`
	Pods int    `json:"pods"`
}

// Domain is a topology key and the values a workload's nodes have for it.
type Domain struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// WaitingPod is a pod of a new workload that is never bound.
type WaitingPod struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// Victim is a pod preempted for a new workload.
type Victim struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Owner     *report.ObjectRef `json:"owner"`
	Priority  int32             `json:"priority"`
	Node      string            `json:"node"`
	// PreemptedAt is when its deletion started.
	PreemptedAt float64 `json:"preemptedAt"`
	// Restart says whether its controller makes it again and where that runs:
	// "at-once" (bound the moment it is made), "later", "waiting" (never bound), "none"
	// (no controller replaces it).
	Restart     string       `json:"restart"`
	Replacement *Replacement `json:"replacement"`
}

// Replacement is the pod a victim's controller made in its place.
type Replacement struct {
	Name      string   `json:"name"`
	CreatedAt float64  `json:"createdAt"`
	Node      string   `json:"node"`
	BoundAt   *float64 `json:"boundAt"`
	Message   string   `json:"message"`
}

// PendingPod is an already-pending pod and its fate without and with the new work.
type PendingPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Priority  int32  `json:"priority"`
	// BoundAtWithout and BoundAt are when it is bound without the new work and with it
	// (null: never); Node where it is bound with it.
	BoundAtWithout *float64 `json:"boundAtWithout"`
	BoundAt        *float64 `json:"boundAt"`
	Node           string   `json:"node"`
}

// The Restart values.
const (
	RestartAtOnce  = "at-once"
	RestartLater   = "later"
	RestartWaiting = "waiting"
	RestartNone    = "none"
)

// question is what answer needs besides the runs' reports.
type question struct {
	scenario *admission.Scenario
	news     []any
	pending  map[string]bool
}

// unit is a new workload being answered for, and its pods in the what-if report.
type unit struct {
	Workload
	pods []*report.Pod
}

func (q question) answer(runs *Runs) *Answer {
	r := runs.WhatIf
	a := &Answer{SchemaVersion: SchemaVersion, AllSchedule: true, Workloads: []Workload{},
		VirtualSeconds: r.Summary.VirtualSeconds, Violations: append(runs.Baseline.Violations, r.Violations...)}
	units := q.units(r)
	a.Cluster.Nodes = len(runs.Baseline.Nodes)
	for i := range runs.Baseline.Pods {
		if runs.Baseline.Pods[i].Replaces == "" {
			a.Cluster.Pods++
		}
	}
	a.Cluster.Pending = len(q.pending)
	nodes := map[string]map[string]string{}
	for _, n := range r.Nodes {
		nodes[n.Name] = n.Labels
	}
	baseline := byKey(runs.Baseline.Pods)
	keys := q.topologyKeys()
	for _, u := range units {
		u.describe(r, nodes, keys[u.PodGroup])
		u.overtakenBy(r, baseline, q.pending)
	}
	attributeDelays(units, delayed(r, baseline, q.pending))
	for _, u := range units {
		a.AllSchedule = a.AllSchedule && u.Schedules
		a.Workloads = append(a.Workloads, u.Workload)
	}
	return a
}

// units are the new workloads in input order: each workload a controller makes pods for,
// then the new pods grouped by their PodGroup, then new pods of no group one by one.
func (q question) units(r *report.Report) []*unit {
	var units []*unit
	byWorkload := map[string]*unit{}
	byGroup := map[string]*unit{}
	bare := map[string]*unit{}
	for _, o := range q.news {
		kind, m, isWorkload := admission.WorkloadOf(o)
		switch {
		case isWorkload:
			u := &unit{Workload: Workload{Kind: kind, Namespace: m.Namespace, Name: m.Name}}
			byWorkload[workload.Ref{Kind: kind, Namespace: m.Namespace, Name: m.Name}.String()] = u
			units = append(units, u)
		case isPod(o):
			p := o.(*v1.Pod)
			g := v1alpha1.PodGroupNameOf(p)
			if g == "" {
				u := &unit{Workload: Workload{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}}
				bare[p.Namespace+"/"+p.Name] = u
				units = append(units, u)
			} else if byGroup[p.Namespace+"/"+g] == nil {
				u := &unit{Workload: Workload{Kind: "PodGroup", Namespace: p.Namespace, Name: g, PodGroup: g}}
				byGroup[p.Namespace+"/"+g] = u
				units = append(units, u)
			}
		}
	}
	for i := range r.Pods {
		p := &r.Pods[i]
		switch {
		case byWorkload[p.Workload] != nil:
			byWorkload[p.Workload].add(p)
		case p.Replaces != "" || p.Workload != "":
			// a replacement of a cluster pod, or a pod of a cluster workload
		case bare[p.Namespace+"/"+p.Name] != nil:
			bare[p.Namespace+"/"+p.Name].add(p)
		case byGroup[p.Namespace+"/"+p.PodGroup] != nil && q.isNewPod(p):
			byGroup[p.Namespace+"/"+p.PodGroup].add(p)
		}
	}
	return units
}

func (u *unit) add(p *report.Pod) {
	u.pods = append(u.pods, p)
	u.Priority = max(u.Priority, p.Priority)
	if p.PodGroup != "" {
		u.PodGroup = p.PodGroup
	}
}

func (q question) isNewPod(p *report.Pod) bool {
	for _, o := range q.news {
		if np, ok := o.(*v1.Pod); ok && np.Namespace == p.Namespace && np.Name == p.Name {
			return true
		}
	}
	return false
}

// describe fills in where, when and whom: bound pods and their nodes and domains, waiting
// pods, victims and what becomes of them.
func (u *unit) describe(r *report.Report, nodes map[string]map[string]string, groupKeys []string) {
	u.Pods = len(u.pods)
	u.Nodes, u.Domains, u.Waiting, u.Preempts, u.Overtakes, u.OvertakenBy = []NodePods{}, []Domain{}, []WaitingPod{}, []Victim{}, []PendingPod{}, []PendingPod{}
	counts := map[string]int{}
	var last float64
	for _, p := range u.pods {
		if p.BoundAt == nil {
			u.Waiting = append(u.Waiting, WaitingPod{Name: p.Name, Message: p.Message})
			continue
		}
		u.Bound++
		counts[p.Node]++
		last = max(last, *p.BoundAt)
	}
	u.Schedules = u.Pods > 0 && u.Bound == u.Pods
	if u.Schedules {
		u.StartsAt = &last
	}
	for _, n := range slices.Sorted(maps.Keys(counts)) {
		u.Nodes = append(u.Nodes, NodePods{Node: n, Pods: counts[n]})
	}
	for _, key := range append(groupKeys, "topology.kubernetes.io/region", "topology.kubernetes.io/zone") {
		values := map[string]bool{}
		for n := range counts {
			if v, ok := nodes[n][key]; ok {
				values[v] = true
			}
		}
		if len(values) > 0 && !slices.ContainsFunc(u.Domains, func(d Domain) bool { return d.Key == key }) {
			u.Domains = append(u.Domains, Domain{Key: key, Values: slices.Sorted(maps.Keys(values))})
		}
	}
	u.victims(r)
}

// victims are the pods preempted by the unit's pods or its group, with what their
// controllers make of them.
func (u *unit) victims(r *report.Report) {
	preemptors := map[report.ObjectRef]bool{}
	for _, p := range u.pods {
		preemptors[report.ObjectRef{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}] = true
		if p.PodGroup != "" {
			preemptors[report.ObjectRef{Kind: "PodGroup", Namespace: p.Namespace, Name: p.PodGroup}] = true
		}
	}
	first := -1.0
	for i := range r.Pods {
		v := &r.Pods[i]
		if v.PreemptedBy == nil || !preemptors[*v.PreemptedBy] || v.DeletedAt == nil {
			continue
		}
		vic := Victim{Namespace: v.Namespace, Name: v.Name, Owner: v.Owner, Priority: v.Priority, Node: v.Node, PreemptedAt: *v.DeletedAt, Restart: RestartNone}
		if rep := replacementOf(r, v); rep != nil {
			vic.Replacement = &Replacement{Name: rep.Name, Node: rep.Node, BoundAt: rep.BoundAt, Message: rep.Message}
			if rep.CreatedAt != nil {
				vic.Replacement.CreatedAt = *rep.CreatedAt
			}
			switch {
			case rep.BoundAt == nil:
				vic.Restart = RestartWaiting
			case rep.CreatedAt != nil && *rep.BoundAt == *rep.CreatedAt:
				vic.Restart = RestartAtOnce
			default:
				vic.Restart = RestartLater
			}
		}
		u.Preempts = append(u.Preempts, vic)
		if first < 0 || vic.PreemptedAt < first {
			first = vic.PreemptedAt
		}
	}
	if first >= 0 && u.StartsAt != nil && *u.StartsAt > first {
		w := *u.StartsAt - first
		u.WaitsForVictims = &w
	}
}

// replacementOf is the first pod made in place of a victim.
func replacementOf(r *report.Report, v *report.Pod) *report.Pod {
	for i := range r.Pods {
		if p := &r.Pods[i]; p.Namespace == v.Namespace && p.Replaces == v.Name && p.CreatedAt != nil && v.DeletedAt != nil && *p.CreatedAt >= *v.DeletedAt {
			return p
		}
	}
	return nil
}

// delayed are the cluster's pending pods that the new work makes wait longer, or for good:
// bound later than without it, or never (its victims aside).
func delayed(r *report.Report, baseline map[string]*report.Pod, pending map[string]bool) []delay {
	var out []delay
	for i := range r.Pods {
		p := &r.Pods[i]
		b := baseline[p.Namespace+"/"+p.Name]
		if !pending[p.Namespace+"/"+p.Name] || p.Replaces != "" || p.PreemptedBy != nil || b == nil || b.BoundAt == nil {
			continue
		}
		if p.BoundAt == nil || *p.BoundAt > *b.BoundAt {
			out = append(out, delay{pending: pendingPod(p, b), nodeWithout: b.Node})
		}
	}
	return out
}

// delay is a pending pod the new work delays, and the node it had without the new work.
type delay struct {
	pending     PendingPod
	nodeWithout string
}

func pendingPod(p, without *report.Pod) PendingPod {
	pp := PendingPod{Namespace: p.Namespace, Name: p.Name, Priority: p.Priority, BoundAt: p.BoundAt, Node: p.Node}
	if without != nil {
		pp.BoundAtWithout = without.BoundAt
	}
	return pp
}

// attributeDelays gives each delayed pod to the new workloads that took the node it had
// without them, before it was bound; failing that, to those bound before it.
func attributeDelays(units []*unit, delays []delay) {
	for _, d := range delays {
		before := func(p *report.Pod) bool {
			return p.BoundAt != nil && (d.pending.BoundAt == nil || *p.BoundAt <= *d.pending.BoundAt)
		}
		var tookNode, boundBefore []*unit
		for _, u := range units {
			if slices.ContainsFunc(u.pods, func(p *report.Pod) bool { return before(p) && p.Node == d.nodeWithout }) {
				tookNode = append(tookNode, u)
			} else if slices.ContainsFunc(u.pods, before) {
				boundBefore = append(boundBefore, u)
			}
		}
		if len(tookNode) == 0 {
			tookNode = boundBefore
		}
		for _, u := range tookNode {
			u.Overtakes = append(u.Overtakes, d.pending)
		}
	}
}

// overtakenBy are the cluster's pending pods of the unit's priority or higher bound while
// it waited (it was not bound at once).
func (u *unit) overtakenBy(r *report.Report, baseline map[string]*report.Pod, pending map[string]bool) {
	if u.StartsAt != nil && *u.StartsAt == 0 {
		return
	}
	for i := range r.Pods {
		p := &r.Pods[i]
		if !pending[p.Namespace+"/"+p.Name] || p.Replaces != "" || p.BoundAt == nil || p.Priority < u.Priority {
			continue
		}
		if u.StartsAt == nil || *p.BoundAt < *u.StartsAt {
			u.OvertakenBy = append(u.OvertakenBy, pendingPod(p, baseline[p.Namespace+"/"+p.Name]))
		}
	}
}

// topologyKeys are each PodGroup's topology keys, by name.
func (q question) topologyKeys() map[string][]string {
	out := map[string][]string{}
	for _, g := range q.scenario.PodGroups {
		if c := g.Spec.SchedulingConstraints; c != nil {
			for _, l := range c.Topology {
				out[g.Name] = append(out[g.Name], l.Key)
			}
		}
	}
	for _, g := range q.scenario.NativePodGroups {
		if c := g.Spec.SchedulingConstraints; c != nil {
			for _, l := range c.Topology {
				out[g.Name] = append(out[g.Name], l.Key)
			}
		}
	}
	return out
}

func byKey(pods []report.Pod) map[string]*report.Pod {
	out := map[string]*report.Pod{}
	for i := range pods {
		p := &pods[i]
		if _, seen := out[p.Namespace+"/"+p.Name]; !seen {
			out[p.Namespace+"/"+p.Name] = p
		}
	}
	return out
}

func isPod(o any) bool { _, ok := o.(*v1.Pod); return ok }
