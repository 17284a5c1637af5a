package preemption

import (
	"context"
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Messages, with kube-scheduler's wording.
const (
	MsgNeverPolicy        = "not eligible due to preemptionPolicy=Never."
	MsgTerminatingVictims = "not eligible due to a terminating pod on the nominated node."
	// MsgReleasingVictims is phalanx's: the victims are gone, the devices of their claims
	// are still being released.
	MsgReleasingVictims = "not eligible while the devices of the claims of the pods preempted for it are being released on the nominated node."
	msgNoVictims        = "No preemption victims found for incoming pod"
	msgNotHelpful       = "Preemption is not helpful for scheduling"
)

// Evaluator finds preemption candidates for a pod and picks the one that disrupts least.
type Evaluator struct {
	Handle framework.Handle
	// MinCandidateNodesPercentage and MinCandidateNodesAbsolute bound how many candidate
	// nodes are simulated: that share of the nodes, but at least that many (kube-scheduler's
	// 10% and 100).
	MinCandidateNodesPercentage int
	MinCandidateNodesAbsolute   int
	// ResourcePlugins are the filters whose rejections are about resources: a node
	// rejected only by them is first reasoned about on resource vectors.
	ResourcePlugins []string
	// ExactSearchMaxUnits: a node with at most this many candidate units has its victims
	// found by exact search (0: DefaultExactSearchMaxUnits; negative: never).
	ExactSearchMaxUnits int

	// budget is what is left of the current decision's simulations for exact searches
	// (the evaluator runs on the scheduling loop only).
	budget int
	// results are the resource path's last results per node (noderesults.go).
	results nodeResults
}

// ExactMax is the evaluator's exact-search bound (ExactSearchMaxUnits, its default when
// unset); group preemption searches by it too.
func (e *Evaluator) ExactMax() int {
	if e.ExactSearchMaxUnits == 0 {
		return DefaultExactSearchMaxUnits
	}
	return e.ExactSearchMaxUnits
}

// Result is the outcome of Preempt.
type Result struct {
	// Candidate is the chosen node and victims; nil when preemption cannot help.
	Candidate *Candidate
	// Message explains a failure, ready to be appended to the pod's FailedScheduling
	// message ("preemption: ...").
	Message string
	// Eligible is false when the pod may not preempt now (policy, or victims of its last
	// preemption still terminating); its nomination is then left as it is.
	Eligible bool
}

// Preempt looks for the best way to make room for p, which fits nowhere according to
// filtered. It does not change anything: the caller carries the decision out.
func (e *Evaluator) Preempt(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, filtered *framework.NodeToStatus) (*Result, error) {
	if p.PreemptionPolicy == v1.PreemptNever {
		return &Result{Message: "preemption: " + MsgNeverPolicy}, nil
	}
	if wait, releasing, err := e.waitingForVictims(ctx, state, p, filtered); err != nil || wait {
		msg := MsgTerminatingVictims
		if releasing {
			msg = MsgReleasingVictims
		}
		return &Result{Message: "preemption: " + msg}, err
	}
	return e.PreemptOn(ctx, state, p, filtered)
}

// PreemptOn is Preempt without the policy and waiting checks: the candidate nodes are
// searched and the least disruptive is chosen. Group preemption uses it for a group that
// needs one more member, so that it decides exactly as for a pod.
func (e *Evaluator) PreemptOn(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, filtered *framework.NodeToStatus) (*Result, error) {
	e.budget = DecisionSearchBudget
	snap := e.Handle.Snapshot()
	all := snap.NodeInfos()
	var potential []*framework.NodeInfo
	reasons := map[string]int{}
	for _, n := range all {
		if st := filtered.GetNode(n); st.Code() == framework.Unschedulable {
			potential = append(potential, n)
		} else {
			reasons[msgNotHelpful]++
		}
	}
	var cands []*Candidate
	// A node whose dry run fails with an error is no candidate; as in kube-scheduler's
	// dry run, the errors fail the decision only when no node is one.
	var errs []error
	if len(potential) > 0 {
		offset := e.Handle.Rand().IntN(len(potential))
		want := e.numCandidates(len(potential))
		shape := shapeOf(p)
		nonViolating := 0
		for i := range potential {
			n := potential[(offset+i)%len(potential)]
			var c *Candidate
			if st := filtered.GetNode(n); e.resourceOnly(p, st) {
				c = e.byResources(ctx, p, shape, n)
			} else {
				var err error
				if c, err = e.SelectVictims(ctx, state, p, n); err != nil {
					errs = append(errs, err)
					continue
				}
			}
			if c == nil {
				reasons[msgNoVictims]++
				continue
			}
			cands = append(cands, c)
			if c.Cost.Violations == 0 {
				nonViolating++
			}
			if nonViolating > 0 && len(cands) >= want {
				break
			}
		}
	}
	best, err := e.pickVerified(ctx, state, p, cands)
	if err != nil {
		errs = append(errs, err)
	}
	if best == nil && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if best == nil {
		return &Result{Eligible: true, Message: fmt.Sprintf("preemption: 0/%d nodes are available: %s.", len(all), framework.Histogram(reasons))}, nil
	}
	return &Result{Eligible: true, Candidate: best}, nil
}

// pickVerified picks the best candidate; one computed on resources alone is first checked
// by simulation, and replaced by the full search's result on its node when the check fails.
func (e *Evaluator) pickVerified(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, cands []*Candidate) (*Candidate, error) {
	var errs []error
	for len(cands) > 0 {
		best := pick(cands)
		if !best.unverified {
			return best, nil
		}
		ok, err := e.verify(ctx, state, p, best)
		if err != nil {
			return nil, err
		}
		if ok {
			best.unverified = false
			return best, nil
		}
		full, err := e.SelectVictims(ctx, state, p, best.Node)
		if err != nil {
			// This node's dry run failed: it is no candidate (see PreemptOn).
			errs = append(errs, err)
			full = nil
		}
		i := slices.Index(cands, best)
		if full == nil {
			cands = slices.Delete(cands, i, i+1)
		} else {
			cands[i] = full
		}
	}
	return nil, errors.Join(errs...)
}

// numCandidates is how many candidates to find before choosing: kube-scheduler's share of
// the nodes with a floor, so large clusters stay fast.
func (e *Evaluator) numCandidates(numNodes int) int {
	n := numNodes * e.MinCandidateNodesPercentage / 100
	return min(max(n, e.MinCandidateNodesAbsolute), numNodes)
}

// waitingForVictims reports whether p should wait instead of preempting again: it is
// nominated to a node where lower-priority pods are still leaving, or where the devices of
// the claims of its last preemption's victims, gone already, are still being released
// (the ResourceClaim controller deletes or deallocates them a moment later; the actuator
// bounds how long, framework.ReleaseWaiter), and it would fit there once they are gone and
// released (with the pods nominated there before it). If a higher-priority pod has taken
// that room meanwhile, p may preempt again (the design's Example 4). releasing says that
// no victim is still terminating: only releases are waited for.
func (e *Evaluator) waitingForVictims(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, filtered *framework.NodeToStatus) (wait, releasing bool, err error) {
	snap := e.Handle.Snapshot()
	nominated := snap.Get(e.Handle.Nominator().NominatedNode(p.Key))
	if nominated == nil {
		nominated = snap.Get(p.Pod.Status.NominatedNodeName)
	}
	if nominated == nil || filtered.GetNode(nominated).Code() == framework.UnschedulableAndUnresolvable {
		return false, false, nil
	}
	var leaving []*framework.PodInfo
	for _, q := range nominated.Pods {
		if q.Terminating && VictimPriority(snap, q) < p.Priority {
			leaving = append(leaving, q)
		}
	}
	var gone []*framework.PodInfo
	if waiter, ok := e.Handle.Preemption().(framework.ReleaseWaiter); ok {
		gone = waiter.ReleasingVictims(p.Key)
	}
	if len(gone) > 0 && len(snap.DRA().Releasing(gone)) == 0 {
		gone = nil
	}
	if len(leaving) == 0 && len(gone) == 0 {
		return false, false, nil
	}
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	st := state.Clone()
	for _, q := range leaving {
		if s := e.remove(ctx, st, p, q); !s.IsSuccess() {
			return false, false, s.AsError()
		}
	}
	if len(gone) > 0 {
		snap.DRA().FreeReleasing(append(slices.Clone(gone), leaving...))
	}
	s := e.Handle.RunFilterPlugins(ctx, st, p, nominated)
	if s.Code() == framework.Error {
		return false, false, s.AsError()
	}
	return s.IsSuccess(), len(leaving) == 0, nil
}

// remove takes a pod off its node in the snapshot and updates the plugins' state.
func (e *Evaluator) remove(ctx context.Context, state *framework.CycleState, p, q *framework.PodInfo) *framework.Status {
	node := e.Handle.Snapshot().Get(q.NodeName)
	if node == nil {
		return nil
	}
	e.Handle.Snapshot().RemovePod(q)
	return e.Handle.RunPreFilterExtensionRemovePod(ctx, state, p, q, node)
}

// NewPodEvaluator builds the pod evaluator from plugin arguments (nil: kube-scheduler's
// defaults of 10% and 100 candidate nodes) and the exact-search bound.
func NewPodEvaluator(h framework.Handle, pct, abs *int, exactMax int) (*Evaluator, error) {
	p, a := 10, 100
	if pct != nil {
		p = *pct
	}
	if abs != nil {
		a = *abs
	}
	if p < 0 || p > 100 {
		return nil, fmt.Errorf("minCandidateNodesPercentage: %d must be between 0 and 100", p)
	}
	if a < 0 || (p == 0 && a == 0) {
		return nil, fmt.Errorf("minCandidateNodesAbsolute: %d must be at least 0, and not both 0", a)
	}
	return &Evaluator{Handle: h, MinCandidateNodesPercentage: p, MinCandidateNodesAbsolute: a,
		ResourcePlugins: []string{resourceFitPlugin}, ExactSearchMaxUnits: exactMax}, nil
}

// resourceFitPlugin is NodeResourcesFit's name: its rejections are about resources.
const resourceFitPlugin = "NodeResourcesFit"

// ExactSearchBound turns the exactSearchMaxUnits argument into an evaluator's bound: the
// default when unset, "never" (-1) when 0 or less.
func ExactSearchBound(arg *int) (int, error) {
	switch {
	case arg == nil:
		return DefaultExactSearchMaxUnits, nil
	case *arg <= 0:
		return -1, nil
	case *arg > 64:
		return 0, fmt.Errorf("exactSearchMaxUnits: Invalid value: %d: must be at most 64 (the search is exponential in it)", *arg)
	}
	return *arg, nil
}
