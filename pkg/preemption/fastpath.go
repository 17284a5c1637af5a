package preemption

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// resourceOnly reports whether a node's rejection can be reasoned about with resource
// vectors alone: a resource plugin rejected it (so every filter before it passed with the
// current pods), and removing pods cannot hurt any other filter, which holds unless the
// pod needs other pods nearby (required pod affinity).
func (e *Evaluator) resourceOnly(p *framework.PodInfo, st *framework.Status) bool {
	return st.Code() == framework.Unschedulable && len(p.RequiredAffinity) == 0 &&
		slices.Contains(e.ResourcePlugins, st.Plugin())
}

// selectVictimsByResources is SelectVictims for a resource-only rejection, computed on
// resource vectors without simulating anything: the same units, the same BestEffort rule
// and the same reprieval order. Its candidate is unverified: other filters were not run,
// so the candidate that wins is checked with a full simulation before use.
func (e *Evaluator) selectVictimsByResources(p *framework.PodInfo, node *framework.NodeInfo) *Candidate {
	idx := append(slices.Clone(p.RequestIdx), resource.Pods)
	var free resource.Vector
	for _, i := range idx {
		free[i] = node.Allocatable[i] - node.Requested[i]
	}
	fits := func() bool {
		for _, i := range idx {
			if p.Requests.Vector[i] > free[i] {
				return false
			}
		}
		return true
	}
	units := newUnitIndex(e.Handle.Snapshot())
	// onNode are the pods of a group unit on this node: only they free room here. A
	// single-pod unit's pod is on this node.
	var onNode map[*unit][]*framework.PodInfo
	here := func(u *unit) []*framework.PodInfo {
		if u.group {
			return onNode[u]
		}
		return u.pods
	}
	adjust := func(u *unit, sign int64) {
		for _, q := range here(u) {
			for _, i := range idx {
				free[i] += sign * q.Requests.Vector[i]
			}
		}
	}
	var potential []*unit
	for _, q := range node.Pods {
		if q.Priority >= p.Priority {
			continue
		}
		if q.Terminating {
			for _, i := range idx {
				free[i] += q.Requests.Vector[i]
			}
			continue
		}
		u := units.of(q)
		if u.priority >= p.Priority {
			continue
		}
		if u.group {
			if onNode == nil {
				onNode = map[*unit][]*framework.PodInfo{}
			}
			if _, seen := onNode[u]; !seen {
				potential = append(potential, u)
			}
			onNode[u] = append(onNode[u], q)
		} else {
			potential = append(potential, u)
		}
		for _, i := range idx {
			free[i] += q.Requests.Vector[i]
		}
	}
	if !fits() {
		return nil
	}
	sortUnits(potential)
	c := &Candidate{Node: node, unverified: true}
	var rest, victims []*unit
	for _, u := range potential {
		if u.group || u.pods[0].QOS != v1.PodQOSBestEffort {
			rest = append(rest, u)
			continue
		}
		// Putting a BestEffort pod back can only fail for its pod slot: a resource.
		if adjust(u, -1); !fits() {
			return nil
		}
	}
	violating, nonViolating := splitUnitsByPDB(rest, e.Handle.Snapshot().PDBs())
	for _, u := range violating {
		if adjust(u, -1); !fits() {
			adjust(u, 1)
			victims = append(victims, u)
			c.PDBViolations++
		}
	}
	for _, u := range nonViolating {
		if adjust(u, -1); !fits() {
			adjust(u, 1)
			victims = append(victims, u)
		}
	}
	c.Victims = podsOf(victims)
	sortByImportance(c.Victims)
	return c
}

// verify checks a candidate with a full simulation: with its victims and the node's
// lower-priority leaving pods gone, every filter passes.
func (e *Evaluator) verify(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, c *Candidate) (bool, error) {
	snap := e.Handle.Snapshot()
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	state = state.Clone()
	// Only the victims here free room here; members of a victim group elsewhere do not.
	var gone []*framework.PodInfo
	for _, q := range c.Victims {
		if q.NodeName == c.Node.Name {
			gone = append(gone, q)
		}
	}
	for _, q := range c.Node.Pods {
		if q.Terminating && q.Priority < p.Priority {
			gone = append(gone, q)
		}
	}
	for _, q := range gone {
		if s := e.remove(ctx, state, p, q); !s.IsSuccess() {
			return false, s.AsError()
		}
	}
	ok, _, err := e.fits(ctx, state, p, c.Node)
	return ok, err
}
