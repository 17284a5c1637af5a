// Package nodeaffinity keeps pods on nodes that match their spec.nodeSelector and required
// node affinity, and scores nodes by the pod's preferred node affinity terms. A profile
// can add affinity that applies to every pod (addedAffinity).
package nodeaffinity

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	helper "k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "NodeAffinity"

// Filter and PreFilter reasons, kube-scheduler's.
const (
	// ErrReasonPod: the node does not match the pod's nodeSelector or required affinity.
	ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonEnforced: the node does not match the profile's addedAffinity.
	ErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ErrReasonConflict: the required terms pin metadata.name to disjoint sets of nodes.
	ErrReasonConflict = "pod affinity terms conflict"
)

// Reason lists of Filter rejections: statuses only read their reasons, so sharing them
// saves an allocation per rejected node.
var (
	rejectedPod      = []string{ErrReasonPod}
	rejectedEnforced = []string{ErrReasonEnforced}
)

const (
	preFilterStateKey framework.StateKey = "PreFilter" + Name
	preScoreStateKey  framework.StateKey = "PreScore" + Name
)

// Args are NodeAffinity's arguments, as kube-scheduler's NodeAffinityArgs.
type Args struct {
	// AddedAffinity applies to every pod of the profile, in addition to the pod's own:
	// its required terms filter, its preferred terms add to the score.
	AddedAffinity *v1.NodeAffinity `json:"addedAffinity,omitempty"`
}

// NodeAffinity is a PreFilter, Filter, PreScore and Score plugin.
type NodeAffinity struct {
	// addedRequired is nil without addedAffinity required terms.
	addedRequired *nodeSelector
	addedPrefs    []term
	hasAddedPrefs bool
}

var (
	_ framework.PreFilterPlugin   = (*NodeAffinity)(nil)
	_ framework.FilterPlugin      = (*NodeAffinity)(nil)
	_ framework.PreScorePlugin    = (*NodeAffinity)(nil)
	_ framework.ScorePlugin       = (*NodeAffinity)(nil)
	_ framework.ScoreExtensions   = (*NodeAffinity)(nil)
	_ framework.EnqueueExtensions = (*NodeAffinity)(nil)
)

// New builds the plugin from its arguments, rejecting unknown fields and terms that do not
// parse.
func New(raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	args := &Args{}
	if err := framework.DecodeArgs(raw, args); err != nil {
		return nil, fmt.Errorf("NodeAffinity args: %w", err)
	}
	pl := &NodeAffinity{}
	aa := args.AddedAffinity
	if aa == nil {
		return pl, nil
	}
	if ns := aa.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		// component-helpers gives the error messages; the compiled form does the matching.
		if _, err := helper.NewNodeSelector(ns); err != nil {
			return nil, fmt.Errorf("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: %w", err)
		}
		sel, _ := compileNodeSelector(ns)
		pl.addedRequired = &sel
	}
	if prefs := aa.PreferredDuringSchedulingIgnoredDuringExecution; len(prefs) > 0 {
		if _, err := helper.NewPreferredSchedulingTerms(prefs); err != nil {
			return nil, fmt.Errorf("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: %w", err)
		}
		pl.addedPrefs, _ = compilePreferred(prefs)
		pl.hasAddedPrefs = true
	}
	return pl, nil
}

// Name implements framework.Plugin.
func (*NodeAffinity) Name() string { return Name }

// preFilterState is the pod's compiled required affinity; it does not depend on other pods.
type preFilterState struct {
	required *requiredAffinity
}

// Clone implements framework.StateData; the state is never mutated after PreFilter.
func (s *preFilterState) Clone() framework.StateData { return s }

func requiredTerms(pod *v1.Pod) *v1.NodeSelector {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// PreFilter compiles the pod's required affinity, skips Filter when there is nothing to
// check, and narrows the nodes when every required term pins metadata.name.
func (pl *NodeAffinity) PreFilter(_ context.Context, state *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	pod := p.Pod
	required := requiredTerms(pod)
	if required == nil && pl.addedRequired == nil && pod.Spec.NodeSelector == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, &preFilterState{required: compileRequired(pod)})
	if required == nil {
		return nil, nil
	}
	return nodeNamesOf(required)
}

// nodeNamesOf returns the nodes the required terms allow by name: the union over terms of
// the intersection of each term's "metadata.name In" values. A term without such a
// requirement allows every node, so there is no narrowing then.
func nodeNamesOf(required *v1.NodeSelector) (*framework.PreFilterResult, *framework.Status) {
	if len(required.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	var names map[string]struct{}
	for i := range required.NodeSelectorTerms {
		var termNames map[string]struct{}
		for _, r := range required.NodeSelectorTerms[i].MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != v1.NodeSelectorOpIn {
				continue
			}
			if termNames == nil {
				termNames = make(map[string]struct{}, len(r.Values))
				for _, v := range r.Values {
					termNames[v] = struct{}{}
				}
				continue
			}
			for n := range termNames {
				if !contains(r.Values, n) {
					delete(termNames, n)
				}
			}
		}
		if termNames == nil {
			return nil, nil
		}
		if names == nil {
			names = termNames
			continue
		}
		for n := range termNames {
			names[n] = struct{}{}
		}
	}
	if len(names) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	}
	return &framework.PreFilterResult{NodeNames: names}, nil
}

func contains(values []string, s string) bool {
	for _, v := range values {
		if v == s {
			return true
		}
	}
	return false
}

// PreFilterExtensions returns nil: the state does not depend on other pods.
func (*NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node that does not match the added affinity or the pod's nodeSelector
// and required affinity. Preemption cannot change labels: UnschedulableAndUnresolvable.
func (pl *NodeAffinity) Filter(_ context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	node := n.Node()
	if pl.addedRequired != nil && !pl.addedRequired.matches(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, rejectedEnforced...)
	}
	var match bool
	if s, ok := state.Read(preFilterStateKey).(*preFilterState); ok {
		match = s.required.matches(node)
	} else {
		// PreFilter did not run for this state: fall back to the parsed form PodInfo keeps.
		// Parse errors count as no match, as in kube-scheduler.
		match, _ = p.RequiredNodeAffinity.Match(node)
	}
	if !match {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, rejectedPod...)
	}
	return nil
}

// preScoreState holds the preferred terms to score with: the added ones, then the pod's.
type preScoreState struct {
	terms []term
}

// Clone implements framework.StateData; the state is never mutated after PreScore.
func (s *preScoreState) Clone() framework.StateData { return s }

// PreScore compiles the preferred terms; Skip when neither the pod nor the profile has any.
// A pod term that does not parse is an error, as in kube-scheduler.
func (pl *NodeAffinity) PreScore(_ context.Context, state *framework.CycleState, p *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	s, st := pl.preferred(p.Pod)
	if st != nil {
		return st
	}
	if s == nil {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// preferred returns the terms to score with, nil when there are none to consider.
func (pl *NodeAffinity) preferred(pod *v1.Pod) (*preScoreState, *framework.Status) {
	var prefs []v1.PreferredSchedulingTerm
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		prefs = a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	if prefs == nil && !pl.hasAddedPrefs {
		return nil, nil
	}
	podTerms, ok := compilePreferred(prefs)
	if !ok {
		_, err := helper.NewPreferredSchedulingTerms(prefs)
		return nil, framework.AsStatus(err)
	}
	terms := make([]term, 0, len(pl.addedPrefs)+len(podTerms))
	terms = append(append(terms, pl.addedPrefs...), podTerms...)
	return &preScoreState{terms: terms}, nil
}

// Score is the sum of the weights of the preferred terms the node matches.
func (pl *NodeAffinity) Score(_ context.Context, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		// PreScore did not run (a caller scoring directly): compile here.
		var st *framework.Status
		if s, st = pl.preferred(p.Pod); st != nil || s == nil {
			return 0, st
		}
	}
	return scoreTerms(s.terms, n.Node()), nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the sums onto [0, MaxNodeScore] relative to the largest (as
// kube-scheduler's DefaultNormalizeScore); all zero stays all zero.
func (*NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	framework.DefaultNormalizeScore(false, scores)
	return nil
}

// EventsToRegister: a new node, or new labels on a node, may match. Node names never
// change, so no other update can. The pod's own spec updates are covered by the
// scheduler's pod-update registration.
func (*NodeAffinity) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeLabel}}
}

// StaticFilterKey implements framework.StaticFilterPlugin: the verdict depends only on the
// pod's node selector and required node affinity (addedAffinity is the same for every pod
// of the profile).
func (*NodeAffinity) StaticFilterKey(p *framework.PodInfo) string {
	return framework.NodeSelectionKey(p.Pod)
}
