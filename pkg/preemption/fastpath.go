package preemption

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"

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
// resource vectors without simulating anything: the same units, the same search and the
// same cost. BestEffort pods are no candidates (they free no resources). Its candidate is
// unverified: other filters were not run, so the candidate that wins is checked with a
// full simulation before use.
func (e *Evaluator) selectVictimsByResources(ctx context.Context, p *framework.PodInfo, node *framework.NodeInfo) *Candidate {
	snap := e.Handle.Snapshot()
	o := &vectorOracle{p: p, idx: WithPodSlot(servedByNode(snap.DRA(), p.RequestIdx, node))}
	for _, i := range o.idx {
		o.free[i] = node.Allocatable[i] - node.Requested[i]
	}
	units := NewUnitIndex(snap)
	var potential []*Unit
	for _, q := range node.Pods {
		if VictimPriority(snap, q) >= p.Priority {
			continue
		}
		if q.Terminating {
			o.adjust([]*framework.PodInfo{q}, 1)
			continue
		}
		u := units.Of(q)
		if u.Priority >= p.Priority || u.BestEffort() {
			continue
		}
		if u.Group {
			// Only the pods of a group unit on this node free room here.
			if o.onNode == nil {
				o.onNode = map[*Unit][]*framework.PodInfo{}
			}
			if _, seen := o.onNode[u]; !seen {
				potential = append(potential, u)
			}
			o.onNode[u] = append(o.onNode[u], q)
		} else {
			potential = append(potential, u)
		}
		o.adjust([]*framework.PodInfo{q}, 1)
	}
	if !o.fits() {
		return nil
	}
	pdbs := snap.PDBs()
	potential = o.helping(potential, pdbs)
	SortUnits(potential)
	search := &VictimSearch{Units: potential, PDBs: pdbs, Oracle: o, ExactMax: e.VectorExactMax(), Budget: VectorSearchBudget,
		Monotone: true, Logger: klog.FromContext(ctx)}
	victims, err := search.Run()
	if err != nil {
		return nil // the vector oracle never fails
	}
	c := newCandidate(node, victims, pdbs)
	c.unverified = true
	c.approximate = search.Approximate()
	return c
}

// servedByNode drops from the pod's resource positions the extended resources the node
// serves with devices (a DeviceClass backs them, and the node's allocatable does not list
// them): DynamicResources allocates those, and NodeResourcesFit leaves them to it, so
// removing pods frees none of them.
func servedByNode(dra framework.DRA, idx []int8, node *framework.NodeInfo) []int8 {
	var out []int8
	for k, i := range idx {
		backed := resource.IsScalar(int(i)) && node.Allocatable[i] == 0 && dra != nil &&
			dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil
		switch {
		case backed && out == nil:
			out = append(make([]int8, 0, len(idx)), idx[:k]...)
		case !backed && out != nil:
			out = append(out, i)
		}
	}
	if out == nil {
		return idx
	}
	return out
}

// Searches on resource vectors cost little per step: they are exact up to
// vectorExactMaxUnits units (unless exact search is off), within VectorSearchBudget steps.
// A group's search on vectors (pkg/preemption/group) is bound by both too.
const (
	vectorExactMaxUnits = 256
	VectorSearchBudget  = 50000
)

// VectorExactMax is the exact-search bound of searches on resource vectors, a pod's or a
// group's.
func (e *Evaluator) VectorExactMax() int {
	if e.ExactMax() <= 0 {
		return -1
	}
	return max(e.ExactMax(), vectorExactMaxUnits)
}

// vectorOracle simulates a preemption on one node on resource vectors: the room a unit's
// pods on the node free. It knows the room the pod lacks (RoomOracle), and units that
// free the same room, priority and QoS, single pods under no budget, are alike
// (AlikeOracle).
type vectorOracle struct {
	p      *framework.PodInfo
	idx    []int8
	free   resource.Vector
	onNode map[*Unit][]*framework.PodInfo
	// pdbs tell which single pods are alike (none under a budget); scratch is slack's.
	pdbs    []*framework.PDBInfo
	scratch []int64
}

// helping measures the candidates, all taken off, and returns those that can help: a unit
// that frees nothing of what the pod would lack with every candidate in place is put back
// for good (a set without it fits whenever one with it does, and costs less). It runs for
// every node searched, so it measures into one flat slice and keeps nothing per unit.
func (o *vectorOracle) helping(units []*Unit, pdbs []*framework.PDBInfo) []*Unit {
	o.pdbs = pdbs
	d := len(o.idx)
	lack := make([]int64, d, d*(len(units)+1))
	for j, i := range o.idx {
		lack[j] = o.p.Requests.Vector[i] - o.free[i]
	}
	room := lack[d:d]
	for _, u := range units {
		v := room[len(room) : len(room)+d]
		room = room[:len(room)+d]
		o.measure(u, v)
		for j := range lack {
			lack[j] += v[j]
		}
	}
	out := units[:0:0]
	for x, u := range units {
		helps := false
		for j, v := range room[x*d : (x+1)*d] {
			helps = helps || (v > 0 && lack[j] > 0)
		}
		if !helps {
			o.adjust(o.here(u), -1)
			continue
		}
		out = append(out, u)
	}
	return out
}

// measure writes into v what a unit's pods on the node free, per resource of idx.
func (o *vectorOracle) measure(u *Unit, v []int64) {
	clear(v)
	for _, q := range o.here(u) {
		for j, i := range o.idx {
			v[j] += q.Requests.Vector[i]
		}
	}
}

func (o *vectorOracle) Freed(u *Unit) []int64 {
	v := make([]int64, len(o.idx))
	o.measure(u, v)
	return v
}

func (o *vectorOracle) Slack() []int64 {
	if o.scratch == nil {
		o.scratch = make([]int64, len(o.idx))
	}
	for j, i := range o.idx {
		o.scratch[j] = o.free[i] - o.p.Requests.Vector[i]
	}
	return o.scratch
}

// AlikeKey: single pods under no budget that free the same room, of one priority and QoS
// class, are interchangeable on the node.
func (o *vectorOracle) AlikeKey(u *Unit) string {
	if u.Group || UnderBudget(u.Pods[0], o.pdbs) {
		return ""
	}
	return fmt.Sprint(o.Freed(u), u.Priority, u.QOS)
}

func (o *vectorOracle) here(u *Unit) []*framework.PodInfo {
	if u.Group {
		return o.onNode[u]
	}
	return u.Pods
}

func (o *vectorOracle) adjust(pods []*framework.PodInfo, sign int64) {
	for _, q := range pods {
		for _, i := range o.idx {
			o.free[i] += sign * q.Requests.Vector[i]
		}
	}
}

func (o *vectorOracle) fits() bool {
	for _, i := range o.idx {
		if o.p.Requests.Vector[i] > o.free[i] {
			return false
		}
	}
	return true
}

func (o *vectorOracle) Keep(u *Unit) (bool, error) {
	o.adjust(o.here(u), -1)
	if o.fits() {
		return true, nil
	}
	o.adjust(o.here(u), 1)
	return false, nil
}

func (o *vectorOracle) Witness() any { return nil }

func (o *vectorOracle) Drop(u *Unit) error {
	o.adjust(o.here(u), 1)
	return nil
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
		if q.Terminating && VictimPriority(snap, q) < p.Priority {
			gone = append(gone, q)
		}
	}
	for _, q := range gone {
		if s := e.remove(ctx, state, p, q); !s.IsSuccess() {
			return false, s.AsError()
		}
	}
	// A filter that fails with an error leaves the candidate unverified: the full search
	// on its node then decides, as kube-scheduler's dry run would.
	ok, _, _ := e.fits(ctx, state, p, c.Node)
	return ok, nil
}

// WithPodSlot is a pod's resources with its pod slot, which every pod takes (its requests
// count it, so it is normally there already).
func WithPodSlot(idx []int8) []int8 {
	if slices.Contains(idx, resource.Pods) {
		return idx
	}
	return append(slices.Clone(idx), resource.Pods)
}
