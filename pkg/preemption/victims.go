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

// SelectVictims finds the fewest, least important pods whose removal lets p onto node, or
// nil when no set of lower-priority pods does. When, with every lower-priority pod of the
// node gone, p is still blocked by other pods (anti-affinity, spreading), the blocking
// plugin names them and the lower-priority ones on other nodes become candidates too:
// cross-node preemption, only looked for when it is the blocker. The simulation is rolled
// back before returning.
func (e *Evaluator) SelectVictims(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) (*Candidate, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	state = state.Clone()

	// Potential victims are lower-priority pods. Lower-priority pods already leaving
	// (deleted, or victims of an earlier preemption) are removed as gone and are nobody's
	// victims; leaving pods of equal or higher priority keep their room, as in the design's
	// Example 2, where D may not claim the room C's victims free.
	var potential []*framework.PodInfo
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
			home[q] = n
			if !q.Terminating {
				potential = append(potential, q)
			}
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
	if len(potential) == 0 {
		return &Candidate{Node: node}, nil
	}
	sortByImportance(potential)

	// Reprieve: put victims back while the preemptor still fits.
	reprieve := func(q *framework.PodInfo) (bool, *framework.Status, error) {
		if s := e.add(ctx, state, p, q, home[q]); !s.IsSuccess() {
			return false, nil, s.AsError()
		}
		ok, why, err := e.fits(ctx, state, p, node)
		if err != nil || ok {
			return ok, why, err
		}
		if s := e.remove(ctx, state, p, q); !s.IsSuccess() {
			return false, nil, s.AsError()
		}
		return false, why, nil
	}
	c := &Candidate{Node: node}
	// BestEffort pods first: they free no resources, so one that cannot be put back for a
	// resource reason would be a victim for resources, which the design forbids; then the
	// node is no candidate.
	var rest []*framework.PodInfo
	for _, q := range potential {
		if q.QOS != v1.PodQOSBestEffort {
			rest = append(rest, q)
			continue
		}
		ok, why, err := reprieve(q)
		if err != nil {
			return nil, err
		}
		if !ok {
			if slices.Contains(e.ResourcePlugins, why.Plugin()) {
				return nil, nil
			}
			c.Victims = append(c.Victims, q)
		}
	}
	// Then the victims that would violate a PodDisruptionBudget, so that as few as possible
	// do, then the others; most important first within each.
	violating, nonViolating := splitByPDB(rest, snap.PDBs())
	for _, q := range violating {
		ok, _, err := reprieve(q)
		if err != nil {
			return nil, err
		}
		if !ok {
			c.Victims = append(c.Victims, q)
			c.PDBViolations++
		}
	}
	for _, q := range nonViolating {
		ok, _, err := reprieve(q)
		if err != nil {
			return nil, err
		}
		if !ok {
			c.Victims = append(c.Victims, q)
		}
	}
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
