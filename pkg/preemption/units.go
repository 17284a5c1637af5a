package preemption

import (
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// unit is what preemption removes or keeps as one (KEP-5710's preemption unit): a single
// pod, or every bound member of a PodGroup whose disruption mode is All.
type unit struct {
	key  string
	pods []*framework.PodInfo
	// group is true for a whole group of disruption mode All.
	group bool
	// priority is the victim priority of its pods: their group's when they belong to one.
	priority int32
	qos      int
	start    time.Time
}

// bestEffort reports whether the unit is a single BestEffort pod that frees nothing but
// its pod slot: it is never a victim for resources (the preemption design). A pod of
// BestEffort QoS that requests extended resources or holds ResourceClaims (devices) does
// free something, and is not one.
func (u *unit) bestEffort() bool {
	return !u.group && freesNoResources(u.pods[0])
}

// freesNoResources reports whether a pod, taken off its node, would free no resource but
// its pod slot: BestEffort (no cpu or memory requests), no extended resources, no claims.
func freesNoResources(q *framework.PodInfo) bool {
	if q.QOS != v1.PodQOSBestEffort || len(q.Pod.Spec.ResourceClaims) > 0 {
		return false
	}
	for _, i := range q.RequestIdx {
		if i != resource.Pods && q.Requests.Vector[i] != 0 {
			return false
		}
	}
	return true
}

// mayHelp reports whether taking the unit off can help the preemptor's pods: always,
// except for a BestEffort pod, which frees no room (its pod slot stays taken). Such a pod
// can still block a preemptor through its own required anti-affinity or host ports, or a
// preemptor whose constraints involve other pods.
func (u *unit) mayHelp(pods []*framework.PodInfo) bool {
	if !u.bestEffort() {
		return true
	}
	q := u.pods[0]
	if len(q.RequiredAntiAffinity) > 0 || len(q.HostPorts) > 0 {
		return true
	}
	for _, p := range pods {
		if p.HasInterPodConstraints() {
			return true
		}
	}
	return false
}

// VictimPriority is the priority a pod has as a preemption victim: that of the smallest
// unit holding it (KEP-5710): a CompositePodGroup of disruption mode All above its group,
// else its group's when it belongs to a known PodGroup (the group's priority is
// authoritative), else its own. Both preemption paths and the invariant checks use it.
func VictimPriority(snap framework.Snapshot, p *framework.PodInfo) int32 {
	if p.Group != "" {
		if g := snap.Group(framework.GroupKey(p)); g != nil {
			if g.ParentKey() != "" {
				if root := framework.DisruptionRoot(snap, g.Key); root != nil {
					return root.Priority
				}
			}
			return g.Priority
		}
	}
	return p.Priority
}

// unitIndex groups pods into preemption units; the members of an All group are taken from
// the cache, wherever they run.
type unitIndex struct {
	snap  framework.Snapshot
	units map[string]*unit
}

func newUnitIndex(snap framework.Snapshot) *unitIndex {
	return &unitIndex{snap: snap, units: map[string]*unit{}}
}

// of returns the unit of a pod. A pod outside groups of disruption mode All is a unit of
// its own, made afresh without the index (the common case, on the preemption hot path):
// callers visit each pod once.
func (x *unitIndex) of(p *framework.PodInfo) *unit {
	key := p.Key
	var g *framework.GroupInfo
	gk := ""
	if p.Group != "" {
		gk = framework.GroupKey(p)
		g = x.snap.Group(gk)
	}
	if g != nil && g.ParentKey() != "" {
		if root := framework.DisruptionRoot(x.snap, gk); root != nil {
			return x.compositeUnit(root, p)
		}
	}
	if g == nil || !g.DisruptAll() {
		prio := p.Priority
		if g != nil {
			prio = g.Priority
		}
		return &unit{key: key, pods: []*framework.PodInfo{p}, priority: prio, start: p.StartTime(), qos: qosRank[p.QOS]}
	}
	key = "PodGroup:" + gk
	if u := x.units[key]; u != nil {
		return u
	}
	// A whole group: all its bound members, wherever they run.
	u := &unit{key: key, group: true, priority: g.Priority}
	members := x.snap.GroupMembers(gk)
	if !slices.Contains(members, p) {
		members = append(slices.Clone(members), p)
	}
	u.pods = members
	for i, q := range u.pods {
		if t := q.StartTime(); i == 0 || t.Before(u.start) {
			u.start = t
		}
	}
	x.units[key] = u
	return u
}

// compositeUnit is the unit of a CompositePodGroup of disruption mode All: every bound
// member of every PodGroup of its hierarchy, with the composite's priority.
func (x *unitIndex) compositeUnit(root *framework.GroupInfo, p *framework.PodInfo) *unit {
	key := "CompositePodGroup:" + root.Key
	if u := x.units[key]; u != nil {
		return u
	}
	u := &unit{key: key, group: true, priority: root.Priority}
	for _, gk := range x.snap.CompositeGroups(root.Key) {
		u.pods = append(u.pods, x.snap.GroupMembers(gk)...)
	}
	if !slices.Contains(u.pods, p) {
		u.pods = append(u.pods, p)
	}
	for i, q := range u.pods {
		if t := q.StartTime(); i == 0 || t.Before(u.start) {
			u.start = t
		}
	}
	x.units[key] = u
	return u
}

// qosRank orders QoS classes by importance (the preemption design): Guaranteed >
// Burstable > BestEffort.
var qosRank = map[v1.PodQOSClass]int{v1.PodQOSGuaranteed: 2, v1.PodQOSBurstable: 1, v1.PodQOSBestEffort: 0}

// moreImportantUnit orders units from the most important: higher priority, then groups
// before single pods (KEP-5710), then better QoS class and earlier start (the preemption
// design), then key.
func moreImportantUnit(a, b *unit) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.group != b.group {
		return a.group
	}
	if a.qos != b.qos {
		return a.qos > b.qos
	}
	if !a.start.Equal(b.start) {
		return a.start.Before(b.start)
	}
	return a.key < b.key
}

func sortUnits(us []*unit) {
	slices.SortFunc(us, func(a, b *unit) int {
		switch {
		case moreImportantUnit(a, b):
			return -1
		case moreImportantUnit(b, a):
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
}

// splitUnitsByPDB divides units (in importance order) into those whose preemption would
// violate a PodDisruptionBudget and the others; a unit violates when any of its pods does.
func splitUnitsByPDB(us []*unit, pdbs []*framework.PDBInfo) (violating, ok []*unit) {
	if len(pdbs) == 0 {
		return nil, us
	}
	var pods []*framework.PodInfo
	for _, u := range us {
		pods = append(pods, u.pods...)
	}
	bad, _ := splitByPDB(pods, pdbs)
	isBad := map[*framework.PodInfo]bool{}
	for _, p := range bad {
		isBad[p] = true
	}
	for _, u := range us {
		if slices.ContainsFunc(u.pods, func(p *framework.PodInfo) bool { return isBad[p] }) {
			violating = append(violating, u)
		} else {
			ok = append(ok, u)
		}
	}
	return violating, ok
}

// podsOf lists the pods of units.
func podsOf(us []*unit) []*framework.PodInfo {
	var out []*framework.PodInfo
	for _, u := range us {
		out = append(out, u.pods...)
	}
	return out
}
