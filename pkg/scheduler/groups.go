package scheduler

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// groupState is a PodGroup's pending members, scheduled together as one queue entry.
type groupState struct {
	key string
	// info is nil until the PodGroup object is seen.
	info    *framework.GroupInfo
	pending []*framework.PodInfo
	profile string
	// schedulerName is the spec.schedulerName of the first member seen; all must agree.
	schedulerName string
	// condition is the last PodGroupScheduled condition written, to write only changes.
	condition string
	// gatedSince is when the group was first held for lack of members (zero: it is not);
	// waitReported says the gang wait timeout was reported for this wait.
	gatedSince   time.Time
	waitReported bool
}

// groupEntryKey is the queue key of a group; it cannot clash with a pod's namespace/name.
func groupEntryKey(key string) string { return "PodGroup:" + key }

// pendingGroups are the PodGroups with pending members, each one queue entry: the groups
// as resolved from their objects and PriorityClasses, their members, and the gates that
// hold an entry back (groupgates.go).
type pendingGroups struct {
	cfg         *config.Configuration
	clock       framework.Clock
	cache       *cache.Cache
	queue       *queue.Queue
	profiles    map[string]*fwkruntime.Framework
	actuator    *actuator.Actuator
	status      *podStatus
	groupAPI    *groupAPI
	preemptions *preemptions
	profileFor  func(schedulerName string) (*fwkruntime.Framework, string, error)

	// classes are the PriorityClasses, for resolving PodGroups' priorities.
	classes map[string]*schedulingv1.PriorityClass
	// groups are the PodGroups with pending members, by namespace/name.
	groups map[string]*groupState
	// gangWaits are the groups held at their gate for lack of members whose wait has not
	// been reported yet.
	gangWaits map[*groupState]bool
}

// setPriorityClass records a PriorityClass; groups are resolved again.
func (pg *pendingGroups) setPriorityClass(pc *schedulingv1.PriorityClass) {
	pg.classes[pc.Name] = pc
	pg.refresh(func(*v1alpha1.PodGroup) bool { return true })
}

// deletePriorityClass forgets a PriorityClass; the groups that name it are resolved again.
func (pg *pendingGroups) deletePriorityClass(pc *schedulingv1.PriorityClass) {
	delete(pg.classes, pc.Name)
	pg.refresh(func(g *v1alpha1.PodGroup) bool { return g.Spec.PriorityClassName == pc.Name })
}

// setGroup records a PodGroup that appeared or changed, and retries its entry when the
// change may help.
func (pg *pendingGroups) setGroup(obj *v1alpha1.PodGroup) {
	g := pg.resolve(obj)
	old := pg.cache.Group(g.Key)
	pg.cache.SetGroup(g)
	pg.groupAPI.ensureClaims(g)
	gs := pg.groups[g.Key]
	if gs == nil {
		return
	}
	gs.info = g
	if entry := pg.queue.Get(groupEntryKey(g.Key)); entry != nil {
		entry.Priority = g.Priority
		mayHelp := old == nil || !apiequality.Semantic.DeepEqual(old.PodGroup.Spec, obj.Spec) || old.Invalid != g.Invalid ||
			!apiequality.Semantic.DeepEqual(old.PodGroup.Status.ResourceClaimStatuses, obj.Status.ResourceClaimStatuses)
		pg.queue.Update(entry, mayHelp)
	}
}

// deleteGroup forgets a PodGroup; its pending members wait for it to come back. Their
// nominations go (the room they held is free for others), and each says why it waits.
func (pg *pendingGroups) deleteGroup(obj *v1alpha1.PodGroup) {
	key := obj.Namespace + "/" + obj.Name
	pg.groupAPI.releaseClaims(obj)
	pg.cache.RemoveGroup(key)
	pg.groupAPI.forget(key)
	if gs := pg.groups[key]; gs != nil {
		gs.info = nil
		msg := groupMissingMessage(key)
		for _, p := range gs.pending {
			pg.status.dropNomination(p)
			pg.status.reportFailure(p, v1.PodReasonUnschedulable, msg)
		}
		if entry := pg.queue.Get(groupEntryKey(key)); entry != nil {
			pg.queue.Update(entry, true)
		}
	}
}

func (pg *pendingGroups) refresh(affected func(*v1alpha1.PodGroup) bool) {
	for _, key := range slices.Sorted(maps.Keys(pg.groups)) {
		if g := pg.cache.Group(key); g != nil && affected(g.PodGroup) {
			pg.setGroup(g.PodGroup)
		}
	}
}

// resolve computes a group's priority and preemptionPolicy as admission would for a pod
// (KEP-5710): priority, else the named class, else the global default, else 0; and says
// whether the group is invalid as written.
func (pg *pendingGroups) resolve(obj *v1alpha1.PodGroup) *framework.GroupInfo {
	g := &framework.GroupInfo{PodGroup: obj, Key: obj.Namespace + "/" + obj.Name, PreemptionPolicy: v1.PreemptLowerPriority}
	if reason := obj.Annotations[v1alpha1.AnnotationInvalidReason]; reason != "" {
		g.Invalid = reason // found by the driver edge (pkg/nativegroup)
	} else if errs := v1alpha1.ValidatePodGroup(obj); len(errs) > 0 {
		g.Invalid = errs.ToAggregate().Error()
	}
	var class *schedulingv1.PriorityClass
	switch name := obj.Spec.PriorityClassName; {
	case name != "":
		class = pg.classes[name]
		if class == nil && obj.Spec.Priority == nil && g.Invalid == "" {
			g.Invalid = fmt.Sprintf("spec.priorityClassName: Not found: no PriorityClass with name %q", name)
		}
	default:
		for _, name := range slices.Sorted(maps.Keys(pg.classes)) {
			if pg.classes[name].GlobalDefault {
				class = pg.classes[name]
				break
			}
		}
	}
	switch {
	case obj.Spec.Priority != nil:
		g.Priority = *obj.Spec.Priority
	case class != nil:
		g.Priority = class.Value
	}
	switch {
	case obj.Spec.PreemptionPolicy != nil:
		g.PreemptionPolicy = *obj.Spec.PreemptionPolicy
	case class != nil && class.PreemptionPolicy != nil:
		g.PreemptionPolicy = *class.PreemptionPolicy
	}
	return g
}

// updateMember refreshes a pending member after its pod changed. A status-only change (our
// own condition patches) keeps its PodInfo and does not retry the group.
func (pg *pendingGroups) updateMember(pod *v1.Pod, mayHelp bool) {
	gs := pg.groups[pod.Namespace+"/"+v1alpha1.PodGroupNameOf(pod)]
	key := pod.Namespace + "/" + pod.Name
	if gs != nil && !mayHelp {
		if i := slices.IndexFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key }); i >= 0 {
			gs.pending[i].Pod = pod
			return
		}
	}
	if _, profile, err := pg.profileFor(pod.Spec.SchedulerName); err == nil {
		pi := framework.NewPodInfo(pod)
		if pod.Status.NominatedNodeName != "" && pg.cache.NominatedNode(key) == "" {
			pg.cache.Nominate(pi, pod.Status.NominatedNodeName)
		}
		pg.addMember(pi, profile, mayHelp)
	}
}

// addMember puts a pending pod of a group into its group's queue entry; mayHelp says
// whether the change could let the group fit now.
func (pg *pendingGroups) addMember(pi *framework.PodInfo, profile string, mayHelp bool) {
	key := framework.GroupKey(pi)
	gs := pg.groups[key]
	if gs == nil {
		gs = &groupState{key: key, info: pg.cache.Group(key), profile: profile, schedulerName: pi.Pod.Spec.SchedulerName}
		pg.groups[key] = gs
	}
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
	ek := groupEntryKey(key)
	if entry := pg.queue.Get(ek); entry != nil {
		pg.queue.Update(entry, mayHelp)
		return
	}
	prio := pi.Priority
	if gs.info != nil {
		prio = gs.info.Priority
	}
	pg.queue.Add(&queue.Entry{QueuedUnit: framework.QueuedUnit{Key: ek, Priority: prio}, Group: gs, Profile: profile})
}

// removeMember takes a pod out of its group's pending members (bound or deleted).
func (pg *pendingGroups) removeMember(key, groupKey string) {
	gs := pg.groups[groupKey]
	if gs == nil {
		return
	}
	gs.pending = slices.DeleteFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key })
	if len(gs.pending) == 0 && pg.queue.Get(groupEntryKey(groupKey)) != nil {
		pg.queue.Delete(groupEntryKey(groupKey))
	}
}

// running reports whether a group already runs at least its minCount members: its pending
// members are extras, and their failures do not change the group's status.
func (pg *pendingGroups) running(g *framework.GroupInfo) bool {
	return len(pg.cache.GroupMembers(g.Key)) >= g.MinCount()
}
