package podfit

import (
	"context"
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// Thresholds of kube-scheduler's adaptive percentageOfNodesToScore.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// numFeasibleNodesToFind is how many feasible nodes filtering looks for before it stops:
// all of them on small clusters, then a share that shrinks with cluster size.
func numFeasibleNodesToFind(percentage, numNodes int) int {
	if numNodes < minFeasibleNodesToFind || percentage >= 100 {
		return numNodes
	}
	adaptive := percentage
	if adaptive <= 0 {
		adaptive = max(50-numNodes/125, minFeasibleNodesPercentageToFind)
	}
	n := numNodes * adaptive / 100
	return max(n, minFeasibleNodesToFind)
}

// FindNodes runs PreFilter and Filter for p and returns the feasible nodes of the query's
// domain, or, when none is, the diagnosis of why. The returned slice is reused by the next
// scan: use it before filtering again.
func (pf Profile) FindNodes(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, q Query) ([]*framework.NodeInfo, *framework.Diagnosis, error) {
	snap := pf.f.opts.Snapshot
	nodes := snap.NodeInfos()
	diag := framework.NewDiagnosis(len(nodes))
	preRes, st := pf.fwk.RunPreFilterPlugins(ctx, state, p)
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, diag, st.AsError()
		}
		diag.NodeToStatus.Absent = st
		diag.PreFilterMsg = st.Message()
		diag.UnschedulablePlugins.Insert(st.Plugin())
		return nil, diag, nil
	}
	narrowed := preRes != nil && preRes.NodeNames != nil
	if narrowed {
		kept := make([]*framework.NodeInfo, 0, len(preRes.NodeNames))
		for _, n := range nodes {
			if _, ok := preRes.NodeNames[n.Name]; ok {
				kept = append(kept, n)
			}
		}
		nodes = kept
		diag.NodeToStatus.Absent = framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", preRes.Plugins))
	}

	// A pod nominated to a node tries that node first: the room was made for it. A pod
	// given a batch hint tries the hint first, the same way (kube-scheduler's
	// evaluateNominatedNode), without moving the scans' start.
	var hint string
	if q.Batch != nil {
		hint = pf.nodeHint(ctx, state, p, q.Batch)
	}
	if !q.IgnoreNomination || hint != "" {
		name := pf.f.opts.Nominator.NominatedNode(p.Key)
		if q.IgnoreNomination || name == "" {
			name = hint
		}
		if nominated := snap.Get(name); nominated != nil && q.Domain.Contains(nominated) && (!narrowed || hasNode(preRes, nominated.Name)) {
			if st := pf.fwk.RunFilterPlugins(ctx, state, p, nominated); st.IsSuccess() {
				return []*framework.NodeInfo{nominated}, diag, nil
			} else if st.Code() == framework.Error {
				return nil, diag, st.AsError()
			}
		}
	}
	feasible, err := pf.filterNodes(ctx, state, p, scanInput{nodes: nodes, narrowed: narrowed, q: q, diag: diag})
	return feasible, diag, err
}

func hasNode(r *framework.PreFilterResult, name string) bool {
	_, ok := r.NodeNames[name]
	return ok
}

// scanInput is what filterNodes works on: the nodes left by PreFilter (all of them unless
// it narrowed them), the query, and the diagnosis to fill when none fits.
type scanInput struct {
	nodes    []*framework.NodeInfo
	narrowed bool
	q        Query
	diag     *framework.Diagnosis
}

// filterNodes runs Filter over the nodes until enough feasible ones are found. Static
// verdicts come from the cache, so only the nodes that pass them are visited (unless
// PreFilter narrowed the nodes, when the few candidates are checked one by one).
func (pf Profile) filterNodes(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, in scanInput) ([]*framework.NodeInfo, error) {
	f, fwk, dom := pf.f, pf.fwk, in.q.Domain
	all := f.opts.Snapshot.NodeInfos()
	candidates := in.nodes
	if dom != nil {
		// A group placed in a domain: only its nodes are candidates, and only they count
		// in the diagnosis.
		if len(in.nodes) == len(all) {
			candidates = dom.Nodes
		} else {
			candidates = dom.Keep(in.nodes)
		}
		in.diag.NumNodes = len(dom.Nodes)
	}
	list := candidateList{nodes: candidates}
	var v *staticVerdicts
	check := func(n *framework.NodeInfo) *framework.Status { return fwk.RunFilterPlugins(ctx, state, p, n) }
	if fwk.HasStaticFilters() {
		v = pf.verdicts(state, p)
		dynamic := fwk.ActiveDynamicFilters(state)
		if in.narrowed {
			check = func(n *framework.NodeInfo) *framework.Status {
				if st := v.verdict(ctx, fwk, state, p, n); st != nil {
					return st
				}
				return fwkruntime.RunFilters(ctx, dynamic, state, p, n)
			}
		} else {
			if err := pf.refresh(ctx, v, state, p); err != nil {
				return nil, err
			}
			if dom != nil {
				kept := f.eligibleScratch[:0]
				for _, n := range dom.Nodes {
					if v.status[n.Index] == nil {
						kept = append(kept, n)
					}
				}
				f.eligibleScratch = kept
				list = candidateList{nodes: kept}
			} else {
				// The eligible nodes are walked through their indices, never copied: the scan
				// stops after the few it needs.
				list = candidateList{nodes: all, index: v.eligible, indexed: true}
			}
			check = func(n *framework.NodeInfo) *framework.Status { return fwkruntime.RunFilters(ctx, dynamic, state, p, n) }
		}
	}
	feasible, err := f.scan(ctx, list, check, in.q.Limit, in.diag)
	if err != nil || len(feasible) > 0 || v == nil || in.narrowed {
		return feasible, err
	}
	// Nothing fits: the nodes the static filters ruled out belong in the diagnosis too.
	if dom != nil {
		for _, n := range dom.Nodes {
			if st := v.status[n.Index]; st != nil {
				in.diag.NodeToStatus.SetNode(n, st)
				in.diag.UnschedulablePlugins.Insert(st.Plugin())
			}
		}
		return feasible, nil
	}
	for i, st := range v.status {
		if st != nil {
			in.diag.NodeToStatus.SetNode(all[i], st)
			in.diag.UnschedulablePlugins.Insert(st.Plugin())
		}
	}
	return feasible, nil
}

// candidateList is the nodes a scan filters: nodes itself, or, when index is set, the
// nodes at those positions of nodes (the eligible nodes of the static verdicts, walked
// without being copied).
type candidateList struct {
	nodes   []*framework.NodeInfo
	index   []int32
	indexed bool
}

func (c candidateList) len() int {
	if c.indexed {
		return len(c.index)
	}
	return len(c.nodes)
}

func (c candidateList) at(i int) *framework.NodeInfo {
	if c.indexed {
		return c.nodes[c.index[i]]
	}
	return c.nodes[i]
}

// scan filters candidates from the rotating start index until enough feasible nodes are
// found. Candidates are filtered in parallel batches and the cut is made in candidate
// order, so the result is the same as a sequential scan: the simulator stays deterministic
// whatever the parallelism. When none is feasible, every candidate's status goes into the
// diagnosis.
func (f *Finder) scan(ctx context.Context, nodes candidateList, check func(*framework.NodeInfo) *framework.Status, limit int, diag *framework.Diagnosis) ([]*framework.NodeInfo, error) {
	n := nodes.len()
	if n == 0 {
		return nil, nil
	}
	want := numFeasibleNodesToFind(f.opts.PercentageOfNodesToScore, n)
	if limit > 0 {
		want = min(want, limit)
	}
	start := f.nextStartNodeIndex % n
	// The per-node status buffer is reused across cycles: only the loop filters. Statuses
	// are kept in scan order (the k-th node filtered at k), so only the nodes filtered are
	// cleared after.
	if cap(f.filterScratch) < n {
		f.filterScratch = make([]*framework.Status, n)
	}
	statuses := f.filterScratch[:n]
	processed, filled := 0, 0
	defer func() { clear(statuses[:filled]) }()
	feasible := f.feasibleScratch[:0]
	batch := max(64, want/2)
	if limit > 0 {
		batch = max(16, want)
	}
	for processed < n && len(feasible) < want {
		size := min(batch, n-processed)
		filled = processed + size
		f.opts.Parallelizer.Until(ctx, size, func(i int) {
			k := processed + i
			statuses[k] = check(nodes.at((start + k) % n))
		})
		for k := processed; k < processed+size; k++ {
			st := statuses[k]
			if st.IsSuccess() {
				if len(feasible) < want {
					feasible = append(feasible, nodes.at((start+k)%n))
				}
				continue
			}
			if st.Code() == framework.Error {
				return nil, st.AsError()
			}
		}
		processed += size
	}
	f.nextStartNodeIndex = (start + processed) % n
	f.feasibleScratch = feasible[:0]
	// Why nodes failed matters only when none fits; then every node was filtered.
	if len(feasible) == 0 {
		diag.NodeToStatus.Grow(n)
		for k := range n {
			diag.NodeToStatus.SetNode(nodes.at((start+k)%n), statuses[k])
			diag.UnschedulablePlugins.Insert(statuses[k].Plugin())
		}
	}
	return feasible, nil
}
