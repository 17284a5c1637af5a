package preemption

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// maxBlockingRounds bounds how many times cross-node blockers are looked up for one node:
// each round can only reveal a different plugin's blockers.
const maxBlockingRounds = 4

// SelectVictims finds the fewest, least important preemption units whose removal lets p
// onto node, or nil when no set of lower-priority units does. It is the node-domain case of
// the workload-aware algorithm (KEP-5710): a unit is a pod, or a whole PodGroup of
// disruption mode All, whose members elsewhere are victims too and count when candidates
// are compared, though they do not help p fit here. When, with every lower-priority unit of
// the node gone, p is still blocked by other pods (anti-affinity, spreading), the blocking
// plugin names them, and lower-priority units elsewhere become candidates too: cross-node
// preemption, looked for only when it is the blocker. The simulation is rolled back.
func (e *Evaluator) SelectVictims(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) (*Candidate, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	state = state.Clone()
	units := newUnitIndex(snap)

	// The pods of each potential victim unit that were taken off for this node (those on
	// it, and blockers elsewhere), so that a reprieve puts back exactly those.
	var potential []*unit
	removed := map[*unit][]*framework.PodInfo{}
	home := map[*framework.PodInfo]*framework.NodeInfo{}
	takeOff := func(pods []*framework.PodInfo) (bool, error) {
		progress := false
		for _, q := range slices.Clone(pods) {
			if _, done := home[q]; done || q.Priority >= p.Priority {
				continue
			}
			n := snap.Get(q.NodeName)
			if n == nil {
				continue
			}
			if !q.Terminating {
				u := units.of(q)
				if u.priority >= p.Priority {
					continue
				}
				if _, seen := removed[u]; !seen {
					potential = append(potential, u)
				}
				removed[u] = append(removed[u], q)
			}
			// Lower-priority pods already leaving are room, and nobody's victims.
			home[q] = n
			if s := e.remove(ctx, state, p, q); !s.IsSuccess() {
				return false, s.AsError()
			}
			progress = true
		}
		return progress, nil
	}
	if _, err := takeOff(node.Pods); err != nil {
		return nil, err
	}
	for round := 0; ; round++ {
		ok, why, err := e.fits(ctx, state, p, node)
		if err != nil {
			return nil, err
		}
		if ok {
			break
		}
		if why.Code() != framework.Unschedulable || round == maxBlockingRounds {
			return nil, nil
		}
		progress, err := takeOff(e.Handle.RunBlockingPodsPlugin(ctx, state, p, node, why))
		if err != nil {
			return nil, err
		}
		if !progress {
			return nil, nil
		}
	}
	c := &Candidate{Node: node}
	if len(potential) == 0 {
		return c, nil
	}
	sortUnits(potential)

	// Reprieve: put units back, whole, while the preemptor still fits.
	reprieve := func(u *unit) (bool, *framework.Status, error) {
		for _, q := range removed[u] {
			if s := e.add(ctx, state, p, q, home[q]); !s.IsSuccess() {
				return false, nil, s.AsError()
			}
		}
		ok, why, err := e.fits(ctx, state, p, node)
		if err != nil || ok {
			return ok, why, err
		}
		for _, q := range removed[u] {
			if s := e.remove(ctx, state, p, q); !s.IsSuccess() {
				return false, nil, s.AsError()
			}
		}
		return false, why, nil
	}
	// BestEffort pods first: they free no resources, so one that cannot be put back for a
	// resource reason would be a victim for resources, which the design forbids; then the
	// node is no candidate.
	var rest, victims []*unit
	for _, u := range potential {
		if u.group || u.pods[0].QOS != v1.PodQOSBestEffort {
			rest = append(rest, u)
			continue
		}
		ok, why, err := reprieve(u)
		if err != nil {
			return nil, err
		}
		if !ok {
			if slices.Contains(e.ResourcePlugins, why.Plugin()) {
				return nil, nil
			}
			victims = append(victims, u)
		}
	}
	// Then the units that would violate a PodDisruptionBudget, so that as few as possible
	// do, then the others; most important first within each.
	violating, nonViolating := splitUnitsByPDB(rest, snap.PDBs())
	for _, u := range violating {
		ok, _, err := reprieve(u)
		if err != nil {
			return nil, err
		}
		if !ok {
			victims = append(victims, u)
			c.PDBViolations++
		}
	}
	for _, u := range nonViolating {
		ok, _, err := reprieve(u)
		if err != nil {
			return nil, err
		}
		if !ok {
			victims = append(victims, u)
		}
	}
	c.Victims = podsOf(victims)
	sortByImportance(c.Victims)
	return c, nil
}

// fits runs the filters for p on node; when p does not fit it says why.
func (e *Evaluator) fits(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) (bool, *framework.Status, error) {
	s := e.Handle.RunFilterPlugins(ctx, state, p, node)
	if s.Code() == framework.Error {
		return false, s, s.AsError()
	}
	return s.IsSuccess(), s, nil
}
