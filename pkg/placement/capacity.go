package placement

import (
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// capacity bounds, on resource vectors alone, how many of a group's members a set of nodes
// can take: the cheap check of KEP-5732's pre-filtering, made before any pod-level work,
// and the check that spares preemption placing members again where they cannot fit. It
// never underestimates, so ruling a domain out on it loses no feasible placement.
type capacity struct {
	// rep is set when the members are alike: each node then takes as many as fit in its
	// free room (exact as far as resources go), and only nodes the static filters accept
	// count.
	rep *framework.PodInfo
	// eligible is nil when the static filters do not narrow the nodes.
	eligible func(*framework.NodeInfo) bool
	idx      []int8
	// prefix[j][k] is the sum of the k smallest requests of resource idx[j] among the
	// members, for groups whose members differ: they are bounded in aggregate.
	prefix  [][]int64
	members int
	// shape is everything the bound reads of the members (capacityCache's key).
	shape string
}

var _ framework.Capacity = (*capacity)(nil)

func (pl *Placer) capacity(ctx context.Context, members []*framework.PodInfo) (*capacity, error) {
	c := &capacity{members: len(members)}
	if len(members) == 0 {
		return c, nil
	}
	key := pl.alikeKey(members[0])
	alike := key != ""
	for _, m := range members[1:] {
		if !alike {
			break
		}
		alike = m.Requests == members[0].Requests && pl.alikeKey(m) == key
	}
	if alike {
		c.rep = members[0]
		c.idx, _ = pl.dropDeviceBacked(c.rep.RequestIdx, nil)
		eligible, err := pl.opts.Pods.StaticEligible(ctx, c.rep)
		if err != nil {
			return nil, err
		}
		c.eligible = eligible
		c.shape = shapeOf(c, pl.opts.Framework.StaticFilterKey(framework.NewCycleState(), c.rep))
		return c, nil
	}
	rp := framework.NewRequestPrefixes(members)
	c.idx, c.prefix = pl.dropDeviceBacked(rp.Idx, rp.Sums)
	c.shape = shapeOf(c, "")
	return c, nil
}

// Of bounds how many members the nodes can take, the requests of the placed members
// counted as free room.
func (c *capacity) Of(nodes []*framework.NodeInfo, placed []framework.Assignment) int {
	var credit map[*framework.NodeInfo]*resource.Vector
	if len(placed) > 0 {
		credit = make(map[*framework.NodeInfo]*resource.Vector, len(placed))
		for _, a := range placed {
			v := credit[a.Node]
			if v == nil {
				v = &resource.Vector{}
				credit[a.Node] = v
			}
			v.Add(&a.Pod.Requests.Vector)
		}
	}
	if c.rep != nil {
		total := 0
		for _, n := range nodes {
			if c.eligible != nil && !c.eligible(n) {
				continue
			}
			k := c.copiesOn(n, credit[n])
			if k < 0 || total+k >= c.members {
				return c.members
			}
			total += k
		}
		return total
	}
	var room resource.Vector
	for _, n := range nodes {
		back := credit[n]
		for _, i := range c.idx {
			room[i] += n.Allocatable[i] - n.Requested[i]
			if back != nil {
				room[i] += back[i]
			}
		}
	}
	count := c.members
	for j, i := range c.idx {
		// The most members whose smallest requests fit in the room left.
		k, _ := slices.BinarySearch(c.prefix[j], room[i]+1)
		count = min(count, k-1)
	}
	return max(count, 0)
}

// copiesOn is how many copies of the representative member fit in n's free room, with
// back counted free too (-1: it requests nothing countable there).
func (c *capacity) copiesOn(n *framework.NodeInfo, back *resource.Vector) int {
	k := -1
	for _, i := range c.idx {
		r := c.rep.Requests.Vector[i]
		if r <= 0 {
			continue
		}
		free := n.Allocatable[i] - n.Requested[i]
		if back != nil {
			free += back[i]
		}
		copies := 0
		if free > 0 {
			copies = int(free / r)
		}
		if k < 0 || copies < k {
			k = copies
		}
	}
	return k
}

// dropDeviceBacked leaves out of a capacity bound the extended resources a DeviceClass
// backs: on nodes without them in their allocatable, DynamicResources serves them from
// devices, which resource vectors cannot bound, and leaving them out never underestimates.
// prefix, when not nil, holds the per-resource sums that go with idx.
func (pl *Placer) dropDeviceBacked(idx []int8, prefix [][]int64) ([]int8, [][]int64) {
	dra := pl.opts.Snapshot.DRA()
	if len(dra.Classes()) == 0 {
		return idx, prefix
	}
	var outIdx []int8
	var outPrefix [][]int64
	for j, i := range idx {
		if resource.IsScalar(int(i)) && dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil {
			continue
		}
		outIdx = append(outIdx, i)
		if prefix != nil {
			outPrefix = append(outPrefix, prefix[j])
		}
	}
	return slices.Clip(outIdx), outPrefix
}
