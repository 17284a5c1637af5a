package preemption

import "slices"

// roomBound bounds, from below, what the units not yet decided in an exact search must
// still cost, from the room the preemptor would lack if they all stayed (a RoomOracle's):
// they must free it, so at least as many of them as the fewest that can, per resource,
// are victims (each at least one pod of the lowest priorities among them), and when no
// victim is chosen yet, the top victim's priority is at least the lowest level whose
// undecided units can free it. Units are decided in importance order, so the undecided
// units are always a suffix of the list.
type roomBound struct {
	o     RoomOracle
	units []*Unit
	freed [][]int64
	// suffix[i] is what units[i:] free together.
	suffix [][]int64
	// largest lists, per resource, the units from the one that frees most of it.
	largest [][]int
	// missing and acc are scratch.
	missing, acc []int64
}

func newRoomBound(o RoomOracle, units []*Unit) *roomBound {
	n := len(units)
	r := &roomBound{o: o, units: units, freed: make([][]int64, n), suffix: make([][]int64, n+1)}
	dims := 0
	for i, u := range units {
		r.freed[i] = o.Freed(u)
		dims = len(r.freed[i])
	}
	if n == 0 {
		dims = len(o.Slack())
	}
	r.suffix[n] = make([]int64, dims)
	for i := n - 1; i >= 0; i-- {
		r.suffix[i] = slices.Clone(r.suffix[i+1])
		for d, v := range r.freed[i] {
			r.suffix[i][d] += v
		}
	}
	r.largest = make([][]int, dims)
	for d := range dims {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return int(sign(r.freed[b][d] - r.freed[a][d])) })
		r.largest[d] = order
	}
	r.missing, r.acc = make([]int64, dims), make([]int64, dims)
	return r
}

func sign(v int64) int64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// lower bounds the cost of every completion of partial, the units from i on undecided
// (off in the simulation). It returns false when even all of them cannot free what would
// be missing.
func (r *roomBound) lower(i int, partial Cost) (Cost, bool) {
	slack := r.o.Slack()
	lacking := false
	for d, s := range slack {
		r.missing[d] = r.suffix[i][d] - s
		lacking = lacking || r.missing[d] > 0
	}
	if !lacking {
		return partial, true
	}
	k := 0
	for d, need := range r.missing {
		if need <= 0 {
			continue
		}
		var got int64
		count := 0
		for _, j := range r.largest[d] {
			if got >= need {
				break
			}
			if j >= i {
				got += r.freed[j][d]
				count++
			}
		}
		if got < need {
			return Cost{}, false
		}
		k = max(k, count)
	}
	n := len(r.units)
	lb := partial
	lb.Count += k
	for j := n - k; j < n; j++ {
		lb.Sum += Shifted(r.units[j].Priority)
	}
	if partial.Count == 0 {
		// Decided most important first, the chosen units are more important than any
		// undecided one: only without any does the top victim remain to bound.
		lb.Highest = r.level(i)
		lb = lb.WithLeastTop()
	}
	return lb, true
}

// level is the lowest priority whose undecided units (from i on) free what is missing.
func (r *roomBound) level(i int) int32 {
	clear(r.acc)
	for j := len(r.units) - 1; j >= i; j-- {
		for d, v := range r.freed[j] {
			r.acc[d] += v
		}
		if j > i && r.units[j-1].Priority == r.units[j].Priority {
			continue
		}
		covered := true
		for d, need := range r.missing {
			if r.acc[d] < need {
				covered = false
				break
			}
		}
		if covered {
			return r.units[j].Priority
		}
	}
	return r.units[i].Priority
}
