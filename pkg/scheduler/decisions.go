package scheduler

// A preemption's victims leave (victims.go); once they are all gone the preemptor should
// fit, and spentDecisions holds, by preemptor, the note its next failure carries: that
// failure is reported as a scheduler error, once, rather than as one more "does not fit".

// forgetDecision drops the note of a preemptor that was placed or is gone.
func (s *Scheduler) forgetDecision(key string) { delete(s.spentDecisions, key) }

// spentDecision returns (and forgets) the note of a failed cycle whose preemption had
// already made its room: "" when there is none.
func (s *Scheduler) spentDecision(key string) string {
	note := s.spentDecisions[key]
	delete(s.spentDecisions, key)
	return note
}
