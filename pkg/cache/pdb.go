package cache

import (
	"sort"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// SetPDB records or replaces a PodDisruptionBudget. A selector that does not parse selects
// nothing, as the disruption controller treats it.
func (c *Cache) SetPDB(pdb *policyv1.PodDisruptionBudget) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	c.pdbs[pdb.Namespace+"/"+pdb.Name] = &framework.PDBInfo{PDB: pdb, Selector: sel}
	c.unitsChanged()
	c.pdbList = nil
}

// RemovePDB forgets a PodDisruptionBudget.
func (c *Cache) RemovePDB(key string) {
	delete(c.pdbs, key)
	c.unitsChanged()
	c.pdbList = nil
}

// PDBs returns every PodDisruptionBudget ordered by namespace/name (framework.Snapshot).
func (c *Cache) PDBs() []*framework.PDBInfo {
	if c.pdbList == nil && len(c.pdbs) > 0 {
		keys := make([]string, 0, len(c.pdbs))
		for k := range c.pdbs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c.pdbList = append(c.pdbList, c.pdbs[k])
		}
	}
	return c.pdbList
}
