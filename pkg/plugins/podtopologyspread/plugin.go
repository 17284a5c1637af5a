package podtopologyspread

import (
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "PodTopologySpread"

// Filter reasons, kube-scheduler's messages.
const (
	// ErrReasonConstraintsNotMatch: placing the pod on the node would break a DoNotSchedule
	// constraint's maxSkew. The cause is where other pods run (Unschedulable).
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch: the node lacks a constraint's topology key; nothing but a
	// node change can help (UnschedulableAndUnresolvable).
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// IsSkewRejection reports whether a Filter status is this plugin rejecting a node because
// of a hard constraint's skew: a rejection caused by other pods, which removing matching
// pods from the node's domain (on this node or on other nodes of the domain) can lift.
// Preemption uses it to tell such rejections from resource ones.
func IsSkewRejection(s *framework.Status) bool {
	if s.Code() != framework.Unschedulable {
		return false
	}
	r := s.Reasons()
	return len(r) == 1 && r[0] == ErrReasonConstraintsNotMatch
}

// DefaultingType says which default constraints apply to pods without their own.
type DefaultingType string

// Defaulting types, with kube-scheduler's names.
const (
	// SystemDefaulting applies kube-scheduler's built-in defaults.
	SystemDefaulting DefaultingType = "System"
	// ListDefaulting applies Args.DefaultConstraints (none when empty).
	ListDefaulting DefaultingType = "List"
)

// Args are PodTopologySpread's arguments (kube-scheduler's PodTopologySpreadArgs).
type Args struct {
	// DefaultConstraints apply to pods without constraints when DefaultingType is List.
	// They must not set a labelSelector: it is derived for each pod.
	DefaultConstraints []v1.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	// DefaultingType is System (default) or List.
	DefaultingType DefaultingType `json:"defaultingType,omitempty"`
}

// systemDefaultConstraints are kube-scheduler's, in its order.
var systemDefaultConstraints = []v1.TopologySpreadConstraint{
	{TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
}

// parseArgs decodes the arguments strictly (an unknown field is an error, not a silent
// default), defaults them and validates them as kube-scheduler does.
func parseArgs(raw json.RawMessage) (*Args, error) {
	args := &Args{}
	if err := framework.DecodeArgs(raw, args); err != nil {
		return nil, err
	}
	if args.DefaultingType == "" {
		args.DefaultingType = SystemDefaulting
	}
	if err := validateArgs(args); err != nil {
		return nil, err
	}
	return args, nil
}

func validateArgs(args *Args) error {
	var errs field.ErrorList
	switch args.DefaultingType {
	case SystemDefaulting:
		if len(args.DefaultConstraints) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("defaultingType"), args.DefaultingType, "when .defaultConstraints are not empty"))
		}
	case ListDefaulting:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("defaultingType"), args.DefaultingType, []string{string(SystemDefaulting), string(ListDefaulting)}))
	}
	path := field.NewPath("defaultConstraints")
	for i, c := range args.DefaultConstraints {
		p := path.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case v1.DoNotSchedule, v1.ScheduleAnyway:
		case "":
			errs = append(errs, field.Required(p.Child("whenUnsatisfiable"), "can not be empty"))
		default:
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, []string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}))
		}
		if c.LabelSelector != nil {
			errs = append(errs, field.Forbidden(p.Child("labelSelector"), "constraint must not define a selector, as they deduced for each pod"))
		}
		for j := range i {
			o := &args.DefaultConstraints[j]
			if o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(p, fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
	}
	return errs.ToAggregate()
}

// PodTopologySpread is the plugin.
type PodTopologySpread struct {
	handle framework.Handle
	// defaults are the constraints for pods without their own; systemDefaulted says they are
	// the system ones, which score nodes lacking a zone label too.
	defaults        []v1.TopologySpreadConstraint
	systemDefaulted bool
	topo            topology
	// counts and registered back the scoring state (see scoreBuffers).
	counts     []int64
	registered []bool
}

var (
	_ framework.PreFilterPlugin     = (*PodTopologySpread)(nil)
	_ framework.PreFilterExtensions = (*PodTopologySpread)(nil)
	_ framework.FilterPlugin        = (*PodTopologySpread)(nil)
	_ framework.PreScorePlugin      = (*PodTopologySpread)(nil)
	_ framework.ScorePlugin         = (*PodTopologySpread)(nil)
	_ framework.ScoreExtensions     = (*PodTopologySpread)(nil)
	_ framework.EnqueueExtensions   = (*PodTopologySpread)(nil)
)

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := parseArgs(raw)
	if err != nil {
		return nil, fmt.Errorf("%s args: %w", Name, err)
	}
	pl := &PodTopologySpread{handle: h, defaults: args.DefaultConstraints, topo: newTopology()}
	if args.DefaultingType == SystemDefaulting {
		pl.defaults = systemDefaultConstraints
		pl.systemDefaulted = true
	}
	return pl, nil
}

// Name implements framework.Plugin.
func (*PodTopologySpread) Name() string { return Name }

// EventsToRegister lists what may lift a spread rejection, as upstream registers it:
//   - a bound pod added, deleted or relabelled changes the counts (an addition to the
//     least loaded domain raises the global minimum);
//   - a node added, deleted, relabelled or (re)tainted changes the domains, their
//     eligibility or whether a node carries the topology keys;
//   - the pending pod's own labels (self-match, matchLabelKeys) or tolerations (for
//     nodeTaintsPolicy Honor) changing; and a pending pod's deletion, since nominated
//     pods count where they are nominated. A pending pod's creation is left out: upstream's
//     hint skips it unless it is nominated, and it would retry every spread-rejected pod
//     whenever any pod is created.
func (*PodTopologySpread) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Add | framework.Delete | framework.UpdatePodLabel},
		{Resource: framework.UnscheduledPod, Action: framework.Delete | framework.UpdatePodLabel | framework.UpdatePodToleration},
		{Resource: framework.Node, Action: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint},
	}
}
