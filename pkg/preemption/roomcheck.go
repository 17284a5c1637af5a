package preemption

import (
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// roomCheck tells, on resource vectors alone, whether a domain can still take enough of a
// group's members, before any member is placed: a necessary condition that spares the
// group oracle placing the members again after every unit it puts back. For members that
// are replicas (equal requests and node constraints, nothing involving other pods) it
// counts, on each node their static filters accept, how many fit in its free room; that
// is exact as far as resources go. For other members it compares the domain's total free
// room with the need smallest requests.
type roomCheck struct {
	nodes []*framework.NodeInfo
	need  int
	idx   []int8
	// rep is set for replicas; eligible then marks the nodes they may use.
	rep      *framework.PodInfo
	eligible []bool
	// want is the room the need smallest requests take, for members that differ.
	want resource.Vector
}

func newRoomCheck(ctx context.Context, h framework.Handle, rest []*framework.PodInfo, need int, nodes []*framework.NodeInfo) *roomCheck {
	rc := &roomCheck{nodes: nodes, need: need}
	if replicas(rest) {
		state := framework.NewCycleState()
		if _, st := h.RunPreFilterPlugins(ctx, state, rest[0]); st.IsSuccess() {
			rc.rep, rc.idx = rest[0], withPods(rest[0].RequestIdx)
			rc.eligible = make([]bool, len(nodes))
			for i, n := range nodes {
				rc.eligible[i] = h.RunStaticFilterPlugins(ctx, state, rest[0], n).IsSuccess()
			}
			return rc
		}
	}
	rp := framework.NewRequestPrefixes(rest)
	rc.idx = rp.Idx
	for j, i := range rp.Idx {
		rc.want[i] = rp.Sums[j][min(need, len(rest))]
	}
	return rc
}

func withPods(idx []int8) []int8 {
	if slices.Contains(idx, int8(resource.Pods)) {
		return idx
	}
	return append(slices.Clone(idx), resource.Pods)
}

// enough reports whether the nodes' free room, with the members of placed taken off
// (they are in the snapshot), may hold need members.
func (rc *roomCheck) enough(placed []framework.Assignment) bool {
	credit := make(map[*framework.NodeInfo]*resource.Vector, len(placed))
	for _, a := range placed {
		v := credit[a.Node]
		if v == nil {
			v = &resource.Vector{}
			credit[a.Node] = v
		}
		v.Add(&a.Pod.Requests.Vector)
	}
	freeOn := func(n *framework.NodeInfo, r int8) int64 {
		f := n.Allocatable[r] - n.Requested[r]
		if v := credit[n]; v != nil {
			f += v[r]
		}
		return f
	}
	if rc.rep != nil {
		total := 0
		for i, n := range rc.nodes {
			if !rc.eligible[i] {
				continue
			}
			k := -1
			for _, r := range rc.idx {
				req := rc.rep.Requests.Vector[r]
				if req <= 0 {
					continue
				}
				c := int(max(0, freeOn(n, r)) / req)
				if k < 0 || c < k {
					k = c
				}
			}
			if k < 0 {
				return true // asks for nothing countable
			}
			if total += k; total >= rc.need {
				return true
			}
		}
		return false
	}
	var free resource.Vector
	for _, n := range rc.nodes {
		for _, r := range rc.idx {
			free[r] += freeOn(n, r)
		}
	}
	for _, r := range rc.idx {
		if free[r] < rc.want[r] {
			return false
		}
	}
	return true
}
