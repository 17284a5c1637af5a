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

// PodGroupSchedulingFunc places the given members on the snapshot as it is (each placed
// member is added to the snapshot, so the next one sees it), in order, and reports where.
// The caller owns a checkpoint and rolls it back.
type PodGroupSchedulingFunc func(ctx context.Context, members []*PodInfo, opts PlaceOptions) (*GroupPlacement, error)

// PlaceOptions tune a PodGroupSchedulingFunc.
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

// PodGroupPostFilterPlugin runs once when a group's cycle fails (KEP-5710). Plugins run in
// configured order; the first Success ends the chain. placed holds the members that fit
// without help (they are in the snapshot); placements, when not nil, are the group's
// candidate placements (KEP-5732): the group must end up inside one of them, and placed is
// then empty.
type PodGroupPostFilterPlugin interface {
	Plugin
	PodGroupPostFilter(ctx context.Context, g *GroupInfo, pending []*PodInfo, placed *GroupPlacement, schedule PodGroupSchedulingFunc, placements *PlacementCandidates) (*PodGroupPostFilterResult, *Status)
}

// GroupPreEnqueuePlugin decides whether a group may enter the active queue: a gang waits
// until enough members exist.
type GroupPreEnqueuePlugin interface {
	Plugin
	PreEnqueueGroup(ctx context.Context, g *GroupInfo, pending []*PodInfo, running int) *Status
}

// GroupPreemptionActuator carries out a group's preemption: victims, and members nominated
// to their nodes.
type GroupPreemptionActuator interface {
	PreemptForGroup(g *GroupInfo, nominations map[*PodInfo]string, victims []*PodInfo)
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
