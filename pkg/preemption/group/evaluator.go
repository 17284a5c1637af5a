package group

import (
	"context"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// Messages of workload-aware preemption.
const (
	MsgWaitingVictims    = "not eligible due to terminating pods on the nominated nodes of the pod group."
	msgGroupNoVictims    = "no lower-priority pods to preempt for the pod group"
	msgGroupDoesNotFit   = "the pod group does not fit even with every lower-priority pod preempted"
	msgNothingToMakeRoom = "nothing to make room for"
)

// Evaluator is workload-aware preemption for a pod group (KEP-5710). Victims are units
// (pods, or whole groups of disruption mode All) of lower priority, and every decision is
// compared by the same preemption.Cost as a pod's. A group that needs one more member
// decides exactly as a pod would (Pod.PreemptOn, for each distinct pending member). A
// group that needs several is placed in a domain (the whole cluster, or each of its
// topology placements) with every candidate unit removed, and the least disruptive set of
// units is searched for: exactly when they are few, otherwise by reprieval in importance
// order with budget-protected units first. Members are placed by the group cycle's own
// placement (framework.GroupPlacer) and never pinned to where they were first placed:
// when a unit put back collides with the current placement, the members are placed again
// before the unit is declared a victim. A group preempts only when enough of its members
// fit to start it, on nodes the decision names and checks: never a useless preemption.
type Evaluator struct {
	Handle framework.Handle
	// Pod is the pod evaluator, used for groups that need a single member; its exact
	// search bound is the group's too.
	Pod *preemption.Evaluator
	// BinarySearch first finds the lowest priority level below which removing every unit
	// lets the group fit (the KEP draft's binary search), when there are too many units to
	// search exactly, so that units of higher priority are never even removed.
	BinarySearch bool
	// Placements tune the preemption of a group with placements.
	Placements PlacementOptions

	// budget is what is left of the current decision's simulations for exact searches.
	budget int
	// bounds remembers placements' disruption bounds across decisions.
	bounds boundCache
}

// Result is the outcome of a group preemption.
type Result struct {
	// Nominations place every member the decision placed.
	Nominations map[*framework.PodInfo]string
	Victims     []*framework.PodInfo
	// Cost is how much preempting the victims disrupts.
	Cost preemption.Cost
	// Reprieved counts the potential victim units put back.
	Reprieved int
	// Approximate: the victim search stopped at its budget, so the victims are the best
	// set found, not proven the least disruptive.
	Approximate bool
	// Message explains a failure.
	Message string
	// Eligible is false when the group may not preempt now (policy, or victims of its
	// last preemption still terminating).
	Eligible bool
	// Waiting is true when the victims of its last preemption are still leaving.
	Waiting bool
}

// preemptor is a group that preempts (a PodGroup, or a composite's hierarchy): the
// members the scheduler can place (a spec it cannot parse is reported elsewhere), how many
// of them must fit, the cycle's placer, which places them as the group cycle does, and the
// PodGroups whose pods are its own (never its victims).
type preemptor struct {
	g       *framework.GroupInfo
	members []*framework.PodInfo
	need    int
	placer  framework.GroupPlacer
	groups  map[string]bool
}

func newPreemptor(snap framework.Snapshot, a *framework.GroupAttempt) *preemptor {
	pr := &preemptor{g: a.Group, placer: a.Placer, need: a.Need, groups: map[string]bool{}}
	if pr.need == 0 {
		pr.need = framework.GroupNeed(a.Group, len(snap.GroupMembers(a.Group.Key)))
	}
	if a.Group.IsComposite() {
		for _, k := range snap.CompositeGroups(a.Group.Key) {
			pr.groups[k] = true
		}
	} else {
		pr.groups[a.Group.Key] = true
	}
	for _, m := range a.Pending {
		if m.ParseErr == nil {
			pr.members = append(pr.members, m)
		}
	}
	return pr
}

// owns reports whether a pod is one of the preemptor's own (a member of one of its groups).
func (pr *preemptor) owns(q *framework.PodInfo) bool {
	return q.Group != "" && pr.groups[framework.GroupKey(q)]
}

// place places the members in dom as preemption does: the first node that fits each.
func (pr *preemptor) place(ctx context.Context, dom domain) (*framework.GroupPlacement, error) {
	return pr.placer.Place(ctx, pr.members, dom.placeOptions(pr.need))
}

// Preempt decides a preemption for a group whose cycle failed. It changes nothing: the
// caller carries the decision out. The steps:
//
//  1. A group whose preemptionPolicy is Never may not preempt.
//  2. The members the cycle placed are taken off (they may move); of the members the
//     scheduler can place, need must fit, or there is nothing to make room for.
//  3. A group whose last preemption's victims are still leaving, and that fits once they
//     are gone, waits for them (waitingForVictims).
//  4. With placements, each is a domain and the least disruptive wins
//     (preemptInPlacements). Without, a group that needs one more member decides as a pod
//     would (preemptForOne), and one that needs several is placed in the cluster
//     (preemptIn).
//
// The outcomes: a decision (Nominations for every placed member, Victims, Cost); Eligible
// with a Message when no set of lower-priority units lets enough members fit; not Eligible
// with a Message when the policy forbids it or the group waits (Waiting).
func (e *Evaluator) Preempt(ctx context.Context, a *framework.GroupAttempt) (*Result, error) {
	if a.Group.PreemptionPolicy == v1.PreemptNever {
		return &Result{Message: "preemption: " + preemption.MsgNeverPolicy}, nil
	}
	e.budget = preemption.DecisionSearchBudget
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	if a.Placed != nil {
		for _, placed := range a.Placed.Assignments {
			snap.RemovePod(placed.Pod)
		}
	}
	pr := newPreemptor(snap, a)
	if len(pr.members) < pr.need || (a.Placements != nil && len(a.Placements.List) == 0) {
		return &Result{Eligible: true, Message: "preemption: " + msgNothingToMakeRoom}, nil
	}
	if a.Placements != nil {
		return e.preemptInPlacements(ctx, pr, a.Placements)
	}
	wait, err := e.waitingForVictims(ctx, pr, domain{})
	if err != nil || wait {
		return &Result{Waiting: true, Message: "preemption: " + MsgWaitingVictims}, err
	}
	var res *Result
	if pr.need == 1 && !pr.g.IsComposite() {
		// (A composite's member is never placed alone: its group must be complete too.)
		res, err = e.preemptForOne(ctx, pr)
	} else {
		res, err = e.preemptIn(ctx, pr, domain{})
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		return &Result{Eligible: true, Message: "preemption: " + msgGroupDoesNotFit}, nil
	}
	res.Eligible = true
	return res, nil
}

// preemptForOne decides for a group that needs one more member exactly as for a pod: each
// distinct pending member is evaluated like a preemptor pod (candidate nodes, victims per
// node, the least Cost), and the member whose best candidate disrupts least is nominated.
func (e *Evaluator) preemptForOne(ctx context.Context, pr *preemptor) (*Result, error) {
	seen := map[string]bool{}
	var best *preemption.Candidate
	var bestMember *framework.PodInfo
	for _, m := range pr.members {
		if k := pr.placer.AlikeKey(m); k != "" {
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
	klog.FromContext(ctx).V(4).Info("Group preemption decided as a pod's", "podgroup", pr.g.Key, "member", bestMember.Key, "node", best.Node.Name, "victims", len(best.Victims))
	return &Result{Nominations: map[*framework.PodInfo]string{bestMember: best.Node.Name},
		Victims: best.Victims, Cost: best.Cost, Approximate: best.Approximate()}, nil
}

// diagnose runs a member's PreFilter and Filter on every node, as the pod cycle does
// before PostFilter; nil statuses when PreFilter rejects it outright.
func (e *Evaluator) diagnose(ctx context.Context, m *framework.PodInfo) (*framework.CycleState, *framework.NodeToStatus, error) {
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

// waitingForVictims reports whether the group should wait for the victims of its last
// preemption instead of preempting again: its members are nominated, lower-priority pods
// are still leaving those nodes (or its victims are gone and the devices of their claims
// are being released), and with them gone and released enough members fit in dom.
func (e *Evaluator) waitingForVictims(ctx context.Context, pr *preemptor, dom domain) (bool, error) {
	snap := e.Handle.Snapshot()
	nodes := map[string]bool{}
	for _, m := range pr.members {
		if n := e.Handle.Nominator().NominatedNode(m.Key); n != "" {
			nodes[n] = true
		}
	}
	var leaving []*framework.PodInfo
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		if n := snap.Get(name); n != nil {
			for _, q := range n.Pods {
				if q.Terminating && preemption.VictimPriority(snap, q) < pr.g.Priority {
					leaving = append(leaving, q)
				}
			}
		}
	}
	// Victims already gone whose claims' devices are still being released count as room
	// being made, as victims still terminating do (framework.ReleaseWaiter bounds how long).
	var gone []*framework.PodInfo
	if waiter, ok := e.Handle.GroupPreemption().(framework.ReleaseWaiter); ok {
		gone = waiter.GroupReleasingVictims(pr.g)
	}
	if len(gone) > 0 && len(snap.DRA().Releasing(gone)) == 0 {
		gone = nil
	}
	if len(leaving) == 0 && len(gone) == 0 {
		return false, nil
	}
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, q := range leaving {
		snap.RemovePod(q)
	}
	if len(gone) > 0 {
		snap.DRA().FreeReleasing(append(slices.Clone(gone), leaving...))
	}
	placed, err := pr.place(ctx, dom)
	if err != nil {
		return false, err
	}
	return len(placed.Assignments) >= pr.need, nil
}
