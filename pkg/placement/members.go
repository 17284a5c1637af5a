package placement

import (
	"context"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
)

// place places members on the snapshot, the largest first, each seeing those placed before
// it. When that greedy pass places fewer than needed (opts.Need, or every member), and the
// members are not all alike (for replicas the greedy pass is already complete: each node
// takes as many as fit), a bounded backtracking search looks for another assignment that
// places enough, so that a gang that can fit without preemption does (an earlier member's
// spot no longer blocks a later one). Members found by the search are completed greedily
// with the rest.
func (pl *Placer) place(ctx context.Context, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	dom := framework.NewDomain(opts.Nodes)
	nodes := opts.Nodes
	if nodes == nil {
		nodes = pl.opts.Snapshot.NodeInfos()
	}
	order := largestFirst(members, nodes)
	placed, err := pl.placeInOrder(ctx, order, dom, opts)
	target := opts.Need
	if target <= 0 || target > len(order) {
		target = len(order)
	}
	if err != nil || len(placed.Assignments) >= target {
		return placed, err
	}
	bt := pl.newBacktracking(order, target, dom)
	if bt == nil {
		return placed, nil
	}
	fwk, snap := pl.opts.Framework, pl.opts.Snapshot
	for i := len(placed.Assignments) - 1; i >= 0; i-- {
		a := placed.Assignments[i]
		fwk.RunReservePluginsUnreserve(ctx, a.State, a.Pod, a.Node.Name)
		snap.RemovePod(a.Pod)
	}
	found := false
	// Members that do not fit even in the domain's aggregate room need no search.
	est, err := pl.capacity(ctx, order)
	if err == nil && est.Of(nodes, nil) >= target {
		found, err = bt.search(ctx, 0, 0)
	}
	if err != nil || !found {
		for _, a := range placed.Assignments {
			snap.AddPod(a.Pod, a.Node.Name)
			if st := fwk.RunReservePluginsReserve(ctx, a.State, a.Pod, a.Node.Name); st.Code() == framework.Error {
				return nil, st.AsError()
			}
		}
		return placed, err
	}
	searched := map[*framework.PodInfo]bool{}
	for _, a := range bt.assigned {
		searched[a.Pod] = true
	}
	var rest []*framework.PodInfo
	for _, m := range order {
		if !searched[m] {
			rest = append(rest, m)
		}
	}
	more, err := pl.placeInOrder(ctx, rest, dom, opts)
	if err != nil {
		return nil, err
	}
	more.Assignments = append(bt.assigned, more.Assignments...)
	if len(more.Unplaced) == 0 {
		more.Message, more.Reasons, more.UnschedulablePlugins = "", nil, nil
	}
	return more, nil
}

// placeInOrder places members one after the other on the snapshot, each seeing those
// placed before it, as KEP-5732's sequential processing. A member nominated to a node
// tries that node first.
func (pl *Placer) placeInOrder(ctx context.Context, members []*framework.PodInfo, dom *framework.Domain, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	fwk, snap := pl.opts.Framework, pl.opts.Snapshot
	out := &framework.GroupPlacement{}
	rejectors := sets.New[string]()
	q := podfit.Query{Domain: dom}
	if opts.FirstFit {
		q.Limit = 1
	}
	// Placing members only adds pods to the snapshot, so a member that fits nowhere means
	// the same for every later member alike (a gang's replicas, typically): they are not
	// tried again. A member's key is only needed once one has failed, or when it fails
	// (it costs a few microseconds, and a group cycle places each member in up to
	// FeasiblePlacementsToFind placements).
	failed := map[string]bool{}
	for _, m := range members {
		alike, keyed := "", false
		if len(failed) > 0 {
			alike, keyed = pl.alikeKey(m), true
			if alike != "" && failed[alike] {
				out.Unplaced = append(out.Unplaced, m)
				continue
			}
		}
		if m.ParseErr != nil {
			out.Unplaced = append(out.Unplaced, m)
			if out.Message == "" {
				out.Message = m.ParseErr.Error()
			}
			continue
		}
		state := framework.NewCycleState()
		feasible, diag, err := pl.opts.Pods.FindNodes(ctx, state, m, q)
		if err != nil {
			return nil, err
		}
		if len(feasible) == 0 {
			out.Unplaced = append(out.Unplaced, m)
			if !keyed {
				alike = pl.alikeKey(m)
			}
			if alike != "" {
				failed[alike] = true
			}
			rejectors = rejectors.Union(diag.UnschedulablePlugins)
			if out.Message == "" {
				out.Message = (&framework.FitError{NumAllNodes: diag.NumNodes, Diagnosis: diag}).Error()
				out.Reasons = diag.Reasons()
			}
			continue
		}
		host := feasible[0].Name
		if !opts.FirstFit && len(feasible) > 1 {
			if host, err = pl.opts.Pods.SelectNode(ctx, state, m, feasible, opts.Pack); err != nil {
				return nil, err
			}
		}
		snap.AddPod(m, host)
		// Reserve records what the member takes besides room (its claims' devices, its
		// volumes) in the snapshot, so the next members see it; the rollback undoes it.
		if st := fwk.RunReservePluginsReserve(ctx, state, m, host); !st.IsSuccess() {
			fwk.RunReservePluginsUnreserve(ctx, state, m, host)
			snap.RemovePod(m)
			if st.Code() == framework.Error {
				return nil, st.AsError()
			}
			out.Unplaced = append(out.Unplaced, m)
			rejectors.Insert(st.Plugin())
			if out.Message == "" {
				out.Message = st.Message()
			}
			continue
		}
		out.Assignments = append(out.Assignments, framework.Assignment{Pod: m, Node: snap.Get(host), State: state})
	}
	out.UnschedulablePlugins = sets.List(rejectors)
	return out, nil
}
