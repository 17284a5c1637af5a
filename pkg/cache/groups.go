package cache

import (
	"maps"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// SetGroup records or replaces a PodGroup.
func (c *Cache) SetGroup(g *framework.GroupInfo) {
	if old := c.groups[g.Key]; old != nil {
		c.unlinkChild(old.ParentKey(), g.Key, false)
	}
	c.groups[g.Key] = g
	c.linkChild(g.ParentKey(), g.Key, false)
	c.unitsChanged()
}

// RemoveGroup forgets a PodGroup.
func (c *Cache) RemoveGroup(key string) {
	if old := c.groups[key]; old != nil {
		c.unlinkChild(old.ParentKey(), key, false)
	}
	delete(c.groups, key)
	c.unitsChanged()
}

// Group returns a PodGroup by namespace/name, or nil (framework.Snapshot).
func (c *Cache) Group(key string) *framework.GroupInfo { return c.groups[key] }

// GroupMembers returns the bound or assumed members of a group, in the order they were
// added (framework.Snapshot). Simulations do not change it.
func (c *Cache) GroupMembers(key string) []*framework.PodInfo { return c.members[key] }

// memberWatcher keeps GroupMembers up to date as pods come and go.
type memberWatcher struct{ c *Cache }

func (w memberWatcher) podAdded(pi *framework.PodInfo)   { w.c.trackMember(pi, true) }
func (w memberWatcher) podRemoved(pi *framework.PodInfo) { w.c.trackMember(pi, false) }

// trackMember keeps GroupMembers up to date for real changes; changes inside a simulation
// (under a checkpoint) are left out, since they are rolled back anyway.
func (c *Cache) trackMember(pi *framework.PodInfo, added bool) {
	if c.simulating() || pi.Group == "" {
		return
	}
	key := framework.GroupKey(pi)
	c.unitsChanged()
	list := c.members[key]
	if added {
		c.members[key] = append(list, pi)
		return
	}
	if i := slices.Index(list, pi); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(c.members, key)
	} else {
		c.members[key] = list
	}
}

// SetComposite records or replaces a CompositePodGroup.
func (c *Cache) SetComposite(g *framework.GroupInfo) {
	if old := c.composites[g.Key]; old != nil {
		c.unlinkChild(old.ParentKey(), g.Key, true)
	}
	c.composites[g.Key] = g
	c.linkChild(g.ParentKey(), g.Key, true)
	c.unitsChanged()
}

// RemoveComposite forgets a CompositePodGroup.
func (c *Cache) RemoveComposite(key string) {
	if old := c.composites[key]; old != nil {
		c.unlinkChild(old.ParentKey(), key, true)
	}
	delete(c.composites, key)
	c.unitsChanged()
}

// Composite returns a CompositePodGroup by namespace/name, or nil (framework.Snapshot).
func (c *Cache) Composite(key string) *framework.GroupInfo { return c.composites[key] }

// CompositeChildren returns the keys of the PodGroups and of the composites that name a
// composite as their parent, sorted.
func (c *Cache) CompositeChildren(key string) (groups, composites []string) {
	ch := c.children[key]
	if ch == nil {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(ch.groups)), slices.Sorted(maps.Keys(ch.composites))
}

// CompositeGroups returns the keys of the PodGroups in a composite's hierarchy, sorted
// (framework.Snapshot). A cycle of composites naming each other is walked once.
func (c *Cache) CompositeGroups(key string) []string {
	var out []string
	c.WalkComposites([]string{key}, func(_ string, groups []string) { out = append(out, groups...) })
	slices.Sort(out)
	return out
}

// WalkComposites visits the composites from each of starts down their hierarchies, parents
// before their children, each once (a cycle of composites naming each other included),
// with the keys of the PodGroups that name it as their parent. A start that is not a
// known composite is visited too, with the groups that name it.
func (c *Cache) WalkComposites(starts []string, visit func(key string, groups []string)) {
	seen := map[string]bool{}
	var walk func(key string)
	walk = func(key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		groups, subs := c.CompositeChildren(key)
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
func (c *Cache) linkChild(parent, child string, composite bool) {
	if parent == "" {
		return
	}
	ch := c.children[parent]
	if ch == nil {
		ch = &childSet{groups: map[string]bool{}, composites: map[string]bool{}}
		c.children[parent] = ch
	}
	if composite {
		ch.composites[child] = true
	} else {
		ch.groups[child] = true
	}
}

func (c *Cache) unlinkChild(parent, child string, composite bool) {
	ch := c.children[parent]
	if ch == nil {
		return
	}
	if composite {
		delete(ch.composites, child)
	} else {
		delete(ch.groups, child)
	}
	if len(ch.groups)+len(ch.composites) == 0 {
		delete(c.children, parent)
	}
}

// CompositeKeys returns the keys of the known CompositePodGroups, sorted.
func (c *Cache) CompositeKeys() []string { return slices.Sorted(maps.Keys(c.composites)) }
