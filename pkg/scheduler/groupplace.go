package scheduler

import (
	"cmp"
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// Limits of the backtracking search of a group's placement: how many member placements
// it may try (each a filtering scan), and how many feasible nodes of one member it tries.
const (
	maxBacktrackScans  = 256
	maxBacktrackBranch = 8
)

// placeMembers places a group's members on the cache (inside the caller's checkpoint),
// the largest first, each seeing those placed before it. When that greedy pass places
// fewer than needed (opts.Need, or every member), and the members are not all alike (for
// replicas the greedy pass is already complete: each node takes as many as fit), a
// bounded backtracking search looks for another assignment that places enough, so that a
// gang that can fit without preemption does (an earlier member's spot no longer blocks a
// later one). Members found by the search are completed greedily with the rest.
func (s *Scheduler) placeMembers(ctx context.Context, fwk *fwkruntime.Framework, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	s.restrictTo(opts.Nodes)
	defer s.restrictTo(nil)
	nodes := opts.Nodes
	if nodes == nil {
		nodes = s.cache.NodeInfos()
	}
	order := largestFirst(members, nodes)
	pl, err := s.placeInOrder(ctx, fwk, order, opts)
	target := opts.Need
	if target <= 0 || target > len(order) {
		target = len(order)
	}
	if err != nil || len(pl.Assignments) >= target {
		return pl, err
	}
	bt := newBacktracking(s, ctx, fwk, order, target, opts)
	if bt == nil {
		return pl, nil
	}
	for i := len(pl.Assignments) - 1; i >= 0; i-- {
		a := pl.Assignments[i]
		fwk.RunReservePluginsUnreserve(ctx, a.State, a.Pod, a.Node.Name)
		s.cache.RemovePod(a.Pod)
	}
	found := false
	// Members that do not fit even in the domain's aggregate room need no search.
	est, err := s.newCapacityEstimator(ctx, fwk, order, target)
	if err == nil && est.capacity(nodes) >= target {
		found, err = bt.search(0, 0)
	}
	if err != nil || !found {
		for _, a := range pl.Assignments {
			s.cache.AddPod(a.Pod, a.Node.Name)
			if st := fwk.RunReservePluginsReserve(ctx, a.State, a.Pod, a.Node.Name); st.Code() == framework.Error {
				return nil, st.AsError()
			}
		}
		return pl, err
	}
	placed := map[*framework.PodInfo]bool{}
	for _, a := range bt.assigned {
		placed[a.Pod] = true
	}
	var rest []*framework.PodInfo
	for _, m := range order {
		if !placed[m] {
			rest = append(rest, m)
		}
	}
	more, err := s.placeInOrder(ctx, fwk, rest, opts)
	if err != nil {
		return nil, err
	}
	more.Assignments = append(bt.assigned, more.Assignments...)
	if len(more.Unplaced) == 0 {
		more.Message, more.Reasons, more.UnschedulablePlugins = "", nil, nil
	}
	return more, nil
}

// largestFirst orders members by the share of the largest node that their largest
// request takes, then by the sum of those shares (stable: equal members keep their
// order), so that the hardest to fit go first.
func largestFirst(members []*framework.PodInfo, nodes []*framework.NodeInfo) []*framework.PodInfo {
	// The largest node's allocatable, of the resources the members ask for.
	var asked resource.Vector
	var idx []int8
	for _, m := range members {
		for _, i := range m.RequestIdx {
			if asked[i] == 0 && i != resource.Pods {
				asked[i] = 1
				idx = append(idx, i)
			}
		}
	}
	var biggest resource.Vector
	for _, n := range nodes {
		for _, i := range idx {
			biggest[i] = max(biggest[i], n.Allocatable[i])
		}
	}
	type sized struct {
		m             *framework.PodInfo
		dominant, sum float64
	}
	list := make([]sized, len(members))
	for k, m := range members {
		list[k].m = m
		for _, i := range m.RequestIdx {
			if i == resource.Pods || biggest[i] <= 0 {
				continue
			}
			share := float64(m.Requests.Vector[i]) / float64(biggest[i])
			list[k].dominant = max(list[k].dominant, share)
			list[k].sum += share
		}
	}
	slices.SortStableFunc(list, func(a, b sized) int {
		if c := cmp.Compare(b.dominant, a.dominant); c != 0 {
			return c
		}
		return cmp.Compare(b.sum, a.sum)
	})
	out := make([]*framework.PodInfo, len(list))
	for k, x := range list {
		out[k] = x.m
	}
	return out
}

// backtracking is the bounded depth-first search for an assignment of target members.
// Members alike (one equivalence class) are interchangeable, so the search places a
// prefix of each class, on nodes in non-decreasing order, and never tries the same
// assignment twice under another name.
type backtracking struct {
	s        *Scheduler
	ctx      context.Context
	fwk      *fwkruntime.Framework
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
func newBacktracking(s *Scheduler, ctx context.Context, fwk *fwkruntime.Framework, order []*framework.PodInfo, target int, opts framework.PlaceOptions) *backtracking {
	for _, m := range order {
		if len(m.Pod.Spec.ResourceClaims) > 0 {
			return nil
		}
	}
	// Group the members by class, keeping the size order of each class's first member.
	keys := make([]string, len(order))
	first := map[string]int{}
	for i, m := range order {
		k := equivalenceKey(fwk, m)
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
	bt := &backtracking{s: s, ctx: ctx, fwk: fwk, target: target}
	for _, i := range idx {
		bt.members = append(bt.members, order[i])
		bt.class = append(bt.class, first[keys[i]])
	}
	return bt
}

// search places members[i:] so that placed+more reach the target; it reports whether it
// did, leaving those placements in the cache and in assigned.
func (bt *backtracking) search(i, placed int) (bool, error) {
	if placed >= bt.target {
		return true, nil
	}
	if len(bt.members)-i < bt.target-placed || bt.scans >= maxBacktrackScans {
		return false, nil
	}
	s, m := bt.s, bt.members[i]
	bt.scans++
	state := framework.NewCycleState()
	feasible, _, err := s.findNodes(bt.ctx, bt.fwk, state, m, 0, false)
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
		s.cache.AddPod(m, n.Name)
		if st := bt.fwk.RunReservePluginsReserve(bt.ctx, state, m, n.Name); !st.IsSuccess() {
			bt.fwk.RunReservePluginsUnreserve(bt.ctx, state, m, n.Name)
			s.cache.RemovePod(m)
			if st.Code() == framework.Error {
				return false, st.AsError()
			}
			continue
		}
		bt.assigned = append(bt.assigned, framework.Assignment{Pod: m, Node: n, State: state})
		ok, err := bt.search(i+1, placed+1)
		if err != nil || ok {
			return ok, err
		}
		bt.fwk.RunReservePluginsUnreserve(bt.ctx, state, m, n.Name)
		s.cache.RemovePod(m)
		bt.assigned = bt.assigned[:len(bt.assigned)-1]
	}
	// Leave m out, and with it the rest of its class: alike members are placed as a
	// prefix of their class.
	j := i + 1
	for j < len(bt.members) && bt.class[j] == bt.class[i] {
		j++
	}
	return bt.search(j, placed)
}

// placeInOrder places members one after the other on the cache (inside the caller's
// checkpoint), each seeing those placed before it, as KEP-5732's sequential processing.
// A member nominated to a node tries that node first.
func (s *Scheduler) placeInOrder(ctx context.Context, fwk *fwkruntime.Framework, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	pl := &framework.GroupPlacement{}
	firstFit := opts.FirstFit
	rejectors := sets.New[string]()
	// Placing members only adds pods to the snapshot, so a member that fits nowhere means
	// the same for every later member that is equivalent to it: same requests, same static
	// constraints, no constraint on other pods (a gang's replicas, typically). They are not
	// tried again.
	failed := map[string]bool{}
	for _, m := range members {
		eq := equivalenceKey(fwk, m)
		if eq != "" && failed[eq] {
			pl.Unplaced = append(pl.Unplaced, m)
			continue
		}
		if m.ParseErr != nil {
			pl.Unplaced = append(pl.Unplaced, m)
			if pl.Message == "" {
				pl.Message = m.ParseErr.Error()
			}
			continue
		}
		state := framework.NewCycleState()
		limit := 0
		if firstFit {
			limit = 1
		}
		feasible, diag, err := s.findNodesThatFitLimited(ctx, fwk, state, m, limit)
		if err != nil {
			return nil, err
		}
		if len(feasible) == 0 {
			pl.Unplaced = append(pl.Unplaced, m)
			if eq != "" {
				failed[eq] = true
			}
			rejectors = rejectors.Union(diag.UnschedulablePlugins)
			if pl.Message == "" {
				pl.Message = (&FitError{NumAllNodes: diag.NumNodes, Diagnosis: diag}).Error()
				pl.Reasons = diag.reasons()
			}
			continue
		}
		host := feasible[0].Name
		if !firstFit && len(feasible) > 1 {
			if host, err = s.prioritizeNodes(ctx, fwk, state, m, feasible, opts.Pack); err != nil {
				return nil, err
			}
		}
		s.cache.AddPod(m, host)
		// Reserve records what the member takes besides room (its claims' devices, its
		// volumes) in the snapshot, so the next members see it; the rollback undoes it.
		if st := fwk.RunReservePluginsReserve(ctx, state, m, host); !st.IsSuccess() {
			fwk.RunReservePluginsUnreserve(ctx, state, m, host)
			s.cache.RemovePod(m)
			if st.Code() == framework.Error {
				return nil, st.AsError()
			}
			pl.Unplaced = append(pl.Unplaced, m)
			rejectors.Insert(st.Plugin())
			if pl.Message == "" {
				pl.Message = st.Message()
			}
			continue
		}
		pl.Assignments = append(pl.Assignments, framework.Assignment{Pod: m, Node: s.cache.Get(host), State: state})
	}
	pl.UnschedulablePlugins = sets.List(rejectors)
	return pl, nil
}
