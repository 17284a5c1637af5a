package scheduler

import (
	"cmp"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/groupapi"
	"github.com/phalanx-dev/phalanx/pkg/preemptexec"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// groupState is a scheduling unit's pending members, scheduled together as one queue
// entry: a PodGroup's, or those of every PodGroup of a gang CompositePodGroup's hierarchy
// (composite).
type groupState struct {
	key string
	// composite says the unit is a CompositePodGroup.
	composite bool
	// info is nil until the PodGroup (or CompositePodGroup) object is seen.
	info    *framework.GroupInfo
	pending []*framework.PodInfo
	profile string
	// schedulerName is the spec.schedulerName of the first member seen; all must agree.
	schedulerName string
	// gatedSince is when the unit was first held for lack of members (zero: it is not);
	// waitReported says the gang wait timeout was reported for this wait.
	gatedSince   time.Time
	waitReported bool
}

// groupEntryKey is the queue key of a PodGroup; it cannot clash with a pod's
// namespace/name.
func groupEntryKey(key string) string { return "PodGroup:" + key }

// compositeEntryKey is the queue key of a CompositePodGroup.
func compositeEntryKey(key string) string { return "CompositePodGroup:" + key }

// unitKey is the queue key of a group's unit: its PodGroup's, or its composite's.
func unitKey(g *framework.GroupInfo) string {
	if g.IsComposite() {
		return compositeEntryKey(g.Key)
	}
	return groupEntryKey(g.Key)
}

// groupOf is the group of a queue entry that is a unit (nil until its object is seen).
func groupOf(entry *queue.Entry) *framework.GroupInfo { return entry.Group.(*groupState).info }

// entryKey is the unit's queue key.
func (gs *groupState) entryKey() string {
	if gs.composite {
		return compositeEntryKey(gs.key)
	}
	return groupEntryKey(gs.key)
}

// pendingGroups are the scheduling units with pending members, each one queue entry: a
// PodGroup, or a gang CompositePodGroup with every PodGroup of its hierarchy
// (composites.go). It resolves the groups from their objects and PriorityClasses
// (groupobjects.go) and holds an entry back at its gates (groupgates.go).
type pendingGroups struct {
	cfg         *config.Configuration
	clock       framework.Clock
	groupStore  *cache.GroupStore
	nominations *cache.NominationStore
	queue       *queue.Queue
	profiles    map[string]*fwkruntime.Framework
	actuator    *actuator.Actuator
	status      *podStatus
	groupAPI    *groupapi.Writer
	preemptions *preemptexec.Preemptions
	profileFor  func(schedulerName string) (*fwkruntime.Framework, string, error)

	// classes are the PriorityClasses, for resolving groups' priorities.
	classes map[string]*schedulingv1.PriorityClass
	// groups are the PodGroups with pending members of their own, by namespace/name, and
	// composites the gang CompositePodGroups with pending members in their hierarchy.
	groups     map[string]*groupState
	composites map[string]*groupState
	// filed says which unit each pending member is filed under, by pod key.
	filed map[string]*groupState
	// gangWaits are the units held at their gate for lack of members whose wait has not
	// been reported yet.
	gangWaits map[*groupState]bool
	// refused are the groups and composites (by unitKey) left below their minCount by a
	// member's binding the API server refused: they say PodGroupScheduled=False until
	// enough members are bound again, not Scheduled again when the members are placed.
	refused map[string]bool
}

// updateMember refreshes a pending member after its pod changed. A status-only change (our
// own condition patches) keeps its PodInfo and does not retry the group.
func (pg *pendingGroups) updateMember(pod *v1.Pod, mayHelp bool) {
	key := pod.Namespace + "/" + pod.Name
	if gs := pg.filed[key]; gs != nil && !mayHelp {
		if i := slices.IndexFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key }); i >= 0 {
			gs.pending[i].Pod = pod
			return
		}
	}
	if _, profile, err := pg.profileFor(pod.Spec.SchedulerName); err == nil {
		pi := framework.NewPodInfo(pod)
		if pod.Status.NominatedNodeName != "" && pg.nominations.NominatedNode(key) == "" {
			pg.nominations.Nominate(pi, pod.Status.NominatedNodeName)
		}
		pg.addMember(pi, profile, mayHelp)
	}
}

// addMember files a pending pod of a group under its unit's queue entry (its PodGroup's,
// or its gang composite's); mayHelp says whether the change could let the unit fit now.
func (pg *pendingGroups) addMember(pi *framework.PodInfo, profile string, mayHelp bool) {
	key, composite := pg.unitOf(framework.GroupKey(pi))
	gs := pg.unit(key, composite, profile, pi.Pod.Spec.SchedulerName)
	if old := pg.filed[pi.Key]; old != nil && old != gs {
		pg.removeMember(pi.Key)
	}
	pg.filed[pi.Key] = gs
	if i := slices.IndexFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == pi.Key }); i >= 0 {
		gs.pending[i] = pi
	} else {
		gs.pending = append(gs.pending, pi)
	}
	slices.SortStableFunc(gs.pending, func(a, b *framework.PodInfo) int {
		if c := a.Pod.CreationTimestamp.Compare(b.Pod.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	if entry := pg.queue.Get(gs.entryKey()); entry != nil {
		pg.queue.Update(entry, mayHelp)
		return
	}
	prio := pi.Priority
	if gs.info != nil {
		prio = gs.info.Priority
	}
	pg.queue.Add(&queue.Entry{QueuedUnit: framework.QueuedUnit{Key: gs.entryKey(), Priority: prio}, Group: gs, Profile: profile})
}

// unit returns the state of a unit, made on first use.
func (pg *pendingGroups) unit(key string, composite bool, profile, schedulerName string) *groupState {
	units, info := pg.groups, pg.groupStore.Group(key)
	if composite {
		units, info = pg.composites, pg.groupStore.Composite(key)
	}
	gs := units[key]
	if gs == nil {
		gs = &groupState{key: key, composite: composite, info: info, profile: profile, schedulerName: schedulerName}
		units[key] = gs
	}
	return gs
}

// removeMember takes a pod out of its unit's pending members (bound or deleted).
func (pg *pendingGroups) removeMember(key string) {
	gs := pg.filed[key]
	if gs == nil {
		return
	}
	delete(pg.filed, key)
	gs.pending = slices.DeleteFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key })
	if len(gs.pending) == 0 && pg.queue.Get(gs.entryKey()) != nil {
		pg.queue.Delete(gs.entryKey())
	}
}

// unitOf returns the unit a PodGroup's members are scheduled in: the highest gang
// composite above it (whose whole hierarchy is placed at once), or the group itself. A
// composite not known yet ends the walk: the members wait for it in the unit found so
// far, whose gate says so.
func (pg *pendingGroups) unitOf(groupKey string) (key string, composite bool) {
	key = groupKey
	g := pg.groupStore.Group(groupKey)
	if g == nil {
		return key, false
	}
	seen := map[string]bool{}
	for parent := g.ParentKey(); parent != "" && !seen[parent]; {
		seen[parent] = true
		c := pg.groupStore.Composite(parent)
		if c == nil {
			break
		}
		if c.Gang() {
			key, composite = parent, true
		}
		parent = c.ParentKey()
	}
	return key, composite
}

// refile moves every pending member whose unit changed (a composite came, went or
// changed) to its unit now.
func (pg *pendingGroups) refile() {
	for _, key := range sortedKeys(pg.filed) {
		gs := pg.filed[key]
		i := slices.IndexFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key })
		if i < 0 {
			continue
		}
		p := gs.pending[i]
		if unit, composite := pg.unitOf(framework.GroupKey(p)); unit != gs.key || composite != gs.composite {
			pg.addMember(p, gs.profile, true)
		}
	}
}
