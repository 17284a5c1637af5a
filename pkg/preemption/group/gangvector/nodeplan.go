package gangvector

import (
	"math/bits"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// planMaxLeaves bounds the sets of victims PlanByNodes weighs on one node (it tries every
// count of each class of alike units there), planMaxStates the states of its program,
// planMaxSpanning the units spanning nodes it may take (every set of them up to
// planExactSpanning, a local search beyond), and planBudget its work in all (sets weighed,
// placements counted and transitions of the program): past it, no plan is proposed and
// the search starts from greedy reprieval's set, as without a plan.
const (
	planMaxLeaves     = 4096
	planMaxStates     = 1 << 12
	planMaxSpanning   = 64
	planExactSpanning = 5
	planBudget        = 16_000_000
)

// nodePlanner plans a gang's preemption on resource vectors node by node: a dynamic
// program over the nodes of the model whose state is how many members of each kind are
// placed so far (capped at what is needed) and, when budgets are kept, how many pods each
// PodDisruptionBudget has lost (at most what it allows). Each node offers, for the sets of
// its own units (those whose pods are all on it), the members it can host with them gone;
// units spanning nodes (whole groups) are decided around the program, every set of them
// when they are few, by local search otherwise. Plans are compared as the search compares
// sets: no budget violated when that can be, the lowest priority level, then the least
// shifted sum of victim priorities (so the fewest victims first), then the least
// important top victim.
//
// When the program left nothing out, its plan is the least disruptive set of the model
// and the decision (the group's placer still confirms it); otherwise it is the exact
// search's first set, which matters when the search's budget runs out before it finds as
// good a set on its own, as it does for gangs of several kinds of members among many
// candidates (docs/decisions/0022).
type nodePlanner struct {
	o *Oracle
	// A state is a number in mixed radix: per dimension (each kind of member, then each
	// budget) a count up to limit, weighted by stride.
	limit, stride []int
	states        int
	// digits holds each state's counts, dimension by dimension (state s at
	// s*len(limit)): the program's inner loop reads them without dividing.
	digits []int
	// budgets are the budgets kept (covering some candidate); use, per unit, how many of
	// its pods each covers (nil: none).
	budgets []*framework.PDBInfo
	use     map[*preemption.Unit][]int
	// base is each node's room with every unit in place; local its own units, least
	// important first; spanning the units on several nodes.
	base     [][]int64
	local    [][]*preemption.Unit
	spanning []*preemption.Unit
	// touch has, per node, the bits of the spanning units with pods there (the first
	// planMaxSpanning; the others stay).
	touch []uint64
	// The units allowed in the current plan, and the spanning units gone in the current
	// evaluation (bits of spanning). Each node's options are kept by what they depend on
	// (optionKey).
	allowed func(*preemption.Unit) bool
	gone    uint64
	cache   []map[optionKey][]nodeOption
	// Scratch for the options of one node: the cheapest set of victims per state.
	cheapest []planCost
	subset   [][]*preemption.Unit
	// work counts toward planBudget.
	work int
	// inexact is set when the program left something out (a node's sets past
	// planMaxLeaves, spanning units past planMaxSpanning or decided by local search);
	// onlyExact stops the planning then.
	inexact, onlyExact bool
	// soft weighs the budgets instead of keeping them: a plan may spend more than one
	// allows, each pod past it a violation that costs before anything else (when no plan
	// keeps every budget). overlap: a pod is under two budgets, where the program's count
	// of violations (per budget) may exceed the pods violating, so a soft plan is not
	// exact.
	soft, overlap bool
}

// spend counts work; false once past the budget.
func (p *nodePlanner) spend(n int) bool {
	p.work += n
	return p.work <= planBudget
}

// PlanByNodes is the oracle's plan for the exact search (units most important first; the
// oracle as it starts: every unit off): its victims and the members' placement (nil when
// no plan is found), and whether it is the least disruptive set of the model. Priority
// levels are tried from the lowest, first keeping every budget; when no level can, the
// budgets are weighed (the fewest pods past them first); when the program would have too
// many states with every budget, first only the budgets a plan breaks are kept, one more
// round for each plan that breaks another (keepLazily), then the budgets are left out.
// The plan is exact when the program left nothing out and the budgets were kept or
// weighed: each part of the cost order is then decided exactly (the fewest violations,
// the lowest level, the least sum and number, the least important top victim). With
// onlyExact, it gives up as soon as the plan cannot be exact.
func (o *Oracle) PlanByNodes(units []*preemption.Unit, pdbs []*framework.PDBInfo, onlyExact bool) ([]*preemption.Unit, any, bool) {
	for mode := range 3 {
		// Budgets kept; weighed (when none keeps them all); left out (when the program
		// with them would have too many states).
		kept, soft := pdbs, mode == 1
		if mode == 2 {
			kept = nil
		}
		p := o.newNodePlanner(units, kept)
		if p == nil {
			if mode == 0 {
				if victims, assignment, exact := o.keepLazily(units, pdbs, onlyExact); victims != nil {
					return victims, assignment, exact
				}
				if onlyExact {
					return nil, nil, false
				}
			}
			continue
		}
		p.onlyExact, p.soft = onlyExact, soft
		victims, assignment, done := p.decide(units)
		if victims != nil {
			exact := !p.inexact && !(soft && p.overlap) && p.work <= planBudget && (len(kept) > 0 || len(pdbs) == 0)
			return victims, assignment, exact
		}
		if done || len(kept) == 0 || (onlyExact && mode == 1) {
			break
		}
	}
	return nil, nil, false
}

// decide is the planner's plan: at the lowest priority level that has one (weighing
// budgets: that has one with the fewest violations of all), with the least important top
// victim and alike victims the least important of their class. done: no plan of another
// mode should be tried (the work budget is spent, or the plan could not be exact and
// onlyExact is set).
func (p *nodePlanner) decide(units []*preemption.Unit) ([]*preemption.Unit, any, bool) {
	levels := preemption.PriorityLevels(units)
	least := 0
	if p.soft {
		if len(levels) == 0 {
			return nil, nil, true
		}
		top := levels[len(levels)-1]
		victims, _ := p.planAt(func(u *preemption.Unit) bool { return u.Priority <= top })
		if victims == nil || p.work > planBudget || (p.onlyExact && p.inexact) {
			return nil, nil, p.onlyExact || p.work > planBudget
		}
		least = p.costOf(victims).viol
	}
	for _, level := range levels {
		victims, assignment := p.planAt(func(u *preemption.Unit) bool { return u.Priority <= level })
		if p.onlyExact && p.inexact {
			return nil, nil, true
		}
		if victims != nil && p.costOf(victims).viol <= least {
			victims, assignment = p.leastImportantTop(units, level, victims, assignment)
			return p.o.leastImportantAlike(victims, units), assignment, false
		}
		if p.work > planBudget {
			return nil, nil, true
		}
	}
	return nil, nil, false
}

// keepLazily plans keeping only some budgets, where keeping all of them would take too
// many states: none at first, then, round after round, also those the plan breaks. A
// plan that breaks none keeps every budget and is as cheap as any that keeps only some
// (the model with fewer budgets is a relaxation), so it is the plan with all of them,
// exact when the program left nothing out. nil when the budgets a plan breaks make too
// many states, or when no plan keeps those kept (the caller goes on).
func (o *Oracle) keepLazily(units []*preemption.Unit, pdbs []*framework.PDBInfo, onlyExact bool) ([]*preemption.Unit, any, bool) {
	var kept []*framework.PDBInfo
	for {
		p := o.newNodePlanner(units, kept)
		if p == nil {
			return nil, nil, false
		}
		p.onlyExact = onlyExact
		victims, assignment, _ := p.decide(units)
		if victims == nil {
			return nil, nil, false
		}
		broken := brokenBudgets(victims, pdbs)
		if len(broken) == 0 {
			return victims, assignment, !p.inexact && p.work <= planBudget
		}
		kept = append(kept, broken...)
	}
}

// brokenBudgets are the budgets that lose more pods than they allow with the victims gone.
func brokenBudgets(victims []*preemption.Unit, pdbs []*framework.PDBInfo) []*framework.PDBInfo {
	var out []*framework.PDBInfo
	for _, pdb := range pdbs {
		n := 0
		for _, u := range victims {
			for _, q := range u.Pods {
				if preemption.Covered(pdb, q) {
					n++
				}
			}
		}
		if n > max(0, int(pdb.PDB.Status.DisruptionsAllowed)) {
			out = append(out, pdb)
		}
	}
	return out
}

// leastImportantTop makes the most important victim of a plan at level as unimportant as
// it can be at the plan's cost: of the units of that priority, least important first, the
// fewest that must be allowed for a plan as cheap (a binary search: allowing more never
// costs more).
func (p *nodePlanner) leastImportantTop(units []*preemption.Unit, level int32, victims []*preemption.Unit, assignment any) ([]*preemption.Unit, any) {
	cost := p.costOf(victims)
	rank := map[*preemption.Unit]int{}
	for i := len(units) - 1; i >= 0; i-- {
		if units[i].Priority == level {
			rank[units[i]] = len(rank)
		}
	}
	upTo := func(t int) func(*preemption.Unit) bool {
		return func(u *preemption.Unit) bool { return u.Priority < level || (u.Priority == level && rank[u] <= t) }
	}
	// The plan's most important victim of that priority bounds the search from above.
	lo, hi := 0, 0
	for _, u := range victims {
		if r, ok := rank[u]; ok {
			hi = max(hi, r)
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if v, a := p.planAt(upTo(mid)); v != nil && !cost.less(p.costOf(v)) {
			victims, assignment, hi = v, a, mid
		} else {
			lo = mid + 1
		}
	}
	return victims, assignment
}

// costOf is a plan's cost: its victims' and, weighing budgets, the pods past what the
// planner's budgets allow.
func (p *nodePlanner) costOf(units []*preemption.Unit) planCost {
	var c planCost
	spent := make([]int, len(p.budgets))
	for _, u := range units {
		c = c.plus(unitPlanCost(u))
		for i, n := range p.use[u] {
			spent[i] += n
		}
	}
	for i, n := range spent {
		c.viol += max(0, n-p.limit[len(p.o.kinds)+i])
	}
	return c
}

// newNodePlanner sets the program up, keeping the budgets given; nil when it would have
// too many states.
func (o *Oracle) newNodePlanner(units []*preemption.Unit, pdbs []*framework.PDBInfo) *nodePlanner {
	p := &nodePlanner{o: o, states: 1, use: map[*preemption.Unit][]int{}}
	if len(o.kinds) == 1 {
		p.limit = []int{o.need}
	} else {
		for _, kd := range o.kinds {
			p.limit = append(p.limit, len(kd.members))
		}
	}
	under := map[*framework.PodInfo]bool{}
	for i, pdb := range pdbs {
		covers := false
		for _, u := range units {
			for _, q := range u.Pods {
				if preemption.Covered(pdb, q) {
					if under[q] {
						p.overlap = true
					}
					under[q] = true
					if p.use[u] == nil {
						p.use[u] = make([]int, len(pdbs))
					}
					p.use[u][i]++
					covers = true
				}
			}
		}
		if covers {
			p.budgets = append(p.budgets, pdb)
			p.limit = append(p.limit, max(0, int(pdb.PDB.Status.DisruptionsAllowed)))
		}
	}
	for u, use := range p.use {
		// Only the budgets kept count, in their order.
		var kept []int
		for i, pdb := range pdbs {
			if slices.Contains(p.budgets, pdb) {
				kept = append(kept, use[i])
			}
		}
		p.use[u] = kept
	}
	for _, l := range p.limit {
		p.stride = append(p.stride, p.states)
		if p.states *= l + 1; p.states > planMaxStates {
			return nil
		}
	}
	p.digits = make([]int, p.states*len(p.limit))
	for s := range p.states {
		for d, l := range p.limit {
			p.digits[s*len(p.limit)+d] = s / p.stride[d] % (l + 1)
		}
	}
	p.base = make([][]int64, len(o.nodes))
	for n := range o.nodes {
		p.base[n] = slices.Clone(o.free[n])
	}
	p.local = make([][]*preemption.Unit, len(o.nodes))
	for i := len(units) - 1; i >= 0; i-- {
		u := units[i]
		on := o.on[u]
		for _, q := range on {
			for j, r := range q.req {
				p.base[q.node][j] -= r
			}
		}
		switch {
		case len(on) == 0:
		case !slices.ContainsFunc(on, func(q podRoom) bool { return q.node != on[0].node }):
			p.local[on[0].node] = append(p.local[on[0].node], u)
		default:
			p.spanning = append(p.spanning, u)
		}
	}
	if len(p.spanning) > planMaxSpanning {
		p.spanning, p.inexact = p.spanning[:planMaxSpanning], true
	}
	p.touch = make([]uint64, len(o.nodes))
	for g, u := range p.spanning {
		for _, q := range o.on[u] {
			p.touch[q.node] |= 1 << g
		}
	}
	p.cache = make([]map[optionKey][]nodeOption, len(o.nodes))
	for n := range p.cache {
		p.cache[n] = map[optionKey][]nodeOption{}
	}
	p.cheapest = make([]planCost, p.states)
	p.subset = make([][]*preemption.Unit, p.states)
	return p
}

// optionKey is what a node's options depend on: the spanning units gone with pods there,
// and which of its own units are allowed (the first 64, least important first, by bit;
// past them, how many: over one planner's life the sets allowed grow along one chain,
// levels and then units of one level by rank, so the count tells them apart).
type optionKey struct {
	gone, allowed uint64
	more          int
}

func (p *nodePlanner) optionKey(n int) optionKey {
	k := optionKey{gone: p.gone & p.touch[n]}
	for i, u := range p.local[n] {
		switch {
		case !p.allowed(u):
		case i < 64:
			k.allowed |= 1 << i
		default:
			k.more++
		}
	}
	return k
}

// planAt plans with the units allowed. The program is exact for the spanning units
// fixed: up to planExactSpanning of them allowed, every set of them is tried; beyond,
// they start all gone when nothing fits otherwise, then each is put back or taken off,
// one at a time, as long as that lowers the plan's cost (a local optimum: the exact
// search improves on it).
func (p *nodePlanner) planAt(allowed func(*preemption.Unit) bool) ([]*preemption.Unit, any) {
	p.allowed = allowed
	var groups uint64
	for g, u := range p.spanning {
		if allowed(u) {
			groups |= 1 << g
		}
	}
	var gone uint64
	cost, end, steps := p.evaluate(gone)
	if bits.OnesCount64(groups) <= planExactSpanning {
		// Every nonempty subset of groups, by the usual walk over submasks.
		for sub := groups; sub != 0; sub = (sub - 1) & groups {
			if c, e, s := p.evaluate(sub); s != nil && (steps == nil || c.less(cost)) {
				gone, cost, end, steps = sub, c, e, s
			}
		}
		if steps == nil {
			return nil, nil
		}
		return p.withSpanning(steps, end, gone)
	}
	p.inexact = true
	if p.onlyExact {
		return nil, nil
	}
	if steps == nil {
		gone = groups
		if cost, end, steps = p.evaluate(gone); steps == nil {
			return nil, nil
		}
	}
	for improved := true; improved && p.work <= planBudget; {
		improved = false
		for g := range p.spanning {
			if groups&(1<<g) == 0 {
				continue
			}
			if c, e, s := p.evaluate(gone ^ 1<<g); s != nil && c.less(cost) {
				gone, cost, end, steps, improved = gone^1<<g, c, e, s, true
			}
		}
	}
	return p.withSpanning(steps, end, gone)
}

// withSpanning is the plan of a solution with the spanning units of gone among the
// victims.
func (p *nodePlanner) withSpanning(steps [][]planStep, end int, gone uint64) ([]*preemption.Unit, any) {
	victims, assignment := p.plan(steps, end)
	for g, u := range p.spanning {
		if gone&(1<<g) != 0 {
			victims = append(victims, u)
		}
	}
	preemption.SortUnits(victims)
	return victims, assignment
}
