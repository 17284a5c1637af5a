package cache

import (
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// SetGroup records or replaces a PodGroup.
func (c *Cache) SetGroup(g *framework.GroupInfo) {
	c.groups[g.Key] = g
	c.unitsChanged()
}

// RemoveGroup forgets a PodGroup.
func (c *Cache) RemoveGroup(key string) {
	delete(c.groups, key)
	c.unitsChanged()
}

// Group returns a PodGroup by namespace/name, or nil (framework.Snapshot).
func (c *Cache) Group(key string) *framework.GroupInfo { return c.groups[key] }

// GroupMembers returns the bound or assumed members of a group, in the order they were
// added (framework.Snapshot). Simulations do not change it.
func (c *Cache) GroupMembers(key string) []*framework.PodInfo { return c.members[key] }

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
