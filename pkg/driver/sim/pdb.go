package sim

import (
	"math"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// refreshPDBs recomputes PDB status the way the disruption controller does, when pods
// changed since the last time. The scheduler reads disruptionsAllowed when it weighs
// preemption victims.
func (s *Simulator) refreshPDBs() {
	if !s.pdbsDirty || len(s.pdbs) == 0 {
		s.pdbsDirty = false
		return
	}
	s.pdbsDirty = false
	for i, pdb := range s.pdbs {
		st := s.pdbStatus(pdb)
		if apiequality.Semantic.DeepEqual(st, pdb.Status) {
			continue
		}
		next := pdb.DeepCopy()
		next.Status = st
		s.pdbs[i] = next
		s.onPDBUpdate(pdb, next)
	}
}

// pdbStatus computes a PDB's status from the pods it selects. Without controllers to ask
// for a scale, the expected count is the number of selected pods that exist and have not
// finished, which is what a controller's replica count amounts to here.
func (s *Simulator) pdbStatus(pdb *policyv1.PodDisruptionBudget) policyv1.PodDisruptionBudgetStatus {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	expected, healthy := 0, 0
	for _, rec := range s.podOrder {
		p := rec.pod
		if !rec.created || rec.gone || p.Namespace != pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		expected++
		if p.Spec.NodeName != "" && !rec.terminating && p.Status.Phase == v1.PodRunning {
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

// onPDBUpdate tells the scheduler a PDB's status changed.
func (s *Simulator) onPDBUpdate(old, pdb *policyv1.PodDisruptionBudget) {
	s.sched.UpdatePDB(old, pdb)
}
