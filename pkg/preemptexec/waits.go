package preemptexec

import (
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// A preemption's victims leave; until they are all gone, changes of other preemptions'
// victims do not retry the preemptor (VictimEventMayHelp). Once they are gone the preemptor
// should fit, and spent holds, by preemptor, the note its next failure carries: that
// failure is reported as a scheduler error, once, rather than as one more "does not fit".

// Wait is a preemptor (a pod's or a group's queue key, of priority priority) waiting for
// its victims to leave their nodes.
type Wait struct {
	preemptor string
	priority  int32
	left      int
	// victims and at say how many the preemption took and when, for the note of a
	// preemptor that still does not fit once they are gone (SpentDecision).
	victims int
	at      time.Time
	// pods are the victims; once they are all gone, releasing holds the claims (keys) of
	// theirs whose devices the ResourceClaim controller has yet to release, and the
	// preemptor waits for them until deadline before it may preempt again.
	pods, gone []*framework.PodInfo
	releasing  []string
	deadline   time.Time
}

// await notes that a preemptor waits for its victims. When the last one is gone,
// the preemptor is tried at once, whatever its backoff. Until then, changes of other
// preemptions' victims do not move it when that room is held for a preemptor of at
// least its priority (VictimEventMayHelp): in a wave of preemptions, every victim's
// deletion would otherwise retry every waiting preemptor, each retry finding its own
// victims still there at the cost of a full cycle, a FailedScheduling event and a status
// write, and doubling its backoff, so that a preemptor whose victims had just gone could
// sit out up to the maximum backoff. Other changes (a pod that was nobody's victim
// leaving, a node) still move it: it may fit elsewhere sooner (the design's Example 2).
func (pm *Preemptions) await(preemptor string, priority int32, victims []*framework.PodInfo) {
	w := &Wait{preemptor: preemptor, priority: priority, left: len(victims), victims: len(victims), at: pm.opts.Clock.Now(), pods: victims}
	if w.left == 0 {
		return
	}
	for _, v := range victims {
		pm.victimOf[v.Key] = w
	}
	pm.waitingForVictims[preemptor] = w
}

// VictimEventMayHelp says whether a change of a victim of w's preemption may help entry: not
// when the entry waits for victims of its own and w's room is not for it to take (w's
// preemptor's priority is not lower than the entry's).
func (pm *Preemptions) VictimEventMayHelp(entry *queue.Entry, w *Wait) bool {
	return pm.waitingForVictims[entry.Key] == nil || w.priority < entry.Priority
}

// victimGone is told of every pod that left the cluster.
func (pm *Preemptions) victimGone(key string) {
	w := pm.victimOf[key]
	if w == nil {
		return
	}
	delete(pm.victimOf, key)
	for _, v := range w.pods {
		if v.Key == key {
			w.gone = append(w.gone, v)
		}
	}
	if w.left--; w.left > 0 {
		return
	}
	// The victims are gone. What they held may not be free yet: the devices of their
	// claims stay allocated until the ResourceClaim controller deletes or deallocates the
	// claims. The preemptor waits for that as it waited for its victims, at most
	// ReleaseWaitTimeout, rather than fail now and preempt again elsewhere.
	if bound := pm.opts.ReleaseWaitTimeout; bound > 0 {
		if held := pm.opts.Snapshot.DRA().Releasing(w.pods); len(held) > 0 {
			w.releasing, w.deadline = held, pm.opts.Clock.Now().Add(bound)
			pm.releasing[w.preemptor] = w
			pm.opts.Metrics.PreemptionReleaseWaits.WithLabelValues("started").Inc()
			pm.opts.Logger.V(2).Info("Victims gone, waiting for their claims to be released", "preemptor", w.preemptor, "claims", held, "bound", bound)
			pm.eventForPreemptor(w.preemptor, v1.EventTypeNormal, "WaitingForRelease", fmt.Sprintf(
				"the %d pod(s) preempted for it are gone; waiting up to %s for the devices of their claims to be released (%s)",
				w.victims, bound, strings.Join(held, ", ")))
			return
		}
	}
	pm.roomMade(w)
}

// roomMade ends a wait: the preemptor is tried at once.
func (pm *Preemptions) roomMade(w *Wait) {
	if pm.waitingForVictims[w.preemptor] == w {
		delete(pm.waitingForVictims, w.preemptor)
	}
	if pm.releasing[w.preemptor] == w {
		delete(pm.releasing, w.preemptor)
	}
	// The room is made: the preemptor should fit now. If its next cycle fails all the
	// same (the room was taken, or the decision was wrong), that failure says so, once,
	// as a scheduler error.
	pm.spent[w.preemptor] = fmt.Sprintf("the %d pod(s) preempted for it at %s are gone, yet it does not fit: ",
		w.victims, w.at.UTC().Format(time.RFC3339))
	pm.opts.Queue.Activate(w.preemptor)
}

// ClaimsChanged is told of every ResourceClaim changed or deleted: a preemptor whose
// victims' claims are all released now is tried at once.
func (pm *Preemptions) ClaimsChanged() {
	for _, key := range sortedKeys(pm.releasing) {
		w := pm.releasing[key]
		if w.releasing = pm.opts.Snapshot.DRA().Releasing(w.pods); len(w.releasing) == 0 {
			pm.opts.Metrics.PreemptionReleaseWaits.WithLabelValues("released").Inc()
			pm.opts.Logger.V(2).Info("The victims' claims are released", "preemptor", w.preemptor, "waited", pm.opts.Clock.Now().Sub(w.deadline)+pm.opts.ReleaseWaitTimeout)
			pm.roomMade(w)
		}
	}
}

// ExpireReleaseWaits ends the waits for releases past their bound: the preemptor is tried,
// and may preempt again (ReleasingVictims no longer holds it back).
func (pm *Preemptions) ExpireReleaseWaits() {
	now := pm.opts.Clock.Now()
	for _, key := range sortedKeys(pm.releasing) {
		w := pm.releasing[key]
		if now.Before(w.deadline) {
			continue
		}
		pm.opts.Metrics.PreemptionReleaseWaits.WithLabelValues("timeout").Inc()
		pm.eventForPreemptor(w.preemptor, v1.EventTypeWarning, "ReleaseWaitTimeout", fmt.Sprintf(
			"the devices of the claims of the pod(s) preempted for it were not released within %s (%s): it may preempt again",
			pm.opts.ReleaseWaitTimeout, strings.Join(w.releasing, ", ")))
		pm.roomMade(w)
	}
}

// NextReleaseDeadline is when the earliest wait for releases ends (false: none).
func (pm *Preemptions) NextReleaseDeadline() (time.Time, bool) {
	var next time.Time
	for _, w := range pm.releasing {
		if next.IsZero() || w.deadline.Before(next) {
			next = w.deadline
		}
	}
	return next, !next.IsZero()
}

// ReleasingVictims implements framework.ReleaseWaiter: the victims of the preemptor's
// last preemption that are gone, while it waits for the others to leave, or, once all are
// gone, for the devices of their claims (within its bound).
func (pm *Preemptions) ReleasingVictims(preemptor string) []*framework.PodInfo {
	if pm.opts.ReleaseWaitTimeout <= 0 {
		return nil
	}
	if w := pm.releasing[preemptor]; w != nil {
		if pm.opts.Clock.Now().Before(w.deadline) {
			return w.pods
		}
		return nil
	}
	if w := pm.waitingForVictims[preemptor]; w != nil && len(w.gone) > 0 {
		return w.gone
	}
	return nil
}

// GroupReleasingVictims implements framework.ReleaseWaiter for a group preemptor.
func (pm *Preemptions) GroupReleasingVictims(g *framework.GroupInfo) []*framework.PodInfo {
	return pm.ReleasingVictims(pm.opts.QueueKey(g))
}

// eventForPreemptor records an event on a preemptor pod, or on a preemptor group's object.
func (pm *Preemptions) eventForPreemptor(key, eventType, reason, msg string) {
	entry := pm.opts.Queue.Get(key)
	switch {
	case entry == nil:
	case entry.Pod != nil:
		pm.opts.Actuator.Event(entry.Pod.Pod, nil, eventType, reason, "Scheduling", msg)
	case entry.Group != nil:
		if g := pm.opts.GroupOf(entry); g != nil {
			pm.opts.Actuator.Event(g.Object(), nil, eventType, reason, "Scheduling", msg)
		}
	}
}

func sortedKeys(m map[string]*Wait) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ForgetVictims stops waiting for victims a failed preemption will not delete, or for
// those of a preemptor that is gone or bound.
func (pm *Preemptions) ForgetVictims(preemptor string) {
	w := pm.waitingForVictims[preemptor]
	if w == nil {
		return
	}
	delete(pm.waitingForVictims, preemptor)
	if pm.releasing[preemptor] == w {
		delete(pm.releasing, preemptor)
	}
	for v, vw := range pm.victimOf {
		if vw == w {
			delete(pm.victimOf, v)
		}
	}
}

// PodGone is told of every pod that left the cluster: a preemption of its own is no longer
// followed, and a preemption it was the victim of has one victim less. It returns the wait
// the pod was a victim of (nil: none), to retry only the pending entries it may help.
func (pm *Preemptions) PodGone(key string) *Wait {
	delete(pm.inFlight, key)
	pm.ForgetDecision(key)
	w := pm.victimOf[key]
	pm.victimGone(key)
	pm.ForgetVictims(key)
	return w
}

// VictimOf is the wait a pod is a victim of (nil: none).
func (pm *Preemptions) VictimOf(key string) *Wait { return pm.victimOf[key] }

// ForgetDecision drops the note of a preemptor that was placed or is gone.
func (pm *Preemptions) ForgetDecision(key string) { delete(pm.spent, key) }

// SpentDecision returns (and forgets) the note of a failed cycle whose preemption had
// already made its room: "" when there is none.
func (pm *Preemptions) SpentDecision(key string) string {
	note := pm.spent[key]
	delete(pm.spent, key)
	return note
}
