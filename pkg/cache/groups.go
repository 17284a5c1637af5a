package cache

import (
	"fmt"
	"maps"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// GroupStore holds the PodGroups and CompositePodGroups, the hierarchy the composites make
// (which groups and composites name each as their parent), and the bound or assumed
// members of each group. A change of any of them changes the units version
// (Cache.UnitsVersion); simulations change none of them.
type GroupStore struct {
	// undo says when a simulation runs, whose pods are no members.
	undo       *undoLog
	units      *unitsVersion
	groups     map[string]*framework.GroupInfo
	composites map[string]*framework.GroupInfo
	// children indexes, by composite, the groups and composites that name it as their
	// parent.
	children map[string]*childSet
	// members are the bound or assumed members of each group, outside simulations.
	members map[string][]*framework.PodInfo
}

func newGroupStore(undo *undoLog, units *unitsVersion) *GroupStore {
	return &GroupStore{
		undo:       undo,
		units:      units,
		groups:     map[string]*framework.GroupInfo{},
		composites: map[string]*framework.GroupInfo{},
		children:   map[string]*childSet{},
		members:    map[string][]*framework.PodInfo{},
	}
}

// SetGroup records or replaces a PodGroup.
func (s *GroupStore) SetGroup(g *framework.GroupInfo) { s.set(s.groups, g, false) }

// RemoveGroup forgets a PodGroup.
func (s *GroupStore) RemoveGroup(key string) { s.remove(s.groups, key, false) }

// Group returns a PodGroup by namespace/name, or nil.
func (s *GroupStore) Group(key string) *framework.GroupInfo { return s.groups[key] }

// GroupMembers returns the bound or assumed members of a group, in the order they were
// added. Simulations do not change it.
func (s *GroupStore) GroupMembers(key string) []*framework.PodInfo { return s.members[key] }

func (s *GroupStore) podAdded(pi *framework.PodInfo)   { s.trackMember(pi, true) }
func (s *GroupStore) podRemoved(pi *framework.PodInfo) { s.trackMember(pi, false) }

// trackMember keeps GroupMembers up to date for real changes; changes inside a simulation
// (under a checkpoint) are left out, since they are rolled back anyway.
func (s *GroupStore) trackMember(pi *framework.PodInfo, added bool) {
	if s.undo.simulating() || pi.Group == "" {
		return
	}
	key := framework.GroupKey(pi)
	s.units.changed()
	list := s.members[key]
	if added {
		s.members[key] = append(list, pi)
		return
	}
	if i := slices.Index(list, pi); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(s.members, key)
	} else {
		s.members[key] = list
	}
}

// SetComposite records or replaces a CompositePodGroup.
func (s *GroupStore) SetComposite(g *framework.GroupInfo) { s.set(s.composites, g, true) }

// RemoveComposite forgets a CompositePodGroup.
func (s *GroupStore) RemoveComposite(key string) { s.remove(s.composites, key, true) }

// set records a group or composite in m (composites when composite), and where it sits
// in the hierarchy.
func (s *GroupStore) set(m map[string]*framework.GroupInfo, g *framework.GroupInfo, composite bool) {
	s.remove(m, g.Key, composite) // the one it replaces

	m[g.Key] = g
	s.linkChild(g.ParentKey(), g.Key, composite)
}

// remove forgets a group or composite of m and its place in the hierarchy, and notes that
// the units changed.
func (s *GroupStore) remove(m map[string]*framework.GroupInfo, key string, composite bool) {
	if old := m[key]; old != nil {
		s.unlinkChild(old.ParentKey(), key, composite)
	}
	delete(m, key)
	s.units.changed()
}

// Composite returns a CompositePodGroup by namespace/name, or nil.
func (s *GroupStore) Composite(key string) *framework.GroupInfo { return s.composites[key] }

// CompositeChildren returns the keys of the PodGroups and of the composites that name a
// composite as their parent, sorted.
func (s *GroupStore) CompositeChildren(key string) (groups, composites []string) {
	ch := s.children[key]
	if ch == nil {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(ch.groups)), slices.Sorted(maps.Keys(ch.composites))
}

// CompositeGroups returns the keys of the PodGroups in a composite's hierarchy, sorted. A
// cycle of composites naming each other is walked once.
func (s *GroupStore) CompositeGroups(key string) []string {
	var out []string
	s.WalkComposites([]string{key}, func(_ string, groups []string) { out = append(out, groups...) })
	slices.Sort(out)
	return out
}

// WalkComposites visits the composites from each of starts down their hierarchies, parents
// before their children, each once (a cycle of composites naming each other included),
// with the keys of the PodGroups that name it as their parent. A start that is not a
// known composite is visited too, with the groups that name it.
func (s *GroupStore) WalkComposites(starts []string, visit func(key string, groups []string)) {
	seen := map[string]bool{}
	var walk func(key string)
	walk = func(key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		groups, subs := s.CompositeChildren(key)
		visit(key, groups)
		for _, sub := range subs {
			walk(sub)
		}
	}
	for _, key := range starts {
		walk(key)
	}
}

// childSet holds the children of one composite, by kind.
type childSet struct {
	groups, composites map[string]bool
}

// linkChild records that child names parent as its composite ("" parent: none).
func (s *GroupStore) linkChild(parent, child string, composite bool) {
	if parent == "" {
		return
	}
	ch := s.children[parent]
	if ch == nil {
		ch = &childSet{groups: map[string]bool{}, composites: map[string]bool{}}
		s.children[parent] = ch
	}
	if composite {
		ch.composites[child] = true
	} else {
		ch.groups[child] = true
	}
}

func (s *GroupStore) unlinkChild(parent, child string, composite bool) {
	ch := s.children[parent]
	if ch == nil {
		return
	}
	if composite {
		delete(ch.composites, child)
	} else {
		delete(ch.groups, child)
	}
	if len(ch.groups)+len(ch.composites) == 0 {
		delete(s.children, parent)
	}
}

// CompositeKeys returns the keys of the known CompositePodGroups, sorted.
func (s *GroupStore) CompositeKeys() []string { return slices.Sorted(maps.Keys(s.composites)) }

// verify checks the group members and the composites' hierarchy against what they are
// built from.
func (s *GroupStore) verify(pods *NodeStore) error {
	if err := s.verifyMembers(pods); err != nil {
		return err
	}
	return s.verifyHierarchy()
}

// verifyMembers: outside simulations, each group's members are exactly its pods in the
// cache. Inside one the list deliberately shows the cluster without the simulation.
func (s *GroupStore) verifyMembers(pods *NodeStore) error {
	if s.undo.simulating() {
		return nil
	}
	want := map[string][]*framework.PodInfo{}
	for pi := range pods.entries {
		if pi.Group != "" {
			key := framework.GroupKey(pi)
			want[key] = append(want[key], pi)
		}
	}
	if len(want) != len(s.members) {
		return fmt.Errorf("%d groups have pods, %d have members", len(want), len(s.members))
	}
	for key, pods := range want {
		got := s.members[key]
		if len(got) != len(pods) {
			return fmt.Errorf("group %s: %d members listed, %d in the cache", key, len(got), len(pods))
		}
		for _, p := range pods {
			if !slices.Contains(got, p) {
				return fmt.Errorf("group %s: member %s not listed", key, p.Key)
			}
		}
	}
	return nil
}

// verifyHierarchy: each composite's children are exactly the groups and composites that
// name it as their parent.
func (s *GroupStore) verifyHierarchy() error {
	want := &GroupStore{children: map[string]*childSet{}}
	for key, g := range s.groups {
		want.linkChild(g.ParentKey(), key, false)
	}
	for key, g := range s.composites {
		want.linkChild(g.ParentKey(), key, true)
	}
	if len(want.children) != len(s.children) {
		return fmt.Errorf("%d composites have children, %d indexed", len(want.children), len(s.children))
	}
	for parent, ch := range want.children {
		got := s.children[parent]
		if got == nil || !maps.Equal(got.groups, ch.groups) || !maps.Equal(got.composites, ch.composites) {
			return fmt.Errorf("composite %s: children indexed differ from those naming it", parent)
		}
	}
	return nil
}
