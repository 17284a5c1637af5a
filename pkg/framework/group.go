package framework

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// GroupInfo is a PodGroup as the scheduler uses it: its priority and preemptionPolicy
// resolved (priority, else the class, else the global default, else 0), and the problem
// that makes it unschedulable as written, if any.
type GroupInfo struct {
	PodGroup *v1alpha1.PodGroup
	// Key is namespace/name.
	Key              string
	Priority         int32
	PreemptionPolicy v1.PreemptionPolicy
	// Invalid says why the group can never be scheduled as written (a validation error, an
	// unknown priority class); "" for a valid group.
	Invalid string
}

// PodGroupOf returns the group's PodGroup, nil for a nil group.
func PodGroupOf(g *GroupInfo) *v1alpha1.PodGroup {
	if g == nil {
		return nil
	}
	return g.PodGroup
}

// Gang reports whether the group is all-or-nothing.
func (g *GroupInfo) Gang() bool { return g.PodGroup.IsGang() }

// MinCount is how many members must be placed at once (1 for a basic group).
func (g *GroupInfo) MinCount() int { return int(g.PodGroup.MinCount()) }

// DisruptAll reports whether the group is preempted as a whole.
func (g *GroupInfo) DisruptAll() bool { return g.PodGroup.DisruptAll() }

// GroupKey returns the key of the group a pod belongs to ("" for none).
func GroupKey(p *PodInfo) string {
	if p.Group == "" {
		return ""
	}
	if p.groupKey != "" {
		return p.groupKey
	}
	return p.Pod.Namespace + "/" + p.Group // a PodInfo built by hand
}

// MemberMismatch returns KEP-5710's message when a member's priority, preemptionPolicy or
// scheduler name differs from its group's; "" when the member matches.
func MemberMismatch(g *GroupInfo, p *PodInfo, schedulerName string) string {
	switch {
	case p.Priority != g.Priority:
		return fmt.Sprintf("all pods in a single pod group should match the priority of the pod group, got: %d and %d", g.Priority, p.Priority)
	case p.PreemptionPolicy != g.PreemptionPolicy:
		return fmt.Sprintf("all pods in a single pod group should match the preemptionPolicy of the pod group, got: %s and %s", g.PreemptionPolicy, p.PreemptionPolicy)
	case p.Pod.Spec.SchedulerName != schedulerName:
		return fmt.Sprintf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", schedulerName, p.Pod.Spec.SchedulerName)
	}
	return ""
}

// Assignment places one member of a group on a node, with the CycleState its placement
// computed (kept for checks while preemption reprieves victims).
type Assignment struct {
	Pod   *PodInfo
	Node  *NodeInfo
	State *CycleState
}

// GroupPlacement is the outcome of placing a group's pending members on the snapshot.
type GroupPlacement struct {
	Assignments []Assignment
	// Unplaced are the members that fit nowhere, with why (the first one's diagnosis).
	Unplaced []*PodInfo
	Message  string
	// Reasons are the distinct reasons the first unplaced member was rejected for
	// ("Insufficient cpu"), to summarise failures across placements.
	Reasons []string
	// UnschedulablePlugins rejected some unplaced member somewhere.
	UnschedulablePlugins []string
	// Placement is where the members were placed, when the group has placements.
	Placement *Placement
}

// GroupPlacer places a group's members on the snapshot exactly as the group cycle does
// (pkg/placement): PodGroupPostFilter plugins get it, so that preemption places, counts
// and confirms members by the cycle's own rules. Its calls change the snapshot (each
// placed member is added, so the next one sees it); the caller owns a checkpoint and rolls
// it back.
type GroupPlacer interface {
	// Place places members (the largest first, each seeing those before it, and, when that
	// places fewer than opts.Need, with a bounded search for another assignment) and
	// reports where.
	Place(ctx context.Context, members []*PodInfo, opts PlaceOptions) (*GroupPlacement, error)
	// Confirm filters each assigned member afresh on its node, in order, each seeing those
	// before it (added and reserved), and reports whether every one passes.
	Confirm(ctx context.Context, assignments []Assignment) (bool, error)
	// Capacity bounds, on resource vectors, how many of members a set of nodes can take.
	Capacity(ctx context.Context, members []*PodInfo) (Capacity, error)
	// AlikeKey identifies members whose placement cannot differ: the same key means the
	// same requests and static constraints, and nothing that involves other pods or
	// objects of their own ("" for a member that has no equivalent).
	AlikeKey(m *PodInfo) string
}

// Capacity bounds, on resource vectors alone, how many of a group's members a set of nodes
// can take. It never underestimates, so ruling a domain out on it loses nothing.
type Capacity interface {
	// Of is the bound on the nodes' free room, counting the requests of the placed members
	// as free (they are in the snapshot, and may move).
	Of(nodes []*NodeInfo, placed []Assignment) int
}

// PlaceOptions tune GroupPlacer.Place.
type PlaceOptions struct {
	// FirstFit trades placement quality for speed: each member takes the first node that
	// passes the filters, as preemption does.
	FirstFit bool
	// Nodes, when not nil, restricts the members to these nodes (a domain).
	Nodes []*NodeInfo
	// Pack, when positive, adds the fill a node would have with the member (0 to
	// MaxNodeScore) times Pack to its score, so members gather on few nodes.
	Pack int64
	// Need is how many members must be placed; when the first pass places fewer, a
	// bounded search looks for an assignment that places that many (0: every member).
	Need int
	// Placement, when set, is the placement the members must stay in: its PlacementState
	// plugins assume it while they are placed (a DRA placement's devices), then revert.
	Placement *Placement
}

// PodGroupPostFilterResult carries the nominations of a group's members. Waiting says the
// group waits for an earlier preemption's victims to leave: its nominations stand.
type PodGroupPostFilterResult struct {
	Nominations map[*PodInfo]string
	Waiting     bool
}

// GroupAttempt is a group cycle that failed, as PodGroupPostFilter plugins see it.
type GroupAttempt struct {
	Group *GroupInfo
	// Pending are the members the cycle tried to place.
	Pending []*PodInfo
	// Placed holds the members that fit without help (they are in the snapshot); it is
	// empty when the group has placements.
	Placed *GroupPlacement
	// Placements, when not nil, are the group's candidate placements (KEP-5732): the group
	// must end up inside one of them.
	Placements *PlacementCandidates
	// Placer places members as the cycle does, in the cycle's state.
	Placer GroupPlacer
}

// PodGroupPostFilterPlugin runs once when a group's cycle fails (KEP-5710). Plugins run in
// configured order; the first Success ends the chain.
type PodGroupPostFilterPlugin interface {
	Plugin
	PodGroupPostFilter(ctx context.Context, attempt *GroupAttempt) (*PodGroupPostFilterResult, *Status)
}

// GroupPreEnqueuePlugin decides whether a group may enter the active queue: a gang waits
// until enough members exist.
type GroupPreEnqueuePlugin interface {
	Plugin
	PreEnqueueGroup(ctx context.Context, g *GroupInfo, pending []*PodInfo, running int) *Status
}

// GroupPreemptionActuator carries out a group's preemption: victims, and members nominated
// to their nodes; approximate as for PreemptionActuator.
type GroupPreemptionActuator interface {
	PreemptForGroup(g *GroupInfo, nominations map[*PodInfo]string, victims []*PodInfo, approximate bool)
}

// GroupNeed is how many pending members must fit for a group to make progress: the rest
// of a gang's minCount, or one member of a basic group or of a gang already running.
func GroupNeed(g *GroupInfo, running int) int {
	if !g.Gang() {
		return 1
	}
	return max(1, g.MinCount()-running)
}

// InGroup reports whether a pod belongs to a group (without building the group's key).
func InGroup(p *PodInfo, g *GroupInfo) bool {
	return p.Group != "" && p.Group == g.PodGroup.Name && p.Pod.Namespace == g.PodGroup.Namespace
}
