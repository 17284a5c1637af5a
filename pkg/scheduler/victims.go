package scheduler

import (
	"fmt"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

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

// awaitVictims notes that a preemptor waits for its victims. When the last one is gone,
// the preemptor is tried at once, whatever its backoff. Until then, changes of other
// preemptions' victims do not move it when that room is held for a preemptor of at
// least its priority (victimEventMayHelp): in a wave of preemptions, every victim's
// deletion would otherwise retry every waiting preemptor, each retry finding its own
// victims still there at the cost of a full cycle, a FailedScheduling event and a status
// write, and doubling its backoff, so that a preemptor whose victims had just gone could
// sit out up to the maximum backoff. Other changes (a pod that was nobody's victim
// leaving, a node) still move it: it may fit elsewhere sooner (the design's Example 2).
func (s *Scheduler) awaitVictims(preemptor string, priority int32, victims []*framework.PodInfo) {
	w := &victimWait{preemptor: preemptor, priority: priority, left: len(victims), victims: len(victims), at: s.clock.Now()}
	if w.left == 0 {
		return
	}
	for _, v := range victims {
		s.victimOf[v.Key] = w
	}
	s.waitingForVictims[preemptor] = w
}

// victimEventMayHelp says whether a change of a victim of w's preemption may help entry
// e: not when e waits for victims of its own and w's room is not for it to take (w's
// preemptor's priority is not lower than e's).
func (s *Scheduler) victimEventMayHelp(e *queue.Entry, w *victimWait) bool {
	return s.waitingForVictims[e.Key] == nil || w.priority < e.Priority
}

// victimGone is told of every pod that left the cluster.
func (s *Scheduler) victimGone(key string) {
	w := s.victimOf[key]
	if w == nil {
		return
	}
	delete(s.victimOf, key)
	if w.left--; w.left == 0 {
		if s.waitingForVictims[w.preemptor] == w {
			delete(s.waitingForVictims, w.preemptor)
		}
		// The room is made: the preemptor should fit now. If its next cycle fails all the
		// same (the room was taken, or the decision was wrong), that failure says so, once,
		// as a scheduler error.
		s.spentDecisions[w.preemptor] = fmt.Sprintf("the %d pod(s) preempted for it at %s are gone, yet it does not fit: ",
			w.victims, w.at.UTC().Format(time.RFC3339))
		s.queue.Activate(w.preemptor)
	}
}

// forgetVictims stops waiting for victims a failed preemption will not delete, or for
// those of a preemptor that is gone or bound.
func (s *Scheduler) forgetVictims(preemptor string) {
	w := s.waitingForVictims[preemptor]
	if w == nil {
		return
	}
	delete(s.waitingForVictims, preemptor)
	for v, vw := range s.victimOf {
		if vw == w {
			delete(s.victimOf, v)
		}
	}
}
