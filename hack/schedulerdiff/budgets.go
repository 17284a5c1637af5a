package schedulerdiff

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/phalanx-dev/phalanx/pkg/cache"
)

// The preemption comparison's PodDisruptionBudgets: like the storage objects, one fixed
// set that both schedulers read (kube-scheduler's DefaultPreemption through an informer
// made once), over the app labels the generator gives pods. Their status says how many
// disruptions each allows, as the disruption controller would have written it.
func budgets() []*policyv1.PodDisruptionBudget {
	pdb := func(ns, name string, sel *metav1.LabelSelector, allowed int32) *policyv1.PodDisruptionBudget {
		zero := intstr.FromInt32(0)
		return &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: sel, MaxUnavailable: &zero},
			Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
		}
	}
	app := func(a string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": a}}
	}
	return []*policyv1.PodDisruptionBudget{
		pdb("default", "web", app("web"), 0),
		pdb("default", "db", app("db"), 1),
		pdb("other", "cache", app("cache"), 0),
		// An empty selector: a budget that covers no pod (policy/v1 says every pod of the
		// namespace, kube-scheduler's preemption reads it as none).
		pdb("third", "everything", &metav1.LabelSelector{}, 0),
	}
}

// BudgetObjects are the budgets, for upstream's informers.
func BudgetObjects() []runtime.Object {
	var out []runtime.Object
	for _, b := range budgets() {
		out = append(out, b)
	}
	return out
}

// setBudgets puts the budgets in phalanx's cache.
func setBudgets(c *cache.Cache) {
	for _, b := range budgets() {
		c.DisruptionBudgets().SetPDB(b)
	}
}
