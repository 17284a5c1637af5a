package gangvector

import (
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// nodeOptions lists, for node n with the groups gone, the cheapest victims among its
// allowed units for each state it can reach alone. Units that free the same room there,
// of one priority and as many pods under the same budgets, are a class whose least
// important go first; every useful count of each class is tried, the least important
// classes first, as many as planMaxLeaves combinations allow (the others stay).
func (p *nodePlanner) nodeOptions(n int) []nodeOption {
	room := slices.Clone(p.base[n])
	for g, u := range p.spanning {
		if p.gone&(1<<g) != 0 {
			p.o.adjustRoom(room, u, n, 1)
		}
	}
	var classes [][]*preemption.Unit
	for _, u := range p.local[n] {
		if !p.allowed(u) {
			continue
		}
		i := slices.IndexFunc(classes, func(c []*preemption.Unit) bool { return p.alikeOn(c[0], u) })
		if i < 0 {
			classes = append(classes, nil)
			i = len(classes) - 1
		}
		classes[i] = append(classes[i], u)
	}
	need := p.trimUseless(n, room, classes)
	// The sets weighed are the counts of each class, least important classes first,
	// without those that cannot matter: once the room hosts whatever the node can
	// (need), more victims only cost more; and a branch whose cost and budget spent
	// already reach those of a set that hosts whatever the node can is beaten by it.
	// Past planMaxLeaves sets weighed, the rest is left out.
	leaves := 0
	type fullSet struct {
		cost  planCost
		spent int
	}
	var full []fullSet
	beaten := func(cost planCost, spent int) bool {
		return slices.ContainsFunc(full, func(f fullSet) bool { return !cost.less(f.cost) && p.atLeast(f.spent, spent) })
	}
	for s := range p.cheapest {
		p.cheapest[s], p.subset[s] = planUnreachable, nil
	}
	var chosen []*preemption.Unit
	var cost planCost
	var counts func(i, spent int)
	counts = func(i, spent int) {
		if beaten(cost, spent) {
			return
		}
		covered := covers(room, need)
		if i == len(classes) || covered {
			if leaves++; leaves > planMaxLeaves {
				p.inexact = true
				return
			}
			if !p.spend(1) {
				return
			}
			p.hosts(n, room, 0, spent, func(s int) {
				p.work++
				if cost.less(p.cheapest[s]) {
					p.cheapest[s], p.subset[s] = cost, slices.Clone(chosen)
				}
			})
			if covered {
				full = append(full, fullSet{cost, spent})
			}
			return
		}
		was, had := cost, len(chosen)
		counts(i+1, spent)
		for _, u := range classes[i] {
			if leaves > planMaxLeaves {
				break
			}
			b, viol, ok := p.budgetState(u)
			if !ok {
				break
			}
			var more int
			if spent, more, ok = p.add(spent, b); !ok {
				break
			}
			cost = cost.plus(unitPlanCost(u))
			cost.viol += viol + more
			p.o.adjustRoom(room, u, n, 1)
			chosen = append(chosen, u)
			counts(i+1, spent)
			if covers(room, need) {
				break
			}
		}
		for _, u := range chosen[had:] {
			p.o.adjustRoom(room, u, n, -1)
		}
		cost, chosen = was, chosen[:had]
	}
	counts(0, 0)
	var out []nodeOption
	for s := range p.cheapest {
		if p.cheapest[s] != planUnreachable && p.hostsSome(s) {
			out = append(out, nodeOption{state: s, cost: p.cheapest[s], victims: p.subset[s]})
		}
	}
	return p.undominated(out)
}

// hostsSome reports whether state s places a member.
func (p *nodePlanner) hostsSome(s int) bool {
	for k := range p.o.kinds {
		if p.count(s, k) > 0 {
			return true
		}
	}
	return false
}

// undominated leaves out the options another beats: it costs no more, hosts at least as
// many members of each kind and spends no more of any budget, so the program never needs
// the beaten one.
func (p *nodePlanner) undominated(opts []nodeOption) []nodeOption {
	slices.SortStableFunc(opts, func(a, b nodeOption) int {
		switch {
		case a.cost.less(b.cost):
			return -1
		case b.cost.less(a.cost):
			return 1
		}
		return 0
	})
	kept := opts[:0]
	for _, o := range opts {
		if !slices.ContainsFunc(kept, func(k nodeOption) bool { return p.atLeast(k.state, o.state) }) {
			kept = append(kept, o)
		}
	}
	return slices.Clip(kept)
}

// atLeast reports whether state a hosts at least state b's members, spending no more of
// any budget.
func (p *nodePlanner) atLeast(a, b int) bool {
	dims := len(p.limit)
	da, db := p.digits[a*dims:(a+1)*dims], p.digits[b*dims:(b+1)*dims]
	for d := range dims {
		if (d < len(p.o.kinds) && da[d] < db[d]) || (d >= len(p.o.kinds) && da[d] > db[d]) {
			return false
		}
	}
	return true
}

// trimUseless drops, from each class (room as the node is), the units past the count
// that makes room, in every resource the class frees, for the most any state of the
// node needs (with every class gone): more of them only cost more and spend more budget,
// whatever else goes, so no cheapest option takes them.
func (p *nodePlanner) trimUseless(n int, room []int64, classes [][]*preemption.Unit) []int64 {
	full := slices.Clone(room)
	for _, c := range classes {
		for _, u := range c {
			p.o.adjustRoom(full, u, n, 1)
		}
	}
	need := make([]int64, len(room))
	p.hosts(n, full, 0, 0, func(s int) {
		for j := range need {
			var r int64
			for k, kd := range p.o.kinds {
				r += int64(p.count(s, k)) * kd.req[j]
			}
			need[j] = max(need[j], r)
		}
	})
	freed := make([]int64, len(room))
	for i, c := range classes {
		clear(freed)
		p.o.adjustRoom(freed, c[0], n, 1)
		useful := 0
		for useful < len(c) {
			enough := true
			for j, f := range freed {
				if f > 0 && room[j]+int64(useful)*f < need[j] {
					enough = false
				}
			}
			if enough {
				break
			}
			useful++
		}
		classes[i] = c[:useful]
	}
	return need
}

// covers reports whether room is at least need in every resource.
func covers(room, need []int64) bool {
	for j, r := range need {
		if room[j] < r {
			return false
		}
	}
	return true
}

// budgetState is the state of u's pods alone against the budgets, and (soft) how many
// of them are past what a budget allows; false when they alone are more than a budget
// allows (kept).
func (p *nodePlanner) budgetState(u *preemption.Unit) (int, int, bool) {
	s, viol := 0, 0
	for i, c := range p.use[u] {
		d := len(p.o.kinds) + i
		if c > p.limit[d] {
			if !p.soft {
				return 0, 0, false
			}
			viol += c - p.limit[d]
			c = p.limit[d]
		}
		s += c * p.stride[d]
	}
	return s, viol, true
}

// alikeOn reports whether two units of one node free the same room there, with as many
// pods of one priority under the same budgets: the program does not tell them apart.
func (p *nodePlanner) alikeOn(a, b *preemption.Unit) bool {
	if a.Priority != b.Priority || len(a.Pods) != len(b.Pods) || !slices.Equal(p.use[a], p.use[b]) {
		return false
	}
	return slices.EqualFunc(p.o.on[a], p.o.on[b], func(x, y podRoom) bool { return slices.Equal(x.req, y.req) })
}

// hosts calls f for every state (from kind k on, s so far) whose members fit in room on
// node n, where their kinds may go.
func (p *nodePlanner) hosts(n int, room []int64, k, s int, f func(int)) {
	if k == len(p.o.kinds) {
		f(s)
		return
	}
	req := p.o.kinds[k].req
	c := 0
	for {
		p.hosts(n, room, k+1, s+c*p.stride[k], f)
		if c == p.limit[k] || !p.o.ok[n][k] || fitCount(room, req) == 0 {
			break
		}
		for j, r := range req {
			room[j] -= r
		}
		c++
	}
	for j, r := range req {
		room[j] += int64(c) * r
	}
}

// adjustRoom adds (sign 1) or takes back (-1) the room u's pods free on node n to room.
func (o *Oracle) adjustRoom(room []int64, u *preemption.Unit, n int, sign int64) {
	for _, q := range o.on[u] {
		if q.node == n {
			for j, r := range q.req {
				room[j] += sign * r
			}
		}
	}
}

// leastImportantAlike swaps victims for less important units of their class of alike
// units (alikeKey): they free the same room on the same node, so the plan holds, and its
// most important victim can only become less important.
func (o *Oracle) leastImportantAlike(victims, units []*preemption.Unit) []*preemption.Unit {
	taken := map[string]int{}
	var out []*preemption.Unit
	for _, u := range victims {
		if k := o.keys[u]; k != "" {
			taken[k]++
		} else {
			out = append(out, u)
		}
	}
	for i := len(units) - 1; i >= 0 && len(taken) > 0; i-- {
		if k := o.keys[units[i]]; taken[k] > 0 {
			out = append(out, units[i])
			if taken[k]--; taken[k] == 0 {
				delete(taken, k)
			}
		}
	}
	preemption.SortUnits(out)
	return out
}
