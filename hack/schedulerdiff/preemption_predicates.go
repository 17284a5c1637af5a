package schedulerdiff

import (
	"fmt"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// lowerPriority are the bound pods the pod to place may preempt: of lower priority, and
// not already being deleted.
func lowerPriority(c *Case) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range c.Pods {
		if p.DeletionTimestamp == nil && corev1helpers.PodPriority(p) < corev1helpers.PodPriority(c.Pod) {
			out = append(out, p)
		}
	}
	return out
}

// bestEffortVictim: a pod the pod to place may preempt is BestEffort.
func bestEffortVictim(c *Case) bool {
	for _, p := range lowerPriority(c) {
		if qos.GetPodQOS(p) == v1.PodQOSBestEffort {
			return true
		}
	}
	return false
}

// blockedByPods: pods can block a node for the pod to place by required anti-affinity
// (the pod's or theirs) or hard topology spreading, where phalanx may take victims on
// other nodes of the domain.
func blockedByPods(c *Case) bool {
	if a := c.Pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
		return true
	}
	for _, tsc := range c.Pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	for _, p := range c.Pods {
		if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
	}
	return false
}

// severalVictimsOnANode: a node holds two pods of one priority that the pod to place may
// preempt, so that which is kept depends on what orders pods of equal priority (phalanx:
// QoS class, then start time; kube-scheduler: start time, now for a pod without one) and
// on the search. Victims of different priorities are compared: both keep the most
// important ones first.
func severalVictimsOnANode(c *Case) bool {
	seen := map[string]bool{}
	for _, p := range lowerPriority(c) {
		k := fmt.Sprintf("%s/%d", p.Spec.NodeName, *p.Spec.Priority)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// leavingPods: a bound pod is being deleted.
func leavingPods(c *Case) bool {
	for _, p := range c.Pods {
		if p.DeletionTimestamp != nil {
			return true
		}
	}
	return false
}

// victimDevices: the pod to place has claims or asks for an extended resource a
// DeviceClass backs, and a pod of lower priority holds claims, whose devices phalanx's
// preemption may free.
func victimDevices(c *Case) bool {
	if len(c.Pod.Spec.ResourceClaims) == 0 && !asksForDevices(c.Pod) {
		return false
	}
	for _, p := range lowerPriority(c) {
		if len(p.Spec.ResourceClaims) > 0 {
			return true
		}
	}
	return false
}

// asksForDevices: a container of the pod asks for an extended resource a DeviceClass
// backs (its extendedResourceName, or the class's implicit name).
func asksForDevices(p *v1.Pod) bool {
	backed := map[v1.ResourceName]bool{}
	for _, dc := range deviceClasses() {
		backed[v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+dc.Name)] = true
		if dc.Spec.ExtendedResourceName != nil {
			backed[v1.ResourceName(*dc.Spec.ExtendedResourceName)] = true
		}
	}
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, ct := range cs {
			for name := range ct.Resources.Requests {
				if backed[name] {
					return true
				}
			}
		}
	}
	return false
}

// sharedHostPort: two bound pods on a node hold the same host port (the same IP, protocol
// and port; an empty IP is 0.0.0.0, an empty protocol TCP), the pod to place asks for that
// protocol and port, and one of the two may be preempted. kube-scheduler keeps a node's host
// ports as a set, so removing one holder while it looks for victims frees the port although
// the other still holds it, and it may preempt for a port that stays taken; phalanx counts
// the holders. (Kubelet refuses the second holder, so a cluster is in this state only
// until it does.)
func sharedHostPort(c *Case) bool {
	type hostPort struct {
		node, ip string
		protocol v1.Protocol
		port     int32
	}
	wanted := map[hostPort]bool{}
	for _, pp := range heldPorts(c.Pod) {
		wanted[hostPort{protocol: pp.protocol, port: pp.port}] = true
	}
	if len(wanted) == 0 {
		return false
	}
	victim := map[*v1.Pod]bool{}
	for _, p := range lowerPriority(c) {
		victim[p] = true
	}
	holders := map[hostPort][]*v1.Pod{}
	for _, p := range c.Pods {
		if p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
			continue
		}
		for _, pp := range heldPorts(p) {
			if !wanted[hostPort{protocol: pp.protocol, port: pp.port}] {
				continue
			}
			k := hostPort{node: p.Spec.NodeName, ip: pp.ip, protocol: pp.protocol, port: pp.port}
			holders[k] = append(holders[k], p)
		}
	}
	for _, pods := range holders {
		if len(pods) < 2 {
			continue
		}
		for _, p := range pods {
			if victim[p] {
				return true
			}
		}
	}
	return false
}

// portUse is one host port a pod's container asks for, as kube-scheduler keys it.
type portUse struct {
	ip       string
	protocol v1.Protocol
	port     int32
}

// heldPorts are the host ports a pod holds (kube-scheduler's GetHostPorts: its containers'
// and its sidecars'), keyed as kube-scheduler keys them: an empty IP is 0.0.0.0, an empty
// protocol TCP.
func heldPorts(p *v1.Pod) []portUse {
	var out []portUse
	for _, cp := range schedutil.GetHostPorts(p) {
		u := portUse{ip: cp.HostIP, protocol: cp.Protocol, port: cp.HostPort}
		if u.ip == "" {
			u.ip = "0.0.0.0"
		}
		if u.protocol == "" {
			u.protocol = v1.ProtocolTCP
		}
		out = append(out, u)
	}
	return out
}

// budgetSplitsVictims: a node holds would-be victims that one PodDisruptionBudget covers,
// more of them than it allows disruptions, and it allows some. kube-scheduler gives the
// budget's allowance to the most important of them first and then reprieves the others
// (the "violating" ones) first, so it may keep a less important pod and take a more
// important one where either alone would keep the budget; phalanx takes the least
// important victims among the sets that break the fewest budgets.
func budgetSplitsVictims(c *Case) bool {
	type nodeBudget struct{ node, budget string }
	covered := map[nodeBudget]int32{}
	for _, p := range lowerPriority(c) {
		for _, b := range budgets() {
			if b.Namespace != p.Namespace || b.Spec.Selector == nil || len(b.Spec.Selector.MatchLabels)+len(b.Spec.Selector.MatchExpressions) == 0 {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
			if err != nil || !sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			k := nodeBudget{p.Spec.NodeName, b.Namespace + "/" + b.Name}
			covered[k]++
			if allowed := b.Status.DisruptionsAllowed; allowed >= 1 && covered[k] > allowed {
				return true
			}
		}
	}
	return false
}
