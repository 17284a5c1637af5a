// Package interpodaffinity implements InterPodAffinity as kube-scheduler v1.36 does:
// required pod affinity and anti-affinity as a filter (in both directions: the incoming
// pod's terms, and the required anti-affinity terms of pods already running), and
// preferred terms as a score.
//
// PreFilter counts, per topology pair (key, value), the pods that bear on the incoming
// pod without scanning every pod: the pods matching the incoming pod's terms come from the
// snapshot's label index, the existing pods' terms matching the incoming pod from the
// plugin's own term index (termindex.go). The counts are by domain of an index, kept
// across cycles, of each node's domain per topology key (labeldomain.Follower), so that
// Filter answers each node with a few slice reads and hashes no label. PreScore works the
// same way for the preferred terms.
package interpodaffinity

import (
	"encoding/json"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/internal/labeldomain"
)

// Name is the plugin's name.
const Name = "InterPodAffinity"

// Filter reasons, kube-scheduler's messages.
const (
	// ErrReasonAffinityRulesNotMatch: no pod the incoming pod requires is in the node's
	// topology domain (or the node lacks a topology key). Removing pods cannot help.
	ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinityRulesNotMatch: a pod the incoming pod's required anti-affinity
	// rejects runs in the node's topology domain.
	ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules"
	// ErrReasonExistingAntiAffinityRulesNotMatch: a pod running in the node's topology
	// domain has required anti-affinity that rejects the incoming pod.
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// InterPodAffinity is the plugin: PreFilter, Filter, PreScore, Score.
type InterPodAffinity struct {
	args Args
	snap framework.Snapshot
	// existingAnti indexes the required anti-affinity terms of existing pods (PreFilter);
	// existingScoring their terms that score the incoming pod (PreScore).
	existingAnti    *termIndex
	existingScoring *termIndex
	// domains resolves, once per layout of the snapshot's nodes rather than once per
	// cycle, every node to its domain for each topology key in use.
	domains labeldomain.Follower
}

var (
	_ framework.PreFilterPlugin     = (*InterPodAffinity)(nil)
	_ framework.PreFilterExtensions = (*InterPodAffinity)(nil)
	_ framework.FilterPlugin        = (*InterPodAffinity)(nil)
	_ framework.PreScorePlugin      = (*InterPodAffinity)(nil)
	_ framework.ScorePlugin         = (*InterPodAffinity)(nil)
	_ framework.ScoreExtensions     = (*InterPodAffinity)(nil)
	_ framework.EnqueueExtensions   = (*InterPodAffinity)(nil)
)

// New builds the plugin from its arguments (InterPodAffinityArgs).
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	hardWeight := int64(*args.HardPodAffinityWeight)
	snap := h.Snapshot()
	var changes func(uint64) ([]*framework.NodeInfo, uint64, bool)
	if snap != nil {
		changes = snap.AffinityChangesSince
	}
	return &InterPodAffinity{
		args: args,
		snap: snap,
		existingAnti: newTermIndex(changes,
			func(n *framework.NodeInfo) []*framework.PodInfo { return n.PodsWithRequiredAntiAffinity },
			func(p *framework.PodInfo, fn func(*framework.AffinityTerm, int64)) {
				for i := range p.RequiredAntiAffinity {
					fn(&p.RequiredAntiAffinity[i], 1)
				}
			}),
		existingScoring: newTermIndex(changes,
			func(n *framework.NodeInfo) []*framework.PodInfo { return n.PodsWithAffinity },
			func(p *framework.PodInfo, fn func(*framework.AffinityTerm, int64)) {
				// Required affinity counts hardPodAffinityWeight, preferred terms their
				// weight, anti-affinity against.
				if hardWeight > 0 {
					for i := range p.RequiredAffinity {
						fn(&p.RequiredAffinity[i], hardWeight)
					}
				}
				for i := range p.PreferredAffinity {
					fn(&p.PreferredAffinity[i].AffinityTerm, int64(p.PreferredAffinity[i].Weight))
				}
				for i := range p.PreferredAntiAffinity {
					fn(&p.PreferredAntiAffinity[i].AffinityTerm, -int64(p.PreferredAntiAffinity[i].Weight))
				}
			}),
	}, nil
}

// Name implements framework.Plugin.
func (*InterPodAffinity) Name() string { return Name }

// EventsToRegister: a matching pod arriving can satisfy affinity; a pod leaving, or its
// labels changing, can lift an anti-affinity conflict (either direction) or satisfy
// affinity; a node arriving or being relabelled changes topology domains.
// Taint, allocatable and condition changes never change this plugin's answer.
func (*InterPodAffinity) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, Action: framework.Add | framework.Delete | framework.UpdatePodLabel},
		{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeLabel},
	}
}

// RejectedByOtherPods reports whether a Filter status says that pods in the node's
// topology domains stand in the way: the incoming pod's required anti-affinity matches
// them, or their required anti-affinity matches it. Those pods may run on other nodes of
// the domain, so preemption must look beyond the node (see BlockingPods). An unmatched
// affinity rule is not such a rejection: removing pods never creates a match, which is
// why it is UnschedulableAndUnresolvable.
//
// A status attributed to another plugin is never this plugin's rejection.
func RejectedByOtherPods(s *framework.Status) bool {
	if s == nil || (s.Plugin() != "" && s.Plugin() != Name) || s.Code() != framework.Unschedulable {
		return false
	}
	for _, r := range s.Reasons() {
		if r == ErrReasonAntiAffinityRulesNotMatch || r == ErrReasonExistingAntiAffinityRulesNotMatch {
			return true
		}
	}
	return false
}
