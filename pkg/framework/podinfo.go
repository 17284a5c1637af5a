package framework

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

// PodInfo is a pod with everything the scheduler derives from it computed once: requests as
// a vector, priority, QoS, host ports and parsed affinity terms. Filters read these instead of
// re-parsing the spec on every node.
type PodInfo struct {
	// The fields preemption reads for every pod of a domain come first, so that they share
	// a cache line: priority, whether the pod is leaving, its group, its QoS.
	Priority int32
	// Terminating is true once the pod has a deletion timestamp: it still occupies its
	// node but is leaving, so preemption does not count it as a victim.
	Terminating bool
	// Assumed is true between the scheduler's decision and the binding being observed.
	Assumed bool
	// holder marks a SlotHolder.
	holder bool
	// Group is the name of the PodGroup the pod belongs to (same namespace), or "".
	Group string
	QOS   v1.PodQOSClass

	Pod *v1.Pod
	// Key is namespace/name.
	Key string

	Requests resource.PodRequests
	// RequestIdx lists the positions of Requests that are non-zero.
	RequestIdx []int8

	PreemptionPolicy v1.PreemptionPolicy
	HostPorts        []HostPort

	RequiredAffinity      []AffinityTerm
	RequiredAntiAffinity  []AffinityTerm
	PreferredAffinity     []WeightedAffinityTerm
	PreferredAntiAffinity []WeightedAffinityTerm
	RequiredNodeAffinity  nodeaffinity.RequiredNodeAffinity

	// groupKey is namespace/Group, computed once: preemption asks for it for every pod.
	groupKey string

	// ParseErr records a spec the scheduler cannot use (a malformed selector, too many
	// resource kinds). Such a pod is reported unschedulable with this error.
	ParseErr error

	// Where the pod sits in the slices of the NodeInfo that holds it, so removal is O(1).
	nodePos, affinityPos, antiAffinityPos int32
	// StaticFilterKey is the scheduler's key for cached static filter verdicts (see
	// StaticFilterPlugin), computed on first use; it depends only on the pod's spec.
	StaticFilterKey string
	// NodeName is the node the pod occupies in the cache, "" while pending.
	NodeName string
}

// NewPodInfo derives a PodInfo from a pod. Problems are recorded in ParseErr rather than
// returned, so that the pod can be reported to the user instead of silently dropped.
func NewPodInfo(pod *v1.Pod) *PodInfo {
	p := &PodInfo{
		Pod:              pod,
		Key:              pod.Namespace + "/" + pod.Name,
		Priority:         corev1helpers.PodPriority(pod),
		PreemptionPolicy: v1.PreemptLowerPriority,
		QOS:              resource.QOSClass(pod),
		HostPorts:        hostPorts(pod),
		Group:            v1alpha1.PodGroupNameOf(pod),
		NodeName:         pod.Spec.NodeName,
		Terminating:      pod.DeletionTimestamp != nil,
		nodePos:          -1, affinityPos: -1, antiAffinityPos: -1,
	}
	if p.Group != "" {
		p.groupKey = pod.Namespace + "/" + p.Group
	}
	if pod.Spec.PreemptionPolicy != nil {
		p.PreemptionPolicy = *pod.Spec.PreemptionPolicy
	}
	req, err := resource.ForPod(pod)
	if err != nil {
		p.ParseErr = err
	}
	p.Requests = req
	p.RequestIdx = req.NonZero()
	p.RequiredNodeAffinity = nodeaffinity.GetRequiredNodeAffinity(pod)
	if aff := pod.Spec.Affinity; aff != nil {
		if err := p.parseAffinity(aff); err != nil && p.ParseErr == nil {
			p.ParseErr = err
		}
	}
	return p
}

// StartTime is when the pod started running, or its creation time; the zero time for
// pods that have neither (so that they count as the earliest, i.e. most important).
func (p *PodInfo) StartTime() time.Time {
	if p.Pod.Status.StartTime != nil {
		return p.Pod.Status.StartTime.Time
	}
	return p.Pod.CreationTimestamp.Time
}

// HasAffinityTerms reports whether the pod has any inter-pod (anti-)affinity term.
func (p *PodInfo) HasAffinityTerms() bool {
	return len(p.RequiredAffinity)+len(p.RequiredAntiAffinity)+len(p.PreferredAffinity)+len(p.PreferredAntiAffinity) > 0
}

// HasInterPodConstraints reports whether where this pod goes depends on other pods:
// required inter-pod (anti-)affinity or hard topology spreading.
func (p *PodInfo) HasInterPodConstraints() bool {
	if len(p.RequiredAffinity)+len(p.RequiredAntiAffinity) > 0 {
		return true
	}
	for _, c := range p.Pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	return false
}

// UsesClaims reports whether the pod holds ResourceClaims or PersistentVolumeClaims (its
// own ephemeral volumes included): where it may go and what it takes from other pods are
// then not only a matter of room on its node.
func (p *PodInfo) UsesClaims() bool {
	if len(p.Pod.Spec.ResourceClaims) > 0 {
		return true
	}
	for i := range p.Pod.Spec.Volumes {
		if v := &p.Pod.Spec.Volumes[i]; v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return true
		}
	}
	return false
}

// HostPort is a host port a pod's container binds.
type HostPort struct {
	IP       string
	Protocol v1.Protocol
	Port     int32
}

func hostPorts(pod *v1.Pod) []HostPort {
	var out []HostPort
	add := func(cs []v1.Container, sidecarsOnly bool) {
		for i := range cs {
			if sidecarsOnly && (cs[i].RestartPolicy == nil || *cs[i].RestartPolicy != v1.ContainerRestartPolicyAlways) {
				continue
			}
			for _, cp := range cs[i].Ports {
				if cp.HostPort <= 0 {
					continue
				}
				hp := HostPort{IP: cp.HostIP, Protocol: cp.Protocol, Port: cp.HostPort}
				if hp.IP == "" {
					hp.IP = "0.0.0.0"
				}
				if hp.Protocol == "" {
					hp.Protocol = v1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	add(pod.Spec.InitContainers, true)
	add(pod.Spec.Containers, false)
	return out
}

// AffinityTerm is a parsed inter-pod (anti-)affinity term.
type AffinityTerm struct {
	// Namespaces are the namespaces named by the term (the pod's own when it names none and
	// has no namespace selector).
	Namespaces sets.Set[string]
	// NamespaceSelector selects further namespaces by their labels; Nothing when unset.
	NamespaceSelector labels.Selector
	// Selector selects pods by their labels.
	Selector    labels.Selector
	TopologyKey string
}

// WeightedAffinityTerm is a preferred term with its weight.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// Matches reports whether a pod (in a namespace with the given labels) matches the term.
func (t *AffinityTerm) Matches(p *PodInfo, nsLabels labels.Set) bool {
	if !t.Namespaces.Has(p.Pod.Namespace) && !t.NamespaceSelector.Matches(nsLabels) {
		return false
	}
	return t.Selector.Matches(labels.Set(p.Pod.Labels))
}

func (p *PodInfo) parseAffinity(aff *v1.Affinity) error {
	var err error
	if pa := aff.PodAffinity; pa != nil {
		if p.RequiredAffinity, err = p.parseTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
		if p.PreferredAffinity, err = p.parseWeighted(pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	if paa := aff.PodAntiAffinity; paa != nil {
		if p.RequiredAntiAffinity, err = p.parseTerms(paa.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
		if p.PreferredAntiAffinity, err = p.parseWeighted(paa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	return nil
}

func (p *PodInfo) parseTerms(terms []v1.PodAffinityTerm) ([]AffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]AffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := p.newAffinityTerm(&terms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (p *PodInfo) parseWeighted(terms []v1.WeightedPodAffinityTerm) ([]WeightedAffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]WeightedAffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := p.newAffinityTerm(&terms[i].PodAffinityTerm)
		if err != nil {
			return nil, err
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

// newAffinityTerm parses a term the way kube-scheduler does, including matchLabelKeys and
// mismatchLabelKeys, which the API server merges into the selector at admission; merging
// them again here is harmless and makes manifests in the simulator behave the same.
func (p *PodInfo) newAffinityTerm(term *v1.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("pod affinity term labelSelector: %w", err)
	}
	if term.LabelSelector != nil {
		for _, key := range term.MatchLabelKeys {
			if v, ok := p.Pod.Labels[key]; ok {
				r, err := labels.NewRequirement(key, selection.In, []string{v})
				if err != nil {
					return AffinityTerm{}, fmt.Errorf("pod affinity term matchLabelKeys: %w", err)
				}
				sel = sel.Add(*r)
			}
		}
		for _, key := range term.MismatchLabelKeys {
			if v, ok := p.Pod.Labels[key]; ok {
				r, err := labels.NewRequirement(key, selection.NotIn, []string{v})
				if err != nil {
					return AffinityTerm{}, fmt.Errorf("pod affinity term mismatchLabelKeys: %w", err)
				}
				sel = sel.Add(*r)
			}
		}
	}
	nsSel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("pod affinity term namespaceSelector: %w", err)
	}
	ns := sets.New(term.Namespaces...)
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		ns.Insert(p.Pod.Namespace)
	}
	return AffinityTerm{Namespaces: ns, NamespaceSelector: nsSel, Selector: sel, TopologyKey: term.TopologyKey}, nil
}

// SlotHolder returns a pod that takes p's place on its node for resources only: same
// requests, no labels, no ports, no affinity, in no namespace. Preemption puts it where a
// BestEffort victim was, so that removing that victim helps only the filters that are not
// about resources (the preemption design never evicts a BestEffort pod for resources: it
// frees none, only its pod slot).
func SlotHolder(p *PodInfo) *PodInfo {
	return &PodInfo{
		Pod:        &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Pod.Name + "~slot", UID: p.Pod.UID + "~slot"}},
		Key:        p.Key + "~slot",
		Requests:   p.Requests,
		RequestIdx: p.RequestIdx,
		Priority:   p.Priority,
		QOS:        p.QOS,
		holder:     true,
		nodePos:    -1, affinityPos: -1, antiAffinityPos: -1,
	}
}

// Holder reports whether the pod is a SlotHolder, not a real pod.
func (p *PodInfo) Holder() bool { return p.holder }
