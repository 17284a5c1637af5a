package podfit

import (
	"context"
	"math/rand/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// Options assemble a Finder.
type Options struct {
	Snapshot     framework.Snapshot
	Nominator    framework.Nominator
	Parallelizer framework.Parallelizer
	// PercentageOfNodesToScore is kube-scheduler's setting (0: adaptive).
	PercentageOfNodesToScore int
	// Rand is the scheduler's seeded generator: ties between nodes are broken with it.
	Rand *rand.Rand
	// Clock dates batches (OpportunisticBatching's MaxBatchAge); nil: wall time.
	Clock framework.Clock
	// BatchRecorder counts batch attempts and flushes (nil: not counted).
	BatchRecorder BatchRecorder
}

// Finder holds what filtering keeps between cycles: the static verdicts, where the next
// scan starts, and buffers reused by every scan. Profiles share it (verdict keys name the
// profile).
type Finder struct {
	opts Options
	// nextStartNodeIndex rotates the scans' start, so that the nodes found first are not
	// always the same ones (kube-scheduler's).
	nextStartNodeIndex int
	static             staticCache
	filterScratch      []*framework.Status
	eligibleScratch    []*framework.NodeInfo
	feasibleScratch    []*framework.NodeInfo
	// batches are each profile's OpportunisticBatching state (batch.go).
	batches map[*fwkruntime.Framework]*batch
}

// New returns a Finder.
func New(opts Options) *Finder { return &Finder{opts: opts} }

// For returns the finder working with one profile's plugins.
func (f *Finder) For(fwk *fwkruntime.Framework) Profile { return Profile{f: f, fwk: fwk} }

// Profile finds where a pod fits with one profile's plugins.
type Profile struct {
	f   *Finder
	fwk *fwkruntime.Framework
}

// Query says which nodes FindNodes considers and when it stops.
type Query struct {
	// Domain, when not nil, is the only nodes that may be chosen (a group's placement).
	Domain *framework.Domain
	// Limit stops the scan at this many feasible nodes (0: the adaptive number).
	Limit int
	// IgnoreNomination makes a pod nominated to a node look at every node like any other;
	// otherwise a nominated pod that still fits its node takes it without looking further.
	IgnoreNomination bool
	// Batch, when not nil, is the pod cycle's OpportunisticBatching: after PreFilter, a hint
	// from the previous cycle's scores is tried first, as a nominated node is (batch.go);
	// SelectNodeBatched then stores this cycle's scores.
	Batch *BatchCycle
}

// FitsOn runs PreFilter and Filter for p on one node, in state: whether p may go there as
// the cluster is now (a PreFilter rejection, or a node it rules out, is a failure).
func (pf Profile) FitsOn(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	res, st := pf.fwk.RunPreFilterPlugins(ctx, state, p)
	if !st.IsSuccess() {
		return st
	}
	if res != nil && res.NodeNames != nil {
		if _, ok := res.NodeNames[n.Name]; !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node excluded by PreFilter")
		}
	}
	return pf.fwk.RunFilterPlugins(ctx, state, p, n)
}

// StaticEligible runs p's PreFilter in a fresh state and returns which nodes its static
// filters accept, from the cached verdicts; nil, every node, when the profile has no
// static filter or PreFilter rejects p (nothing to say on static grounds).
func (pf Profile) StaticEligible(ctx context.Context, p *framework.PodInfo) (func(*framework.NodeInfo) bool, error) {
	if !pf.fwk.HasStaticFilters() {
		return nil, nil
	}
	state := framework.NewCycleState()
	if _, st := pf.fwk.RunPreFilterPlugins(ctx, state, p); st.Code() == framework.Error {
		return nil, st.AsError()
	} else if !st.IsSuccess() {
		return nil, nil
	}
	v, err := pf.refreshedVerdicts(ctx, state, p)
	if err != nil {
		return nil, err
	}
	return func(n *framework.NodeInfo) bool { return v.status[n.Index] == nil }, nil
}

// refreshedVerdicts returns p's static verdicts, brought up to date for every node.
func (pf Profile) refreshedVerdicts(ctx context.Context, state *framework.CycleState, p *framework.PodInfo) (*staticVerdicts, error) {
	v := pf.verdicts(state, p)
	if err := pf.refresh(ctx, v, state, p); err != nil {
		return nil, err
	}
	return v, nil
}
