package nodeaffinity

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// This file compiles node selector terms into matchers that allocate nothing per node.
// component-helpers' nodeaffinity matchers build a fields.Set map for every node they look
// at, which Filter and Score would pay on thousands of nodes per pod. The semantics are
// theirs, term for term (selector_test.go checks them against each other):
//   - terms are ORed; a term with neither matchExpressions nor matchFields is dropped;
//   - a term that does not parse never matches (parse errors are reported only where
//     kube-scheduler reports them: addedAffinity at construction, preferred terms in
//     PreScore; a pod's bad required term just matches no node);
//   - matchFields support In and NotIn with exactly one value, against the node's
//     metadata.name (any other key reads as "").

// term is one parsed NodeSelectorTerm, with its weight when it is a preferred term.
type term struct {
	// labels is nil when the term has no matchExpressions.
	labels labels.Selector
	fields []fieldRequirement
	weight int64
}

type fieldRequirement struct {
	key, value string
	equal      bool // In: equal; NotIn: not equal
}

func (t *term) matches(node *v1.Node) bool {
	if t.labels != nil && !t.labels.Matches(labels.Set(node.Labels)) {
		return false
	}
	// kube-scheduler gives a node without a name no fields, and then skips matchFields.
	if node.Name == "" {
		return true
	}
	for i := range t.fields {
		f := &t.fields[i]
		got := ""
		if f.key == metav1.ObjectNameField {
			got = node.Name
		}
		if (got == f.value) != f.equal {
			return false
		}
	}
	return true
}

// compileTerm parses a term; ok is false when it does not parse.
func compileTerm(nst *v1.NodeSelectorTerm) (t term, ok bool) {
	if len(nst.MatchExpressions) > 0 {
		sel := labels.NewSelector()
		for _, expr := range nst.MatchExpressions {
			op, known := selectorOps[expr.Operator]
			if !known {
				return term{}, false
			}
			r, err := labels.NewRequirement(expr.Key, op, expr.Values)
			if err != nil {
				return term{}, false
			}
			sel = sel.Add(*r)
		}
		t.labels = sel
	}
	for _, expr := range nst.MatchFields {
		if len(expr.Values) != 1 {
			return term{}, false
		}
		switch expr.Operator {
		case v1.NodeSelectorOpIn:
			t.fields = append(t.fields, fieldRequirement{key: expr.Key, value: expr.Values[0], equal: true})
		case v1.NodeSelectorOpNotIn:
			t.fields = append(t.fields, fieldRequirement{key: expr.Key, value: expr.Values[0]})
		default:
			return term{}, false
		}
	}
	return t, true
}

var selectorOps = map[v1.NodeSelectorOperator]selection.Operator{
	v1.NodeSelectorOpIn:           selection.In,
	v1.NodeSelectorOpNotIn:        selection.NotIn,
	v1.NodeSelectorOpExists:       selection.Exists,
	v1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	v1.NodeSelectorOpGt:           selection.GreaterThan,
	v1.NodeSelectorOpLt:           selection.LessThan,
}

func isEmptyTerm(t *v1.NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

// nodeSelector is a compiled v1.NodeSelector: its terms ORed. With no usable term it
// matches no node, as in kube-scheduler.
type nodeSelector struct {
	terms []term
}

// compileNodeSelector keeps the terms that parse; ok is false if any did not.
func compileNodeSelector(ns *v1.NodeSelector) (sel nodeSelector, ok bool) {
	ok = true
	for i := range ns.NodeSelectorTerms {
		nst := &ns.NodeSelectorTerms[i]
		if isEmptyTerm(nst) {
			continue
		}
		t, tok := compileTerm(nst)
		if !tok {
			ok = false
			continue
		}
		sel.terms = append(sel.terms, t)
	}
	return sel, ok
}

func (s *nodeSelector) matches(node *v1.Node) bool {
	for i := range s.terms {
		if s.terms[i].matches(node) {
			return true
		}
	}
	return false
}

// requiredAffinity is a pod's spec.nodeSelector ANDed with its required node affinity,
// the compiled equivalent of PodInfo.RequiredNodeAffinity.
type requiredAffinity struct {
	// nodeSelector holds spec.nodeSelector as pairs: a slice walks faster than a map.
	nodeSelector []labelPair
	// affinity is nil when the pod has no required node affinity.
	affinity *nodeSelector
}

type labelPair struct{ key, value string }

func compileRequired(pod *v1.Pod) *requiredAffinity {
	r := &requiredAffinity{}
	if len(pod.Spec.NodeSelector) > 0 {
		r.nodeSelector = make([]labelPair, 0, len(pod.Spec.NodeSelector))
		for k, v := range pod.Spec.NodeSelector {
			r.nodeSelector = append(r.nodeSelector, labelPair{k, v})
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		sel, _ := compileNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		r.affinity = &sel
	}
	return r
}

func (r *requiredAffinity) matches(node *v1.Node) bool {
	// spec.nodeSelector is an Equals requirement per key: the label must exist and be equal.
	for _, l := range r.nodeSelector {
		if got, ok := node.Labels[l.key]; !ok || got != l.value {
			return false
		}
	}
	return r.affinity == nil || r.affinity.matches(node)
}

// compilePreferred parses preferred terms, skipping those with weight 0 or nothing in
// them; ok is false when a term does not parse.
func compilePreferred(prefs []v1.PreferredSchedulingTerm) (terms []term, ok bool) {
	for i := range prefs {
		pst := &prefs[i]
		if pst.Weight == 0 || isEmptyTerm(&pst.Preference) {
			continue
		}
		t, tok := compileTerm(&pst.Preference)
		if !tok {
			return nil, false
		}
		t.weight = int64(pst.Weight)
		terms = append(terms, t)
	}
	return terms, true
}

// scoreTerms sums the weights of the terms that match the node.
func scoreTerms(terms []term, node *v1.Node) int64 {
	var score int64
	for i := range terms {
		if terms[i].matches(node) {
			score += terms[i].weight
		}
	}
	return score
}
