package group

import (
	"context"
	"slices"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/group/gangvector"
)

// A gang's node-by-node plan (gangvector's PlanByNodes) costs by nodes and kinds of
// members, not units: up to vectorPlanMaxUnits, a plan exact for the model decides where
// the search on vectors would have too many units.
const vectorPlanMaxUnits = 2048

// preemptByResources decides a group's preemption in dom on resource vectors first, as the
// pod path does for a resource-only rejection: every candidate unit of the domain, an
// exact search (within the pod evaluator's VectorExactMax and preemption.VectorSearchBudget;
// beyond, up to vectorPlanMaxUnits, only a plan by nodes that is exact) over a model where
// members fit where the static filters let them and the room is enough. That model is a
// relaxation of the real one (a placement that passes every filter passes it), so a set
// the real placement confirms is the least disruptive of all. The members' placement in
// the model is confirmed by the group's placer with the victims gone; nil when the model
// does not apply (members that need other pods nearby, devices, too few alike members) or
// its decision is not confirmed, and the caller then simulates.
func (e *Evaluator) preemptByResources(ctx context.Context, pr *preemptor, dom domain) (*Result, error) {
	snap := e.Handle.Snapshot()
	limit := e.Pod.VectorExactMax()
	if limit <= 0 {
		return nil, nil
	}
	// Beyond vectorPlanMaxUnits, the simulation's planning decides, as before.
	all := e.candidates(pr, dom.nodesOr(snap.NodeInfos()), max(limit, vectorPlanMaxUnits))
	if len(all.units) > max(limit, vectorPlanMaxUnits) {
		return nil, nil
	}
	o, fits := gangvector.New(ctx, e.Handle, pr.gang(), dom.nodesOr(snap.NodeInfos()), all.leaving, all.units)
	if o == nil || !fits {
		return nil, nil
	}
	units := o.Helping(all.units, snap.PDBs())
	var victims []*preemption.Unit
	var witness any
	approximate := false
	if len(units) > limit {
		// Too many for the exact search: an exact plan decides, or the simulation does.
		var exact bool
		if victims, witness, exact = o.PlanByNodes(units, snap.PDBs(), true); victims == nil || !exact {
			return nil, nil
		}
	} else {
		search := &preemption.VictimSearch{Units: units, PDBs: snap.PDBs(), Oracle: o, ExactMax: limit, Budget: preemption.VectorSearchBudget,
			Monotone: true, Logger: klog.FromContext(ctx), Second: o.LargestLast(units),
			Plan: func() ([]*preemption.Unit, any, bool) { return o.PlanByNodes(units, snap.PDBs(), false) }}
		var err error
		if victims, witness, err = search.RunWithWitness(); err != nil {
			return nil, err
		}
		// An exact plan is the least disruptive set whatever greedy reprieval's packing did.
		approximate = !search.Planned() && (search.Approximate() || o.Cut())
	}
	preemption.SortUnits(victims)
	gone := slices.Clone(all.leaving)
	for _, u := range victims {
		gone = append(gone, u.Pods...)
	}
	assignment, err := e.confirm(ctx, pr, dom, gone, witness.([]framework.Assignment))
	if err != nil || assignment == nil {
		return nil, err
	}
	klog.FromContext(ctx).V(4).Info("Group preemption decided on resource vectors", "podgroup", pr.g.Key,
		"units", len(units), "victims", len(victims), "exact", !approximate)
	res := &Result{Nominations: map[*framework.PodInfo]string{}, Victims: preemption.PodsOf(victims),
		Cost: preemption.CostOfUnits(victims, snap.PDBs()), Reprieved: len(all.units) - len(victims),
		Approximate: approximate}
	for _, a := range assignment {
		res.Nominations[a.Pod] = a.Node.Name
	}
	return res, nil
}

// gang is what the model on resource vectors needs of the preemptor.
func (pr *preemptor) gang() gangvector.Gang {
	return gangvector.Gang{Members: pr.members, Need: pr.need, AlikeKey: pr.placer.AlikeKey}
}
