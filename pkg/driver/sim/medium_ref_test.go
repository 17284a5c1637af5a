package sim_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// The exact reference for preemption on medium clusters. It shares nothing with the
// engine: units, costs and fitting are computed here from the generated model alone, by
// another method than the engine's search (a dynamic program over nodes, not a search over
// units):
//
//   - the cost order is the engine's (preemption.Cost): budget violations, highest victim
//     priority, number of victims and sum of their priorities (the engine's shifted sum
//     orders like that with these priorities), then the most important victim of the
//     highest priority as unimportant as possible (a single pod before a whole group,
//     lower QoS, later start);
//   - the highest priority is found by a search over priority levels, and the most
//     important victim by a search over the units of that level in importance order: both
//     only allow more units, so what can be reached only grows;
//   - for a set of allowed units, core finds the least (violations, victims, sum): units
//     that free room on several nodes of the domain (whole groups) are enumerated, and the
//     rest is a dynamic program over the nodes whose state is how many members of each
//     kind are placed so far and how much of each budget is spent; on each node, units that
//     are alike (same room freed, pods, priority, budget) form classes, and what the node
//     can offer is every count of each class.

// mKey is a victim set's cost.
type mKey struct {
	viol  int
	high  int32
	count int
	sum   int64
	// The most important victim of the highest priority.
	topGroup bool
	topQOS   int
	topStart int // a pod index: larger started later
}

var mNoVictims = mKey{high: math.MinInt32}

func (a mKey) compare(b mKey) int {
	if r := cmp.Or(cmp.Compare(a.viol, b.viol), cmp.Compare(a.high, b.high), cmp.Compare(a.count, b.count), cmp.Compare(a.sum, b.sum)); r != 0 {
		return r
	}
	if a.topGroup != b.topGroup {
		if a.topGroup {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.topQOS, b.topQOS), -cmp.Compare(a.topStart, b.topStart))
}

func (a mKey) String() string {
	if a.count == 0 {
		return "{no victims}"
	}
	return fmt.Sprintf("{violations %d, highest %d, victims %d, sum %d, top group=%v qos=%d start=%d}",
		a.viol, a.high, a.count, a.sum, a.topGroup, a.topQOS, a.topStart)
}

// mUnit is a preemption unit: a pod, or every member of a group of disruption mode All.
type mUnit struct {
	pods  []int
	prio  int32
	group bool
	qos   int
	start int
	freed map[int]mVec // room freed per node
	pdb   []int        // pods per budget
}

// moreImportant is the engine's importance order of units.
func (a *mUnit) moreImportant(b *mUnit) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.group != b.group {
		return a.group
	}
	if a.qos != b.qos {
		return a.qos > b.qos
	}
	return a.start < b.start
}

// candidateUnits are the units of lower priority than the preemptor; BestEffort pods free
// nothing but their pod slot, which they keep, so they are none.
func (c *mCluster) candidateUnits() []*mUnit {
	var units []*mUnit
	seen := map[int]bool{}
	for i, p := range c.pods {
		if p.prio >= c.pre.prio || p.qos == qosBestEffort {
			continue
		}
		members := []int{i}
		group := p.group >= 0 && c.groups[p.group].all
		if group {
			if seen[p.group] {
				continue
			}
			seen[p.group] = true
			members = c.groups[p.group].members
		}
		u := &mUnit{pods: members, prio: p.prio, group: group, qos: p.qos, start: members[0], freed: map[int]mVec{}, pdb: make([]int, len(c.pdbs))}
		if group {
			u.qos = 0 // the engine gives a whole group no QoS rank
		}
		for _, k := range members {
			q := c.pods[k]
			u.freed[q.node] = u.freed[q.node].add(q.req)
			if q.app >= 0 {
				u.pdb[q.app]++
			}
		}
		units = append(units, u)
	}
	return units
}

// keyOf is the cost of preempting the units.
func (c *mCluster) keyOf(units []*mUnit) mKey {
	k := mNoVictims
	per := make([]int, len(c.pdbs))
	var top *mUnit
	for _, u := range units {
		k.count += len(u.pods)
		k.sum += int64(len(u.pods)) * int64(u.prio)
		for b, n := range u.pdb {
			per[b] += n
		}
		if top == nil || u.moreImportant(top) {
			top = u
		}
	}
	if top == nil {
		return k
	}
	for b, n := range per {
		k.viol += max(0, n-c.pdbs[b].maxUnavailable)
	}
	k.high, k.topGroup, k.topQOS, k.topStart = top.prio, top.group, top.qos, top.start
	return k
}

// keyOfPods is the cost of preempting these pods (which must make up whole units).
func (c *mCluster) keyOfPods(pods []int) mKey {
	var units []*mUnit
	seen := map[int]bool{}
	for _, u := range c.candidateUnits() {
		for _, p := range u.pods {
			if slices.Contains(pods, p) && !seen[p] {
				units = append(units, u)
				for _, q := range u.pods {
					seen[q] = true
				}
				break
			}
		}
	}
	k := c.keyOf(units)
	for _, p := range pods {
		if !seen[p] {
			// Not a candidate at all (a higher-priority or BestEffort pod): counted as a
			// victim of its priority, which the reference never chooses.
			k.count++
			k.sum += int64(c.pods[p].prio)
			k.high = max(k.high, c.pods[p].prio)
		}
	}
	return k
}

// domains are the node sets the preemptor must fit in: all nodes, or each rack.
func (c *mCluster) domains() [][]int {
	if c.kind != medRackGang {
		return [][]int{identity(len(c.nodes))}
	}
	var out [][]int
	for _, r := range c.racks {
		var dom []int
		for i, nd := range c.nodes {
			if nd.rack == r {
				dom = append(dom, i)
			}
		}
		out = append(out, dom)
	}
	return out
}

// mSolver answers core queries for one cluster.
type mSolver struct {
	c     *mCluster
	units []*mUnit
	free  []mVec // with every pod in place
	kinds []mVec // the preemptor's distinct member requests
	count []int  // members of each kind
	// radix of the dynamic program's state: member counts per kind, then the disruptions
	// spent of each budget (capped at what it allows).
	radix []int
	// work counts node options made, to keep the generator's clusters tractable.
	work int
}

func newSolver(c *mCluster) *mSolver {
	s := &mSolver{c: c, units: c.candidateUnits(), free: c.freeRoom()}
	for _, m := range c.pre.members {
		if i := slices.Index(s.kinds, m); i >= 0 {
			s.count[i]++
		} else {
			s.kinds = append(s.kinds, m)
			s.count = append(s.count, 1)
		}
	}
	for _, n := range s.count {
		s.radix = append(s.radix, n+1)
	}
	for _, b := range c.pdbs {
		s.radix = append(s.radix, b.maxUnavailable+1)
	}
	return s
}

// mCore is the least (violations, victims, sum) for a set of allowed units, with a victim
// set and the members placed per node (counts per kind).
type mCore struct {
	viol    int
	count   int
	sum     int64
	victims []int         // unit indexes
	placed  map[int][]int // node: members of each kind
}

func (a *mCore) less(b *mCore) bool {
	return cmp.Or(cmp.Compare(a.viol, b.viol), cmp.Compare(a.count, b.count), cmp.Compare(a.sum, b.sum)) < 0
}

func (a *mCore) same(b *mCore) bool {
	return a.viol == b.viol && a.count == b.count && a.sum == b.sum
}

// coreAll is core over every domain: the least of them.
func (s *mSolver) coreAll(allowed []bool) (*mCore, bool) {
	var best *mCore
	for _, dom := range s.c.domains() {
		if r := s.core(dom, allowed); r != nil && (best == nil || r.less(best)) {
			best = r
		}
	}
	return best, best != nil
}

// core finds the least (violations, victims, sum) among the allowed units in a domain; nil
// when the preemptor does not fit even with all of them gone.
func (s *mSolver) core(dom []int, allowed []bool) *mCore {
	inDom := map[int]bool{}
	for _, n := range dom {
		inDom[n] = true
	}
	var multi []int
	local := map[int][]int{}
	for u, ok := range allowed {
		if !ok {
			continue
		}
		var at []int
		for n := range s.units[u].freed {
			if inDom[n] {
				at = append(at, n)
			}
		}
		switch len(at) {
		case 0: // frees nothing here: never worth its cost
		case 1:
			local[at[0]] = append(local[at[0]], u)
		default:
			multi = append(multi, u)
		}
	}
	var best *mCore
	var chosen []int
	var walk func(i int)
	walk = func(i int) {
		base := s.baseCost(chosen)
		if best != nil && !base.less(best) {
			return
		}
		if i == len(multi) {
			if r := s.program(dom, local, chosen); r != nil && (best == nil || r.less(best)) {
				best = r
			}
			return
		}
		walk(i + 1)
		chosen = append(chosen, multi[i])
		walk(i + 1)
		chosen = chosen[:len(chosen)-1]
	}
	walk(0)
	return best
}

// baseCost is the cost of the units alone.
func (s *mSolver) baseCost(units []int) *mCore {
	r := &mCore{}
	per := make([]int, len(s.c.pdbs))
	for _, u := range units {
		r.count += len(s.units[u].pods)
		r.sum += int64(len(s.units[u].pods)) * int64(s.units[u].prio)
		for b, n := range s.units[u].pdb {
			per[b] += n
		}
	}
	for b, n := range per {
		r.viol += max(0, n-s.c.pdbs[b].maxUnavailable)
	}
	return r
}

// mOption is what one node can do: host members (counts per kind) with some of its units
// gone, spending some of each budget, at a cost.
type mOption struct {
	members []int
	spent   []int // pods per budget
	count   int
	sum     int64
	units   []int
}

// program is the dynamic program over the domain's nodes, with the chosen multi-node units
// gone.
func (s *mSolver) program(dom []int, local map[int][]int, chosen []int) *mCore {
	base := s.baseCost(chosen)
	free := map[int]mVec{}
	for _, n := range dom {
		free[n] = s.free[n]
	}
	startSpent := make([]int, len(s.c.pdbs))
	for _, u := range chosen {
		for n, v := range s.units[u].freed {
			if _, ok := free[n]; ok {
				free[n] = free[n].add(v)
			}
		}
		for b, k := range s.units[u].pdb {
			startSpent[b] += k
		}
	}
	states := 1
	for _, r := range s.radix {
		states *= r
	}
	type cell struct {
		set   bool
		viol  int
		count int
		sum   int64
		prev  int
		opt   int
	}
	nk := len(s.kinds)
	decode := func(x int) []int {
		v := make([]int, len(s.radix))
		for i, r := range s.radix {
			v[i] = x % r
			x /= r
		}
		return v
	}
	encode := func(v []int) int {
		x := 0
		for i := len(s.radix) - 1; i >= 0; i-- {
			x = x*s.radix[i] + v[i]
		}
		return x
	}
	first := make([]int, len(s.radix))
	for b, k := range startSpent {
		first[nk+b] = min(k, s.c.pdbs[b].maxUnavailable)
	}
	cur := make([]cell, states)
	cur[encode(first)] = cell{set: true}
	var history [][]cell
	var options [][]mOption
	for _, n := range dom {
		opts := s.nodeOptions(n, free[n], local[n])
		options = append(options, opts)
		next := make([]cell, states)
		for x, c := range cur {
			if !c.set {
				continue
			}
			v := decode(x)
			for oi, o := range opts {
				w := slices.Clone(v)
				viol := c.viol
				for k := range nk {
					w[k] = min(v[k]+o.members[k], s.count[k])
				}
				for b, k := range o.spent {
					allowed := s.c.pdbs[b].maxUnavailable
					viol += max(0, v[nk+b]+k-allowed)
					w[nk+b] = min(v[nk+b]+k, allowed)
				}
				y := encode(w)
				cand := cell{set: true, viol: viol, count: c.count + o.count, sum: c.sum + o.sum, prev: x, opt: oi}
				if d := next[y]; !d.set || cmp.Or(cmp.Compare(cand.viol, d.viol), cmp.Compare(cand.count, d.count), cmp.Compare(cand.sum, d.sum)) < 0 {
					next[y] = cand
				}
			}
		}
		history = append(history, next)
		cur = next
	}
	// The best final state with every member placed.
	var best *mCore
	bestX := -1
	for x, c := range cur {
		if !c.set {
			continue
		}
		v := decode(x)
		if !slices.Equal(v[:nk], s.count) {
			continue
		}
		r := &mCore{viol: base.viol + c.viol, count: base.count + c.count, sum: base.sum + c.sum}
		if best == nil || r.less(best) {
			best, bestX = r, x
		}
	}
	if best == nil {
		return nil
	}
	best.victims = slices.Clone(chosen)
	best.placed = map[int][]int{}
	x := bestX
	for i := len(dom) - 1; i >= 0; i-- {
		c := history[i][x]
		o := options[i][c.opt]
		best.victims = append(best.victims, o.units...)
		if slices.ContainsFunc(o.members, func(k int) bool { return k > 0 }) {
			best.placed[dom[i]] = o.members
		}
		x = c.prev
	}
	return best
}

// nodeOptions lists what node n can offer, its local units allowed: every count of
// members of each kind that fits there with every local unit gone, each with the cheapest
// count of each class of alike local units that makes room for it (per budget spending),
// dominated options left out.
func (s *mSolver) nodeOptions(n int, free mVec, local []int) []mOption {
	type class struct {
		units []int // least important first
		room  mVec
		pods  int
		sum   int64
		pdb   []int
	}
	var classes []*class
	for _, u := range local {
		x := s.units[u]
		var found *class
		for _, c := range classes {
			if c.room == x.freed[n] && c.pods == len(x.pods) && c.sum == int64(len(x.pods))*int64(x.prio) && slices.Equal(c.pdb, x.pdb) {
				found = c
			}
		}
		if found == nil {
			found = &class{room: x.freed[n], pods: len(x.pods), sum: int64(len(x.pods)) * int64(x.prio), pdb: x.pdb}
			classes = append(classes, found)
		}
		found.units = append(found.units, u)
	}
	for _, c := range classes {
		slices.SortFunc(c.units, func(a, b int) int {
			if s.units[a].moreImportant(s.units[b]) {
				return 1
			}
			return -1
		})
	}
	maxRoom := free
	for _, c := range classes {
		for range c.units {
			maxRoom = maxRoom.add(c.room)
		}
	}
	// Member counts that fit with every local unit gone.
	var shapes [][]int
	var req []mVec
	cnt := make([]int, len(s.kinds))
	var shape func(k int, used mVec)
	shape = func(k int, used mVec) {
		if k == len(s.kinds) {
			shapes = append(shapes, slices.Clone(cnt))
			req = append(req, used)
			return
		}
		for c := 0; c <= s.count[k]; c++ {
			next := used
			for range c {
				next = next.add(s.kinds[k])
			}
			if !next.fitsIn(maxRoom) {
				break
			}
			cnt[k] = c
			shape(k+1, next)
		}
		cnt[k] = 0
	}
	shape(0, mVec{})
	// Every count of each class; for each shape it makes room for, the cheapest per
	// budget spending.
	best := map[string]*mOption{}
	take := make([]int, len(classes))
	var walk func(k int, room mVec, count int, sum int64, spent []int)
	walk = func(k int, room mVec, count int, sum int64, spent []int) {
		if k == len(classes) {
			s.work++
			for i, sh := range shapes {
				if !req[i].fitsIn(room) {
					continue
				}
				key := fmt.Sprint(sh, spent)
				if o := best[key]; o == nil || cmp.Or(cmp.Compare(count, o.count), cmp.Compare(sum, o.sum)) < 0 {
					var units []int
					for ci, t := range take {
						units = append(units, classes[ci].units[:t]...)
					}
					best[key] = &mOption{members: sh, spent: slices.Clone(spent), count: count, sum: sum, units: units}
				}
			}
			return
		}
		c := classes[k]
		for t := 0; t <= len(c.units); t++ {
			take[k] = t
			nextSpent := slices.Clone(spent)
			for b, p := range c.pdb {
				nextSpent[b] += t * p
			}
			walk(k+1, room, count+t*c.pods, sum+int64(t)*c.sum, nextSpent)
			room = room.add(c.room)
		}
		take[k] = 0
	}
	walk(0, free, 0, 0, make([]int, len(s.c.pdbs)))
	var out []mOption
	for _, o := range best {
		out = append(out, *o)
	}
	// Leave out options another beats: as many members or more of each kind, no more
	// budget spent, no dearer.
	dominates := func(a, b *mOption) bool {
		for k := range a.members {
			if a.members[k] < b.members[k] {
				return false
			}
		}
		for k := range a.spent {
			if a.spent[k] > b.spent[k] {
				return false
			}
		}
		return cmp.Or(cmp.Compare(a.count, b.count), cmp.Compare(a.sum, b.sum)) <= 0
	}
	slices.SortFunc(out, func(a, b mOption) int {
		return cmp.Or(cmp.Compare(a.count, b.count), cmp.Compare(a.sum, b.sum), slices.Compare(b.members, a.members), slices.Compare(a.spent, b.spent))
	})
	var kept []mOption
	for i := range out {
		if !slices.ContainsFunc(kept, func(k mOption) bool { return dominates(&k, &out[i]) }) {
			kept = append(kept, out[i])
		}
	}
	return kept
}

// mAnswer is the reference's answer for a cluster.
type mAnswer struct {
	// feasible: some set of victims lets the preemptor fit.
	feasible bool
	key      mKey
	victims  []*mUnit
	placed   map[int][]int
}

// solve finds the least cost of a victim set that lets the preemptor fit.
func (s *mSolver) solve() mAnswer {
	nu := len(s.units)
	upTo := func(pred func(u *mUnit) bool) []bool {
		a := make([]bool, nu)
		for i, u := range s.units {
			a[i] = pred(u)
		}
		return a
	}
	if r, ok := s.coreAll(make([]bool, nu)); ok {
		return mAnswer{feasible: true, key: mNoVictims, placed: r.placed}
	}
	full, ok := s.coreAll(upTo(func(*mUnit) bool { return true }))
	if !ok {
		return mAnswer{}
	}
	var levels []int32
	for _, u := range s.units {
		levels = append(levels, u.prio)
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	// The lowest level whose units reach the fewest violations.
	lo, hi := 0, len(levels)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if r, ok := s.coreAll(upTo(func(u *mUnit) bool { return u.prio <= levels[mid] })); ok && r.viol == full.viol {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	level := levels[lo]
	target, _ := s.coreAll(upTo(func(u *mUnit) bool { return u.prio <= level }))
	// The least important unit of that level that must be allowed.
	var at []int
	for i, u := range s.units {
		if u.prio == level {
			at = append(at, i)
		}
	}
	slices.SortFunc(at, func(a, b int) int {
		if s.units[a].moreImportant(s.units[b]) {
			return 1
		}
		return -1
	})
	allowUpTo := func(t int) []bool {
		a := upTo(func(u *mUnit) bool { return u.prio < level })
		for _, i := range at[:t+1] {
			a[i] = true
		}
		return a
	}
	lo, hi = 0, len(at)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if r, ok := s.coreAll(allowUpTo(mid)); ok && r.same(target) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	r, _ := s.coreAll(allowUpTo(lo))
	ans := mAnswer{feasible: true, placed: r.placed}
	for _, i := range r.victims {
		ans.victims = append(ans.victims, s.units[i])
	}
	ans.key = s.c.keyOf(ans.victims)
	return ans
}

// check re-checks an answer by plain arithmetic: the members placed fit in the room left
// on their nodes with the victims gone, inside one domain, and the key is the victims'.
func (s *mSolver) check(a mAnswer) error {
	if !a.feasible {
		return nil
	}
	room := slices.Clone(s.free)
	for _, u := range a.victims {
		for n, v := range u.freed {
			room[n] = room[n].add(v)
		}
	}
	placed := make([]int, len(s.kinds))
	var nodes []int
	for n, counts := range a.placed {
		nodes = append(nodes, n)
		var used mVec
		for k, c := range counts {
			placed[k] += c
			for range c {
				used = used.add(s.kinds[k])
			}
		}
		if !used.fitsIn(room[n]) {
			return fmt.Errorf("node %s: members %v need %v, room %v", s.c.nodes[n].name, counts, used, room[n])
		}
	}
	for k := range placed {
		if placed[k] < s.count[k] {
			return fmt.Errorf("%d of %d members of kind %d placed", placed[k], s.count[k], k)
		}
	}
	if s.c.kind == medRackGang {
		for _, n := range nodes {
			if s.c.nodes[n].rack != s.c.nodes[nodes[0]].rack {
				return fmt.Errorf("members in racks %s and %s", s.c.nodes[n].rack, s.c.nodes[nodes[0]].rack)
			}
		}
	}
	if k := s.c.keyOf(a.victims); k != a.key {
		return fmt.Errorf("key %v, the victims' is %v", a.key, k)
	}
	return nil
}

// fitsWithoutPreemption reports whether the preemptor fits as the cluster is.
func (c *mCluster) fitsWithoutPreemption() bool {
	s := newSolver(c)
	_, ok := s.coreAll(make([]bool, len(s.units)))
	return ok
}

// fitsWithEveryUnitGone reports whether the preemptor fits once every candidate is gone.
func (c *mCluster) fitsWithEveryUnitGone() bool {
	s := newSolver(c)
	all := make([]bool, len(s.units))
	for i := range all {
		all[i] = true
	}
	_, ok := s.coreAll(all)
	return ok
}

// referenceTractable keeps the reference quick: few units spanning nodes, at most 32,768
// states of its program, and few counts of alike units per node.
func (c *mCluster) referenceTractable() bool {
	s := newSolver(c)
	multi := 0
	for _, u := range s.units {
		if len(u.freed) > 1 {
			multi++
		}
	}
	if multi > 6 {
		return false
	}
	states := 1
	for _, r := range s.radix {
		states *= r
	}
	if states > 1<<15 {
		return false
	}
	all := make([]bool, len(s.units))
	for i := range all {
		all[i] = true
	}
	for _, dom := range c.domains() {
		local := map[int][]int{}
		for u := range s.units {
			if len(s.units[u].freed) == 1 {
				for n := range s.units[u].freed {
					local[n] = append(local[n], u)
				}
			}
		}
		for _, n := range dom {
			combos := 1
			byClass := map[string]int{}
			for _, u := range local[n] {
				x := s.units[u]
				byClass[fmt.Sprint(x.freed[n], len(x.pods), x.prio, x.pdb)]++
			}
			for _, k := range byClass {
				combos *= k + 1
			}
			if combos > 20000 {
				return false
			}
		}
	}
	return true
}
