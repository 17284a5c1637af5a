package scheduler

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/placement"
)

// tree builds a composite unit's hierarchy from the cache, with its pending members filed
// under their PodGroups, for the group cycle to place. It says why the hierarchy cannot be
// scheduled as it stands: an invalid composite or group, a cycle of parents, more than
// MaxCompositeDepth levels, a member whose priority, preemptionPolicy or scheduler name
// differs from its group's.
func (pg *pendingGroups) tree(gs *groupState) (*placement.Tree, string) {
	byGroup := map[string][]*framework.PodInfo{}
	for _, p := range gs.pending {
		byGroup[framework.GroupKey(p)] = append(byGroup[framework.GroupKey(p)], p)
	}
	seen := map[string]bool{}
	var build func(c *framework.GroupInfo, depth int) (*placement.Tree, string)
	build = func(c *framework.GroupInfo, depth int) (*placement.Tree, string) {
		switch {
		case seen[c.Key]:
			return nil, fmt.Sprintf("CompositePodGroup %s: its parents form a cycle", c.Key)
		case depth >= v1alpha1.MaxCompositeDepth:
			return nil, fmt.Sprintf("CompositePodGroup %s: the hierarchy under %s has more than %d levels", c.Key, gs.key, v1alpha1.MaxCompositeDepth)
		case c.Invalid != "":
			return nil, "CompositePodGroup " + c.Key + ": " + c.Invalid
		}
		seen[c.Key] = true
		t := &placement.Tree{Group: c}
		groups, subs := pg.groupStore.CompositeChildren(c.Key)
		for _, key := range groups {
			g := pg.groupStore.Group(key)
			if g.Invalid != "" {
				return nil, "PodGroup " + key + ": " + g.Invalid
			}
			if depth+1 >= v1alpha1.MaxCompositeDepth {
				return nil, fmt.Sprintf("PodGroup %s: the hierarchy under %s has more than %d levels", key, gs.key, v1alpha1.MaxCompositeDepth)
			}
			for _, p := range byGroup[key] {
				if msg := framework.MemberMismatch(g, p, gs.schedulerName); msg != "" {
					return nil, msg
				}
			}
			t.Children = append(t.Children, &placement.Tree{Group: g, Pending: byGroup[key], Running: len(pg.groupStore.GroupMembers(key))})
		}
		for _, key := range subs {
			sub, problem := build(pg.groupStore.Composite(key), depth+1)
			if problem != "" {
				return nil, problem
			}
			t.Children = append(t.Children, sub)
		}
		return t, ""
	}
	if gs.info == nil {
		return nil, groupMissingMessage("CompositePodGroup", gs.key)
	}
	return build(gs.info, len(pg.ancestors(gs.info)))
}

// ancestors are the composites above a group, nearest first, as far as they are known.
func (pg *pendingGroups) ancestors(g *framework.GroupInfo) []*framework.GroupInfo {
	var out []*framework.GroupInfo
	seen := map[string]bool{g.Key: g.IsComposite()}
	for parent := g.ParentKey(); parent != "" && !seen[parent]; {
		seen[parent] = true
		c := pg.groupStore.Composite(parent)
		if c == nil {
			break
		}
		out = append(out, c)
		parent = c.ParentKey()
	}
	return out
}

// aboveProblem says why the composites above a unit keep it from being scheduled, and
// which composite it is about: one of them invalid, their parents forming a cycle, or a
// PodGroup more than MaxCompositeDepth levels below its root. A gang composite unit's tree
// checks what is below it (tree); a composite above a unit is basic (or the walk came back
// to the unit), and its rules hold all the same.
func (pg *pendingGroups) aboveProblem(g *framework.GroupInfo) (*framework.GroupInfo, string) {
	seen := map[string]bool{}
	if g.IsComposite() {
		seen[g.Key] = true
	}
	levels := 1
	var root *framework.GroupInfo
	for parent := g.ParentKey(); parent != ""; {
		c := pg.groupStore.Composite(parent)
		switch {
		case c == nil:
			return nil, "" // the unit waits for it (missingAncestor)
		case seen[parent]:
			return c, fmt.Sprintf("CompositePodGroup %s: its parents form a cycle", c.Key)
		case c.Invalid != "":
			return c, "CompositePodGroup " + c.Key + ": " + c.Invalid
		}
		seen[parent] = true
		levels++
		root = c
		parent = c.ParentKey()
	}
	if !g.IsComposite() && levels > v1alpha1.MaxCompositeDepth {
		return root, fmt.Sprintf("PodGroup %s: the hierarchy under %s has more than %d levels", g.Key, root.Key, v1alpha1.MaxCompositeDepth)
	}
	return nil, ""
}

// missingAncestor is the key of the first composite above a group that is not known yet
// ("" when every one is): the group waits for it.
func (pg *pendingGroups) missingAncestor(g *framework.GroupInfo) string {
	up := pg.ancestors(g)
	last := g
	if len(up) > 0 {
		last = up[len(up)-1]
	}
	if parent := last.ParentKey(); parent != "" && pg.groupStore.Composite(parent) == nil {
		return parent
	}
	return ""
}

// completeChildren counts the children of a composite unit that have enough members to
// be complete.
func completeChildren(t *placement.Tree) int {
	n := 0
	for _, c := range t.Children {
		if c.Completable() {
			n++
		}
	}
	return n
}
