package scheduler

import (
	"fmt"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// decision is a preemption carried out for a preemptor (a pod, or a group's queue entry),
// kept until the preemptor is placed. Its victims leave; while they do the preemptor
// waits. Once they are all gone, the preemptor should fit: if its next cycle still fails,
// the decision was wrong or its room was taken, and that is reported as a scheduler
// error, once, rather than left as one more "does not fit".
type decision struct {
	victims []*framework.PodInfo
	at      time.Time
}

func (s *Scheduler) rememberDecision(key string, victims []*framework.PodInfo) {
	if len(victims) == 0 {
		return // nothing to wait for: the room was there
	}
	s.decisions[key] = &decision{victims: victims, at: s.clock.Now()}
}

func (s *Scheduler) forgetDecision(key string) {
	delete(s.decisions, key)
	delete(s.spentDecisions, key)
}

// checkDecision runs when an entry's cycle starts: a decision whose victims are all gone
// is spent, and a failure of this cycle will say so.
func (s *Scheduler) checkDecision(key string) {
	d := s.decisions[key]
	if d == nil {
		return
	}
	for _, v := range d.victims {
		if cur := s.cache.Pod(v.Key); cur != nil && cur.Pod.UID == v.Pod.UID {
			return // still leaving
		}
	}
	delete(s.decisions, key)
	s.spentDecisions[key] = fmt.Sprintf("the %d pod(s) preempted for it at %s are gone, yet it does not fit: ",
		len(d.victims), d.at.UTC().Format(time.RFC3339))
}

// spentDecision returns (and forgets) the note of a failed cycle whose preemption had
// already made its room: "" when there is none.
func (s *Scheduler) spentDecision(key string) string {
	note := s.spentDecisions[key]
	delete(s.spentDecisions, key)
	return note
}
