package scheduler

import (
	"fmt"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// A preemption's victims leave; until they are all gone, changes of other preemptions'
// victims do not retry the preemptor (victimEventMayHelp). Once they are gone the preemptor
// should fit, and spent holds, by preemptor, the note its next failure carries: that
// failure is reported as a scheduler error, once, rather than as one more "does not fit".

// victimWait is a preemptor (a pod's or a group's queue key, of priority priority)
// waiting for its victims to leave their nodes.
type victimWait struct {
	preemptor string
	priority  int32
	left      int
	// victims and at say how many the preemption took and when, for the note of a
	// preemptor that still does not fit once they are gone (spentDecision).
	victims int
	at      time.Time
}

// await notes that a preemptor waits for its victims. When the last one is gone,
// the preemptor is tried at once, whatever its backoff. Until then, changes of other
// preemptions' victims do not move it when that room is held for a preemptor of at
// least its priority (victimEventMayHelp): in a wave of preemptions, every victim's
// deletion would otherwise retry every waiting preemptor, each retry finding its own
// victims still there at the cost of a full cycle, a FailedScheduling event and a status
// write, and doubling its backoff, so that a preemptor whose victims had just gone could
// sit out up to the maximum backoff. Other changes (a pod that was nobody's victim
// leaving, a node) still move it: it may fit elsewhere sooner (the design's Example 2).
func (pm *preemptions) await(preemptor string, priority int32, victims []*framework.PodInfo) {
	w := &victimWait{preemptor: preemptor, priority: priority, left: len(victims), victims: len(victims), at: pm.clock.Now()}
	if w.left == 0 {
		return
	}
	for _, v := range victims {
		pm.victimOf[v.Key] = w
	}
	pm.waitingForVictims[preemptor] = w
}

// victimEventMayHelp says whether a change of a victim of w's preemption may help entry: not
// when the entry waits for victims of its own and w's room is not for it to take (w's
// preemptor's priority is not lower than the entry's).
func (pm *preemptions) victimEventMayHelp(entry *queue.Entry, w *victimWait) bool {
	return pm.waitingForVictims[entry.Key] == nil || w.priority < entry.Priority
}

// victimGone is told of every pod that left the cluster.
func (pm *preemptions) victimGone(key string) {
	w := pm.victimOf[key]
	if w == nil {
		return
	}
	delete(pm.victimOf, key)
	if w.left--; w.left == 0 {
		if pm.waitingForVictims[w.preemptor] == w {
			delete(pm.waitingForVictims, w.preemptor)
		}
		// The room is made: the preemptor should fit now. If its next cycle fails all the
		// same (the room was taken, or the decision was wrong), that failure says so, once,
		// as a scheduler error.
		pm.spent[w.preemptor] = fmt.Sprintf("the %d pod(s) preempted for it at %s are gone, yet it does not fit: ",
			w.victims, w.at.UTC().Format(time.RFC3339))
		pm.queue.Activate(w.preemptor)
	}
}

// forgetVictims stops waiting for victims a failed preemption will not delete, or for
// those of a preemptor that is gone or bound.
func (pm *preemptions) forgetVictims(preemptor string) {
	w := pm.waitingForVictims[preemptor]
	if w == nil {
		return
	}
	delete(pm.waitingForVictims, preemptor)
	for v, vw := range pm.victimOf {
		if vw == w {
			delete(pm.victimOf, v)
		}
	}
}

// podGone is told of every pod that left the cluster: a preemption of its own is no longer
// followed, and a preemption it was the victim of has one victim less. It returns the wait
// the pod was a victim of (nil: none), to retry only the pending entries it may help.
func (pm *preemptions) podGone(key string) *victimWait {
	delete(pm.inFlight, key)
	pm.forgetDecision(key)
	w := pm.victimOf[key]
	pm.victimGone(key)
	pm.forgetVictims(key)
	return w
}

// forgetDecision drops the note of a preemptor that was placed or is gone.
func (pm *preemptions) forgetDecision(key string) { delete(pm.spent, key) }

// spentDecision returns (and forgets) the note of a failed cycle whose preemption had
// already made its room: "" when there is none.
func (pm *preemptions) spentDecision(key string) string {
	note := pm.spent[key]
	delete(pm.spent, key)
	return note
}
