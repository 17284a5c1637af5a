package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins/dynamicresources"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// nodeUsage is the simulator's own account of what runs on each node, kept apart from the
// scheduler's cache so that an accounting bug in the cache cannot hide an over-commit. It
// adds quantities exactly (resource.Quantity never overflows), so that an amount too large
// for the scheduler's int64 arithmetic is checked too. A nil nodeUsage (invariants not
// checked) keeps nothing: computing every bound pod's requests exactly was a third of the
// simulator's own work around the cycles of `make bench-sim` (decision 60).
type nodeUsage map[string]v1.ResourceList

// requestsOf is what a pod takes on its node: its requests as kube-scheduler computes
// them, and one pod.
func requestsOf(p *v1.Pod) v1.ResourceList {
	req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{UseStatusResources: true})
	req[v1.ResourcePods] = *apiresource.NewQuantity(1, apiresource.DecimalSI)
	return req
}

func (u nodeUsage) add(node string, p *v1.Pod, s *Simulator) {
	if u == nil {
		return
	}
	used := u[node]
	if used == nil {
		used = v1.ResourceList{}
		u[node] = used
	}
	for name, q := range requestsOf(p) {
		sum := used[name]
		sum.Add(q)
		used[name] = sum
	}
	n := s.nodes[node]
	if n == nil {
		return
	}
	alloc := n.Status.Allocatable
	if len(alloc) == 0 {
		alloc = n.Status.Capacity
	}
	var over []string
	for _, name := range slices.Sorted(maps.Keys(used)) {
		q := used[name]
		if q.Sign() <= 0 {
			continue
		}
		a, ok := alloc[name]
		if (!ok || a.IsZero()) && s.deviceBacked(string(name)) {
			continue // allocated from devices (DRA), not from the node's allocatable
		}
		if !ok || q.Cmp(a) > 0 {
			over = append(over, fmt.Sprintf("%s %s of %s", name, q.String(), a.String()))
		}
	}
	if len(over) > 0 {
		s.violate("node %s over-committed (%s) after binding %s", node, strings.Join(over, ", "), key(p))
	}
}

func (u nodeUsage) remove(node string, p *v1.Pod) {
	used := u[node]
	if used == nil {
		return
	}
	for name, q := range requestsOf(p) {
		sum := used[name]
		sum.Sub(q)
		used[name] = sum
	}
}

// invariantObserver checks each decision as the scheduler makes it.
type invariantObserver struct {
	s *Simulator
	// victimOf records, for every pod chosen as a preemption victim, its preemptor.
	victimOf map[string]string
	// devicesLater are group members whose devices are checked when the group is placed.
	devicesLater []*framework.PodInfo
}

// BeforeAssume checks that the pod satisfies its hard constraints on the node, on the
// cluster as it is (nominated pods aside), and that the cache is consistent.
//
// A group member's devices are the exception: the group's members may have their claims
// allocated again together (a joint search) by a later member's Reserve, so whether they
// fit is checked once the whole group is assumed (GroupPlaced), and every allocation the
// scheduler writes is checked for devices given twice (UpdateResourceClaimStatus).
func (o *invariantObserver) BeforeAssume(p *framework.PodInfo, node string, c *cache.Cache) {
	if st := o.s.sched.CheckFits(p, node); !st.IsSuccess() {
		if st.Plugin() == dynamicresources.Name && p.Group != "" {
			o.devicesLater = append(o.devicesLater, p)
		} else {
			o.s.violate("pod %s placed on %s against its constraints: %s", p.Key, node, st.Message())
		}
	}
	if err := c.Verify(); err != nil {
		o.s.violate("cache inconsistent before assuming %s: %v", p.Key, err)
	}
}

// Preempting checks a preemption as it is decided: every victim has a lower priority than
// its preemptor, and no pod is a victim of two preemptions.
func (o *invariantObserver) Preempting(preemptor *framework.PodInfo, _ string, victims []*framework.PodInfo) {
	if o.victimOf == nil {
		o.victimOf = map[string]string{}
	}
	for _, v := range victims {
		// A victim's priority is its group's when it belongs to one (KEP-5710).
		if p := preemption.VictimPriority(o.s.sched.Cache(), v); p >= preemptor.Priority {
			o.s.violate("pod %s (priority %d) chosen as a victim of %s (priority %d)", v.Key, p, preemptor.Key, preemptor.Priority)
		}
		if prev, ok := o.victimOf[v.Key]; ok {
			o.s.violate("pod %s chosen as a victim of %s and again of %s", v.Key, prev, preemptor.Key)
		}
		o.victimOf[v.Key] = preemptor.Key
	}
	o.checkWholeGroups(victims)
}

// PreemptingForGroup checks a group's preemption: victims of lower priority than the
// group, none preempted twice, and no group of disruption mode All preempted in part.
func (o *invariantObserver) PreemptingForGroup(g *framework.GroupInfo, _ map[*framework.PodInfo]string, victims []*framework.PodInfo) {
	o.Preempting(&framework.PodInfo{Key: "PodGroup/" + g.Key, Priority: g.Priority}, "", victims)
}

// checkWholeGroups checks that every group of disruption mode All among the victims is
// preempted whole: all its bound members are victims.
func (o *invariantObserver) checkWholeGroups(victims []*framework.PodInfo) {
	in := map[*framework.PodInfo]bool{}
	for _, v := range victims {
		in[v] = true
	}
	c := o.s.sched.Cache()
	for _, v := range victims {
		key := framework.GroupKey(v)
		var whole []string
		what := key
		switch root := framework.DisruptionRoot(c, key); {
		case root != nil:
			whole, what = c.CompositeGroups(root.Key), "composite "+root.Key
		case c.Group(key) != nil && c.Group(key).DisruptAll():
			whole = []string{key}
		}
		for _, k := range whole {
			for _, m := range c.GroupMembers(k) {
				if !in[m] {
					o.s.violate("group %s (disruption mode All) preempted in part: %s is a victim, %s is not", what, v.Key, m.Key)
					return
				}
			}
		}
	}
}

// GroupPlaced checks that a gang is never started below its minCount, that the running
// members of a group share one domain of each Required topology level, and, for a
// composite, that at least minGroupCount of its groups run complete and all of it shares
// one domain of each of its levels.
func (o *invariantObserver) GroupPlaced(g *framework.GroupInfo, assigned []framework.Assignment) {
	c := o.s.sched.Cache()
	for _, p := range o.devicesLater {
		var pg *v1alpha1.PodGroup
		if own := c.Group(framework.GroupKey(p)); own != nil {
			pg = own.PodGroup
		}
		for _, pc := range framework.ResolvePodClaims(p.Pod, pg) {
			if ci := c.DRA().Claim(p.Pod.Namespace + "/" + pc.Name); pc.Name != "" && (ci == nil || ci.Allocation() == nil) {
				o.s.violate("pod %s assumed with claim %s unallocated", p.Key, pc.Name)
			}
		}
	}
	o.devicesLater = nil
	if !g.IsComposite() {
		o.checkGroup(g, len(assigned))
		return
	}
	var members []*framework.PodInfo
	for _, key := range c.CompositeGroups(g.Key) {
		if own := c.Group(key); own != nil && len(c.GroupMembers(key)) > 0 {
			o.checkGroup(own, len(assigned))
			members = append(members, c.GroupMembers(key)...)
		}
	}
	if n := o.completeChildren(g); g.Gang() && n < g.MinCount() {
		o.violate("composite %s started with %d of its minGroupCount %d groups complete", g.Key, n, g.MinCount())
	}
	o.checkDomains(g, members)
}

// checkGroup checks one PodGroup's running members: a gang's minCount, and one domain of
// each of its Required levels.
func (o *invariantObserver) checkGroup(g *framework.GroupInfo, placed int) {
	members := o.s.sched.Cache().GroupMembers(g.Key)
	if g.Gang() && len(members) < g.MinCount() {
		o.s.violate("gang %s started with %d of its minCount %d members (%d placed in this cycle)", g.Key, len(members), g.MinCount(), placed)
	}
	o.checkDomains(g, members)
}

// completeChildren counts a composite's children that run complete: a PodGroup with its
// minCount members bound, a composite with minGroupCount complete children.
func (o *invariantObserver) completeChildren(g *framework.GroupInfo) int {
	c := o.s.sched.Cache()
	groups, composites := c.Groups().CompositeChildren(g.Key)
	n := 0
	for _, key := range groups {
		if own := c.Group(key); own != nil && len(c.GroupMembers(key)) >= own.MinCount() {
			n++
		}
	}
	for _, key := range composites {
		if sub := c.Composite(key); sub != nil && o.completeChildren(sub) >= sub.MinCount() {
			n++
		}
	}
	return n
}

func (o *invariantObserver) violate(format string, args ...any) { o.s.violate(format, args...) }

// checkDomains checks that members share one domain of each of g's Required levels.
func (o *invariantObserver) checkDomains(g *framework.GroupInfo, members []*framework.PodInfo) {
	c := o.s.sched.Cache()
	for _, level := range g.Topology() {
		if level.Mode == v1alpha1.TopologyModePreferred {
			continue
		}
		domain, first := "", ""
		for _, m := range members {
			n := c.Get(m.NodeName)
			if n == nil {
				continue
			}
			v, ok := n.Node().Labels[level.Key]
			switch {
			case !ok:
				o.s.violate("group %s: member %s runs on %s, which has no %s label", g.Key, m.Key, n.Name, level.Key)
				return
			case first == "":
				domain, first = v, m.Key
			case v != domain:
				o.s.violate("group %s spans two domains of %s: %s in %s, %s in %s", g.Key, level.Key, first, domain, m.Key, v)
				return
			}
		}
	}
}

// deviceBacked reports whether a DeviceClass of the scenario serves an extended resource
// with devices (on nodes without it in their allocatable, DRA allocates it instead).
func (s *Simulator) deviceBacked(name string) bool {
	for _, dc := range s.sc.Resources.DeviceClasses {
		if name == resourceapi.ResourceDeviceClassPrefix+dc.Name || dc.Spec.ExtendedResourceName != nil && *dc.Spec.ExtendedResourceName == name {
			return true
		}
	}
	return false
}
