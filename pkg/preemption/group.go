package preemption

import (
	"context"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Messages of workload-aware preemption.
const (
	MsgGroupWaitingVictims = "not eligible due to terminating pods on the nominated nodes of the pod group."
	msgGroupNoVictims      = "no lower-priority pods to preempt for the pod group"
	msgGroupDoesNotFit     = "the pod group does not fit even with every lower-priority pod preempted"
)

// GroupEvaluator is workload-aware preemption for a pod group (KEP-5710). Victims are
// units (pods, or whole groups of disruption mode All) of lower priority, and every
// decision is compared by the same Cost as a pod's. A group that needs one more member
// decides exactly as a pod would (Pod.PreemptOn, for each distinct pending member). A
// group that needs several is placed in a domain (the whole cluster, or each of its
// topology placements) with every candidate unit removed, and the least disruptive set of
// units is searched for: exactly when they are few, otherwise by reprieval in importance
// order with budget-protected units first. Members are never pinned to where they were
// first placed: when a unit put back collides with the current placement, the members are
// placed again (largest first, with backtracking) before the unit is declared a victim. A
// group preempts only when enough of its members fit to start it, on nodes the decision
// names and checks: never a useless preemption.
type GroupEvaluator struct {
	Handle framework.Handle
	// Pod is the pod evaluator, used for groups that need a single member.
	Pod *Evaluator
	// BinarySearch first finds the lowest priority level below which removing every unit
	// lets the group fit (the KEP draft's binary search), when there are too many units to
	// search exactly, so that units of higher priority are never even removed.
	BinarySearch bool
	// ExactSearchMaxUnits: a domain with at most this many candidate units has its victims
	// found by exact search (0: DefaultExactSearchMaxUnits; negative: never).
	ExactSearchMaxUnits int

	// budget is what is left of the current decision's simulations for exact searches.
	budget int
}

func (e *GroupEvaluator) exactMax() int {
	if e.ExactSearchMaxUnits == 0 {
		return DefaultExactSearchMaxUnits
	}
	return e.ExactSearchMaxUnits
}

// GroupResult is the outcome of a group preemption.
type GroupResult struct {
	// Nominations place every member the decision placed.
	Nominations map[*framework.PodInfo]string
	Victims     []*framework.PodInfo
	// Cost is how much preempting the victims disrupts.
	Cost Cost
	// Reprieved counts the potential victim units put back.
	Reprieved int
	// Message explains a failure.
	Message string
	// Eligible is false when the group may not preempt now (policy, or victims of its
	// last preemption still terminating).
	Eligible bool
	// Waiting is true when the victims of its last preemption are still leaving.
	Waiting bool
}

// Preempt decides a preemption for group g, whose pending members do not fit (placed are
// those the cycle managed to place; they are not kept where the cycle put them). It
// changes nothing: the caller carries it out.
func (e *GroupEvaluator) Preempt(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, placed *framework.GroupPlacement, schedule framework.PodGroupSchedulingFunc) (*GroupResult, error) {
	if g.PreemptionPolicy == v1.PreemptNever {
		return &GroupResult{Message: "preemption: " + MsgNeverPolicy}, nil
	}
	e.budget = decisionSearchBudget
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, a := range placed.Assignments {
		snap.RemovePod(a.Pod)
	}
	need := framework.GroupNeed(g, len(snap.GroupMembers(g.Key)))
	rest := placeable(pending)
	if len(rest) < need {
		return &GroupResult{Eligible: true, Message: "preemption: nothing to make room for"}, nil
	}
	wait, err := e.waitingForVictims(ctx, g, rest, need, schedule, nil)
	if err != nil || wait {
		return &GroupResult{Waiting: true, Message: "preemption: " + MsgGroupWaitingVictims}, err
	}
	var res *GroupResult
	if need == 1 {
		res, err = e.preemptForOne(ctx, g, rest)
	} else {
		res, err = e.preemptIn(ctx, g, rest, need, schedule, nil)
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		return &GroupResult{Eligible: true, Message: "preemption: " + msgGroupDoesNotFit}, nil
	}
	res.Eligible = true
	return res, nil
}

// placeable are the members the scheduler can use (a spec it cannot parse is reported
// elsewhere).
func placeable(pending []*framework.PodInfo) []*framework.PodInfo {
	out := make([]*framework.PodInfo, 0, len(pending))
	for _, m := range pending {
		if m.ParseErr == nil {
			out = append(out, m)
		}
	}
	return out
}

// preemptForOne decides for a group that needs one more member exactly as for a pod: each
// distinct pending member is evaluated like a preemptor pod (candidate nodes, victims per
// node, the least Cost), and the member whose best candidate disrupts least is nominated.
func (e *GroupEvaluator) preemptForOne(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo) (*GroupResult, error) {
	seen := map[string]bool{}
	var best *Candidate
	var bestMember *framework.PodInfo
	for _, m := range rest {
		if k := replicaKey(m); k != "" {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		state, filtered, err := e.diagnose(ctx, m)
		if err != nil {
			return nil, err
		}
		if filtered == nil {
			continue
		}
		res, err := e.Pod.PreemptOn(ctx, state, m, filtered)
		if err != nil {
			return nil, err
		}
		if c := res.Candidate; c != nil && (best == nil || c.Cost.Compare(best.Cost) < 0) {
			best, bestMember = c, m
		}
	}
	if best == nil {
		return nil, nil
	}
	return &GroupResult{Nominations: map[*framework.PodInfo]string{bestMember: best.Node.Name},
		Victims: best.Victims, Cost: best.Cost}, nil
}

// diagnose runs a member's PreFilter and Filter on every node, as the pod cycle does
// before PostFilter; nil statuses when PreFilter rejects it outright.
func (e *GroupEvaluator) diagnose(ctx context.Context, m *framework.PodInfo) (*framework.CycleState, *framework.NodeToStatus, error) {
	h := e.Handle
	state := framework.NewCycleState()
	res, st := h.RunPreFilterPlugins(ctx, state, m)
	if !st.IsSuccess() {
		return nil, nil, st.AsError()
	}
	nodes := h.Snapshot().NodeInfos()
	statuses := make([]*framework.Status, len(nodes))
	h.Parallelizer().Until(ctx, len(nodes), func(i int) {
		if res != nil && res.NodeNames != nil {
			if _, ok := res.NodeNames[nodes[i].Name]; !ok {
				statuses[i] = framework.NewStatus(framework.UnschedulableAndUnresolvable, "node excluded by PreFilter")
				return
			}
		}
		statuses[i] = h.RunFilterPlugins(ctx, state, m, nodes[i])
	})
	filtered := framework.NewNodeToStatus()
	filtered.Grow(len(nodes))
	for i, n := range nodes {
		if statuses[i].Code() == framework.Error {
			return nil, nil, statuses[i].AsError()
		}
		filtered.SetNode(n, statuses[i])
	}
	return state, filtered, nil
}

// replicas reports whether members are all alike (one replicaKey): reasoning about one on
// resource vectors then holds for all.
func replicas(members []*framework.PodInfo) bool {
	key := replicaKey(members[0])
	if key == "" {
		return false
	}
	for _, m := range members[1:] {
		if replicaKey(m) != key {
			return false
		}
	}
	return true
}

// replicaKey identifies members whose preemption cannot differ: equal requests and node
// constraints, no constraint on other pods, no host ports. "" for a member without one.
func replicaKey(m *framework.PodInfo) string {
	if m.HasInterPodConstraints() || len(m.HostPorts) > 0 || m.Pod.Spec.NodeName != "" {
		return ""
	}
	return m.Requests.Vector.String() + "\x00" + framework.NodeSelectionKey(m.Pod) + "\x00" + framework.TolerationsKey(m.Pod.Spec.Tolerations)
}

// waitingForVictims reports whether the group should wait for the victims of its last
// preemption instead of preempting again: its members are nominated, lower-priority pods
// are still leaving those nodes, and with them gone enough members fit.
func (e *GroupEvaluator) waitingForVictims(ctx context.Context, g *framework.GroupInfo, rest []*framework.PodInfo, need int, schedule framework.PodGroupSchedulingFunc, domain []*framework.NodeInfo) (bool, error) {
	snap := e.Handle.Snapshot()
	nodes := map[string]bool{}
	for _, m := range rest {
		if n := e.Handle.Nominator().NominatedNode(m.Key); n != "" {
			nodes[n] = true
		}
	}
	var leaving []*framework.PodInfo
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		if n := snap.Get(name); n != nil {
			for _, q := range n.Pods {
				if q.Terminating && VictimPriority(snap, q) < g.Priority {
					leaving = append(leaving, q)
				}
			}
		}
	}
	if len(leaving) == 0 {
		return false, nil
	}
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, q := range leaving {
		snap.RemovePod(q)
	}
	pl, err := schedule(ctx, rest, framework.PlaceOptions{Nodes: domain, FirstFit: true, Need: need})
	if err != nil {
		return false, err
	}
	return len(pl.Assignments) >= need, nil
}
