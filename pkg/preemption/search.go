package preemption

import (
	"slices"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// DefaultExactSearchMaxUnits is how many candidate units a domain may have for its victims
// to be found by exact search rather than greedy reprieval (docs/decisions/0010).
const DefaultExactSearchMaxUnits = 20

// exactSearchBudget bounds the simulations one exact search may run, and
// DecisionSearchBudget those of all the exact searches of one preemption decision (the
// pod path searches up to hundreds of nodes; a group's decision shares it too); past them
// the best set found so far (never worse than greedy reprieval's) is used.
const (
	exactSearchBudget    = 20000
	DecisionSearchBudget = 100000
)

// Oracle is a simulation of one preemption domain that a victim search drives. It starts
// with every candidate unit removed (and the preemptor fitting); Keep puts a unit back and
// reports whether the preemptor still fits, leaving it back only then; Drop undoes the
// latest successful Keep that is still in place (keeps and drops nest like brackets).
// Pod preemption has two (node.go, fastpath.go), group preemption two more
// (pkg/preemption/group, and its model on resource vectors in group/gangvector).
type Oracle interface {
	Keep(u *Unit) (bool, error)
	Drop(u *Unit) error
	// Witness describes the simulation as it stands (a group's member placement), kept
	// with the best set found; nil when there is nothing to keep.
	Witness() any
}

// RoomOracle is an Oracle that knows, on resource vectors, how much room its preemptor
// needs where it looks (a node, or a domain in aggregate): the exact search bounds each
// branch by the fewest undecided units that can make up what would be missing
// (roombound.go). The room it reports is a relaxation: the preemptor fitting implies it,
// never the other way round.
type RoomOracle interface {
	Oracle
	// Freed is the room a unit's pods free where the oracle looks, per resource it
	// looks at (always the same slice for a unit).
	Freed(u *Unit) []int64
	// Slack is the room left beyond the preemptor's needs as the simulation stands, per
	// resource (negative where it lacks). The caller does not keep it.
	Slack() []int64
}

// AlikeOracle is an Oracle for which units with the same nonempty key are interchangeable
// but for their importance past priority (later start): they free the same room where it
// looks, make no other difference to whether the preemptor fits, and cost the same but
// for the least important victim. Of such a class, a least disruptive set takes the least
// important units (swapping a victim for a less important unit of its class never costs
// more), so the exact search only takes victims from that end.
type AlikeOracle interface {
	Oracle
	AlikeKey(u *Unit) string
}

// VictimCounter is an Oracle that bounds, from below, how many pods of the undecided units
// (those from position i of the search's list on) must still be victims.
type VictimCounter interface {
	Oracle
	// Prepare is told the search's units, in its order, once before FewestVictims.
	Prepare(units []*Unit)
	// FewestVictims returns the bound; false when even every undecided unit gone leaves
	// the preemptor unable to fit.
	FewestVictims(i int) (int, bool)
}

// VictimSearch chooses which of the candidate units of a domain to preempt: the set of
// least Cost whose removal lets the preemptor fit. Its fields are set by the caller, once,
// before Run.
type VictimSearch struct {
	Units  []*Unit // most important first
	PDBs   []*framework.PDBInfo
	Oracle Oracle
	// ExactMax: with at most this many units the search is exact (branch and bound);
	// otherwise, and beyond its budget of simulations, greedy reprieval decides.
	ExactMax int
	// Budget bounds the simulations (Keep calls) of the exact search (0:
	// exactSearchBudget).
	Budget int
	// Shared, when set, is what is left of the decision's budget of simulations.
	Shared *int
	// Monotone says taking more units off never makes the preemptor stop fitting (room
	// alone: the vector oracles).
	Monotone bool
	// Logger tells, at V(4) and V(5), how the search decided: greedily for too many
	// units, or exactly until its budget ran out.
	Logger klog.Logger
	// Second, when set, is another order of the units for a second greedy reprieval,
	// whose set starts the exact search when it costs less.
	Second []*Unit
	// Plan, when set, proposes a set and its witness (nil: none) before the search
	// starts: when it says the set is the least disruptive, that set is the answer;
	// otherwise it starts the exact search when it costs less than greedy reprieval's.
	Plan func() (victims []*Unit, witness any, exact bool)

	// checks counts Keep calls, for the budget and for tests.
	checks int
	// exhaustedSaid: the end of the budget is logged once per search; the set found is
	// then the best so far, not proven the least disruptive.
	exhaustedSaid bool
	// planned is set when the answer is the plan, exact for the model.
	planned bool
}

// Approximate reports whether the exact search stopped at its budget: the set found is the
// best so far, not proven the least disruptive.
func (s *VictimSearch) Approximate() bool { return s.exhaustedSaid }

// Planned reports whether the answer is the Plan's, exact for the model.
func (s *VictimSearch) Planned() bool { return s.planned }

// Run returns the units to preempt, most important first. The oracle is left as it
// started: every unit removed.
func (s *VictimSearch) Run() ([]*Unit, error) {
	victims, _, err := s.RunWithWitness()
	return victims, err
}

// RunWithWitness is Run, also returning the oracle's witness of the chosen set.
func (s *VictimSearch) RunWithWitness() ([]*Unit, any, error) {
	victims, kept, err := s.greedy()
	if err != nil {
		return nil, nil, err
	}
	witness := s.Oracle.Witness()
	for i := len(kept) - 1; i >= 0; i-- {
		if err := s.Oracle.Drop(kept[i]); err != nil {
			return nil, nil, err
		}
	}
	// Nothing to improve on: no victims; too many units; the least important unit alone, a
	// single pod (any other set has a more important victim, or more victims of its
	// priority); or, when taking more units off never hurts, greedy kept none, so every
	// unit was needed.
	leastAlone := len(victims) == 1 && len(victims[0].Pods) == 1 && s.leastImportant(victims[0])
	if len(victims) > 0 && len(s.Units) > s.ExactMax {
		s.Logger.V(5).Info("Victims chosen by greedy reprieval: too many units for an exact search", "units", len(s.Units), "exactSearchMaxUnits", s.ExactMax, "victims", len(victims))
	}
	if len(victims) == 0 || len(s.Units) > s.ExactMax || leastAlone || (s.Monotone && len(kept) == 0) {
		return victims, witness, nil
	}
	var planned []*Unit
	var plannedWitness any
	if s.Plan != nil {
		var exact bool
		if planned, plannedWitness, exact = s.Plan(); planned != nil && exact && CostOfUnits(planned, s.PDBs).Compare(CostOfUnits(victims, s.PDBs)) <= 0 {
			s.Logger.V(5).Info("Victims chosen by the node-by-node plan, exact for the model", "units", len(s.Units), "victims", len(planned))
			s.planned = true
			return planned, plannedWitness, nil
		}
	}
	if s.Second != nil {
		// Another reprieval order may start the exact search from a better set.
		other, kept, err := s.greedyIn(s.Second)
		if err != nil {
			return nil, nil, err
		}
		if CostOfUnits(other, s.PDBs).Compare(CostOfUnits(victims, s.PDBs)) < 0 {
			victims, witness = other, s.Oracle.Witness()
		}
		for i := len(kept) - 1; i >= 0; i-- {
			if err := s.Oracle.Drop(kept[i]); err != nil {
				return nil, nil, err
			}
		}
	}
	if planned != nil && CostOfUnits(planned, s.PDBs).Compare(CostOfUnits(victims, s.PDBs)) < 0 {
		victims, witness = planned, plannedWitness
	}
	b := newBranchAndBound(s, victims, witness)
	if err := b.visit(0, NoCost); err != nil {
		return nil, nil, err
	}
	return b.best, b.witness, nil
}

// leastImportant reports whether no unit is less important than v (units may come in
// another order than importance within a priority level).
func (s *VictimSearch) leastImportant(v *Unit) bool {
	for _, u := range s.Units {
		if u != v && moreImportantUnit(v, u) {
			return false
		}
	}
	return true
}

// greedy is the preemption design's reprieval: the units whose eviction would violate a
// budget are put back first, then the others, most important first within each; a unit
// stays back when the preemptor still fits. It returns the victims (most important first)
// and the units it kept, in the order kept.
func (s *VictimSearch) greedy() (victims, kept []*Unit, err error) {
	return s.greedyIn(s.Units)
}

// greedyIn is greedy with the units in that order.
func (s *VictimSearch) greedyIn(units []*Unit) (victims, kept []*Unit, err error) {
	violating, ok := SplitUnitsByPDB(units, s.PDBs)
	for _, list := range [][]*Unit{violating, ok} {
		for _, u := range list {
			back, err := s.keep(u)
			if err != nil {
				return nil, nil, err
			}
			if back {
				kept = append(kept, u)
			} else {
				victims = append(victims, u)
			}
		}
	}
	SortUnits(victims)
	return victims, kept, nil
}

func (s *VictimSearch) keep(u *Unit) (bool, error) {
	s.checks++
	if s.Shared != nil {
		*s.Shared--
	}
	return s.Oracle.Keep(u)
}

// exhausted reports whether the exact search must stop exploring; the best set found so
// far then stands.
func (s *VictimSearch) exhausted() bool {
	budget := s.Budget
	if budget == 0 {
		budget = exactSearchBudget
	}
	done := s.checks >= budget || (s.Shared != nil && *s.Shared <= 0)
	if done && !s.exhaustedSaid {
		s.exhaustedSaid = true
		s.Logger.V(4).Info("Exact victim search stopped at its budget of simulations; the best set found so far stands",
			"units", len(s.Units), "simulations", s.checks)
	}
	return done
}

// branchAndBound finds the least-cost victim set exactly: units are decided most important
// first, keeping one (when the preemptor still fits without it) before trying to preempt
// it. The cost of the units chosen so far bounds every completion from below (adding a
// less important unit never lowers a cost), and, with an oracle that knows the room it
// lacks, so do the fewest undecided units that can make it up (roomBound); a branch stops
// as soon as it cannot beat the best set found. The greedy answer is the first incumbent.
// Of a class of alike units (AlikeOracle), once one is preempted every less important one
// is too.
type branchAndBound struct {
	s        *VictimSearch
	chosen   []*Unit
	best     []*Unit
	bestCost Cost
	witness  any
	// class is each unit's class of alike units (-1: none); taken counts the victims
	// chosen so far of each class.
	class []int
	taken []int
	room  *roomBound
	// counter bounds the victims still needed pod by pod (VictimCounter); tail[k] sums
	// the shifted priorities of the k least important pods of the units.
	counter VictimCounter
	tail    []int64
}

func newBranchAndBound(s *VictimSearch, incumbent []*Unit, witness any) *branchAndBound {
	b := &branchAndBound{s: s, best: incumbent, bestCost: CostOfUnits(incumbent, s.PDBs), witness: witness}
	if ro, ok := s.Oracle.(RoomOracle); ok {
		b.room = newRoomBound(ro, s.Units)
	}
	if vc, ok := s.Oracle.(VictimCounter); ok {
		vc.Prepare(s.Units)
		b.counter = vc
		b.tail = []int64{0}
		for i := len(s.Units) - 1; i >= 0; i-- {
			for range s.Units[i].Pods {
				b.tail = append(b.tail, b.tail[len(b.tail)-1]+Shifted(s.Units[i].Priority))
			}
		}
	}
	b.class = make([]int, len(s.Units))
	ids := map[string]int{}
	ao, alike := s.Oracle.(AlikeOracle)
	for i, u := range s.Units {
		b.class[i] = -1
		if !alike {
			continue
		}
		if k := ao.AlikeKey(u); k != "" {
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			b.class[i] = id
		}
	}
	b.taken = make([]int, len(ids))
	return b
}

func (b *branchAndBound) visit(i int, partial Cost) error {
	s := b.s
	if partial.Compare(b.bestCost) >= 0 {
		return nil
	}
	if i == len(s.Units) {
		b.best, b.bestCost, b.witness = slices.Clone(b.chosen), partial, s.Oracle.Witness()
		return nil
	}
	if b.room != nil {
		lb, ok := b.room.lower(i, partial)
		if !ok || lb.Compare(b.bestCost) >= 0 {
			return nil
		}
		if b.counter != nil {
			// Pod by pod: at least k more victims, each of a priority no lower than
			// the least important pods'.
			k, ok := b.counter.FewestVictims(i)
			if !ok {
				return nil
			}
			if k > lb.Count-partial.Count {
				lb.Count, lb.Sum = partial.Count+k, partial.Sum+b.tail[min(k, len(b.tail)-1)]
				if lb.Compare(b.bestCost) >= 0 {
					return nil
				}
			}
		}
	}
	u, class := s.Units[i], b.class[i]
	if (class < 0 || b.taken[class] == 0) && !s.exhausted() {
		back, err := s.keep(u)
		if err != nil {
			return err
		}
		if back {
			if err := b.visit(i+1, partial); err != nil {
				return err
			}
			if err := s.Oracle.Drop(u); err != nil {
				return err
			}
		}
	}
	if class >= 0 {
		b.taken[class]++
	}
	b.chosen = append(b.chosen, u)
	err := b.visit(i+1, b.with(partial, u))
	b.chosen = b.chosen[:len(b.chosen)-1]
	if class >= 0 {
		b.taken[class]--
	}
	return err
}

// with is the cost of the chosen units (u the last of them), from the cost without u:
// added to it when no budget applies, computed afresh otherwise (violations depend on
// the whole set).
func (b *branchAndBound) with(partial Cost, u *Unit) Cost {
	if len(b.s.PDBs) > 0 {
		return CostOfUnits(b.chosen, b.s.PDBs)
	}
	partial.add(u)
	return partial
}
