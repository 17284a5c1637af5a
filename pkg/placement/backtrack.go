package placement

import (
	"cmp"
	"context"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
)

// Limits of the backtracking search of a group's placement: how many member placements
// it may try (each a filtering scan), and how many feasible nodes of one member it tries.
const (
	maxBacktrackScans  = 256
	maxBacktrackBranch = 8
)

// backtracking is the bounded depth-first search for an assignment of target members.
// Members alike (one class) are interchangeable, so the search places a prefix of each
// class, on nodes in non-decreasing order, and never tries the same assignment twice
// under another name.
type backtracking struct {
	pl       *Placer
	dom      *framework.Domain
	members  []*framework.PodInfo
	class    []int // members[i]'s class; members of a class are contiguous
	target   int
	scans    int
	assigned []framework.Assignment
}

// newBacktracking prepares the search, or returns nil when it cannot do better than the
// greedy pass: every member alike, or members with ResourceClaims (which device each gets
// is searched jointly by DynamicResources; moving members between nodes of a placement
// whose devices fall short would only repeat that search).
func (pl *Placer) newBacktracking(order []*framework.PodInfo, target int, dom *framework.Domain) *backtracking {
	for _, m := range order {
		if len(m.Pod.Spec.ResourceClaims) > 0 {
			return nil
		}
	}
	// Group the members by class, keeping the size order of each class's first member.
	keys := make([]string, len(order))
	first := map[string]int{}
	for i, m := range order {
		k := pl.alikeKey(m)
		if k == "" {
			k = "\x00" + m.Key
		}
		keys[i] = k
		if _, ok := first[k]; !ok {
			first[k] = i
		}
	}
	if len(first) == 1 {
		return nil
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(first[keys[a]], first[keys[b]]) })
	bt := &backtracking{pl: pl, dom: dom, target: target}
	for _, i := range idx {
		bt.members = append(bt.members, order[i])
		bt.class = append(bt.class, first[keys[i]])
	}
	return bt
}

// search places members[i:] so that placed+more reach the target; it reports whether it
// did, leaving those placements in the snapshot and in assigned.
func (bt *backtracking) search(ctx context.Context, i, placed int) (bool, error) {
	if placed >= bt.target {
		return true, nil
	}
	if len(bt.members)-i < bt.target-placed || bt.scans >= maxBacktrackScans {
		return false, nil
	}
	fwk, snap, m := bt.pl.opts.Framework, bt.pl.opts.Snapshot, bt.members[i]
	bt.scans++
	state := framework.NewCycleState()
	feasible, _, err := bt.pl.opts.Pods.FindNodes(ctx, state, m, podfit.Query{Domain: bt.dom, IgnoreNomination: true})
	if err != nil {
		return false, err
	}
	minIndex := -1
	if n := len(bt.assigned); n > 0 && i > 0 && bt.class[i-1] == bt.class[i] && bt.assigned[n-1].Pod == bt.members[i-1] {
		minIndex = bt.assigned[n-1].Node.Index
	}
	nodes := make([]*framework.NodeInfo, 0, maxBacktrackBranch)
	for _, n := range feasible {
		if n.Index >= minIndex {
			nodes = append(nodes, n)
		}
	}
	slices.SortFunc(nodes, func(a, b *framework.NodeInfo) int { return cmp.Compare(a.Index, b.Index) })
	nodes = nodes[:min(len(nodes), maxBacktrackBranch)]
	for _, n := range nodes {
		snap.AddPod(m, n.Name)
		if st := fwk.RunReservePluginsReserve(ctx, state, m, n.Name); !st.IsSuccess() {
			fwk.RunReservePluginsUnreserve(ctx, state, m, n.Name)
			snap.RemovePod(m)
			if st.Code() == framework.Error {
				return false, st.AsError()
			}
			continue
		}
		bt.assigned = append(bt.assigned, framework.Assignment{Pod: m, Node: n, State: state})
		ok, err := bt.search(ctx, i+1, placed+1)
		if err != nil || ok {
			return ok, err
		}
		fwk.RunReservePluginsUnreserve(ctx, state, m, n.Name)
		snap.RemovePod(m)
		bt.assigned = bt.assigned[:len(bt.assigned)-1]
	}
	// Leave m out, and with it the rest of its class: alike members are placed as a
	// prefix of their class.
	j := i + 1
	for j < len(bt.members) && bt.class[j] == bt.class[i] {
		j++
	}
	return bt.search(ctx, j, placed)
}
