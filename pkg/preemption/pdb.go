package preemption

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// splitByPDB divides victims (in importance order) into those whose eviction would
// violate a PodDisruptionBudget and the others, spending each budget's allowed
// disruptions in that order, as kube-scheduler does. Pods the budget already counts as
// disrupted do not spend it again.
func splitByPDB(pods []*framework.PodInfo, pdbs []*framework.PDBInfo) (violating, ok []*framework.PodInfo) {
	if len(pdbs) == 0 {
		return nil, pods
	}
	allowed := make([]int32, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.PDB.Status.DisruptionsAllowed
	}
	for _, p := range pods {
		violated := false
		for i, pdb := range pdbs {
			if !Covered(pdb, p) {
				continue
			}
			allowed[i]--
			if allowed[i] < 0 {
				violated = true
			}
		}
		if violated {
			violating = append(violating, p)
		} else {
			ok = append(ok, p)
		}
	}
	return violating, ok
}

// UnderBudget reports whether a PodDisruptionBudget counts the pod (one it already counts as
// disrupted aside).
func UnderBudget(p *framework.PodInfo, pdbs []*framework.PDBInfo) bool {
	for _, pdb := range pdbs {
		if Covered(pdb, p) {
			return true
		}
	}
	return false
}

// Covered reports whether a budget counts the eviction of q: it selects q, and does not
// already count q as disrupted.
func Covered(pdb *framework.PDBInfo, q *framework.PodInfo) bool {
	if pdb.PDB.Namespace != q.Pod.Namespace || pdb.Selector.Empty() || !pdb.Selector.Matches(labels.Set(q.Pod.Labels)) {
		return false
	}
	_, disrupted := pdb.PDB.Status.DisruptedPods[q.Pod.Name]
	return !disrupted
}
