package cache

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PDB is a PodDisruptionBudget with its selector parsed.
type PDB struct {
	PDB      *policyv1.PodDisruptionBudget
	Selector labels.Selector
}

// SetPDB records or replaces a PodDisruptionBudget. A selector that does not parse selects
// nothing, as the disruption controller treats it.
func (c *Cache) SetPDB(pdb *policyv1.PodDisruptionBudget) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	c.pdbs[pdb.Namespace+"/"+pdb.Name] = &PDB{PDB: pdb, Selector: sel}
}

// RemovePDB forgets a PodDisruptionBudget.
func (c *Cache) RemovePDB(key string) { delete(c.pdbs, key) }

// PDBs returns every PodDisruptionBudget by namespace/name; preemption matches them to
// victims by namespace and selector.
func (c *Cache) PDBs() map[string]*PDB { return c.pdbs }
