package sim_test

import (
	"cmp"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// The brute-force reference for preemption: every subset of victim units is tried, and
// the least disruptive one after which the preemptor fits is the answer. It shares no
// code with the engine: units, costs and fitting are computed here from the generated
// cluster alone, as plainly as possible.

// refCost ranks victim sets: budget violations, highest victim priority, number of
// victims, sum of their priorities (the engine's Cost; with priorities of 1-20, its
// shifted sum orders like number then sum).
type refCost struct {
	violations, highest, count, sum int
}

func (a refCost) less(b refCost) bool {
	return cmp.Or(cmp.Compare(a.violations, b.violations), cmp.Compare(a.highest, b.highest),
		cmp.Compare(a.count, b.count), cmp.Compare(a.sum, b.sum)) < 0
}

// candidateUnits are the victim units: pods of lower priority than the preemptor, a whole
// group of disruption mode All as one unit, BestEffort pods left out (they free no
// resources, and resources are all that block the preemptor here).
func (c *genCluster) candidateUnits() [][]int {
	var units [][]int
	done := map[string]bool{}
	for i, p := range c.pods {
		if p.prio >= c.preemptor.prio || p.bestEffort {
			continue
		}
		if g := c.group(p.group); g != nil && g.all {
			if !done[g.name] {
				done[g.name] = true
				units = append(units, slices.Clone(g.members))
			}
			continue
		}
		units = append(units, []int{i})
	}
	return units
}

func (c *genCluster) group(name string) *genGroup {
	for i := range c.groups {
		if c.groups[i].name == name {
			return &c.groups[i]
		}
	}
	return nil
}

// costOf is the cost of preempting a set of pods.
func (c *genCluster) costOf(victims []int) refCost {
	var k refCost
	perApp := map[string]int{}
	for _, i := range victims {
		p := c.pods[i]
		k.count++
		k.sum += int(p.prio)
		k.highest = max(k.highest, int(p.prio))
		if p.app != "" {
			perApp[p.app]++
		}
	}
	for _, b := range c.pdbs {
		k.violations += max(0, perApp[b.app]-b.maxUnavailable)
	}
	return k
}

// fits reports whether the preemptor's members can all be placed with the victims gone.
func (c *genCluster) fits(victims []int) bool {
	gone := map[int]bool{}
	for _, i := range victims {
		gone[i] = true
	}
	type room struct{ cpu, mem, gpu, pods int64 }
	free := map[string]*room{}
	var order []*room
	for _, n := range c.nodes {
		r := &room{n.cpu, n.mem, n.gpu, n.pods}
		free[n.name] = r
		order = append(order, r)
	}
	for i, p := range c.pods {
		if gone[i] {
			continue
		}
		r := free[p.node]
		r.cpu -= p.cpu
		r.mem -= p.mem
		r.gpu -= p.gpu
		r.pods--
	}
	members := slices.Clone(c.preemptor.members)
	slices.SortFunc(members, func(a, b genPod) int { return cmp.Compare(b.cpu, a.cpu) })
	var place func(k int) bool
	place = func(k int) bool {
		if k == len(members) {
			return true
		}
		m := members[k]
		for _, r := range order {
			if r.cpu >= m.cpu && r.mem >= m.mem && r.gpu >= m.gpu && r.pods >= 1 {
				r.cpu, r.mem, r.gpu, r.pods = r.cpu-m.cpu, r.mem-m.mem, r.gpu-m.gpu, r.pods-1
				ok := place(k + 1)
				r.cpu, r.mem, r.gpu, r.pods = r.cpu+m.cpu, r.mem+m.mem, r.gpu+m.gpu, r.pods+1
				if ok {
					return true
				}
			}
		}
		return false
	}
	return place(0)
}

// reference returns the least cost of a victim set after which the preemptor fits, and
// whether there is one at all (no victims at all when it fits as it is).
func (c *genCluster) reference() (refCost, bool) {
	k, ok, _ := c.referenceSet()
	return k, ok
}

// referenceSet is reference, with one least-cost victim set.
func (c *genCluster) referenceSet() (refCost, bool, []int) {
	units := c.candidateUnits()
	var best refCost
	var bestSet []int
	found := false
	var victims []int
	for mask := 0; mask < 1<<len(units); mask++ {
		victims = victims[:0]
		for u, pods := range units {
			if mask&(1<<u) != 0 {
				victims = append(victims, pods...)
			}
		}
		k := c.costOf(victims)
		if found && !k.less(best) {
			continue
		}
		if c.fits(victims) {
			best, found, bestSet = k, true, slices.Clone(victims)
		}
	}
	return best, found, bestSet
}

// victimsOf returns the indexes of the cluster's pods a report says were preempted.
func (c *genCluster) victimsOf(r *report.Report) []int {
	var out []int
	for _, pr := range r.Pods {
		if pr.Phase != "Preempted" {
			continue
		}
		for i, p := range c.pods {
			if p.name == pr.Name {
				out = append(out, i)
			}
		}
	}
	slices.Sort(out)
	return out
}
