package preemption

import (
	"context"
	"slices"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// maxBlockingRounds bounds how many times cross-node blockers are looked up for one node:
// each round can only reveal a different plugin's blockers.
const maxBlockingRounds = 4

// SelectVictims finds the least disruptive set of preemption units (by Cost) whose
// removal lets p onto node, or nil when no set of lower-priority units does. It is the
// node-domain case of the workload-aware algorithm (KEP-5710): a unit is a pod, or a whole
// PodGroup of disruption mode All, whose members elsewhere are victims too and count in
// the cost, though they do not help p fit here. When, with every lower-priority unit of
// the node gone, p is still blocked by other pods (anti-affinity, spreading), the blocking
// plugin names them, and lower-priority units elsewhere become candidates too: cross-node
// preemption, looked for only when it is the blocker. With few candidates the search is
// exact, otherwise greedy reprieval (VictimSearch). The simulation is rolled back.
func (e *Evaluator) SelectVictims(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) (*Candidate, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	o := &podOracle{e: e, ctx: ctx, state: state.Clone(), p: p, node: node,
		removed: map[*Unit][]*framework.PodInfo{}, home: map[*framework.PodInfo]*framework.NodeInfo{}, holders: SlotHolders{}}
	units := NewUnitIndex(snap)

	var potential []*Unit
	preemptor := []*framework.PodInfo{p}
	takeOff := func(pods []*framework.PodInfo) (bool, error) {
		progress := false
		for _, q := range slices.Clone(pods) {
			if _, done := o.home[q]; done || q.Holder() {
				continue
			}
			n := snap.Get(q.NodeName)
			if n == nil || VictimPriority(snap, q) >= p.Priority {
				continue
			}
			if !q.Terminating {
				u := units.Of(q)
				if u.Priority >= p.Priority || !u.MayHelp(preemptor) {
					continue
				}
				if _, seen := o.removed[u]; !seen {
					potential = append(potential, u)
				}
				o.removed[u] = append(o.removed[u], q)
				o.holders.Track(u)
			}
			// Lower-priority pods already leaving are room, and nobody's victims.
			o.home[q] = n
			if err := o.remove(q); err != nil {
				return false, err
			}
			progress = true
		}
		return progress, nil
	}
	if _, err := takeOff(node.Pods); err != nil {
		return nil, err
	}
	for round := 0; ; round++ {
		ok, why, err := e.fits(ctx, o.state, p, node)
		if err != nil {
			return nil, err
		}
		if ok {
			break
		}
		if why.Code() != framework.Unschedulable || round == maxBlockingRounds {
			return nil, nil
		}
		progress, err := takeOff(e.Handle.RunBlockingPodsPlugin(ctx, o.state, p, node, why))
		if err != nil {
			return nil, err
		}
		if !progress {
			return nil, nil
		}
	}
	SortUnits(potential)
	search := &VictimSearch{Units: potential, PDBs: snap.PDBs(), Oracle: o, ExactMax: e.ExactMax(), Shared: &e.budget, Logger: klog.FromContext(ctx)}
	victims, err := search.Run()
	if err != nil {
		return nil, err
	}
	c := newCandidate(node, victims, snap.PDBs())
	c.approximate = search.Approximate()
	return c, nil
}

// podOracle simulates a pod's preemption on one node: units come back to where they ran
// and the pod's filters are run on the node, with its plugins' state kept up to date.
type podOracle struct {
	e     *Evaluator
	ctx   context.Context
	state *framework.CycleState
	p     *framework.PodInfo
	node  *framework.NodeInfo
	// removed are the pods of each unit that were taken off (on this node, and blockers
	// elsewhere); home is where each ran.
	removed map[*Unit][]*framework.PodInfo
	home    map[*framework.PodInfo]*framework.NodeInfo
	holders SlotHolders
}

func (o *podOracle) remove(q *framework.PodInfo) error {
	n := o.home[q]
	o.holders.TakeOff(o.e.Handle.Snapshot(), q, n.Name)
	return o.e.Handle.RunPreFilterExtensionRemovePod(o.ctx, o.state, o.p, q, n).AsError()
}

func (o *podOracle) restore(q *framework.PodInfo) error {
	n := o.home[q]
	o.holders.PutBack(o.e.Handle.Snapshot(), q, n.Name)
	return o.e.Handle.RunPreFilterExtensionAddPod(o.ctx, o.state, o.p, q, n).AsError()
}

func (o *podOracle) Keep(u *Unit) (bool, error) {
	for _, q := range o.removed[u] {
		if err := o.restore(q); err != nil {
			return false, err
		}
	}
	// A filter that fails with an error keeps the unit out, as kube-scheduler's reprieve
	// reads only whether the filters passed: the pod it could not judge is a victim.
	if ok, _, _ := o.e.fits(o.ctx, o.state, o.p, o.node); ok {
		return true, nil
	}
	return false, o.Drop(u)
}

func (o *podOracle) Witness() any { return nil }

func (o *podOracle) Drop(u *Unit) error {
	for _, q := range o.removed[u] {
		if err := o.remove(q); err != nil {
			return err
		}
	}
	return nil
}

// fits runs the filters for p on node; when p does not fit it says why.
func (e *Evaluator) fits(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) (bool, *framework.Status, error) {
	s := e.Handle.RunFilterPlugins(ctx, state, p, node)
	if s.Code() == framework.Error {
		return false, s, s.AsError()
	}
	return s.IsSuccess(), s, nil
}
