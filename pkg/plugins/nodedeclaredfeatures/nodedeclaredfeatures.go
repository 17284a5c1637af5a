// Package nodedeclaredfeatures keeps pods off nodes that do not declare the features the
// pod needs of its node (status.declaredFeatures), as kube-scheduler v1.37's
// NodeDeclaredFeatures: what a pod needs is inferred by
// k8s.io/component-helpers/nodedeclaredfeatures, the library kube-scheduler uses.
package nodedeclaredfeatures

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "NodeDeclaredFeatures"

// ErrReasonUnsatisfiedRequirements is kube-scheduler's Filter message.
const ErrReasonUnsatisfiedRequirements = "node(s) didn't match Pod's required features"

// TargetVersion is the Kubernetes version requirements are inferred for: kube-scheduler
// passes its own version, and phalanx gives the decisions of kube-scheduler v1.37.2 (a
// feature whose MaxVersion is older is no longer required of nodes).
var TargetVersion = version.MustParse("1.37.2")

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// NodeDeclaredFeatures is a PreFilter and Filter plugin. Its verdict depends only on the
// pod's spec and the node's declared features, so it is a static filter too: verdicts are
// cached per set of required features and node.
type NodeDeclaredFeatures struct {
	// features is the library's registry of features (ndf.DefaultFramework, the one
	// the cache maps nodes' declared features with) and version the target version.
	features *ndf.Framework
	version  *version.Version
}

var (
	_ framework.PreFilterPlugin    = (*NodeDeclaredFeatures)(nil)
	_ framework.StaticFilterPlugin = (*NodeDeclaredFeatures)(nil)
	_ framework.EnqueueExtensions  = (*NodeDeclaredFeatures)(nil)
)

// New builds the plugin; it takes no arguments.
func New(json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &NodeDeclaredFeatures{features: ndf.DefaultFramework, version: TargetVersion}, nil
}

// Name implements framework.Plugin.
func (*NodeDeclaredFeatures) Name() string { return Name }

// preFilterState is the features the pod requires.
type preFilterState struct{ reqs ndf.FeatureSet }

// Clone implements framework.StateData; the state is never mutated after PreFilter.
func (s *preFilterState) Clone() framework.StateData { return s }

// requirements are the features the pod needs of its node. The pod's status is not read,
// as in kube-scheduler: only its spec.
func (pl *NodeDeclaredFeatures) requirements(p *framework.PodInfo) (ndf.FeatureSet, error) {
	return pl.features.InferForPodScheduling(&ndf.PodInfo{Spec: &p.Pod.Spec}, pl.version)
}

// PreFilter infers the pod's requirements; a pod that needs no feature skips Filter.
func (pl *NodeDeclaredFeatures) PreFilter(_ context.Context, state *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	reqs, err := pl.requirements(p)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if reqs.IsEmpty() {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, &preFilterState{reqs: reqs})
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin: the state does not depend on
// other pods.
func (pl *NodeDeclaredFeatures) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node that does not declare every feature the pod requires. Preemption
// cannot add a feature to a node, hence UnschedulableAndUnresolvable.
func (pl *NodeDeclaredFeatures) Filter(_ context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	var reqs ndf.FeatureSet
	if s, ok := state.Read(preFilterStateKey).(*preFilterState); ok {
		reqs = s.reqs
	} else {
		// PreFilter did not run (a caller filtering directly): infer here.
		var err error
		if reqs, err = pl.requirements(p); err != nil {
			return framework.AsStatus(err)
		}
		if reqs.IsEmpty() {
			return nil
		}
	}
	ok, err := reqs.IsSubset(n.DeclaredFeatures)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnsatisfiedRequirements)
	}
	return nil
}

// EventsToRegister: a new node, or a change of a node's declared features, may declare what
// the pod needs; a change of the pod's own spec is covered by the scheduler's pod-update
// registration.
func (pl *NodeDeclaredFeatures) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeDeclaredFeature}}
}

// StaticFilterKey implements framework.StaticFilterPlugin: the set of required features.
func (pl *NodeDeclaredFeatures) StaticFilterKey(p *framework.PodInfo) string {
	reqs, err := pl.requirements(p)
	if err != nil {
		return "" // (only a nil version errs)
	}
	return reqs.String()
}
