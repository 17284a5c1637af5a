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
// decisionSearchBudget those of all the exact searches of one preemption decision (the
// pod path searches up to hundreds of nodes); past them the best set found so far (never
// worse than greedy reprieval's) is used.
const (
	exactSearchBudget    = 20000
	decisionSearchBudget = 100000
)

// oracle is a simulation of one preemption domain that a victim search drives. It starts
// with every candidate unit removed (and the preemptor fitting); keep puts a unit back and
// reports whether the preemptor still fits, leaving it back only then; drop undoes the
// latest successful keep that is still in place (keeps and drops nest like brackets).
type oracle interface {
	keep(u *unit) (bool, error)
	drop(u *unit) error
	// witness describes the simulation as it stands (a group's member placement), kept
	// with the best set found; nil when there is nothing to keep.
	witness() any
}

// roomOracle is an oracle that knows, on resource vectors, how much room its preemptor
// needs where it looks (a node, or a domain in aggregate): the exact search bounds each
// branch by the fewest undecided units that can make up what would be missing
// (roombound.go). The room it reports is a relaxation: the preemptor fitting implies it,
// never the other way round.
type roomOracle interface {
	oracle
	// freed is the room a unit's pods free where the oracle looks, per resource it
	// looks at (always the same slice for a unit).
	freed(u *unit) []int64
	// slack is the room left beyond the preemptor's needs as the simulation stands, per
	// resource (negative where it lacks). The caller does not keep it.
	slack() []int64
}

// alikeOracle is an oracle for which units with the same nonempty key are interchangeable
// but for their importance past priority (later start): they free the same room where it
// looks, make no other difference to whether the preemptor fits, and cost the same but
// for the least important victim. Of such a class, a least disruptive set takes the least
// important units (swapping a victim for a less important unit of its class never costs
// more), so the exact search only takes victims from that end.
type alikeOracle interface {
	oracle
	alikeKey(u *unit) string
}

// victimCounter is an oracle that bounds, from below, how many pods of the undecided units
// (those from position i of the search's list on) must still be victims.
type victimCounter interface {
	oracle
	// prepare is told the search's units, in its order, once before fewestVictims.
	prepare(units []*unit)
	// fewestVictims returns the bound; false when even every undecided unit gone leaves
	// the preemptor unable to fit.
	fewestVictims(i int) (int, bool)
}

// victimSearch chooses which of the candidate units of a domain to preempt: the set of
// least Cost whose removal lets the preemptor fit.
type victimSearch struct {
	units []*unit // most important first
	pdbs  []*framework.PDBInfo
	o     oracle
	// exactMax: with at most this many units the search is exact (branch and bound);
	// otherwise, and beyond its budget of simulations, greedy reprieval decides.
	exactMax int
	// budget bounds the simulations (keep calls) of the exact search (0:
	// exactSearchBudget).
	budget int
	// checks counts keep calls, for the budget and for tests.
	checks int
	// shared, when set, is what is left of the decision's budget of simulations.
	shared *int
	// monotone says taking more units off never makes the preemptor stop fitting (room
	// alone: the vector oracle).
	monotone bool
	// logger tells, at V(4) and V(5), how the search decided: greedily for too many
	// units, or exactly until its budget ran out.
	logger klog.Logger
	// exhaustedSaid: the end of the budget is logged once per search; the set found is
	// then the best so far, not proven the least disruptive.
	exhaustedSaid bool
	// second, when set, is another order of the units for a second greedy reprieval,
	// whose set starts the exact search when it costs less.
	second []*unit
	// plan, when set, proposes a set and its witness (nil: none) before the search
	// starts: when it says the set is the least disruptive, that set is the answer;
	// otherwise it starts the exact search when it costs less than greedy reprieval's.
	plan func() (victims []*unit, witness any, exact bool)
	// planned is set when the answer is the plan, exact for the model.
	planned bool
}

// run returns the units to preempt, most important first. The oracle is left as it
// started: every unit removed.
func (s *victimSearch) run() ([]*unit, error) {
	victims, _, err := s.runWithWitness()
	return victims, err
}

// runWithWitness is run, also returning the oracle's witness of the chosen set.
func (s *victimSearch) runWithWitness() ([]*unit, any, error) {
	victims, kept, err := s.greedy()
	if err != nil {
		return nil, nil, err
	}
	witness := s.o.witness()
	for i := len(kept) - 1; i >= 0; i-- {
		if err := s.o.drop(kept[i]); err != nil {
			return nil, nil, err
		}
	}
	// Nothing to improve on: no victims; too many units; the least important unit alone, a
	// single pod (any other set has a more important victim, or more victims of its
	// priority); or, when taking more units off never hurts, greedy kept none, so every
	// unit was needed.
	leastAlone := len(victims) == 1 && len(victims[0].pods) == 1 && s.leastImportant(victims[0])
	if len(victims) > 0 && len(s.units) > s.exactMax {
		s.logger.V(5).Info("Victims chosen by greedy reprieval: too many units for an exact search", "units", len(s.units), "exactSearchMaxUnits", s.exactMax, "victims", len(victims))
	}
	if len(victims) == 0 || len(s.units) > s.exactMax || leastAlone || (s.monotone && len(kept) == 0) {
		return victims, witness, nil
	}
	var planned []*unit
	var plannedWitness any
	if s.plan != nil {
		var exact bool
		if planned, plannedWitness, exact = s.plan(); planned != nil && exact && costOfUnits(planned, s.pdbs).Compare(costOfUnits(victims, s.pdbs)) <= 0 {
			s.logger.V(5).Info("Victims chosen by the node-by-node plan, exact for the model", "units", len(s.units), "victims", len(planned))
			s.planned = true
			return planned, plannedWitness, nil
		}
	}
	if s.second != nil {
		// Another reprieval order may start the exact search from a better set.
		other, kept, err := s.greedyIn(s.second)
		if err != nil {
			return nil, nil, err
		}
		if costOfUnits(other, s.pdbs).Compare(costOfUnits(victims, s.pdbs)) < 0 {
			victims, witness = other, s.o.witness()
		}
		for i := len(kept) - 1; i >= 0; i-- {
			if err := s.o.drop(kept[i]); err != nil {
				return nil, nil, err
			}
		}
	}
	if planned != nil && costOfUnits(planned, s.pdbs).Compare(costOfUnits(victims, s.pdbs)) < 0 {
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
func (s *victimSearch) leastImportant(v *unit) bool {
	for _, u := range s.units {
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
func (s *victimSearch) greedy() (victims, kept []*unit, err error) {
	return s.greedyIn(s.units)
}

// greedyIn is greedy with the units in that order.
func (s *victimSearch) greedyIn(units []*unit) (victims, kept []*unit, err error) {
	violating, ok := splitUnitsByPDB(units, s.pdbs)
	for _, list := range [][]*unit{violating, ok} {
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
	sortUnits(victims)
	return victims, kept, nil
}

func (s *victimSearch) keep(u *unit) (bool, error) {
	s.checks++
	if s.shared != nil {
		*s.shared--
	}
	return s.o.keep(u)
}

// exhausted reports whether the exact search must stop exploring; the best set found so
// far then stands.
func (s *victimSearch) exhausted() bool {
	budget := s.budget
	if budget == 0 {
		budget = exactSearchBudget
	}
	done := s.checks >= budget || (s.shared != nil && *s.shared <= 0)
	if done && !s.exhaustedSaid {
		s.exhaustedSaid = true
		s.logger.V(4).Info("Exact victim search stopped at its budget of simulations; the best set found so far stands",
			"units", len(s.units), "simulations", s.checks)
	}
	return done
}

// branchAndBound finds the least-cost victim set exactly: units are decided most important
// first, keeping one (when the preemptor still fits without it) before trying to preempt
// it. The cost of the units chosen so far bounds every completion from below (adding a
// less important unit never lowers a cost), and, with an oracle that knows the room it
// lacks, so do the fewest undecided units that can make it up (roomBound); a branch stops
// as soon as it cannot beat the best set found. The greedy answer is the first incumbent.
// Of a class of alike units (alikeOracle), once one is preempted every less important one
// is too.
type branchAndBound struct {
	s        *victimSearch
	chosen   []*unit
	best     []*unit
	bestCost Cost
	witness  any
	// class is each unit's class of alike units (-1: none); taken counts the victims
	// chosen so far of each class.
	class []int
	taken []int
	room  *roomBound
	// counter bounds the victims still needed pod by pod (victimCounter); tail[k] sums
	// the shifted priorities of the k least important pods of the units.
	counter victimCounter
	tail    []int64
}

func newBranchAndBound(s *victimSearch, incumbent []*unit, witness any) *branchAndBound {
	b := &branchAndBound{s: s, best: incumbent, bestCost: costOfUnits(incumbent, s.pdbs), witness: witness}
	if ro, ok := s.o.(roomOracle); ok {
		b.room = newRoomBound(ro, s.units)
	}
	if vc, ok := s.o.(victimCounter); ok {
		vc.prepare(s.units)
		b.counter = vc
		b.tail = []int64{0}
		for i := len(s.units) - 1; i >= 0; i-- {
			for range s.units[i].pods {
				b.tail = append(b.tail, b.tail[len(b.tail)-1]+shifted(s.units[i].priority))
			}
		}
	}
	b.class = make([]int, len(s.units))
	ids := map[string]int{}
	ao, alike := s.o.(alikeOracle)
	for i, u := range s.units {
		b.class[i] = -1
		if !alike {
			continue
		}
		if k := ao.alikeKey(u); k != "" {
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
	if i == len(s.units) {
		b.best, b.bestCost, b.witness = slices.Clone(b.chosen), partial, s.o.witness()
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
			k, ok := b.counter.fewestVictims(i)
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
	u, class := s.units[i], b.class[i]
	if (class < 0 || b.taken[class] == 0) && !s.exhausted() {
		back, err := s.keep(u)
		if err != nil {
			return err
		}
		if back {
			if err := b.visit(i+1, partial); err != nil {
				return err
			}
			if err := s.o.drop(u); err != nil {
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
func (b *branchAndBound) with(partial Cost, u *unit) Cost {
	if len(b.s.pdbs) > 0 {
		return costOfUnits(b.chosen, b.s.pdbs)
	}
	partial.add(u)
	return partial
}
