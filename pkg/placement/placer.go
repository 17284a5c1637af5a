package placement

import (
	"context"
	"math/rand/v2"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
)

// PodFit finds where one pod fits with the profile's plugins (pkg/podfit): what placement
// needs of the scheduler. The nodes it may choose are passed in each call.
type PodFit interface {
	// FindNodes returns the feasible nodes for p among the query's, or why none is.
	FindNodes(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, q podfit.Query) ([]*framework.NodeInfo, *framework.Diagnosis, error)
	// SelectNode scores the feasible nodes and returns the best; pack weighs fill.
	SelectNode(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, feasible []*framework.NodeInfo, pack int64) (string, error)
	// FitsOn runs PreFilter and Filter for p on one node.
	FitsOn(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status
	// StaticEligible reports which nodes p's static filters accept (nil: every node).
	StaticEligible(ctx context.Context, p *framework.PodInfo) (func(*framework.NodeInfo) bool, error)
}

var _ PodFit = podfit.Profile{}

// Options assemble a Placer.
type Options struct {
	// Framework is the profile: its Reserve, PlacementState and PlacementScore plugins,
	// and its static filter keys.
	Framework *fwkruntime.Framework
	Pods      PodFit
	Snapshot  framework.Snapshot
	// Rand breaks ties between placements that score alike (the scheduler's seeded
	// generator).
	Rand    *rand.Rand
	Metrics *metrics.Metrics
	// FeasiblePlacementsToFind stops the evaluation once this many placements hold the
	// group.
	FeasiblePlacementsToFind int
}

// Placer places pod groups with one profile's plugins.
type Placer struct {
	opts Options
	// caps remembers placements' capacity bounds across cycles.
	caps capacityCache
	// evals are the arrays of evals searches reuse.
	evals evalBuffers
}

// New returns a Placer.
func New(opts Options) *Placer { return &Placer{opts: opts} }

// For returns the placement of one group cycle: g's members, in the cycle's state, where
// PlacementState plugins assume a placement while members are placed inside it (state may
// be nil for a group without placements).
func (pl *Placer) For(g *framework.GroupInfo, state *framework.CycleState) *Group {
	return &Group{pl: pl, g: g, state: state}
}

// Group places one group's members in one cycle. It is the framework.GroupPlacer that
// PodGroupPostFilter plugins get.
type Group struct {
	pl    *Placer
	g     *framework.GroupInfo
	state *framework.CycleState
}

var _ framework.GroupPlacer = (*Group)(nil)

// Place places members on the snapshot (framework.GroupPlacer). With opts.Placement, its
// PlacementState plugins assume it while the members are placed, and revert it after.
func (gp *Group) Place(ctx context.Context, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	fwk := gp.pl.opts.Framework
	if p := opts.Placement; p != nil && gp.state != nil {
		if st := fwk.RunAssumePlacement(ctx, gp.state, gp.g, p); !st.IsSuccess() {
			if st.Code() == framework.Error {
				return nil, st.AsError()
			}
			return &framework.GroupPlacement{Unplaced: members, Message: st.Message(), UnschedulablePlugins: []string{st.Plugin()}}, nil
		}
		defer fwk.RunRevertPlacement(ctx, gp.state, gp.g, p)
	}
	return gp.pl.place(ctx, members, opts)
}

// Confirm filters each assigned member afresh on its node, in order, each seeing those
// before it: it is added to the snapshot and Reserve records its claims and volumes before
// the next one is checked, as the group cycle places them (framework.GroupPlacer).
func (gp *Group) Confirm(ctx context.Context, assignments []framework.Assignment) (bool, error) {
	return gp.pl.confirm(ctx, assignments)
}

func (pl *Placer) confirm(ctx context.Context, assignments []framework.Assignment) (bool, error) {
	fwk, snap := pl.opts.Framework, pl.opts.Snapshot
	for _, a := range assignments {
		state := framework.NewCycleState()
		st := pl.opts.Pods.FitsOn(ctx, state, a.Pod, a.Node)
		if st.Code() == framework.Error {
			return false, st.AsError()
		}
		if !st.IsSuccess() {
			return false, nil
		}
		snap.AddPod(a.Pod, a.Node.Name)
		if st := fwk.RunReservePluginsReserve(ctx, state, a.Pod, a.Node.Name); !st.IsSuccess() {
			if st.Code() == framework.Error {
				return false, st.AsError()
			}
			return false, nil
		}
	}
	return true, nil
}

// Capacity bounds how many of members a set of nodes can take (framework.GroupPlacer).
func (gp *Group) Capacity(ctx context.Context, members []*framework.PodInfo) (framework.Capacity, error) {
	return gp.pl.capacity(ctx, members)
}

// AlikeKey identifies members whose placement cannot differ (framework.GroupPlacer).
func (gp *Group) AlikeKey(m *framework.PodInfo) string { return gp.pl.alikeKey(m) }
