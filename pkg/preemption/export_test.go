package preemption

// What the external tests (package preemption_test) reach.

// SelectVictimsByResources is Evaluator.selectVictimsByResources.
var SelectVictimsByResources = (*Evaluator).selectVictimsByResources
