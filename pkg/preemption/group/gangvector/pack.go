package gangvector

// packSteps bounds the packing search of one check, packBudget those of one decision.
const (
	packSteps  = 20000
	packBudget = 2000000
)

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

func (o *Oracle) fits() bool {
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
func (o *Oracle) lastHolds() bool {
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
func (o *Oracle) mayPack() bool {
	total := 0
	for n := range o.nodes {
		total += fitCount(o.free[n], o.least)
	}
	if total < len(o.gang.Members) {
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
func (o *Oracle) pack(k, n, left int, bound []int) bool {
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
