package scheduler

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// The handlers of PodGroups, CompositePodGroups and PriorityClasses: each resolves the
// groups it changes, and retries the units they may help.

// setPriorityClass records a PriorityClass; groups are resolved again.
func (pg *pendingGroups) setPriorityClass(pc *schedulingv1.PriorityClass) {
	pg.classes[pc.Name] = pc
	pg.refresh(func(*framework.GroupInfo) bool { return true })
}

// deletePriorityClass forgets a PriorityClass; the groups that name it are resolved again.
func (pg *pendingGroups) deletePriorityClass(pc *schedulingv1.PriorityClass) {
	delete(pg.classes, pc.Name)
	pg.refresh(func(g *framework.GroupInfo) bool { return priorityClassOf(g) == pc.Name })
}

// setGroup records a PodGroup that appeared or changed, and retries its unit when the
// change may help.
func (pg *pendingGroups) setGroup(obj *v1alpha1.PodGroup) {
	g := pg.resolve(&framework.GroupInfo{PodGroup: obj})
	old := pg.groupStore.Group(g.Key)
	pg.groupStore.SetGroup(g)
	pg.groupAPI.EnsureClaims(g)
	if old != nil && old.ParentKey() != g.ParentKey() {
		pg.refile()
	}
	mayHelp := old == nil || !apiequality.Semantic.DeepEqual(old.PodGroup.Spec, obj.Spec) || old.Invalid != g.Invalid ||
		!apiequality.Semantic.DeepEqual(old.PodGroup.Status.ResourceClaimStatuses, obj.Status.ResourceClaimStatuses)
	if gs := pg.groups[g.Key]; gs != nil {
		gs.info = g
		pg.retry(gs, mayHelp)
	}
	if key, composite := pg.unitOf(g.Key); composite {
		if gs := pg.composites[key]; gs != nil {
			pg.retry(gs, mayHelp)
		}
	}
}

// deleteGroup forgets a PodGroup; its pending members wait for it to come back. Their
// nominations go (the room they held is free for others), and each says why it waits.
func (pg *pendingGroups) deleteGroup(obj *v1alpha1.PodGroup) {
	key := obj.Namespace + "/" + obj.Name
	pg.groupAPI.ReleaseClaims(obj)
	pg.groupStore.RemoveGroup(key)
	pg.groupAPI.ForgetGroup(key)
	delete(pg.refused, groupEntryKey(key))
	pg.refile()
	if gs := pg.groups[key]; gs != nil {
		gs.info = nil
		msg := groupMissingMessage("PodGroup", key)
		for _, p := range gs.pending {
			pg.status.dropNomination(p)
			pg.status.reportFailure(p, v1.PodReasonUnschedulable, msg)
		}
		pg.retry(gs, true)
	}
}

// setComposite records a CompositePodGroup that appeared or changed: the groups of its
// hierarchy are resolved again (they may take its priority), and members move to the
// unit they now belong to.
func (pg *pendingGroups) setComposite(obj *v1alpha1.CompositePodGroup) {
	c := pg.resolve(&framework.GroupInfo{Composite: obj})
	old := pg.groupStore.Composite(c.Key)
	pg.groupStore.SetComposite(c)
	pg.resolveHierarchy(c.Key)
	pg.refile()
	mayHelp := old == nil || !apiequality.Semantic.DeepEqual(old.Composite.Spec, obj.Spec) || old.Invalid != c.Invalid
	if gs := pg.composites[c.Key]; gs != nil {
		gs.info = pg.groupStore.Composite(c.Key)
		pg.retry(gs, mayHelp)
	}
	for _, key := range pg.groupStore.CompositeGroups(c.Key) {
		if gs := pg.groups[key]; gs != nil {
			pg.retry(gs, true)
		}
	}
}

// deleteComposite forgets a CompositePodGroup: its groups' members go back to their own
// units (or a composite above), and groups that named it wait for it to come back.
func (pg *pendingGroups) deleteComposite(obj *v1alpha1.CompositePodGroup) {
	key := obj.Namespace + "/" + obj.Name
	groups := pg.groupStore.CompositeGroups(key)
	pg.groupStore.RemoveComposite(key)
	pg.groupAPI.ForgetComposite(key)
	delete(pg.refused, compositeEntryKey(key))
	pg.resolveHierarchy(key)
	pg.refile()
	if gs := pg.composites[key]; gs != nil {
		gs.info = nil
	}
	for _, k := range groups {
		if gs := pg.groups[k]; gs != nil {
			pg.retry(gs, true)
		}
	}
}

// retry updates a unit's queue entry (its priority too) after its group changed.
func (pg *pendingGroups) retry(gs *groupState, mayHelp bool) {
	if entry := pg.queue.Get(gs.entryKey()); entry != nil {
		if gs.info != nil {
			entry.Priority = gs.info.Priority
		}
		pg.queue.Update(entry, mayHelp)
	}
}

// refresh resolves again the known groups that affected selects, composites first, so
// that groups inherit their new priorities.
func (pg *pendingGroups) refresh(affected func(*framework.GroupInfo) bool) {
	for _, key := range pg.compositeKeys() {
		if c := pg.groupStore.Composite(key); c != nil && affected(c) {
			pg.groupStore.SetComposite(pg.resolve(&framework.GroupInfo{Composite: c.Composite}))
			pg.resolveHierarchy(key)
			if gs := pg.composites[key]; gs != nil {
				gs.info = pg.groupStore.Composite(key)
				pg.retry(gs, true)
			}
		}
	}
	for _, key := range sortedKeys(pg.groups) {
		if g := pg.groupStore.Group(key); g != nil && affected(g) {
			pg.setGroup(g.PodGroup)
		}
	}
}

// compositeKeys are the known composites, sorted, parents before their children (those
// in a cycle of parents last).
func (pg *pendingGroups) compositeKeys() []string {
	all := pg.groupStore.CompositeKeys()
	var roots []string
	for _, key := range all {
		if c := pg.groupStore.Composite(key); c.ParentKey() == "" || pg.groupStore.Composite(c.ParentKey()) == nil {
			roots = append(roots, key)
		}
	}
	var out []string
	pg.groupStore.WalkComposites(append(roots, all...), func(key string, _ []string) { out = append(out, key) })
	return out
}

// resolveHierarchy resolves again the composites and groups below a composite, parents
// first, so that each takes its parent's priority when it sets none of its own.
func (pg *pendingGroups) resolveHierarchy(key string) {
	pg.groupStore.WalkComposites([]string{key}, func(k string, groups []string) {
		if c := pg.groupStore.Composite(k); c != nil && k != key {
			pg.groupStore.SetComposite(pg.resolve(&framework.GroupInfo{Composite: c.Composite}))
			if gs := pg.composites[k]; gs != nil {
				gs.info = pg.groupStore.Composite(k)
			}
		}
		for _, gk := range groups {
			if g := pg.groupStore.Group(gk); g != nil {
				pg.groupStore.SetGroup(pg.resolve(&framework.GroupInfo{PodGroup: g.PodGroup}))
				if gs := pg.groups[gk]; gs != nil {
					gs.info = pg.groupStore.Group(gk)
				}
			}
		}
	})
}

// resolve fills a group's key, priority and preemptionPolicy as admission would for a pod
// (KEP-5710), a lower level overriding a higher one: its priority, else its class's, else
// its parent composite's, else the global default class's, else 0; its preemptionPolicy,
// else its class's, else its parent's, else the global default's, else
// PreemptLowerPriority. It says whether the group is invalid as written.
func (pg *pendingGroups) resolve(g *framework.GroupInfo) *framework.GroupInfo {
	meta := g.Meta()
	g.Key = meta.Namespace + "/" + meta.Name
	g.PreemptionPolicy = v1.PreemptLowerPriority
	var priority *int32
	var policy *v1.PreemptionPolicy
	if g.IsComposite() {
		spec := &g.Composite.Spec
		priority, policy = spec.Priority, spec.PreemptionPolicy
		if errs := v1alpha1.ValidateCompositePodGroup(g.Composite); len(errs) > 0 {
			g.Invalid = errs.ToAggregate().Error()
		}
	} else {
		spec := &g.PodGroup.Spec
		priority, policy = spec.Priority, spec.PreemptionPolicy
		if errs := v1alpha1.ValidatePodGroup(g.PodGroup); len(errs) > 0 {
			g.Invalid = errs.ToAggregate().Error()
		}
	}
	if reason := meta.Annotations[v1alpha1.AnnotationInvalidReason]; reason != "" {
		g.Invalid = reason // found by the driver edge (pkg/nativegroup)
	}
	parent := pg.groupStore.Composite(g.ParentKey())
	// A class the group names is its own (a missing one makes it invalid, unless it sets
	// its priority); a group that names none inherits from its parent, else from the
	// global default class.
	var class *schedulingv1.PriorityClass
	named := priorityClassOf(g) != ""
	if named {
		class = pg.classes[priorityClassOf(g)]
		if class == nil && priority == nil && g.Invalid == "" {
			g.Invalid = fmt.Sprintf("spec.priorityClassName: Not found: no PriorityClass with name %q", priorityClassOf(g))
		}
	} else if parent == nil {
		class = pg.globalDefault()
	}
	inherit := !named && parent != nil
	switch {
	case priority != nil:
		g.Priority = *priority
	case class != nil:
		g.Priority = class.Value
	case inherit:
		g.Priority = parent.Priority
	}
	switch {
	case policy != nil:
		g.PreemptionPolicy = *policy
	case class != nil && class.PreemptionPolicy != nil:
		g.PreemptionPolicy = *class.PreemptionPolicy
	case inherit:
		g.PreemptionPolicy = parent.PreemptionPolicy
	}
	return g
}

// globalDefault is the PriorityClass marked globalDefault (the first by name), or nil.
func (pg *pendingGroups) globalDefault() *schedulingv1.PriorityClass {
	for _, name := range slices.Sorted(maps.Keys(pg.classes)) {
		if pg.classes[name].GlobalDefault {
			return pg.classes[name]
		}
	}
	return nil
}

// priorityClassOf is the PriorityClass a group names ("" for none).
func priorityClassOf(g *framework.GroupInfo) string {
	if g.IsComposite() {
		return g.Composite.Spec.PriorityClassName
	}
	return g.PodGroup.Spec.PriorityClassName
}

// sortedKeys returns a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
