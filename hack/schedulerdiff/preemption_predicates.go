package schedulerdiff

import (
	"cmp"
	"fmt"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
	"slices"
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

// budgetSplitsVictims: on some node, kube-scheduler's split of the would-be victims by
// PodDisruptionBudgets puts a pod before a more important one in its reprieve order. It
// walks a node's victims from the most important, each budget's allowance going to the
// first it covers; those it finds no allowance for ("violating") are reprieved first, the
// others after. A victim reprieved before a more important one may be kept where the more
// important one is taken: a worse choice by its own measure when neither breaks more
// budgets (phalanx takes, among the sets that break the fewest budgets, the least
// important victims). Where the split keeps the order of priority, both agree.
func budgetSplitsVictims(c *Case) bool {
	byNode := map[string][]*v1.Pod{}
	for _, p := range lowerPriority(c) {
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
	}
	for _, pods := range byNode {
		slices.SortStableFunc(pods, func(a, b *v1.Pod) int {
			return cmp.Compare(corev1helpers.PodPriority(b), corev1helpers.PodPriority(a))
		})
		allowed := map[string]int32{}
		for _, b := range budgets() {
			allowed[b.Namespace+"/"+b.Name] = b.Status.DisruptionsAllowed
		}
		kept := false // a non-violating victim was seen: the first is the most important
		var highestKept int32
		for _, p := range pods {
			violating := false
			for _, b := range budgets() {
				if b.Namespace != p.Namespace || b.Spec.Selector == nil {
					continue
				}
				sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
				if err != nil || sel.Empty() || !sel.Matches(labels.Set(p.Labels)) {
					continue
				}
				k := b.Namespace + "/" + b.Name
				allowed[k]--
				if allowed[k] < 0 {
					violating = true
				}
			}
			prio := corev1helpers.PodPriority(p)
			if !violating {
				if !kept {
					kept, highestKept = true, prio
				}
				continue
			}
			// A violating victim is reprieved before every non-violating one.
			if kept && highestKept > prio {
				return true
			}
		}
	}
	return false
}

// sharedOnceClaim: a ReadWriteOncePod claim the pod to place mounts is mounted by two
// bound pods, one of which may be preempted. kube-scheduler's VolumeRestrictions counts
// the pod's claims that are in use (whether any pod uses each, a set), and removing one
// user as a would-be victim brings the count to zero although the other still uses the
// claim, so it may preempt for a claim that stays taken; phalanx counts the users. (The
// claim's access mode admits one pod, so a cluster is in this state only by mistake.)
func sharedOnceClaim(c *Case) bool {
	once := map[string]bool{}
	for _, pvc := range persistentVolumeClaims() {
		if slices.Contains(pvc.Spec.AccessModes, v1.ReadWriteOncePod) {
			once[pvc.Namespace+"/"+pvc.Name] = true
		}
	}
	mounts := func(p *v1.Pod) []string {
		var out []string
		for _, vol := range p.Spec.Volumes {
			if vol.PersistentVolumeClaim != nil && once[p.Namespace+"/"+vol.PersistentVolumeClaim.ClaimName] {
				out = append(out, p.Namespace+"/"+vol.PersistentVolumeClaim.ClaimName)
			}
		}
		return out
	}
	wanted := map[string]bool{}
	for _, k := range mounts(c.Pod) {
		wanted[k] = true
	}
	if len(wanted) == 0 {
		return false
	}
	victim := map[*v1.Pod]bool{}
	for _, p := range lowerPriority(c) {
		victim[p] = true
	}
	users := map[string]int{}
	victims := map[string]bool{}
	for _, p := range c.Pods {
		if p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
			continue
		}
		for _, k := range mounts(p) {
			if wanted[k] {
				users[k]++
				victims[k] = victims[k] || victim[p]
			}
		}
	}
	for k, n := range users {
		if n >= 2 && victims[k] {
			return true
		}
	}
	return false
}
