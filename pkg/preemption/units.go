package preemption

import (
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// Unit is what preemption removes or keeps as one (KEP-5710's preemption unit): a single
// pod, or every bound member of a PodGroup whose disruption mode is All. Units are made by
// a UnitIndex, one per pod or group, and compared by pointer; their fields are read only.
type Unit struct {
	// Key is the pod's key, or "PodGroup:" or "CompositePodGroup:" and the group's.
	Key  string
	Pods []*framework.PodInfo
	// Group is true for a whole group of disruption mode All.
	Group bool
	// Priority is the victim priority of its pods: their group's when they belong to one.
	Priority int32
	// QOS ranks the QoS class (qosRank), Start is the earliest start of its pods.
	QOS   int
	Start time.Time
}

// BestEffort reports whether the unit is a single BestEffort pod that frees nothing but
// its pod slot: it is never a victim for resources (the preemption design). A pod of
// BestEffort QoS that requests extended resources or holds ResourceClaims (devices) does
// free something, and is not one.
func (u *Unit) BestEffort() bool {
	return !u.Group && FreesNoResources(u.Pods[0])
}

// FreesNoResources reports whether a pod, taken off its node, would free no resource but
// its pod slot: BestEffort (no cpu or memory requests), no extended resources, no claims.
func FreesNoResources(q *framework.PodInfo) bool {
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

// MayHelp reports whether taking the unit off can help the preemptor's pods: always,
// except for a BestEffort pod, which frees no room (its pod slot stays taken). Such a pod
// can still block a preemptor through its own required anti-affinity or host ports, or a
// preemptor whose constraints involve other pods.
func (u *Unit) MayHelp(pods []*framework.PodInfo) bool {
	if !u.BestEffort() {
		return true
	}
	q := u.Pods[0]
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
		if prio, ok := GroupVictimPriority(snap, framework.GroupKey(p)); ok {
			return prio
		}
	}
	return p.Priority
}

// GroupVictimPriority is the priority VictimPriority gives every pod of a group (by
// namespace/name): its disruption root's, else its own; false when the snapshot has no
// such group (each pod then counts at its own priority).
func GroupVictimPriority(snap framework.Snapshot, key string) (int32, bool) {
	g := snap.Group(key)
	if g == nil {
		return 0, false
	}
	if g.ParentKey() != "" {
		if root := framework.DisruptionRoot(snap, g.Key); root != nil {
			return root.Priority, true
		}
	}
	return g.Priority, true
}

// UnitIndex groups pods into preemption units; the members of an All group are taken from
// the cache, wherever they run.
type UnitIndex struct {
	snap  framework.Snapshot
	units map[string]*Unit
}

// NewUnitIndex returns an empty index over the snapshot, for one decision.
func NewUnitIndex(snap framework.Snapshot) *UnitIndex {
	return &UnitIndex{snap: snap, units: map[string]*Unit{}}
}

// Of returns the unit of a pod. A pod outside groups of disruption mode All is a unit of
// its own, made afresh without the index (the common case, on the preemption hot path):
// callers visit each pod once.
func (x *UnitIndex) Of(p *framework.PodInfo) *Unit {
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
		return &Unit{Key: key, Pods: []*framework.PodInfo{p}, Priority: prio, Start: p.StartTime(), QOS: qosRank[p.QOS]}
	}
	key = "PodGroup:" + gk
	if u := x.units[key]; u != nil {
		return u
	}
	// A whole group: all its bound members, wherever they run.
	u := &Unit{Key: key, Group: true, Priority: g.Priority}
	members := x.snap.GroupMembers(gk)
	if !slices.Contains(members, p) {
		members = append(slices.Clone(members), p)
	}
	u.Pods = members
	for i, q := range u.Pods {
		if t := q.StartTime(); i == 0 || t.Before(u.Start) {
			u.Start = t
		}
	}
	x.units[key] = u
	return u
}

// compositeUnit is the unit of a CompositePodGroup of disruption mode All: every bound
// member of every PodGroup of its hierarchy, with the composite's priority.
func (x *UnitIndex) compositeUnit(root *framework.GroupInfo, p *framework.PodInfo) *Unit {
	key := "CompositePodGroup:" + root.Key
	if u := x.units[key]; u != nil {
		return u
	}
	u := &Unit{Key: key, Group: true, Priority: root.Priority}
	for _, gk := range x.snap.CompositeGroups(root.Key) {
		u.Pods = append(u.Pods, x.snap.GroupMembers(gk)...)
	}
	if !slices.Contains(u.Pods, p) {
		u.Pods = append(u.Pods, p)
	}
	for i, q := range u.Pods {
		if t := q.StartTime(); i == 0 || t.Before(u.Start) {
			u.Start = t
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
func moreImportantUnit(a, b *Unit) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.Group != b.Group {
		return a.Group
	}
	if a.QOS != b.QOS {
		return a.QOS > b.QOS
	}
	if !a.Start.Equal(b.Start) {
		return a.Start.Before(b.Start)
	}
	return a.Key < b.Key
}

// SortUnits orders units from the most important (moreImportantUnit), as the victim
// search and every Cost expect them.
func SortUnits(us []*Unit) {
	slices.SortFunc(us, func(a, b *Unit) int {
		switch {
		case moreImportantUnit(a, b):
			return -1
		case moreImportantUnit(b, a):
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// SplitUnitsByPDB divides units (in importance order) into those whose preemption would
// violate a PodDisruptionBudget and the others; a unit violates when any of its pods does.
func SplitUnitsByPDB(us []*Unit, pdbs []*framework.PDBInfo) (violating, ok []*Unit) {
	if len(pdbs) == 0 {
		return nil, us
	}
	var pods []*framework.PodInfo
	for _, u := range us {
		pods = append(pods, u.Pods...)
	}
	bad, _ := splitByPDB(pods, pdbs)
	isBad := map[*framework.PodInfo]bool{}
	for _, p := range bad {
		isBad[p] = true
	}
	for _, u := range us {
		if slices.ContainsFunc(u.Pods, func(p *framework.PodInfo) bool { return isBad[p] }) {
			violating = append(violating, u)
		} else {
			ok = append(ok, u)
		}
	}
	return violating, ok
}

// PodsOf lists the pods of units.
func PodsOf(us []*Unit) []*framework.PodInfo {
	var out []*framework.PodInfo
	for _, u := range us {
		out = append(out, u.Pods...)
	}
	return out
}

// PriorityLevels are the distinct priorities of units, ascending.
func PriorityLevels(us []*Unit) []int32 {
	var out []int32
	for _, u := range us {
		out = append(out, u.Priority)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
