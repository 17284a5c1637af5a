package preemption

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Candidate is a node where preemption would let the preemptor in, with the victims.
type Candidate struct {
	Node    *framework.NodeInfo
	Victims []*framework.PodInfo
	// PDBViolations counts the victims whose eviction violates a PodDisruptionBudget.
	PDBViolations int
	// unverified marks a candidate computed on resource vectors only (see
	// selectVictimsByResources); it is checked by simulation before it is used.
	unverified bool
}

// pick chooses the candidate that disrupts least: no victims at all; then fewest PDB
// violations; lowest highest victim priority; lowest sum of victim priorities; fewest
// victims; the latest start among the highest-priority victims; then a seeded random
// choice among the remaining ties.
func pick(cands []*Candidate, rng *rand.Rand) *Candidate {
	if len(cands) == 0 {
		return nil
	}
	criteria := []func(*Candidate) float64{
		func(c *Candidate) float64 { return boolScore(len(c.Victims) == 0) },
		func(c *Candidate) float64 { return -float64(c.PDBViolations) },
		func(c *Candidate) float64 { return -float64(highestPriority(c)) },
		func(c *Candidate) float64 { return -float64(sumPriorities(c)) },
		func(c *Candidate) float64 { return -float64(len(c.Victims)) },
		func(c *Candidate) float64 { return float64(earliestStartOfHighest(c).UnixNano()) },
	}
	for _, score := range criteria {
		if len(cands) == 1 {
			break
		}
		best := math.Inf(-1)
		var kept []*Candidate
		for _, c := range cands {
			switch s := score(c); {
			case s > best:
				best, kept = s, []*Candidate{c}
			case s == best:
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	return cands[rng.IntN(len(cands))]
}

func boolScore(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func highestPriority(c *Candidate) int32 {
	if len(c.Victims) == 0 {
		return math.MinInt32
	}
	h := c.Victims[0].Priority
	for _, v := range c.Victims[1:] {
		h = max(h, v.Priority)
	}
	return h
}

// sumPriorities adds each priority shifted to be non-negative, so that victims of
// negative priority still count as disruption (kube-scheduler does the same).
func sumPriorities(c *Candidate) int64 {
	var s int64
	for _, v := range c.Victims {
		s += int64(v.Priority) + math.MaxInt32 + 1
	}
	return s
}

// earliestStartOfHighest is the earliest start among the victims of the highest priority:
// the later it is, the less work preemption throws away.
func earliestStartOfHighest(c *Candidate) time.Time {
	h := highestPriority(c)
	var earliest time.Time
	for _, v := range c.Victims {
		if v.Priority != h {
			continue
		}
		if t := v.StartTime(); earliest.IsZero() || t.Before(earliest) {
			earliest = t
		}
	}
	return earliest
}
