package cache

import (
	"sort"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// BudgetStore holds the PodDisruptionBudgets, which preemption honours when it picks
// victims. A change changes the units version (Cache.UnitsVersion).
type BudgetStore struct {
	units *unitsVersion
	pdbs  map[string]*framework.PDBInfo
	// list is PDBs' answer, rebuilt on first use after a change.
	list []*framework.PDBInfo
}

func newBudgetStore(units *unitsVersion) *BudgetStore {
	return &BudgetStore{units: units, pdbs: map[string]*framework.PDBInfo{}}
}

// SetPDB records or replaces a PodDisruptionBudget. A selector that does not parse selects
// nothing, as the disruption controller treats it.
func (b *BudgetStore) SetPDB(pdb *policyv1.PodDisruptionBudget) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		sel = labels.Nothing()
	}
	b.pdbs[pdb.Namespace+"/"+pdb.Name] = &framework.PDBInfo{PDB: pdb, Selector: sel}
	b.units.changed()
	b.list = nil
}

// RemovePDB forgets a PodDisruptionBudget.
func (b *BudgetStore) RemovePDB(key string) {
	delete(b.pdbs, key)
	b.units.changed()
	b.list = nil
}

// PDBs returns every PodDisruptionBudget ordered by namespace/name.
func (b *BudgetStore) PDBs() []*framework.PDBInfo {
	if b.list == nil && len(b.pdbs) > 0 {
		keys := make([]string, 0, len(b.pdbs))
		for k := range b.pdbs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.list = append(b.list, b.pdbs[k])
		}
	}
	return b.list
}
