package gangvector

import (
	"cmp"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// nodeItem is a pod of a candidate unit on a node of the model, by its unit's position.
type nodeItem struct {
	pos int
	req []int64
}

// Prepare lists, per node, the candidates' pods there, and per resource their order by
// what they free, largest first.
func (o *Oracle) Prepare(units []*preemption.Unit) {
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
	o.fewest, o.next = make([]int, len(o.gang.Members)+1), make([]int, len(o.gang.Members)+1)
}

// FewestVictims bounds the victims still needed: the members of each kind alone must fit
// (where that kind may go), and so must all of them with the least request each; the
// largest of these bounds holds.
func (o *Oracle) FewestVictims(i int) (int, bool) {
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
func (o *Oracle) measureUndecided(i int) {
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
func (o *Oracle) fewestFor(req []int64, need, kind int) (int, bool) {
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

// LargestLast orders the units of each priority level by the share of the members' needs
// they free, smallest first: a reprieval in that order keeps the small units and preempts
// the large ones, so few of them.
func (o *Oracle) LargestLast(units []*preemption.Unit) []*preemption.Unit {
	size := make(map[*preemption.Unit]float64, len(units))
	for _, u := range units {
		for j, v := range o.room[u] {
			if o.want[j] > 0 {
				size[u] += float64(v) / float64(o.want[j])
			}
		}
	}
	out := slices.Clone(units)
	slices.SortStableFunc(out, func(a, b *preemption.Unit) int {
		if a.Priority != b.Priority {
			return cmp.Compare(b.Priority, a.Priority)
		}
		return cmp.Compare(size[a], size[b])
	})
	return out
}
