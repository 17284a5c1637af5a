package scheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// Pseudo-plugins that gate group entries; only a change to the group or its members (or
// the end of a preemption) releases them.
const (
	gateGroupMissing = "PodGroupMissing"
	gateGroupInvalid = "PodGroupInvalid"
	// gateCompositeIncomplete holds a gang composite until enough of its groups have their
	// pods; a new member is what lifts it.
	gateCompositeIncomplete = "CompositePodGroupIncomplete"
)

// msgCompositeWaitingForGroups is the gate's message for a gang composite whose groups lack
// pods, in the words of the GangScheduling plugin's.
const msgCompositeWaitingForGroups = "waiting for minGroupCount pod groups of a composite pod group to have their pods"

// gate is the PreEnqueue check of a group entry: its preemption still being carried out,
// the PodGroup missing, the group invalid or inconsistent with its members, or (through the
// GroupPreEnqueue plugins) a gang not yet complete.
func (pg *pendingGroups) gate(entry *queue.Entry, gs *groupState) *framework.Status {
	if st := pg.preemptions.Gate(entry.Key); st != nil {
		return st
	}
	kind := "PodGroup"
	if gs.composite {
		kind = "CompositePodGroup"
	}
	if gs.info == nil {
		return framework.NewStatus(framework.Pending, groupMissingMessage(kind, gs.key)).WithPlugin(gateGroupMissing)
	}
	g := gs.info
	if parent := pg.missingAncestor(g); parent != "" {
		// The group (or composite) is there to say why it waits, as a gang short of members does.
		msg := groupMissingMessage("CompositePodGroup", parent)
		pg.groupAPI.SetCondition(g, false, v1alpha1.PodGroupReasonUnschedulable, msg)
		return framework.NewStatus(framework.Pending, msg).WithPlugin(gateGroupMissing)
	}
	var tree *placement.Tree
	culprit, msg := pg.aboveProblem(g)
	switch {
	case msg != "":
	case gs.composite:
		tree, msg = pg.tree(gs)
	default:
		msg = pg.problem(gs)
	}
	if msg != "" {
		if culprit != nil && pg.groupAPI.SetCondition(culprit, false, v1alpha1.PodGroupReasonSchedulerError, msg) {
			pg.actuator.Event(culprit.Object(), nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
		}
		changed := pg.groupAPI.SetCondition(g, false, v1alpha1.PodGroupReasonSchedulerError, msg)
		if changed {
			pg.actuator.Event(g.Object(), nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
		}
		// Every member hears why, members that join the invalid group later too.
		for _, p := range gs.pending {
			if changed || pg.status.failures[p.Key] != msg {
				pg.status.reportFailure(p, v1.PodReasonSchedulerError, msg)
			}
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, msg).WithPlugin(gateGroupInvalid)
	}
	var st *framework.Status
	if gs.composite {
		if !tree.Completable() {
			st = framework.NewStatus(framework.Pending, fmt.Sprintf("%s (%d of %d)", msgCompositeWaitingForGroups,
				completeChildren(tree), g.MinCount())).WithPlugin(gateCompositeIncomplete)
		}
	} else {
		fwk := pg.profiles[entry.Profile]
		st = fwk.RunGroupPreEnqueuePlugins(context.Background(), g, gs.pending, len(pg.groupStore.GroupMembers(g.Key)))
	}
	if !st.IsSuccess() {
		if gs.gatedSince.IsZero() {
			gs.gatedSince, gs.waitReported = pg.clock.Now(), false
			pg.gangWaits[gs] = true
		}
		msg := st.Message()
		if gs.waitReported {
			msg = pg.gangWaitMessage(msg)
		}
		pg.groupAPI.SetCondition(g, false, v1alpha1.PodGroupReasonUnschedulable, msg)
		return st
	}
	gs.gatedSince = time.Time{}
	delete(pg.gangWaits, gs)
	return nil
}

// problem says why a group can never be scheduled as it stands: an invalid spec or an
// unknown class, or a member whose priority, preemptionPolicy or scheduler name differs
// from the group's (KEP-5710's messages); "" when it can.
func (pg *pendingGroups) problem(gs *groupState) string {
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

// groupMissingMessage says a member waits for a PodGroup or CompositePodGroup object.
func groupMissingMessage(kind, key string) string {
	return "waiting for " + kind + " " + key + " to be created"
}

// gangWaitMessage says a gang has waited for its members longer than GangWaitTimeout.
func (pg *pendingGroups) gangWaitMessage(gate string) string {
	return fmt.Sprintf("%s for more than %s", gate, pg.cfg.GangWaitTimeout.Duration)
}

// reportGangWaits tells about the gangs held at their gate for lack of members longer than
// GangWaitTimeout: phalanx never reserves room for part of a gang, so nothing is released,
// but the group's condition, a Warning event and each pending member's PodScheduled
// condition say that the members are late, once per wait.
func (pg *pendingGroups) reportGangWaits() {
	if len(pg.gangWaits) == 0 {
		return
	}
	now := pg.clock.Now()
	for _, gs := range slices.SortedFunc(maps.Keys(pg.gangWaits), func(a, b *groupState) int { return strings.Compare(a.key, b.key) }) {
		if gs.waitReported || now.Before(gs.gatedSince.Add(pg.cfg.GangWaitTimeout.Duration)) {
			continue
		}
		delete(pg.gangWaits, gs)
		entry := pg.queue.Get(gs.entryKey())
		if gs.info == nil || entry == nil || !entry.Gated() {
			// No longer waiting (its members are gone): a new wait starts afresh.
			gs.gatedSince = time.Time{}
			continue
		}
		gs.waitReported = true
		msg := pg.gangWaitMessage(entry.GatedMessage)
		pg.groupAPI.SetCondition(gs.info, false, v1alpha1.PodGroupReasonUnschedulable, msg)
		pg.actuator.Event(gs.info.Object(), nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
		for _, p := range gs.pending {
			pg.status.reportFailure(p, v1.PodReasonUnschedulable, msg)
		}
	}
}

// nextGangWaitDeadline is when the next gang wait timeout is due.
func (pg *pendingGroups) nextGangWaitDeadline() (time.Time, bool) {
	var next time.Time
	for gs := range pg.gangWaits {
		if t := gs.gatedSince.Add(pg.cfg.GangWaitTimeout.Duration); next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next, !next.IsZero()
}
