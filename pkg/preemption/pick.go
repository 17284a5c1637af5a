package preemption

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Candidate is a node where preemption would let the preemptor in, with the victims.
type Candidate struct {
	Node    *framework.NodeInfo
	Victims []*framework.PodInfo
	// Cost is how much preempting the victims disrupts.
	Cost Cost
	// unverified marks a candidate computed on resource vectors only (see
	// selectVictimsByResources); it is checked by simulation before it is used.
	unverified bool
	// approximate: the exact search for its victims stopped at its budget, so they are
	// the best set found, not proven the least disruptive.
	approximate bool
}

// Approximate reports whether the victim search stopped at its budget: the victims are the
// best set found, not proven the least disruptive.
func (c *Candidate) Approximate() bool { return c.approximate }

func newCandidate(node *framework.NodeInfo, victims []*Unit, pdbs []*framework.PDBInfo) *Candidate {
	return &Candidate{Node: node, Victims: PodsOf(victims), Cost: CostOfUnits(victims, pdbs)}
}

// pick chooses the candidate that disrupts least (Cost), then the node whose name sorts
// first: a tie-break that depends neither on the order nodes are listed in nor on the
// random generator, so that a pod and a one-member gang on the same cluster, or the same
// cluster listed in another order, decide alike.
func pick(cands []*Candidate) *Candidate {
	var best *Candidate
	for _, c := range cands {
		if best == nil {
			best = c
			continue
		}
		switch r := c.Cost.Compare(best.Cost); {
		case r < 0, r == 0 && c.Node.Name < best.Node.Name:
			best = c
		}
	}
	return best
}
