package preemption

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// preemptByResources decides a group's preemption in dom on resource vectors first, as the
// pod path does for a resource-only rejection: every candidate unit of the domain, an
// exact search (within vectorExactMaxUnits and vectorSearchBudget) over a model where
// members fit where the static filters let them and the room is enough. That model is a
// relaxation of the real one (a placement that passes every filter passes it), so a set
// the real placement confirms is the least disruptive of all. The members' placement in
// the model is confirmed by the group's placer with the victims gone; nil when the model
// does not apply (members that need other pods nearby, devices, too few alike members) or
// its decision is not confirmed, and the caller then simulates.
func (e *GroupEvaluator) preemptByResources(ctx context.Context, pr *preemptor, dom domain) (*GroupResult, error) {
	snap := e.Handle.Snapshot()
	limit := e.Pod.vectorExactMax()
	if limit <= 0 {
		return nil, nil
	}
	// Beyond the exact search's bound, the simulation's planning decides, as before.
	all := e.candidates(pr, dom.nodesOr(snap.NodeInfos()), limit)
	if len(all.units) > limit {
		return nil, nil
	}
	o := e.newGangVectorOracle(ctx, pr, dom, all)
	if o == nil || !o.start(all) {
		return nil, nil
	}
	units := o.helping(all.units, snap.PDBs())
	search := &victimSearch{units: units, pdbs: snap.PDBs(), o: o, exactMax: limit, budget: vectorSearchBudget,
		monotone: true, logger: klog.FromContext(ctx), second: o.largestLast(units)}
	victims, witness, err := search.runWithWitness()
	if err != nil {
		return nil, err
	}
	sortUnits(victims)
	gone := slices.Clone(all.leaving)
	for _, u := range victims {
		gone = append(gone, u.pods...)
	}
	assignment, err := e.confirm(ctx, pr, dom, gone, witness.([]framework.Assignment))
	if err != nil || assignment == nil {
		return nil, err
	}
	klog.FromContext(ctx).V(4).Info("Group preemption decided on resource vectors", "podgroup", pr.g.Key,
		"units", len(units), "victims", len(victims), "exact", !search.exhaustedSaid && !o.cut)
	res := &GroupResult{Nominations: map[*framework.PodInfo]string{}, Victims: podsOf(victims),
		Cost: costOfUnits(victims, snap.PDBs()), Reprieved: len(all.units) - len(victims),
		Approximate: search.exhaustedSaid || o.cut}
	for _, a := range assignment {
		res.Nominations[a.Pod] = a.Node.Name
	}
	return res, nil
}

// gangVectorOracle simulates a group's preemption in a domain on resource vectors. Members
// come in kinds (alike members, the placer's AlikeKey); a kind may go to a node where its
// static filters pass and its requests fit the room. With one kind, the members that fit
// are counted node by node; with several (every member then needed), they are packed
// exactly by a depth-first search over how many of each kind each node takes, within
// packSteps steps per check and packBudget per decision (past them the members are taken
// not to fit, which may cost an extra victim but never a wrong decision: every decision is
// confirmed; the decision is then not proven the least disruptive).
type gangVectorOracle struct {
	pr    *preemptor
	idx   []int8 // the resources members ask for, pod slots included
	kinds []gangKind
	need  int
	nodes []*framework.NodeInfo
	// free is each node's room (per resource of idx); ok[k][n] whether kind k may go to
	// node n; count[n] how many members of a single kind fit there, total their sum.
	free  [][]int64
	ok    [][]bool
	count []int
	total int
	// on are the pods of each unit on the domain's nodes: node and requests.
	on map[*unit][]podRoom
	// room and keys: what each unit frees in aggregate, and its alike key.
	room map[*unit][]int64
	keys map[*unit]string
	// agg is the aggregate room of the nodes as the simulation stands, want what the
	// members need of it.
	agg, want, scratch []int64
	// placed[k][n] is how many members of kind k the packing being searched puts on n;
	// last is the last packing found.
	placed, last [][]int
	// steps counts the current packing's steps, spent all of them; cut is set when a
	// packing stopped at a limit.
	steps, spent int
	cut          bool
	// least is the members' smallest request per resource (a member of any kind needs
	// at least that). For fewestVictims: the candidates' pods per node, per resource in
	// the order of what they free.
	items   [][]nodeItem
	largest [][][]int
	least   []int64
	// Per node, from measureUndecided: the room with the undecided pods back, how many
	// they are, and what the k of them freeing most of each resource free.
	nbase        [][]int64
	nund         []int
	ntop         [][][]int64
	room1        []int64
	fewest, next []int
}

type gangKind struct {
	req     []int64
	members []*framework.PodInfo
}

type podRoom struct {
	node int
	req  []int64
}

// packSteps bounds the packing search of one check, packBudget those of one decision.
const (
	packSteps  = 20000
	packBudget = 2000000
)

// newGangVectorOracle builds the model of dom, or returns nil when it does not apply. Its
// nodes are those where a member may go and would fit with every candidate gone.
func (e *GroupEvaluator) newGangVectorOracle(ctx context.Context, pr *preemptor, dom domain, all domainUnits) *gangVectorOracle {
	h := e.Handle
	snap := h.Snapshot()
	dra := snap.DRA()
	byKey := map[string]int{}
	var kinds []gangKind
	var reps []*framework.PodInfo
	var idx []int8
	for _, m := range pr.members {
		if m.HasInterPodConstraints() || m.UsesClaims() {
			return nil
		}
		for _, i := range m.RequestIdx {
			if resource.IsScalar(int(i)) && dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil {
				return nil
			}
		}
		idx = append(idx, m.RequestIdx...)
		key := pr.placer.AlikeKey(m)
		if k, ok := byKey[key]; ok && key != "" {
			kinds[k].members = append(kinds[k].members, m)
			continue
		}
		byKey[key] = len(kinds)
		kinds = append(kinds, gangKind{members: []*framework.PodInfo{m}})
		reps = append(reps, m)
	}
	if len(kinds) > 1 && pr.need < len(pr.members) {
		return nil // which members to leave out would be one more choice
	}
	idx = withPods(idx)
	slices.Sort(idx)
	idx = slices.Compact(idx)
	o := &gangVectorOracle{pr: pr, idx: idx, need: pr.need}
	for k := range kinds {
		kinds[k].req = make([]int64, len(idx))
		for j, i := range idx {
			kinds[k].req[j] = reps[k].Requests.Vector[i]
		}
	}
	// Largest first: they are the hardest to pack.
	order := make([]int, len(kinds))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return slices.Compare(kinds[b].req, kinds[a].req) })
	for _, k := range order {
		o.kinds = append(o.kinds, kinds[k])
	}
	o.least = slices.Clone(o.kinds[0].req)
	for _, kd := range o.kinds[1:] {
		for j, v := range kd.req {
			o.least[j] = min(o.least[j], v)
		}
	}
	states := make([]*framework.CycleState, len(o.kinds))
	allowed := make([]map[string]bool, len(o.kinds))
	for k, kd := range o.kinds {
		states[k] = framework.NewCycleState()
		res, st := h.RunPreFilterPlugins(ctx, states[k], kd.members[0])
		if !st.IsSuccess() {
			return nil
		}
		if res != nil && res.NodeNames != nil {
			allowed[k] = map[string]bool{}
			for n := range res.NodeNames {
				allowed[k][n] = true
			}
		}
	}
	// What the candidates and the leaving pods free on each node.
	gone := map[string][]int64{}
	free := func(q *framework.PodInfo) {
		v := gone[q.NodeName]
		if v == nil {
			v = make([]int64, len(idx))
			gone[q.NodeName] = v
		}
		for j, i := range idx {
			v[j] += q.Requests.Vector[i]
		}
	}
	for _, q := range all.leaving {
		free(q)
	}
	for _, u := range all.units {
		if !u.bestEffort() {
			for _, q := range u.pods {
				free(q)
			}
		}
	}
	off := make([]int64, len(idx))
	for _, n := range dom.nodesOr(snap.NodeInfos()) {
		free := make([]int64, len(idx))
		overcommitted := false
		for j, i := range idx {
			free[j] = n.Allocatable[i] - n.Requested[i]
			overcommitted = overcommitted || free[j] < 0
			off[j] = free[j]
			if g := gone[n.Name]; g != nil {
				off[j] += g[j]
			}
		}
		if overcommitted {
			// The aggregate bound counts room linearly; a node already past its room
			// would break that, and it is no place to make room on resources anyway.
			continue
		}
		ok := make([]bool, len(o.kinds))
		some := false
		for k, kd := range o.kinds {
			ok[k] = fitCount(off, kd.req) > 0 && (allowed[k] == nil || allowed[k][n.Name]) &&
				h.RunStaticFilterPlugins(ctx, states[k], kd.members[0], n).IsSuccess()
			some = some || ok[k]
		}
		if some {
			o.nodes = append(o.nodes, n)
			o.free = append(o.free, free)
			o.ok = append(o.ok, ok)
		}
	}
	if len(o.nodes) == 0 {
		return nil
	}
	return o
}

// start takes every candidate off (and the pods already leaving) and reports whether the
// members fit then.
func (o *gangVectorOracle) start(all domainUnits) bool {
	at := make(map[string]int, len(o.nodes))
	for n, node := range o.nodes {
		at[node.Name] = n
	}
	take := func(q *framework.PodInfo) (podRoom, bool) {
		n, ok := at[q.NodeName]
		if !ok {
			return podRoom{}, false
		}
		pr := podRoom{node: n, req: make([]int64, len(o.idx))}
		for j, i := range o.idx {
			pr.req[j] = q.Requests.Vector[i]
			o.free[n][j] += pr.req[j]
		}
		return pr, true
	}
	for _, q := range all.leaving {
		take(q)
	}
	o.on = make(map[*unit][]podRoom, len(all.units))
	for _, u := range all.units {
		if u.bestEffort() {
			continue // it keeps its slot and frees nothing else
		}
		for _, q := range u.pods {
			if pr, ok := take(q); ok {
				o.on[u] = append(o.on[u], pr)
			}
		}
	}
	o.count = make([]int, len(o.nodes))
	o.placed = make([][]int, len(o.kinds))
	for k := range o.placed {
		o.placed[k] = make([]int, len(o.nodes))
	}
	for n := range o.nodes {
		o.recount(n)
	}
	d := len(o.idx)
	o.agg, o.want, o.scratch = make([]int64, d), make([]int64, d), make([]int64, d)
	for n := range o.nodes {
		for j, v := range o.free[n] {
			o.agg[j] += v
		}
	}
	if len(o.kinds) == 1 {
		for j, v := range o.kinds[0].req {
			o.want[j] = v * int64(o.need)
		}
	} else {
		for _, kd := range o.kinds {
			for j, v := range kd.req {
				o.want[j] += v * int64(len(kd.members))
			}
		}
	}
	return o.fits()
}

// helping returns the units that free room where a member may go, with every candidate
// off; the others stay (they change nothing in the model).
func (o *gangVectorOracle) helping(units []*unit, pdbs []*framework.PDBInfo) []*unit {
	useful := make([]bool, len(o.nodes))
	for n := range o.nodes {
		for k := range o.kinds {
			useful[n] = useful[n] || (o.ok[n][k] && fitCount(o.free[n], o.kinds[k].req) > 0)
		}
	}
	o.room, o.keys = make(map[*unit][]int64, len(units)), make(map[*unit]string, len(units))
	var out []*unit
	for _, u := range units {
		helps := false
		for _, p := range o.on[u] {
			helps = helps || useful[p.node]
		}
		if !helps {
			o.adjust(u, -1)
			continue
		}
		v := make([]int64, len(o.idx))
		for _, p := range o.on[u] {
			for j, r := range p.req {
				v[j] += r
			}
		}
		o.room[u] = v
		out = append(out, u)
		if !u.group && len(o.on[u]) == 1 && !underBudget(u.pods[0], pdbs) {
			o.keys[u] = fmt.Sprint(o.on[u][0].node, o.on[u][0].req, u.priority, u.qos)
		}
	}
	for n := range o.nodes {
		o.recount(n)
	}
	return out
}

// adjust puts a unit's pods back on their nodes (sign -1: their room is taken again) or
// takes them off (1).
func (o *gangVectorOracle) adjust(u *unit, sign int64) {
	for _, p := range o.on[u] {
		for j, r := range p.req {
			o.free[p.node][j] += sign * r
			o.agg[j] += sign * r
		}
		o.recount(p.node)
	}
}

// recount is how many members of a single kind fit on node n.
func (o *gangVectorOracle) recount(n int) {
	if len(o.kinds) != 1 {
		return
	}
	c := 0
	if o.ok[n][0] {
		c = fitCount(o.free[n], o.kinds[0].req)
	}
	o.total += c - o.count[n]
	o.count[n] = c
}

// fitCount is how many times req fits in free.
func fitCount(free, req []int64) int {
	n := -1
	for j, r := range req {
		if r <= 0 {
			continue
		}
		k := 0
		if free[j] > 0 {
			k = int(free[j] / r)
		}
		if n < 0 || k < n {
			n = k
		}
	}
	return max(n, 0)
}

func (o *gangVectorOracle) fits() bool {
	if len(o.kinds) == 1 {
		return o.total >= o.need
	}
	if o.lastHolds() {
		return true
	}
	if !o.mayPack() {
		return false
	}
	o.steps = 0
	ok := o.pack(0, 0, len(o.kinds[0].members), nil)
	o.spent += o.steps
	if ok {
		for k := range o.placed {
			copy(o.last[k], o.placed[k])
		}
	}
	return ok
}

// lastHolds reports whether the last packing found still fits the nodes' room: most
// checks change the room of a few nodes only.
func (o *gangVectorOracle) lastHolds() bool {
	if o.last == nil {
		o.last = make([][]int, len(o.kinds))
		for k := range o.last {
			o.last[k] = make([]int, len(o.nodes))
		}
		return false
	}
	for n, free := range o.free {
		for j, v := range free {
			for k, kd := range o.kinds {
				v -= int64(o.last[k][n]) * kd.req[j]
			}
			if v < 0 {
				return false
			}
		}
	}
	return true
}

// mayPack rules out, cheaply, packings that cannot exist: each kind must fit by count where
// it may go, and all members with the least request each.
func (o *gangVectorOracle) mayPack() bool {
	total := 0
	for n := range o.nodes {
		total += fitCount(o.free[n], o.least)
	}
	if total < len(o.pr.members) {
		return false
	}
	for k, kd := range o.kinds {
		c := 0
		for n := range o.nodes {
			if o.ok[n][k] {
				c += fitCount(o.free[n], kd.req)
			}
		}
		if c < len(kd.members) {
			return false
		}
	}
	return true
}

// pack places the members of kind k from node n on, left of them still to place; bound
// caches, per node from n on, how many of kind k fit alone (nil: not yet computed).
func (o *gangVectorOracle) pack(k, n, left int, bound []int) bool {
	if left == 0 {
		if k+1 == len(o.kinds) {
			return true
		}
		return o.pack(k+1, 0, len(o.kinds[k+1].members), nil)
	}
	if bound == nil {
		clear(o.placed[k])
		bound = make([]int, len(o.nodes)+1)
		for m := len(o.nodes) - 1; m >= 0; m-- {
			c := 0
			if o.ok[m][k] {
				c = fitCount(o.free[m], o.kinds[k].req)
			}
			bound[m] = bound[m+1] + c
		}
	}
	if n == len(o.nodes) || bound[n] < left {
		return false
	}
	o.steps++
	if o.steps > packSteps || o.spent+o.steps > packBudget {
		o.cut = true
		return false
	}
	req, free := o.kinds[k].req, o.free[n]
	c := 0
	if o.ok[n][k] {
		c = min(left, fitCount(free, req))
	}
	for m := c; m >= 0; m-- {
		for j, r := range req {
			free[j] -= int64(m) * r
		}
		ok := o.pack(k, n+1, left-m, bound)
		for j, r := range req {
			free[j] += int64(m) * r
		}
		if ok {
			o.placed[k][n] = m
			return true
		}
	}
	return false
}

func (o *gangVectorOracle) keep(u *unit) (bool, error) {
	o.adjust(u, -1)
	if o.fits() {
		return true, nil
	}
	o.adjust(u, 1)
	return false, nil
}

func (o *gangVectorOracle) drop(u *unit) error {
	o.adjust(u, 1)
	return nil
}

// witness is the members' placement in the model as it stands: node by node, the members
// that fit, for one kind; the packing found, for several.
func (o *gangVectorOracle) witness() any {
	var out []framework.Assignment
	if len(o.kinds) == 1 {
		ms := o.kinds[0].members
		for n := 0; n < len(o.nodes) && len(out) < o.need; n++ {
			for range min(o.count[n], o.need-len(out)) {
				out = append(out, framework.Assignment{Pod: ms[len(out)], Node: o.nodes[n]})
			}
		}
		return out
	}
	if !o.fits() {
		return out
	}
	for k, kd := range o.kinds {
		next := 0
		for n, c := range o.last[k] {
			for range c {
				out = append(out, framework.Assignment{Pod: kd.members[next], Node: o.nodes[n]})
				next++
			}
		}
	}
	return out
}

// The aggregate room, for the exact search's bound (roomOracle): with every member needed
// placed, the domain's room summed over its nodes covers their requests summed.
func (o *gangVectorOracle) freed(u *unit) []int64 { return o.room[u] }

func (o *gangVectorOracle) slack() []int64 {
	for j := range o.idx {
		o.scratch[j] = o.agg[j] - o.want[j]
	}
	return o.scratch
}

// alikeKey: single pods under no budget with the same requests on the same node, of one
// priority and QoS class, are interchangeable in the model.
func (o *gangVectorOracle) alikeKey(u *unit) string { return o.keys[u] }

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

// nodeItem is a pod of a candidate unit on a node of the model, by its unit's position.
type nodeItem struct {
	pos int
	req []int64
}

// prepare lists, per node, the candidates' pods there, and per resource their order by
// what they free, largest first.
func (o *gangVectorOracle) prepare(units []*unit) {
	o.items = make([][]nodeItem, len(o.nodes))
	for pos, u := range units {
		for _, p := range o.on[u] {
			o.items[p.node] = append(o.items[p.node], nodeItem{pos: pos, req: p.req})
		}
	}
	o.largest = make([][][]int, len(o.nodes))
	for n, items := range o.items {
		o.largest[n] = make([][]int, len(o.idx))
		for j := range o.idx {
			order := make([]int, len(items))
			for x := range order {
				order[x] = x
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(items[b].req[j], items[a].req[j]) })
			o.largest[n][j] = order
		}
	}
	o.nbase, o.nund, o.ntop = make([][]int64, len(o.nodes)), make([]int, len(o.nodes)), make([][][]int64, len(o.nodes))
	for n := range o.nodes {
		o.nbase[n] = make([]int64, len(o.idx))
		o.ntop[n] = make([][]int64, len(o.idx))
	}
	o.room1 = make([]int64, len(o.idx))
	o.fewest, o.next = make([]int, len(o.pr.members)+1), make([]int, len(o.pr.members)+1)
}

// fewestVictims bounds the victims still needed: the members of each kind alone must fit
// (where that kind may go), and so must all of them with the least request each; the
// largest of these bounds holds.
func (o *gangVectorOracle) fewestVictims(i int) (int, bool) {
	o.measureUndecided(i)
	k, ok := o.fewestFor(o.least, o.need, -1)
	if len(o.kinds) == 1 || !ok {
		return k, ok
	}
	for kind, kd := range o.kinds {
		v, ok := o.fewestFor(kd.req, len(kd.members), kind)
		if !ok {
			return 0, false
		}
		k = max(k, v)
	}
	return k, true
}

// measureUndecided takes, per node, the room with the undecided pods there (those of units
// from position i on) back, how many they are, and per resource what the k of them that
// free most of it free.
func (o *gangVectorOracle) measureUndecided(i int) {
	for n := range o.nodes {
		base := o.nbase[n]
		copy(base, o.free[n])
		o.nund[n] = 0
		for _, it := range o.items[n] {
			if it.pos >= i {
				o.nund[n]++
				for j, r := range it.req {
					base[j] -= r
				}
			}
		}
		for j := range o.idx {
			top := o.ntop[n][j][:0]
			var sum int64
			for _, x := range o.largest[n][j] {
				if it := o.items[n][x]; it.pos >= i {
					sum += it.req[j]
					top = append(top, sum)
				}
			}
			o.ntop[n][j] = top
		}
	}
}

// fewestFor bounds the victims still needed for need members of request req (on the
// nodes kind may go to; -1: any) node by node, from measureUndecided: each node holds at
// most as many as req fits in its room; with the undecided pods there back, and then with
// the k of them that free most of each resource gone (more than any k pods free), a node
// gains at most so many. The fewest pods whose removal gains the members still missing,
// over all nodes, is a small knapsack (members needed at most).
func (o *gangVectorOracle) fewestFor(req []int64, need, kind int) (int, bool) {
	missing := need
	for n := range o.nodes {
		if kind < 0 || o.ok[n][kind] {
			missing -= fitCount(o.nbase[n], req)
		}
	}
	if missing <= 0 {
		return 0, true
	}
	const unreachable = 1 << 30
	best, next, room := o.fewest[:missing+1], o.next[:missing+1], o.room1
	for m := range best {
		best[m] = unreachable
	}
	best[0] = 0
	for n := range o.nodes {
		if (kind >= 0 && !o.ok[n][kind]) || o.nund[n] == 0 {
			continue
		}
		base := o.nbase[n]
		had := fitCount(base, req)
		copy(next, best)
		for k := 1; k <= o.nund[n]; k++ {
			for j := range o.idx {
				room[j] = base[j] + o.ntop[n][j][k-1]
			}
			gain := min(fitCount(room, req)-had, missing)
			if gain <= 0 {
				continue
			}
			for m := range best {
				if best[m] < unreachable {
					t := min(missing, m+gain)
					next[t] = min(next[t], best[m]+k)
				}
			}
			if gain == missing {
				break
			}
		}
		copy(best, next)
	}
	if best[missing] >= unreachable {
		return 0, false
	}
	return best[missing], true
}

// largestLast orders the units of each priority level by the share of the members' needs
// they free, smallest first: a reprieval in that order keeps the small units and preempts
// the large ones, so few of them.
func (o *gangVectorOracle) largestLast(units []*unit) []*unit {
	size := make(map[*unit]float64, len(units))
	for _, u := range units {
		for j, v := range o.room[u] {
			if o.want[j] > 0 {
				size[u] += float64(v) / float64(o.want[j])
			}
		}
	}
	out := slices.Clone(units)
	slices.SortStableFunc(out, func(a, b *unit) int {
		if a.priority != b.priority {
			return cmp.Compare(b.priority, a.priority)
		}
		return cmp.Compare(size[a], size[b])
	})
	return out
}
