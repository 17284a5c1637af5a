package preemptexec

import (
	"fmt"
	"time"

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
	w := &Wait{preemptor: preemptor, priority: priority, left: len(victims), victims: len(victims), at: pm.opts.Clock.Now()}
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
	if w.left--; w.left == 0 {
		if pm.waitingForVictims[w.preemptor] == w {
			delete(pm.waitingForVictims, w.preemptor)
		}
		// The room is made: the preemptor should fit now. If its next cycle fails all the
		// same (the room was taken, or the decision was wrong), that failure says so, once,
		// as a scheduler error.
		pm.spent[w.preemptor] = fmt.Sprintf("the %d pod(s) preempted for it at %s are gone, yet it does not fit: ",
			w.victims, w.at.UTC().Format(time.RFC3339))
		pm.opts.Queue.Activate(w.preemptor)
	}
}

// ForgetVictims stops waiting for victims a failed preemption will not delete, or for
// those of a preemptor that is gone or bound.
func (pm *Preemptions) ForgetVictims(preemptor string) {
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
