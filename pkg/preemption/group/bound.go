package group

import (
	"cmp"
	"slices"
	"sync"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// disruptionBound bounds from below, on resource vectors, what preemption in a set of
// nodes must cost: the room the group's need smallest requests take, less the free room
// and what leaving pods free, must come from lower-priority pods there (BestEffort ones
// free nothing). The lowest priority level whose pods cover it bounds the highest victim
// priority, and the fewest of those pods that could cover it (the largest request of each
// resource) bound the number of victims.
type disruptionBound struct {
	snap framework.Snapshot
	pr   *preemptor
	idx  []int8
	want resource.Vector
}

type boundCand struct {
	prio int32
	req  boundVector
}

// sortByPriority orders candidates by priority, lowest first: by insertion for the few
// pods of a typical placement (no comparison closure, which cost as much as the rest of
// the bound), by the library beyond.
func sortByPriority(cands []boundCand) {
	if len(cands) > 64 {
		slices.SortFunc(cands, func(a, b boundCand) int { return cmp.Compare(a.prio, b.prio) })
		return
	}
	for i := 1; i < len(cands); i++ {
		c := cands[i]
		j := i
		for ; j > 0 && cands[j-1].prio > c.prio; j-- {
			cands[j] = cands[j-1]
		}
		cands[j] = c
	}
}

// boundBuffers are a bound computation's scratch; bounds run in parallel, each with its own.
type boundBuffers struct {
	cands []boundCand
}

var boundScratch = sync.Pool{New: func() any { return &boundBuffers{} }}

func newDisruptionBound(snap framework.Snapshot, pr *preemptor) *disruptionBound {
	rp := framework.NewRequestPrefixes(pr.members)
	b := &disruptionBound{snap: snap, pr: pr, idx: rp.Idx}
	for j, i := range rp.Idx {
		b.want[i] = rp.Sums[j][min(pr.need, len(pr.members))]
	}
	return b
}

// of returns the bound for the nodes, or false when even every lower-priority pod there
// would not free enough room. It only reads, so placements are bounded in parallel.
func (b *disruptionBound) of(nodes []*framework.NodeInfo) (preemption.Cost, bool) {
	c, ok, _, _ := b.compute(nodes)
	return c, ok
}

// compute is of, and says what else the bound read: the groups of the pods it looked at
// (their victim priorities, to check that they still hold), and whether the preemptor owns
// none of those pods (only then may the bound be reused for another preemptor).
func (b *disruptionBound) compute(nodes []*framework.NodeInfo) (cost preemption.Cost, ok bool, groups []groupPriority, reusable bool) {
	reusable = true
	scratch := boundScratch.Get().(*boundBuffers)
	defer boundScratch.Put(scratch)
	// The bound works on the first boundResources resources the members ask for: fewer
	// resources only weaken it, and a bound that never loads a pod's requests twice is
	// what makes hundreds of placements cheap to rank.
	idx := b.idx[:min(len(b.idx), boundResources)]
	var deficit boundVector
	for j, i := range idx {
		deficit[j] = b.want[i]
	}
	cands := scratch.cands[:0]
	defer func() { scratch.cands = cands[:0] }()
	for _, n := range nodes {
		for j, i := range idx {
			deficit[j] -= n.Allocatable[i] - n.Requested[i]
		}
		for _, q := range n.Pods {
			if q.Holder() {
				continue
			}
			if q.Group != "" {
				key := framework.GroupKey(q)
				if b.pr.groups[key] {
					reusable = false
					continue
				}
				groups = noteGroup(b.snap, groups, key)
			}
			p := preemption.VictimPriority(b.snap, q)
			if p >= b.pr.g.Priority {
				continue
			}
			switch {
			case q.Terminating:
				for j, i := range idx {
					deficit[j] -= q.Requests.Vector[i]
				}
			case !preemption.FreesNoResources(q):
				c := boundCand{prio: p}
				for j, i := range idx {
					c.req[j] = q.Requests.Vector[i]
				}
				cands = append(cands, c)
			}
		}
	}
	k := len(idx)
	if deficit.covered(k) {
		return preemption.Cost{Highest: preemption.NoCost.Highest}.WithLeastTop(), true, groups, reusable
	}
	sortByPriority(cands)
	rem := deficit
	level := -1
	for n, c := range cands {
		for j := range k {
			rem[j] -= c.req[j]
		}
		if rem.covered(k) && (n+1 == len(cands) || cands[n+1].prio != c.prio) {
			level = n
			break
		}
	}
	if level < 0 {
		return preemption.Cost{}, false, groups, reusable
	}
	top := cands[level].prio
	usable := cands[:level+1]
	// At least as many pods as the deficit of any resource divided by the largest request
	// of it among them.
	count := 1
	for j := range k {
		if deficit[j] <= 0 {
			continue
		}
		var largest int64
		for _, c := range usable {
			largest = max(largest, c.req[j])
		}
		if largest > 0 {
			count = max(count, int((deficit[j]+largest-1)/largest))
		}
	}
	return preemption.Cost{Highest: top, Sum: preemption.Shifted(top) + int64(count-1)*preemption.Shifted(usable[0].prio), Count: count}.WithLeastTop(), true, groups, reusable
}

// boundResources is how many resources a disruption bound looks at.
const boundResources = 6

// boundVector holds a bound's amounts of the resources it looks at.
type boundVector [boundResources]int64

func (v *boundVector) covered(k int) bool {
	for j := range k {
		if v[j] > 0 {
			return false
		}
	}
	return true
}
