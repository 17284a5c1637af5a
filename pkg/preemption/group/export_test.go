package group

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/group/gangvector"
)

// What the external tests of the group preemption parts (package group_test) reach: each
// part on its own, given the preemptor made from a group attempt and a domain.

// GroupPart is a group preemption about to be decided in a domain: the evaluator (its
// budget of simulations filled), the preemptor made from the attempt, and the domain's
// nodes (nil: the whole cluster).
type Part struct {
	e   *Evaluator
	pr  *preemptor
	dom domain
}

// Part prepares the parts of e's decision for attempt a in the nodes.
func (e *Evaluator) Part(a *framework.GroupAttempt, nodes []*framework.NodeInfo) *Part {
	e.budget = preemption.DecisionSearchBudget
	return &Part{e: e, pr: newPreemptor(e.Handle.Snapshot(), a), dom: domain{nodes: nodes}}
}

func (p *Part) candidateSet() candidateSet {
	d := p.e.candidates(p.pr, p.dom.nodesOr(p.e.Handle.Snapshot().NodeInfos()), 0)
	return candidateSet{leaving: d.leaving, units: d.units}
}

// Decide is decide, every priority level admitted.
func (p *Part) Decide(ctx context.Context, binarySearch bool) (*Result, error) {
	return p.e.decide(ctx, p.pr, p.dom, maxLevel, binarySearch)
}

// SearchUnits is searchUnits over every candidate of the domain.
func (p *Part) SearchUnits(ctx context.Context) (*Result, error) {
	return p.e.searchUnits(ctx, p.pr, p.dom, p.candidateSet())
}

// Plan renders planDomain's plan: nil when there is none, "infeasible", or one
// "level: nodes" line per domain to try, in order.
func (p *Part) Plan(ctx context.Context) []string {
	plan := p.e.planDomain(ctx, p.pr, p.dom.nodesOr(p.e.Handle.Snapshot().NodeInfos()))
	switch {
	case plan == nil:
		return nil
	case plan.infeasible:
		return []string{"infeasible"}
	}
	out := []string{}
	for _, d := range plan.domains {
		var names []string
		for _, n := range d.nodes {
			names = append(names, n.Name)
		}
		out = append(out, fmt.Sprintf("%d: %s", d.level, strings.Join(names, " ")))
	}
	return out
}

// Bound is the disruption bound of the domain.
func (p *Part) Bound() (preemption.Cost, bool) {
	return newDisruptionBound(p.e.Handle.Snapshot(), p.pr).of(p.dom.nodesOr(p.e.Handle.Snapshot().NodeInfos()))
}

// StartedOracle is a started group oracle, its units named by key (a pod's namespace/name,
// or "PodGroup:namespace/name").
type StartedOracle struct {
	o     *oracle
	units map[string]*preemption.Unit
}

// StartOracle starts a group oracle with every candidate unit of the domain removed, and
// reports whether enough members fit. The caller owns a checkpoint around its life.
func (p *Part) StartOracle(ctx context.Context) (*StartedOracle, bool, error) {
	cs := p.candidateSet()
	o := &StartedOracle{o: p.e.newOracle(ctx, p.pr, p.dom), units: map[string]*preemption.Unit{}}
	for _, u := range cs.units {
		o.units[u.Key] = u
	}
	ok, err := o.o.start(cs)
	return o, ok, err
}

// Keep puts a unit back.
func (o *StartedOracle) Keep(key string) (bool, error) { return o.o.Keep(o.units[key]) }

// Drop undoes the latest successful keep.
func (o *StartedOracle) Drop(key string) error { return o.o.Drop(o.units[key]) }

// Placement renders the members' current placement, "member node" in order.
func (o *StartedOracle) Placement() []string {
	var out []string
	for _, a := range o.o.assign {
		out = append(out, a.Pod.Pod.Name+" "+a.Node.Name)
	}
	return out
}

// PlanByNodes is gangvector's PlanByNodes on the gang's model of the domain: the
// victims' keys and the members' placement ("member node", in order), nil when there is
// no plan; whether the plan says it is exact; fits reports whether the members fit the
// model with only the victims gone; model is false when the model does not apply.
func (p *Part) PlanByNodes(ctx context.Context) (victims, placement []string, exact, fits, model bool) {
	snap := p.e.Handle.Snapshot()
	all := p.e.candidates(p.pr, p.dom.nodesOr(snap.NodeInfos()), 0)
	o, ok := gangvector.New(ctx, p.e.Handle, p.pr.gang(), p.dom.nodesOr(snap.NodeInfos()), all.leaving, all.units)
	if o == nil || !ok {
		return nil, nil, false, false, o != nil
	}
	units := o.Helping(all.units, snap.PDBs())
	chosen, witness, exact := o.PlanByNodes(units, snap.PDBs(), false)
	if chosen == nil {
		return nil, nil, false, false, true
	}
	for _, u := range chosen {
		victims = append(victims, u.Key)
	}
	for _, a := range witness.([]framework.Assignment) {
		placement = append(placement, a.Pod.Pod.Name+" "+a.Node.Name)
	}
	// Every other unit put back, one at a time: the model is monotone (room only), so the
	// members fit with all of them back exactly when every one stays back.
	var back []*preemption.Unit
	fits = true
	for _, u := range units {
		if !slices.Contains(chosen, u) {
			if fits, _ = o.Keep(u); !fits {
				break
			}
			back = append(back, u)
		}
	}
	for i := len(back) - 1; i >= 0; i-- {
		_ = o.Drop(back[i])
	}
	return victims, placement, exact, fits, true
}

// CachedBounds are the disruption bounds of the placements as placement preemption gets
// them, through e's cache of bounds, and how many of them were computed rather than
// remembered.
func (p *Part) CachedBounds(list []*framework.Placement) (costs []preemption.Cost, ok []bool, computed int) {
	snap := p.e.Handle.Snapshot()
	b := newDisruptionBound(snap, p.pr)
	costs, ok = p.e.bounds.bounds(b, snap.LayoutVersion(), list, func(n int, fn func(i int)) {
		computed += n
		for i := range n {
			fn(i)
		}
	})
	return costs, ok, computed
}

// FreshBounds are the disruption bounds of the placements, each computed.
func (p *Part) FreshBounds(list []*framework.Placement) ([]preemption.Cost, []bool) {
	b := newDisruptionBound(p.e.Handle.Snapshot(), p.pr)
	costs, ok := make([]preemption.Cost, len(list)), make([]bool, len(list))
	for i, pl := range list {
		costs[i], ok[i] = b.of(pl.Nodes)
	}
	return costs, ok
}
