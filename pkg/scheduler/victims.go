package scheduler

import "github.com/phalanx-dev/phalanx/pkg/framework"

// victimWait is a preemptor (a pod's or a group's queue key) waiting for its victims to
// leave their nodes.
type victimWait struct {
	preemptor string
	left      int
}

// awaitVictims notes that a preemptor waits for its victims. When the last one is gone,
// the preemptor is tried at once, whatever its backoff: while victims terminate, every
// pod deletion in the cluster retries the waiting preemptors, each retry finds its own
// victims still there and doubles its backoff, so without this a preemptor whose victims
// had just gone could sit out up to the maximum backoff.
func (s *Scheduler) awaitVictims(preemptor string, victims []*framework.PodInfo) {
	w := &victimWait{preemptor: preemptor, left: len(victims)}
	for _, v := range victims {
		s.victimOf[v.Key] = w
	}
}

// victimGone is told of every pod that left the cluster.
func (s *Scheduler) victimGone(key string) {
	w := s.victimOf[key]
	if w == nil {
		return
	}
	delete(s.victimOf, key)
	if w.left--; w.left == 0 {
		s.queue.Activate(w.preemptor)
	}
}

// forgetVictims stops waiting for victims a failed preemption will not delete.
func (s *Scheduler) forgetVictims(victims []*framework.PodInfo) {
	for _, v := range victims {
		delete(s.victimOf, v.Key)
	}
}
