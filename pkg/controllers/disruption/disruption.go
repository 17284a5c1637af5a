// Package disruption models the disruption controller, as kube-controller-manager runs it:
// each PodDisruptionBudget's status (expected, healthy and desired pods, and the
// disruptions allowed) computed from the pods it selects, whenever pods changed. The
// scheduler reads disruptionsAllowed when it weighs preemption victims.
//
// It is pure: the simulator gives it the pods and is told of each status that changed.
package disruption

import (
	"iter"
	"math"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pods are the pods of the cluster that exist, each with whether its deletion has started.
type Pods func() iter.Seq2[*v1.Pod, bool]

// Controller keeps the budgets' status.
type Controller struct {
	pods    Pods
	updated func(old, pdb *policyv1.PodDisruptionBudget)
	budgets []*policyv1.PodDisruptionBudget
	dirty   bool
}

// New is a controller reading pods, telling updated of every budget whose status changed.
func New(pods Pods, updated func(old, pdb *policyv1.PodDisruptionBudget)) *Controller {
	return &Controller{pods: pods, updated: updated}
}

// Add adds a budget; its status is computed at the next Sync.
func (c *Controller) Add(pdb *policyv1.PodDisruptionBudget) {
	c.budgets = append(c.budgets, pdb)
	c.dirty = true
}

// PodsChanged says pods came, went or changed since the last Sync.
func (c *Controller) PodsChanged() { c.dirty = true }

// Sync recomputes the budgets' status when pods changed since the last time.
func (c *Controller) Sync() {
	if !c.dirty || len(c.budgets) == 0 {
		c.dirty = false
		return
	}
	c.dirty = false
	for i, pdb := range c.budgets {
		st := Status(pdb, c.pods())
		if apiequality.Semantic.DeepEqual(st, pdb.Status) {
			continue
		}
		next := pdb.DeepCopy()
		next.Status = st
		c.budgets[i] = next
		c.updated(pdb, next)
	}
}

// Status computes a budget's status from the pods it selects. Without controllers to ask
// for a scale, the expected count is the number of selected pods that exist and have not
// finished, which is what a controller's replica count amounts to here.
func Status(pdb *policyv1.PodDisruptionBudget, pods iter.Seq2[*v1.Pod, bool]) policyv1.PodDisruptionBudgetStatus {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	expected, healthy := 0, 0
	for p, terminating := range pods {
		if p.Namespace != pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		expected++
		if p.Spec.NodeName != "" && !terminating && p.Status.Phase == v1.PodRunning {
			healthy++
		}
	}
	desired := expected
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		maxUnavailable := scaled(pdb.Spec.MaxUnavailable, expected)
		desired = max(0, expected-maxUnavailable)
	case pdb.Spec.MinAvailable != nil:
		desired = scaled(pdb.Spec.MinAvailable, expected)
	}
	return policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation,
		DisruptionsAllowed: int32(max(0, healthy-desired)),
		CurrentHealthy:     int32(healthy),
		DesiredHealthy:     int32(desired),
		ExpectedPods:       int32(expected),
	}
}

// scaled resolves an int-or-percent against a total, rounding percentages up as the
// disruption controller does.
func scaled(v *intstr.IntOrString, total int) int {
	if v.Type == intstr.Int {
		return v.IntValue()
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return int(math.MaxInt32)
	}
	return n
}
