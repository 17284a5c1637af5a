package scheduler

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
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

// AddPriorityClass records a PriorityClass; groups that name it are resolved again.
func (s *Scheduler) AddPriorityClass(pc *schedulingv1.PriorityClass) {
	s.classes[pc.Name] = pc
	s.refreshGroups(func(g *v1alpha1.PodGroup) bool { return true })
}

// DeletePriorityClass forgets a PriorityClass.
func (s *Scheduler) DeletePriorityClass(pc *schedulingv1.PriorityClass) {
	delete(s.classes, pc.Name)
	s.refreshGroups(func(g *v1alpha1.PodGroup) bool { return g.Spec.PriorityClassName == pc.Name })
}

// AddPodGroup handles a PodGroup that appeared or changed.
func (s *Scheduler) AddPodGroup(pg *v1alpha1.PodGroup) {
	g := s.resolveGroup(pg)
	old := s.cache.Group(g.Key)
	s.cache.SetGroup(g)
	s.ensureGroupClaims(g)
	gs := s.groups[g.Key]
	if gs == nil {
		return
	}
	gs.info = g
	if e := s.queue.Get(groupEntryKey(g.Key)); e != nil {
		e.Priority = g.Priority
		mayHelp := old == nil || !apiequality.Semantic.DeepEqual(old.PodGroup.Spec, pg.Spec) || old.Invalid != g.Invalid ||
			!apiequality.Semantic.DeepEqual(old.PodGroup.Status.ResourceClaimStatuses, pg.Status.ResourceClaimStatuses)
		s.queue.Update(e, mayHelp)
	}
}

// UpdatePodGroup handles a changed PodGroup.
func (s *Scheduler) UpdatePodGroup(_, pg *v1alpha1.PodGroup) { s.AddPodGroup(pg) }

// DeletePodGroup forgets a PodGroup; its pending members wait for it to come back. Their
// nominations go (the room they held is free for others), and each says why it waits.
func (s *Scheduler) DeletePodGroup(pg *v1alpha1.PodGroup) {
	key := pg.Namespace + "/" + pg.Name
	s.releaseGroupClaims(pg)
	s.cache.RemoveGroup(key)
	delete(s.statusWriters, key)
	if gs := s.groups[key]; gs != nil {
		gs.info = nil
		msg := groupMissingMessage(key)
		for _, p := range gs.pending {
			if s.cache.ClearNomination(p.Key) != "" || p.Pod.Status.NominatedNodeName != "" {
				s.clearNominatedNodeName(p)
			}
			s.reportFailure(p, v1.PodReasonUnschedulable, msg)
		}
		if e := s.queue.Get(groupEntryKey(key)); e != nil {
			s.queue.Update(e, true)
		}
	}
}

func (s *Scheduler) refreshGroups(affected func(*v1alpha1.PodGroup) bool) {
	for _, key := range s.sortedGroupKeys() {
		if g := s.cache.Group(key); g != nil && affected(g.PodGroup) {
			s.AddPodGroup(g.PodGroup)
		}
	}
}

func (s *Scheduler) sortedGroupKeys() []string {
	keys := make([]string, 0, len(s.groups))
	for k := range s.groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// resolveGroup computes a group's priority and preemptionPolicy as admission would for a
// pod (KEP-5710): priority, else the named class, else the global default, else 0; and
// says whether the group is invalid as written.
func (s *Scheduler) resolveGroup(pg *v1alpha1.PodGroup) *framework.GroupInfo {
	g := &framework.GroupInfo{PodGroup: pg, Key: pg.Namespace + "/" + pg.Name, PreemptionPolicy: v1.PreemptLowerPriority}
	if reason := pg.Annotations[v1alpha1.AnnotationInvalidReason]; reason != "" {
		g.Invalid = reason // found by the driver edge (pkg/nativegroup)
	} else if errs := v1alpha1.ValidatePodGroup(pg); len(errs) > 0 {
		g.Invalid = errs.ToAggregate().Error()
	}
	var class *schedulingv1.PriorityClass
	switch name := pg.Spec.PriorityClassName; {
	case name != "":
		class = s.classes[name]
		if class == nil && pg.Spec.Priority == nil && g.Invalid == "" {
			g.Invalid = fmt.Sprintf("spec.priorityClassName: Not found: no PriorityClass with name %q", name)
		}
	default:
		for _, name := range slices.Sorted(maps.Keys(s.classes)) {
			if s.classes[name].GlobalDefault {
				class = s.classes[name]
				break
			}
		}
	}
	switch {
	case pg.Spec.Priority != nil:
		g.Priority = *pg.Spec.Priority
	case class != nil:
		g.Priority = class.Value
	}
	switch {
	case pg.Spec.PreemptionPolicy != nil:
		g.PreemptionPolicy = *pg.Spec.PreemptionPolicy
	case class != nil && class.PreemptionPolicy != nil:
		g.PreemptionPolicy = *class.PreemptionPolicy
	}
	return g
}

// updatePendingMember refreshes a pending member after its pod changed. A status-only
// change (our own condition patches) keeps its PodInfo and does not retry the group.
func (s *Scheduler) updatePendingMember(pod *v1.Pod, mayHelp bool) {
	gs := s.groups[pod.Namespace+"/"+v1alpha1.PodGroupNameOf(pod)]
	key := pod.Namespace + "/" + pod.Name
	if gs != nil && !mayHelp {
		if i := slices.IndexFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key }); i >= 0 {
			gs.pending[i].Pod = pod
			return
		}
	}
	if _, profile, err := s.profileFor(pod.Spec.SchedulerName); err == nil {
		pi := framework.NewPodInfo(pod)
		if pod.Status.NominatedNodeName != "" && s.cache.NominatedNode(key) == "" {
			s.cache.Nominate(pi, pod.Status.NominatedNodeName)
		}
		s.addPendingMember(pi, profile, mayHelp)
	}
}

// addPendingMember puts a pending pod of a group into its group's queue entry; mayHelp
// says whether the change could let the group fit now.
func (s *Scheduler) addPendingMember(pi *framework.PodInfo, profile string, mayHelp bool) {
	key := framework.GroupKey(pi)
	gs := s.groups[key]
	if gs == nil {
		gs = &groupState{key: key, info: s.cache.Group(key), profile: profile, schedulerName: pi.Pod.Spec.SchedulerName}
		s.groups[key] = gs
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
	if e := s.queue.Get(ek); e != nil {
		s.queue.Update(e, mayHelp)
		return
	}
	prio := pi.Priority
	if gs.info != nil {
		prio = gs.info.Priority
	}
	s.queue.Add(&queue.Entry{QueuedUnit: framework.QueuedUnit{Key: ek, Priority: prio}, Group: gs, Profile: profile})
}

// removePendingMember takes a pod out of its group's pending members (bound or deleted).
func (s *Scheduler) removePendingMember(key, groupKey string) {
	gs := s.groups[groupKey]
	if gs == nil {
		return
	}
	gs.pending = slices.DeleteFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key })
	if len(gs.pending) == 0 && s.queue.Get(groupEntryKey(groupKey)) != nil {
		s.queue.Delete(groupEntryKey(groupKey))
	}
}

// groupPreEnqueue is the gate of a group entry: its preemption still being carried out,
// the PodGroup missing, the group invalid or inconsistent with its members, or (through
// the GroupPreEnqueue plugins) a gang not yet complete.
func (s *Scheduler) groupPreEnqueue(e *queue.Entry, gs *groupState) *framework.Status {
	if st := s.preemptionGate(e.Key); st != nil {
		return st
	}
	if gs.info == nil {
		return framework.NewStatus(framework.Pending, groupMissingMessage(gs.key)).WithPlugin(gateGroupMissing)
	}
	g := gs.info
	if msg := s.groupProblem(gs); msg != "" {
		changed := s.setGroupCondition(gs, false, v1alpha1.PodGroupReasonSchedulerError, msg)
		if changed {
			s.actuator.Event(g.PodGroup, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
		}
		// Every member hears why, members that join the invalid group later too.
		for _, p := range gs.pending {
			if changed || s.failures[p.Key] != msg {
				s.reportFailure(p, v1.PodReasonSchedulerError, msg)
			}
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg).WithPlugin(gateGroupInvalid)
	}
	fwk := s.profiles[e.Profile]
	running := len(s.cache.GroupMembers(g.Key))
	if st := fwk.RunGroupPreEnqueuePlugins(context.Background(), g, gs.pending, running); !st.IsSuccess() {
		if gs.gatedSince.IsZero() {
			gs.gatedSince, gs.waitReported = s.clock.Now(), false
			s.gangWaits[gs] = true
		}
		msg := st.Message()
		if gs.waitReported {
			msg = s.gangWaitMessage(msg)
		}
		s.setGroupCondition(gs, false, v1alpha1.PodGroupReasonUnschedulable, msg)
		return st
	}
	gs.gatedSince = time.Time{}
	delete(s.gangWaits, gs)
	return nil
}

// gangWaitMessage says a gang has waited for its members longer than GangWaitTimeout.
func (s *Scheduler) gangWaitMessage(gate string) string {
	return fmt.Sprintf("%s for more than %s", gate, s.cfg.GangWaitTimeout.Duration)
}

// reportGangWaits tells about the gangs held at their gate for lack of members longer than
// GangWaitTimeout: phalanx never reserves room for part of a gang, so nothing is released,
// but the group's condition, a Warning event and each pending member's PodScheduled
// condition say that the members are late, once per wait.
func (s *Scheduler) reportGangWaits() {
	if len(s.gangWaits) == 0 {
		return
	}
	now := s.clock.Now()
	for _, gs := range slices.SortedFunc(maps.Keys(s.gangWaits), func(a, b *groupState) int { return strings.Compare(a.key, b.key) }) {
		if gs.waitReported || now.Before(gs.gatedSince.Add(s.cfg.GangWaitTimeout.Duration)) {
			continue
		}
		delete(s.gangWaits, gs)
		e := s.queue.Get(groupEntryKey(gs.key))
		if gs.info == nil || e == nil || !e.Gated() {
			// No longer waiting (its members are gone): a new wait starts afresh.
			gs.gatedSince = time.Time{}
			continue
		}
		gs.waitReported = true
		msg := s.gangWaitMessage(e.GatedMessage)
		s.setGroupCondition(gs, false, v1alpha1.PodGroupReasonUnschedulable, msg)
		s.actuator.Event(gs.info.PodGroup, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
		for _, p := range gs.pending {
			s.reportFailure(p, v1.PodReasonUnschedulable, msg)
		}
	}
}

// nextGangWaitDeadline is when the next gang wait timeout is due.
func (s *Scheduler) nextGangWaitDeadline() (time.Time, bool) {
	var next time.Time
	for gs := range s.gangWaits {
		if t := gs.gatedSince.Add(s.cfg.GangWaitTimeout.Duration); next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next, !next.IsZero()
}

// groupProblem says why a group can never be scheduled as it stands: an invalid spec or
// an unknown class, or a member whose priority, preemptionPolicy or scheduler name differs
// from the group's (KEP-5710's messages); "" when it can.
func (s *Scheduler) groupProblem(gs *groupState) string {
	g := gs.info
	if g.Invalid != "" {
		return g.Invalid
	}
	for _, p := range gs.pending {
		if msg := framework.MemberMismatch(g, p, gs.schedulerName); msg != "" {
			return msg
		}
	}
	return ""
}

// groupMissingMessage says a member waits for its PodGroup object.
func groupMissingMessage(key string) string { return "waiting for PodGroup " + key + " to be created" }

// Pseudo-plugins that gate group entries; only a change to the group or its members (or
// the end of a preemption) releases them.
const (
	gateGroupMissing = "PodGroupMissing"
	gateGroupInvalid = "PodGroupInvalid"
)
