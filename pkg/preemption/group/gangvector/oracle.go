package gangvector

import (
	"context"
	"fmt"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// Oracle simulates a group's preemption in a domain on resource vectors (a
// preemption.RoomOracle, AlikeOracle and VictimCounter). Members come in kinds (alike
// members, the placer's AlikeKey); a kind may go to a node where its
// static filters pass and its requests fit the room. With one kind, the members that fit
// are counted node by node; with several (every member then needed), they are packed
// exactly by a depth-first search over how many of each kind each node takes, within
// packSteps steps per check and packBudget per decision (past them the members are taken
// not to fit, which may cost an extra victim but never a wrong decision: every decision is
// confirmed; the decision is then not proven the least disruptive).
type Oracle struct {
	gang  Gang
	idx   []int8 // the resources members ask for, pod slots included
	kinds []memberKind
	need  int
	nodes []*framework.NodeInfo
	// free is each node's room (per resource of idx); ok[k][n] whether kind k may go to
	// node n; count[n] how many members of a single kind fit there, total their sum.
	free  [][]int64
	ok    [][]bool
	count []int
	total int
	// on are the pods of each unit on the domain's nodes: node and requests.
	on map[*preemption.Unit][]podRoom
	// room and keys: what each unit frees in aggregate, and its alike key.
	room map[*preemption.Unit][]int64
	keys map[*preemption.Unit]string
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
	// at least that). For FewestVictims: the candidates' pods per node, per resource in
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

// Gang is what the model needs of the group that preempts.
type Gang struct {
	// Members are the pending members the scheduler can place; Need of them must fit.
	Members []*framework.PodInfo
	Need    int
	// AlikeKey tells which members are alike (the group placer's, framework.GroupPlacer):
	// they are one kind in the model.
	AlikeKey func(*framework.PodInfo) string
}

// memberKind is a kind of member: its requests (per resource of the model), and its
// members.
type memberKind struct {
	req     []int64
	members []*framework.PodInfo
}

type podRoom struct {
	node int
	req  []int64
}

// New builds the model of a domain (its nodes) with every candidate off: the units, most
// important first, and the pods already leaving. It returns nil when the model does not
// apply (members that need other pods nearby, devices, too few alike members), and
// whether the members fit it. Its nodes are those where a member may go and would fit
// with every candidate gone.
func New(ctx context.Context, h framework.Handle, gang Gang, nodes []*framework.NodeInfo, leaving []*framework.PodInfo, units []*preemption.Unit) (*Oracle, bool) {
	o := build(ctx, h, gang, nodes, leaving, units)
	if o == nil {
		return nil, false
	}
	return o, o.start(leaving, units)
}

// build is New's model, before anything is taken off.
func build(ctx context.Context, h framework.Handle, gang Gang, nodes []*framework.NodeInfo, leaving []*framework.PodInfo, units []*preemption.Unit) *Oracle {
	dra := h.Snapshot().DRA()
	byKey := map[string]int{}
	var kinds []memberKind
	var reps []*framework.PodInfo
	var idx []int8
	for _, m := range gang.Members {
		if m.HasInterPodConstraints() || m.UsesClaims() {
			return nil
		}
		for _, i := range m.RequestIdx {
			if resource.IsScalar(int(i)) && dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil {
				return nil
			}
		}
		idx = append(idx, m.RequestIdx...)
		key := gang.AlikeKey(m)
		if k, ok := byKey[key]; ok && key != "" {
			kinds[k].members = append(kinds[k].members, m)
			continue
		}
		byKey[key] = len(kinds)
		kinds = append(kinds, memberKind{members: []*framework.PodInfo{m}})
		reps = append(reps, m)
	}
	if len(kinds) > 1 && gang.Need < len(gang.Members) {
		return nil // which members to leave out would be one more choice
	}
	idx = preemption.WithPodSlot(idx)
	slices.Sort(idx)
	idx = slices.Compact(idx)
	o := &Oracle{gang: gang, idx: idx, need: gang.Need}
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
	for _, q := range leaving {
		free(q)
	}
	for _, u := range units {
		if !u.BestEffort() {
			for _, q := range u.Pods {
				free(q)
			}
		}
	}
	off := make([]int64, len(idx))
	for _, n := range nodes {
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
func (o *Oracle) start(leaving []*framework.PodInfo, units []*preemption.Unit) bool {
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
	for _, q := range leaving {
		take(q)
	}
	o.on = make(map[*preemption.Unit][]podRoom, len(units))
	for _, u := range units {
		if u.BestEffort() {
			continue // it keeps its slot and frees nothing else
		}
		for _, q := range u.Pods {
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

// Helping returns the units that free room where a member may go, with every candidate
// off; the others stay (they change nothing in the model).
func (o *Oracle) Helping(units []*preemption.Unit, pdbs []*framework.PDBInfo) []*preemption.Unit {
	useful := make([]bool, len(o.nodes))
	for n := range o.nodes {
		for k := range o.kinds {
			useful[n] = useful[n] || (o.ok[n][k] && fitCount(o.free[n], o.kinds[k].req) > 0)
		}
	}
	o.room, o.keys = make(map[*preemption.Unit][]int64, len(units)), make(map[*preemption.Unit]string, len(units))
	var out []*preemption.Unit
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
		if !u.Group && len(o.on[u]) == 1 && !preemption.UnderBudget(u.Pods[0], pdbs) {
			o.keys[u] = fmt.Sprint(o.on[u][0].node, o.on[u][0].req, u.Priority, u.QOS)
		}
	}
	for n := range o.nodes {
		o.recount(n)
	}
	return out
}

// adjust puts a unit's pods back on their nodes (sign -1: their room is taken again) or
// takes them off (1).
func (o *Oracle) adjust(u *preemption.Unit, sign int64) {
	for _, p := range o.on[u] {
		for j, r := range p.req {
			o.free[p.node][j] += sign * r
			o.agg[j] += sign * r
		}
		o.recount(p.node)
	}
}

// recount is how many members of a single kind fit on node n.
func (o *Oracle) recount(n int) {
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

// Keep puts u's pods back on their nodes (preemption.Oracle): kept when the members
// still fit the model.
func (o *Oracle) Keep(u *preemption.Unit) (bool, error) {
	o.adjust(u, -1)
	if o.fits() {
		return true, nil
	}
	o.adjust(u, 1)
	return false, nil
}

// Drop takes u's pods off again (preemption.Oracle).
func (o *Oracle) Drop(u *preemption.Unit) error {
	o.adjust(u, 1)
	return nil
}

// Witness is the members' placement in the model as it stands: node by node, the members
// that fit, for one kind; the packing found, for several.
func (o *Oracle) Witness() any {
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

// Cut reports whether a packing stopped at its limit of steps: a decision on the model is
// then not proven the least disruptive.
func (o *Oracle) Cut() bool { return o.cut }

// Freed is what u frees of the domain's aggregate room, for the exact search's bound
// (preemption.RoomOracle): with every member needed placed, the domain's room summed over
// its nodes covers their requests summed.
func (o *Oracle) Freed(u *preemption.Unit) []int64 { return o.room[u] }

// Slack is the domain's room beyond what the members need of it (preemption.RoomOracle).
func (o *Oracle) Slack() []int64 {
	for j := range o.idx {
		o.scratch[j] = o.agg[j] - o.want[j]
	}
	return o.scratch
}

// AlikeKey: single pods under no budget with the same requests on the same node, of one
// priority and QoS class, are interchangeable in the model.
func (o *Oracle) AlikeKey(u *preemption.Unit) string { return o.keys[u] }
