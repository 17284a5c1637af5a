package gangvector

import (
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// The dynamic program of a nodePlanner (nodeplan.go): states, their costs and how the
// program moves from node to node.

// planCost orders plans: the pods that violate a budget (only when budgets are weighed,
// not kept: always 0 otherwise), the shifted sum of victim priorities, then how many they
// are.
type planCost struct {
	viol  int
	sum   int64
	count int
}

var planUnreachable = planCost{viol: 1 << 30, sum: 1 << 62}

func (a planCost) less(b planCost) bool {
	if a.viol != b.viol {
		return a.viol < b.viol
	}
	if a.sum != b.sum {
		return a.sum < b.sum
	}
	return a.count < b.count
}

func (a planCost) plus(b planCost) planCost {
	return planCost{a.viol + b.viol, a.sum + b.sum, a.count + b.count}
}

func unitPlanCost(u *preemption.Unit) planCost {
	return planCost{sum: int64(len(u.Pods)) * preemption.Shifted(u.Priority), count: len(u.Pods)}
}

// nodeOption is what one node can do: reach a state alone (members hosted, budget spent)
// with these of its units gone, at a cost.
type nodeOption struct {
	state   int
	cost    planCost
	victims []*preemption.Unit
}

// planStep is how the program reached a state at a node: from the state before it, with
// the node's option opt (nil: the node changes nothing).
type planStep struct {
	from int
	opt  *nodeOption
}

// evaluate runs the program with the spanning units of gone (bits) gone: the plan's
// cost with theirs, its last state, and per node how each state was reached (nil when
// the members cannot all be placed).
func (p *nodePlanner) evaluate(gone uint64) (planCost, int, [][]planStep) {
	p.gone = gone
	var cost planCost
	var spanning []*preemption.Unit
	for g, u := range p.spanning {
		if gone&(1<<g) != 0 {
			cost = cost.plus(unitPlanCost(u))
			spanning = append(spanning, u)
		}
	}
	start, viol, ok := p.spent(spanning)
	if !ok {
		return planUnreachable, 0, nil
	}
	cost.viol += viol
	c, end, steps := p.solve(start)
	if steps == nil {
		return planUnreachable, 0, nil
	}
	return cost.plus(c), end, steps
}

// solve is the program from state start over the nodes.
func (p *nodePlanner) solve(start int) (planCost, int, [][]planStep) {
	best := make([]planCost, p.states)
	next := make([]planCost, p.states)
	for s := range best {
		best[s] = planUnreachable
	}
	best[start] = planCost{}
	steps := make([][]planStep, len(p.o.nodes))
	for n := range p.o.nodes {
		key := p.optionKey(n)
		opts, ok := p.cache[n][key]
		if !ok {
			opts = p.nodeOptions(n)
			p.cache[n][key] = opts
		}
		if !p.spend(p.states * (len(opts) + 1)) {
			return planUnreachable, 0, nil
		}
		copy(next, best)
		step := make([]planStep, p.states)
		for s := range step {
			step[s] = planStep{from: s}
		}
		for s, c := range best {
			if c == planUnreachable {
				continue
			}
			for i := range opts {
				t, viol, ok := p.add(s, opts[i].state)
				if nc := c.plus(opts[i].cost); ok && nc.plus(planCost{viol: viol}).less(next[t]) {
					nc.viol += viol
					next[t], step[t] = nc, planStep{from: s, opt: &opts[i]}
				}
			}
		}
		steps[n] = step
		best, next = next, best
	}
	end := -1
	for s, c := range best {
		if p.placesAll(s) && (end < 0 || c.less(best[end])) {
			end = s
		}
	}
	if end < 0 || best[end] == planUnreachable {
		return planUnreachable, 0, nil
	}
	return best[end], end, steps
}

// plan is a solution's victims of single nodes and the members' placement, in node
// order.
func (p *nodePlanner) plan(steps [][]planStep, state int) ([]*preemption.Unit, []framework.Assignment) {
	var victims []*preemption.Unit
	hosted := make([][]int, len(p.o.nodes))
	for n := len(p.o.nodes) - 1; n >= 0; n-- {
		step := steps[n][state]
		if step.opt != nil {
			victims = append(victims, step.opt.victims...)
			hosted[n] = make([]int, len(p.o.kinds))
			for k := range p.o.kinds {
				hosted[n][k] = p.count(state, k) - p.count(step.from, k)
			}
		}
		state = step.from
	}
	var assignment []framework.Assignment
	next := make([]int, len(p.o.kinds))
	for n, counts := range hosted {
		for k, c := range counts {
			for range c {
				assignment = append(assignment, framework.Assignment{Pod: p.o.kinds[k].members[next[k]], Node: p.o.nodes[n]})
				next[k]++
			}
		}
	}
	return victims, assignment
}

// count is dimension d of state s.
func (p *nodePlanner) count(s, d int) int { return p.digits[s*len(p.limit)+d] }

// placesAll reports whether state s places every member needed.
func (p *nodePlanner) placesAll(s int) bool {
	for k := range p.o.kinds {
		if p.count(s, k) < p.limit[k] {
			return false
		}
	}
	return true
}

// add is state a followed by b: members capped at what is needed; false when a budget
// would lose more pods than it allows. When budgets are weighed (soft), a budget's count
// stops at what it allows instead and the pods past it are counted as violations (a
// count at the limit means "all allowed spent": every further pod violates).
func (p *nodePlanner) add(a, b int) (int, int, bool) {
	dims := len(p.limit)
	da, db := p.digits[a*dims:(a+1)*dims], p.digits[b*dims:(b+1)*dims]
	s, viol := 0, 0
	for d, l := range p.limit {
		c := da[d] + db[d]
		if c > l {
			if d >= len(p.o.kinds) {
				if !p.soft {
					return 0, 0, false
				}
				viol += c - l
			}
			c = l
		}
		s += c * p.stride[d]
	}
	return s, viol, true
}

// spent is the state of the budgets once these units are gone, and the pods past what
// they allow (soft); false when one would lose more pods than it allows (kept).
func (p *nodePlanner) spent(units []*preemption.Unit) (int, int, bool) {
	s, viol := 0, 0
	for _, u := range units {
		b, v, ok := p.budgetState(u)
		if !ok {
			return 0, 0, false
		}
		var w int
		if s, w, ok = p.add(s, b); !ok {
			return 0, 0, false
		}
		viol += v + w
	}
	return s, viol, true
}
