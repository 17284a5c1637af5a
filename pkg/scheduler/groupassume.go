package scheduler

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// assume makes a successful group cycle real: every placed member is assumed on its node,
// Reserve and Permit run, and all are bound in this cycle. Members that did not fit
// (beyond a gang's minCount) stay pending and are tried again at once.
func (c *groupCycle) assume(ctx context.Context, a groupAttempt, placed *framework.GroupPlacement) {
	gs, fwk := a.gs, a.fwk
	g := gs.info
	var done []framework.Assignment
	undo := func() {
		for _, m := range done {
			c.binder.forget(ctx, fwk, assumedMember(m))
		}
	}
	for _, m := range placed.Assignments {
		c.cache.Nominations().ClearNomination(m.Pod.Key)
		if c.observer != nil {
			c.observer.BeforeAssume(m.Pod, m.Node.Name, c.cache)
		}
		if err := c.cache.Nodes().AssumePod(m.Pod, m.Node.Name); err != nil {
			undo()
			c.fail(a, framework.AsStatus(err), nil, nil)
			return
		}
		done = append(done, m)
		st := fwk.RunReservePluginsReserve(ctx, m.State, m.Pod, m.Node.Name)
		if st.IsSuccess() {
			// A group's members are released together: a Permit that waits is a
			// rejection here, since the group does not wait for itself.
			st, _ = fwk.RunPermitPlugins(ctx, m.State, m.Pod, m.Node.Name)
		}
		if !st.IsSuccess() {
			undo()
			c.fail(a, st, nil, nil)
			return
		}
	}
	if c.observer != nil {
		c.observer.GroupPlaced(g, done)
	}
	c.preemptions.ForgetDecision(a.entry.Key)
	for _, m := range done {
		gs.pending = slices.DeleteFunc(gs.pending, func(q *framework.PodInfo) bool { return q == m.Pod })
		delete(c.pending.filed, m.Pod.Key)
		c.status.forget(m.Pod.Key)
		as := assumedMember(m)
		c.binder.bind(fwk, as, func(o bindOutcome, st *framework.Status) { c.finishMemberBinding(a, as, o, st) })
	}
	c.observe(a, metrics.ResultScheduled)
	groups := []*framework.GroupInfo{g}
	if a.tree != nil {
		// A composite placed is complete: it and each of its groups that now runs its
		// minCount say so.
		groups = nil
		for _, t := range a.tree.Groups() {
			groups = append(groups, t.Group)
		}
		c.reportScheduled(a, g, len(done), placed.Placement)
	}
	for _, pg := range groups {
		if bound := len(c.cache.GroupMembers(pg.Key)); bound >= pg.MinCount() {
			c.reportScheduled(a, pg, bound, placed.Placement)
		}
	}
	if len(gs.pending) == 0 {
		c.queue.Done(a.entry.Key)
		return
	}
	// The members left over (beyond what the group needed) are tried again at once, now
	// as extra members of a running group: one at a time, with preemption, rather than
	// waiting in the unschedulable pool for an event or the periodic flush.
	c.queue.Requeue(a.entry, sets.New(placed.UnschedulablePlugins...), false)
	c.queue.Activate(a.entry.Key)
	for _, p := range placed.Unplaced {
		c.status.reportFailure(p, v1.PodReasonUnschedulable, placed.Message)
	}
}

// reportScheduled sets a group's (or composite's) PodGroupScheduled condition and emits
// its Scheduled event, once.
func (c *groupCycle) reportScheduled(a groupAttempt, g *framework.GroupInfo, pods int, where *framework.Placement) {
	if c.pending.refused[unitKey(g)] {
		// A member's binding was refused: the group is Scheduled again once enough
		// members are bound (finishMemberBinding), not when they are placed.
		return
	}
	if !c.groupAPI.SetCondition(g, true, v1alpha1.PodGroupReasonScheduled, "") {
		return
	}
	if g == a.gs.info {
		c.metrics.PodGroupScheduled(g.Gang(), a.fwk.SchedulerName(), c.queue.Waited(a.entry))
	}
	kind := "pod group"
	if g.IsComposite() {
		kind = "composite pod group"
	}
	msg := fmt.Sprintf("Scheduled %d pods of %s %s", pods, kind, g.Key)
	if where != nil {
		msg += " in " + where.Name
	}
	c.actuator.Event(g.Object(), nil, v1.EventTypeNormal, "Scheduled", "Scheduling", msg)
}

// assumedMember is a placed member as the binder sees it.
func assumedMember(m framework.Assignment) assumed {
	return assumed{pod: m.Pod, host: m.Node.Name, state: m.State}
}

// finishMemberBinding handles a member's binding result. A failure with our assumption
// still in place puts the member back among the group's pending pods, to be tried again; a
// member deleted or bound meanwhile is left alone.
func (c *groupCycle) finishMemberBinding(a groupAttempt, as assumed, o bindOutcome, st *framework.Status) {
	switch o {
	case bindSucceeded:
		c.binder.recordScheduled(as)
		c.boundAfterRefusal(a, as)
	case bindFailed:
		c.binder.forget(context.Background(), a.fwk, as)
		c.status.reportFailure(as.pod, v1.PodReasonSchedulerError, "Binding rejected: "+st.Message())
		c.pending.addMember(as.pod, a.gs.profile, true)
		c.queue.Backoff(a.gs.entryKey())
		c.bindingRefused(a, as, st)
	}
}

// memberGroups are the group of a member and, when its unit is a composite, the composite.
func (c *groupCycle) memberGroups(a groupAttempt, as assumed) []*framework.GroupInfo {
	var groups []*framework.GroupInfo
	if g := c.cache.Group(framework.GroupKey(as.pod)); g != nil {
		groups = append(groups, g)
	}
	if u := a.gs.info; u != nil && u.IsComposite() {
		groups = append(groups, u)
	}
	return groups
}

// boundMembers counts a group's members (a composite's: those of its groups) whose
// binding is not in flight: bound, or assumed and bound already (the informer has not
// said so yet). count is what the group's minCount counts (its bound members; a
// composite's groups with their minCount bound), and short says it is below it.
func (c *groupCycle) boundMembers(g *framework.GroupInfo) (bound, count int, short bool) {
	keys := []string{g.Key}
	if g.IsComposite() {
		keys = c.cache.CompositeGroups(g.Key)
	}
	for _, k := range keys {
		pg := c.cache.Group(k)
		if pg == nil {
			continue
		}
		n := 0
		for _, m := range c.cache.GroupMembers(k) {
			if c.binder.binding[m.Key] != m {
				n++
			}
		}
		bound += n
		if n >= pg.MinCount() {
			count++
		}
	}
	if !g.IsComposite() {
		count = bound
	}
	return bound, count, count < g.MinCount()
}

// bindingRefused reports a member's binding the API server refused (RBAC without
// pods/binding, an admission webhook, a quota): an error log line, and, for the member's
// group (and composite) now short of its minCount, PodGroupScheduled=False with the
// refusal and a Warning event. The group does not say Scheduled again until enough
// members are bound.
func (c *groupCycle) bindingRefused(a groupAttempt, as assumed, st *framework.Status) {
	c.status.logger.Error(st.AsError(), "Binding of a pod group member failed", "pod", as.pod.Key,
		"podGroup", framework.GroupKey(as.pod), "node", as.host)
	for _, g := range c.memberGroups(a, as) {
		_, count, short := c.boundMembers(g)
		if !short {
			continue
		}
		c.pending.refused[unitKey(g)] = true
		what := "members"
		if g.IsComposite() {
			what = "groups"
		}
		msg := fmt.Sprintf("Binding of member %s to node %s rejected: %s (%d of %d %s bound)",
			as.pod.Key, as.host, st.Message(), count, g.MinCount(), what)
		if c.groupAPI.SetCondition(g, false, v1alpha1.PodGroupReasonSchedulerError, msg) {
			c.actuator.Event(g.Object(), nil, v1.EventTypeWarning, "FailedScheduling", "Binding", msg)
		}
	}
}

// boundAfterRefusal says Scheduled again for a member's group (and composite) whose
// binding was refused once enough of its members are bound.
func (c *groupCycle) boundAfterRefusal(a groupAttempt, as assumed) {
	for _, g := range c.memberGroups(a, as) {
		if !c.pending.refused[unitKey(g)] {
			continue
		}
		if bound, _, short := c.boundMembers(g); !short {
			delete(c.pending.refused, unitKey(g))
			c.reportScheduled(a, g, bound, nil)
		}
	}
}
