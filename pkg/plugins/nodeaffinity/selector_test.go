package nodeaffinity

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	helper "k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

func expr(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// equivalenceTerms covers every operator, the parse errors and the field cases whose
// semantics the compiled matchers must share with component-helpers.
var equivalenceTerms = []v1.NodeSelectorTerm{
	{},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpIn, "a", "b")}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpNotIn, "a")}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("gpu", v1.NodeSelectorOpExists)}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("gpu", v1.NodeSelectorOpDoesNotExist)}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("cores", v1.NodeSelectorOpGt, "8")}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("cores", v1.NodeSelectorOpLt, "16")}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpIn, "a"), expr("gpu", v1.NodeSelectorOpExists)}},
	{MatchFields: []v1.NodeSelectorRequirement{expr(metav1.ObjectNameField, v1.NodeSelectorOpIn, "n1")}},
	{MatchFields: []v1.NodeSelectorRequirement{expr(metav1.ObjectNameField, v1.NodeSelectorOpNotIn, "n1")}},
	{MatchFields: []v1.NodeSelectorRequirement{expr("metadata.namespace", v1.NodeSelectorOpIn, "")}},
	{MatchFields: []v1.NodeSelectorRequirement{expr("metadata.namespace", v1.NodeSelectorOpNotIn, "x")}},
	{
		MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpIn, "b")},
		MatchFields:      []v1.NodeSelectorRequirement{expr(metav1.ObjectNameField, v1.NodeSelectorOpIn, "n2")},
	},
	// Parse errors: such terms never match.
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", "Like", "a")}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("cores", v1.NodeSelectorOpGt, "many")}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpIn)}},
	{MatchExpressions: []v1.NodeSelectorRequirement{expr("bad key!", v1.NodeSelectorOpExists)}},
	{MatchFields: []v1.NodeSelectorRequirement{expr(metav1.ObjectNameField, v1.NodeSelectorOpIn, "n1", "n2")}},
	{MatchFields: []v1.NodeSelectorRequirement{expr(metav1.ObjectNameField, v1.NodeSelectorOpExists)}},
}

var equivalenceNodes = []*v1.Node{
	{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a", "cores": "4"}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "n2", Labels: map[string]string{"zone": "b", "gpu": "", "cores": "12"}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "n3", Labels: map[string]string{"zone": "c", "cores": "32"}}},
	{ObjectMeta: metav1.ObjectMeta{Name: "n4"}},
	{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"zone": "a"}}}, // no name: fields are skipped
}

// TestCompiledMatchesHelpers checks the compiled matchers against component-helpers on
// every pair of terms (as ORed required terms and as preferred terms), with and without a
// nodeSelector, on every node.
func TestCompiledMatchesHelpers(t *testing.T) {
	selectors := []map[string]string{nil, {"zone": "a"}, {"gpu": ""}}
	for i := range equivalenceTerms {
		for j := range equivalenceTerms {
			terms := []v1.NodeSelectorTerm{equivalenceTerms[i], equivalenceTerms[j]}
			for _, nsel := range selectors {
				pod := &v1.Pod{Spec: v1.PodSpec{NodeSelector: nsel, Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
				}}}}
				want := helper.GetRequiredNodeAffinity(pod)
				got := compileRequired(pod)
				for _, n := range equivalenceNodes {
					w, _ := want.Match(n)
					if g := got.matches(n); g != w {
						t.Errorf("required terms %d,%d, nodeSelector %v, node %q: compiled %v, helpers %v", i, j, nsel, n.Name, g, w)
					}
				}
			}

			prefs := []v1.PreferredSchedulingTerm{{Weight: 3, Preference: terms[0]}, {Weight: 5, Preference: terms[1]}, {Weight: 0, Preference: terms[0]}}
			wantPrefs, err := helper.NewPreferredSchedulingTerms(prefs)
			gotPrefs, ok := compilePreferred(prefs)
			if ok != (err == nil) {
				t.Fatalf("preferred terms %d,%d: compiled ok=%v, helpers error %v", i, j, ok, err)
			}
			if !ok {
				continue
			}
			for _, n := range equivalenceNodes {
				if g, w := scoreTerms(gotPrefs, n), wantPrefs.Score(n); g != w {
					t.Errorf("preferred terms %d,%d, node %q: compiled score %d, helpers %d", i, j, n.Name, g, w)
				}
			}
		}
	}
}

func TestCompiledNodeSelectorReportsParseErrors(t *testing.T) {
	for i := range equivalenceTerms {
		ns := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{equivalenceTerms[i]}}
		_, err := helper.NewNodeSelector(ns)
		if _, ok := compileNodeSelector(ns); ok != (err == nil) {
			t.Errorf("term %d: compiled ok=%v, helpers error %v", i, ok, err)
		}
	}
}

func TestRequiredWithNoTermsMatchesNothing(t *testing.T) {
	for _, terms := range [][]v1.NodeSelectorTerm{nil, {{}}} {
		pod := &v1.Pod{Spec: v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
		}}}}
		for _, n := range equivalenceNodes {
			if compileRequired(pod).matches(n) {
				t.Errorf("terms %v matched node %q", terms, n.Name)
			}
		}
	}
}
