package scheduler

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// Diagnosis says why a pod fits nowhere.
type Diagnosis struct {
	NodeToStatus *framework.NodeToStatus
	// UnschedulablePlugins rejected the pod somewhere; only events they registered retry it.
	UnschedulablePlugins sets.Set[string]
	// PreFilterMsg is set when PreFilter rejected the pod outright.
	PreFilterMsg string
	// NumNodes is the number of nodes considered.
	NumNodes int
}

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

// findNodesThatFit runs PreFilter and Filter and returns the feasible nodes. The state it
// leaves in the cache (nominated pods added) is the caller's to roll back.
func (s *Scheduler) findNodesThatFit(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo) ([]*framework.NodeInfo, *Diagnosis, error) {
	return s.findNodesThatFitLimited(ctx, fwk, state, p, 0)
}

// findNodesThatFitLimited is findNodesThatFit stopping at limit feasible nodes (0: the
// adaptive number).
func (s *Scheduler) findNodesThatFitLimited(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, limit int) ([]*framework.NodeInfo, *Diagnosis, error) {
	return s.findNodes(ctx, fwk, state, p, limit, true)
}

// findNodes is findNodesThatFitLimited; nominatedFirst lets a pod nominated to a node that
// still fits it take that node alone, without looking further.
func (s *Scheduler) findNodes(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, limit int, nominatedFirst bool) ([]*framework.NodeInfo, *Diagnosis, error) {
	diag := &Diagnosis{NodeToStatus: framework.NewNodeToStatus(), UnschedulablePlugins: sets.New[string](), NumNodes: s.cache.NumNodes()}
	preRes, st := fwk.RunPreFilterPlugins(ctx, state, p)
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, diag, st.AsError()
		}
		diag.NodeToStatus.Absent = st
		diag.PreFilterMsg = st.Message()
		diag.UnschedulablePlugins.Insert(st.Plugin())
		return nil, diag, nil
	}
	nodes := s.cache.NodeInfos()
	narrowed := preRes != nil && preRes.NodeNames != nil
	if narrowed {
		narrowed := make([]*framework.NodeInfo, 0, len(preRes.NodeNames))
		for _, n := range nodes {
			if _, ok := preRes.NodeNames[n.Name]; ok {
				narrowed = append(narrowed, n)
			}
		}
		nodes = narrowed
		diag.NodeToStatus.Absent = framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", preRes.Plugins))
	}

	// A pod nominated to a node tries that node first: the room was made for it.
	if nominated := s.cache.Get(s.cache.NominatedNode(p.Key)); nominatedFirst && nominated != nil && s.allowedNode(nominated) && (preRes == nil || preRes.NodeNames == nil || hasNode(preRes, nominated.Name)) {
		if st := fwk.RunFilterPlugins(ctx, state, p, nominated); st.IsSuccess() {
			return []*framework.NodeInfo{nominated}, diag, nil
		} else if st.Code() == framework.Error {
			return nil, diag, st.AsError()
		}
	}
	feasible, err := s.filterNodes(ctx, fwk, state, p, nodes, narrowed, limit, diag)
	return feasible, diag, err
}

func hasNode(r *framework.PreFilterResult, name string) bool {
	_, ok := r.NodeNames[name]
	return ok
}

// filterNodes runs Filter over the nodes until enough feasible ones are found. Static
// verdicts come from the cache, so only the nodes that pass them are visited (unless
// PreFilter narrowed the nodes, when the few candidates are checked one by one).
func (s *Scheduler) filterNodes(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo, narrowed bool, limit int, diag *Diagnosis) ([]*framework.NodeInfo, error) {
	all := s.cache.NodeInfos()
	candidates := nodes
	if s.domain != nil {
		// A group placed in a domain: only its nodes are candidates, and only they count
		// in the diagnosis.
		candidates = s.inDomainOnly(nodes)
		diag.NumNodes = len(s.domain)
	}
	var v *staticVerdicts
	check := func(n *framework.NodeInfo) *framework.Status { return fwk.RunFilterPlugins(ctx, state, p, n) }
	if fwk.HasStaticFilters() {
		if p.StaticFilterKey == "" {
			p.StaticFilterKey = fwk.StaticFilterKey(state, p)
		}
		v = s.static.get(p.StaticFilterKey, s.cache.LayoutVersion(), len(all))
		dynamic := fwk.ActiveDynamicFilters(state)
		if narrowed {
			check = func(n *framework.NodeInfo) *framework.Status {
				if st := v.verdict(ctx, fwk, state, p, n); st != nil {
					return st
				}
				return fwkruntime.RunFilters(ctx, dynamic, state, p, n)
			}
		} else {
			if err := v.refresh(ctx, s.parallelizer, fwk, state, p, all); err != nil {
				return nil, err
			}
			candidates = s.eligibleScratch[:0]
			if s.domain != nil {
				for _, n := range s.domain {
					if v.status[n.Index] == nil {
						candidates = append(candidates, n)
					}
				}
			} else {
				for _, i := range v.eligible {
					candidates = append(candidates, all[i])
				}
			}
			s.eligibleScratch = candidates
			check = func(n *framework.NodeInfo) *framework.Status { return fwkruntime.RunFilters(ctx, dynamic, state, p, n) }
		}
	}
	feasible, err := s.scan(ctx, candidates, check, limit, diag)
	if err != nil || len(feasible) > 0 || v == nil || narrowed {
		return feasible, err
	}
	// Nothing fits: the nodes the static filters ruled out belong in the diagnosis too.
	if s.domain != nil {
		for _, n := range s.domain {
			if st := v.status[n.Index]; st != nil {
				diag.NodeToStatus.SetNode(n, st)
				diag.UnschedulablePlugins.Insert(st.Plugin())
			}
		}
		return feasible, nil
	}
	for i, st := range v.status {
		if st != nil {
			diag.NodeToStatus.SetNode(all[i], st)
			diag.UnschedulablePlugins.Insert(st.Plugin())
		}
	}
	return feasible, nil
}

// restrictTo limits the following cycles' candidates to a set of nodes (nil: no limit).
func (s *Scheduler) restrictTo(nodes []*framework.NodeInfo) {
	for _, n := range s.domain {
		if n.Index < len(s.inDomain) {
			s.inDomain[n.Index] = false
		}
	}
	s.domain = nodes
	if nodes == nil {
		return
	}
	if len(s.inDomain) != s.cache.NumNodes() {
		s.inDomain = make([]bool, s.cache.NumNodes())
	}
	for _, n := range nodes {
		if n.Index < len(s.inDomain) {
			s.inDomain[n.Index] = true
		}
	}
}

// allowedNode reports whether n may be chosen: it is in the current domain, if any.
func (s *Scheduler) allowedNode(n *framework.NodeInfo) bool {
	return s.domain == nil || (n.Index < len(s.inDomain) && s.inDomain[n.Index])
}

// inDomainOnly keeps the nodes of the current domain.
func (s *Scheduler) inDomainOnly(nodes []*framework.NodeInfo) []*framework.NodeInfo {
	if len(nodes) == s.cache.NumNodes() {
		return s.domain // every node: the domain is the answer
	}
	kept := make([]*framework.NodeInfo, 0, min(len(nodes), len(s.domain)))
	for _, n := range nodes {
		if n.Index < len(s.inDomain) && s.inDomain[n.Index] {
			kept = append(kept, n)
		}
	}
	return kept
}

// scan filters candidates from the rotating start index until enough feasible nodes are
// found. Candidates are filtered in parallel batches and the cut is made in candidate
// order, so the result is the same as a sequential scan: the simulator stays deterministic
// whatever the parallelism. When none is feasible, every candidate's status goes into the
// diagnosis.
func (s *Scheduler) scan(ctx context.Context, nodes []*framework.NodeInfo, check func(*framework.NodeInfo) *framework.Status, limit int, diag *Diagnosis) ([]*framework.NodeInfo, error) {
	n := len(nodes)
	if n == 0 {
		return nil, nil
	}
	want := numFeasibleNodesToFind(s.cfg.PercentageOfNodesToScore, n)
	if limit > 0 {
		want = min(want, limit)
	}
	start := s.nextStartNodeIndex % n
	// The per-node status buffer is reused across cycles: only the loop filters.
	if cap(s.filterScratch) < n {
		s.filterScratch = make([]*framework.Status, n)
	}
	statuses := s.filterScratch[:n]
	defer clear(statuses)
	// The result is reused by the next scan: callers use it before filtering again.
	feasible := s.feasibleScratch[:0]
	batch := max(64, want/2)
	if limit > 0 {
		batch = max(16, want)
	}
	processed := 0
	for processed < n && len(feasible) < want {
		size := min(batch, n-processed)
		s.parallelizer.Until(ctx, size, func(i int) {
			idx := (start + processed + i) % n
			statuses[idx] = check(nodes[idx])
		})
		for i := range size {
			idx := (start + processed + i) % n
			st := statuses[idx]
			if st.IsSuccess() {
				if len(feasible) < want {
					feasible = append(feasible, nodes[idx])
				}
				continue
			}
			if st.Code() == framework.Error {
				return nil, st.AsError()
			}
		}
		processed += size
	}
	s.nextStartNodeIndex = (start + processed) % n
	s.feasibleScratch = feasible[:0]
	// Why nodes failed matters only when none fits; then every node was filtered.
	if len(feasible) == 0 {
		diag.NodeToStatus.Grow(n)
		for i := range n {
			idx := (start + i) % n
			diag.NodeToStatus.SetNode(nodes[idx], statuses[idx])
			diag.UnschedulablePlugins.Insert(statuses[idx].Plugin())
		}
	}
	return feasible, nil
}

// addNominatedPods places the pending pods nominated to nodes, with priority not lower than
// p's, onto those nodes, so the cycle treats their room as taken (the preemption design's
// Example 1). It returns whether it added any; the caller rolls them back.
func (s *Scheduler) addNominatedPods(p *framework.PodInfo) bool {
	added := false
	s.cache.ForEachNominated(func(np *framework.PodInfo, node string) {
		if np.Key == p.Key || np.Priority < p.Priority {
			return
		}
		if s.cache.Get(node) == nil || s.cache.Pod(np.Key) != nil {
			return
		}
		s.cache.AddPod(np, node)
		added = true
	})
	return added
}
