package framework

import (
	"context"
	"encoding/json"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
)

// SignFragment is one plugin's part of a pod's signature: a key naming what of the pod it
// read and the value read.
type SignFragment struct {
	Key   string
	Value any
}

// SignPlugin is a plugin of PreFilter, Filter, PreScore or Score that can say which parts of
// a pod its verdicts and scores depend on (kube-scheduler's SignPlugin, OpportunisticBatching).
// Two pods whose fragments agree for every plugin of a profile get the same verdicts and
// scores on the same nodes in the same state. A status other than success says the plugin
// cannot sign this pod (its answers depend on more than the pod and the node, such as other
// pods' placements); the pod is then not batched.
type SignPlugin interface {
	Plugin
	SignPod(ctx context.Context, p *PodInfo) ([]SignFragment, *Status)
}

// The keys of signature fragments, kube-scheduler's signer names.
const (
	ImageNamesSignerName    = "v1.Pod.Spec.CanonicalImageNames()"
	LabelsSignerName        = "v1.Pod.Labels"
	NodeNameSignerName      = "v1.Pod.Spec.NodeName"
	NodeAffinitySignerName  = "v1.Pod.Spec.Affinity.NodeAffinity"
	NodeSelectorSignerName  = "v1.Pod.Spec.Affinity.NodeSelector"
	HostPortsSignerName     = "v1.Pod.Spec.HostPorts()"
	ResourcesSignerName     = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
	SchedulerNameSignerName = "v1.Pod.Spec.SchedulerName"
	TolerationsSignerName   = "v1.Pod.Spec.Tolerations"
	VolumesSignerName       = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
	FeaturesSignerName      = "v1.Pod.Spec.RequiredFeatures()"
)

// HostPortsSigner is the pod's host ports, sorted, each once.
func HostPortsSigner(pod *v1.Pod) any {
	var ports []int32
	for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			for _, port := range c.Ports {
				if port.HostPort != 0 && !slices.Contains(ports, port.HostPort) {
					ports = append(ports, port.HostPort)
				}
			}
		}
	}
	slices.Sort(ports)
	if ports == nil {
		ports = []int32{}
	}
	return ports
}

// TolerationsSigner is the pod's tolerations sorted by key and value.
func TolerationsSigner(pod *v1.Pod) any {
	ret := append([]v1.Toleration{}, pod.Spec.Tolerations...)
	sort.Slice(ret, func(i, j int) bool {
		return ret[i].Key < ret[j].Key || (ret[i].Key == ret[j].Key && ret[i].Value < ret[j].Value)
	})
	return ret
}

// VolumesSigner is the pod's volume sources other than ConfigMaps and Secrets (which do not
// matter to scheduling and differ from pod to pod), each as JSON, sorted.
func VolumesSigner(pod *v1.Pod) any {
	ret := []string{}
	for _, vol := range pod.Spec.Volumes {
		if vol.ConfigMap != nil || vol.Secret != nil {
			continue
		}
		b, err := json.Marshal(vol.VolumeSource)
		if err != nil {
			return nil
		}
		ret = append(ret, string(b))
	}
	slices.Sort(ret)
	return ret
}

// nodeSelectorRequirements signs requirements: each with its values sorted, as JSON, sorted.
func nodeSelectorRequirements(reqs []v1.NodeSelectorRequirement) ([]string, error) {
	ret := make([]string, len(reqs))
	for i, req := range reqs {
		t := req.DeepCopy()
		slices.Sort(t.Values)
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		ret[i] = string(b)
	}
	slices.Sort(ret)
	return ret, nil
}

type nodeSelectorTermSignature struct {
	MatchExpressions []string
	MatchFields      []string
}

func nodeSelectorTerm(t *v1.NodeSelectorTerm) (nodeSelectorTermSignature, error) {
	exp, err := nodeSelectorRequirements(t.MatchExpressions)
	if err != nil {
		return nodeSelectorTermSignature{}, err
	}
	fld, err := nodeSelectorRequirements(t.MatchFields)
	if err != nil {
		return nodeSelectorTermSignature{}, err
	}
	return nodeSelectorTermSignature{MatchExpressions: exp, MatchFields: fld}, nil
}

type preferredTermSignature struct {
	Weight     int32
	Preference nodeSelectorTermSignature
}

type nodeAffinitySignature struct {
	Required  []string
	Preferred []string
}

// NodeAffinitySigner is the pod's node affinity with every list sorted (nil without one).
func NodeAffinitySigner(pod *v1.Pod) (any, error) {
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil {
		return nil, nil
	}
	n := pod.Spec.Affinity.NodeAffinity
	sig := nodeAffinitySignature{Required: []string{}, Preferred: []string{}}
	if n.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		sig.Preferred = make([]string, len(n.PreferredDuringSchedulingIgnoredDuringExecution))
		for i, t := range n.PreferredDuringSchedulingIgnoredDuringExecution {
			pref, err := nodeSelectorTerm(&t.Preference)
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(preferredTermSignature{Weight: t.Weight, Preference: pref})
			if err != nil {
				return nil, err
			}
			sig.Preferred[i] = string(b)
		}
		slices.Sort(sig.Preferred)
	}
	if n.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms := n.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		sig.Required = make([]string, len(terms))
		for i := range terms {
			t, err := nodeSelectorTerm(&terms[i])
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(t)
			if err != nil {
				return nil, err
			}
			sig.Required[i] = string(b)
		}
		slices.Sort(sig.Required)
	}
	return sig, nil
}

// PluginScore is one plugin's score of a node.
type PluginScore struct {
	Name  string
	Score int64
}

// NodePluginScores is a node's scores kept for OpportunisticBatching: each plugin's raw
// score (before normalisation), the weighted total after it, and the tie-breaker between
// equal totals (kube-scheduler's fwk.NodePluginScores).
type NodePluginScores struct {
	Name       string
	Raw        []PluginScore
	Total      int64
	Randomizer uint64
}
