package framework

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// GroupInfo is a PodGroup, or a CompositePodGroup (a group of groups), as the scheduler
// uses it: its priority and preemptionPolicy resolved (its own priority, else its class,
// else its parent composite's, up the hierarchy, else the global default, else 0: a lower
// level overrides a higher one, KEP-5710), and the problem that makes it unschedulable as
// written, if any. Exactly one of PodGroup and Composite is set.
type GroupInfo struct {
	PodGroup *v1alpha1.PodGroup
	// Composite is set, instead of PodGroup, for a CompositePodGroup.
	Composite *v1alpha1.CompositePodGroup
	// Key is namespace/name.
	Key              string
	Priority         int32
	PreemptionPolicy v1.PreemptionPolicy
	// Invalid says why the group can never be scheduled as written (a validation error, an
	// unknown priority class, a hierarchy too deep); "" for a valid group.
	Invalid string
}

// IsComposite reports whether the group is a CompositePodGroup.
func (g *GroupInfo) IsComposite() bool { return g.Composite != nil }

// Object is the group's API object, for events and status.
func (g *GroupInfo) Object() runtime.Object {
	if g.Composite != nil {
		return g.Composite
	}
	return g.PodGroup
}

// Meta is the group's object metadata.
func (g *GroupInfo) Meta() *metav1.ObjectMeta {
	if g.Composite != nil {
		return &g.Composite.ObjectMeta
	}
	return &g.PodGroup.ObjectMeta
}

// ParentKey is the namespace/name of the composite the group belongs to, "" for none.
func (g *GroupInfo) ParentKey() string {
	var parent *string
	if g.Composite != nil {
		parent = g.Composite.Spec.ParentCompositePodGroupName
	} else {
		parent = g.PodGroup.Spec.ParentCompositePodGroupName
	}
	if parent == nil || *parent == "" {
		return ""
	}
	return g.Meta().Namespace + "/" + *parent
}

// Topology is the group's own topology levels, coarse to fine, modes defaulted.
func (g *GroupInfo) Topology() []v1alpha1.TopologyConstraint {
	var levels []v1alpha1.TopologyConstraint
	switch {
	case g.Composite != nil && g.Composite.Spec.SchedulingConstraints != nil:
		levels = g.Composite.Spec.SchedulingConstraints.Topology
	case g.PodGroup != nil && g.PodGroup.Spec.SchedulingConstraints != nil:
		levels = g.PodGroup.Spec.SchedulingConstraints.Topology
	}
	if len(levels) == 0 {
		return nil
	}
	out := make([]v1alpha1.TopologyConstraint, len(levels))
	for i, l := range levels {
		if l.Mode == "" {
			l.Mode = v1alpha1.TopologyModeRequired
		}
		out[i] = l
	}
	return out
}

// PodGroupOf returns the group's PodGroup, nil for a nil group.
func PodGroupOf(g *GroupInfo) *v1alpha1.PodGroup {
	if g == nil {
		return nil
	}
	return g.PodGroup
}

// Gang reports whether the group is all-or-nothing.
func (g *GroupInfo) Gang() bool {
	if g.Composite != nil {
		return g.Composite.IsGang()
	}
	return g.PodGroup.IsGang()
}

// MinCount is how many members must be placed at once (1 for a basic group); for a
// composite, how many child groups.
func (g *GroupInfo) MinCount() int {
	if g.Composite != nil {
		return int(g.Composite.MinGroupCount())
	}
	return int(g.PodGroup.MinCount())
}

// DisruptAll reports whether the group is preempted as a whole.
func (g *GroupInfo) DisruptAll() bool {
	if g.Composite != nil {
		return g.Composite.DisruptAll()
	}
	return g.PodGroup.DisruptAll()
}

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
	// Group is the unit the cycle scheduled: a PodGroup, or a CompositePodGroup whose
	// whole hierarchy is placed at once.
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
	// Need is how many pending members must fit for the group to make progress: the rest
	// of a gang's minCount, one for a basic group or a gang already running, and for a
	// composite the fewest that complete it.
	Need int
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

// InGroup reports whether a pod belongs to a PodGroup (without building the group's key).
func InGroup(p *PodInfo, g *GroupInfo) bool {
	return p.Group != "" && g.PodGroup != nil && p.Group == g.PodGroup.Name && p.Pod.Namespace == g.PodGroup.Namespace
}

// DisruptionRoot returns the highest CompositePodGroup above a PodGroup whose disruption
// mode is All (nil when there is none): preemption then takes its whole hierarchy
// together, whatever the modes below it.
func DisruptionRoot(snap Snapshot, groupKey string) *GroupInfo {
	g := snap.Group(groupKey)
	if g == nil {
		return nil
	}
	var root *GroupInfo
	seen := map[string]bool{}
	for parent := g.ParentKey(); parent != "" && !seen[parent]; {
		seen[parent] = true
		c := snap.Composite(parent)
		if c == nil {
			break
		}
		if c.DisruptAll() {
			root = c
		}
		parent = c.ParentKey()
	}
	return root
}
