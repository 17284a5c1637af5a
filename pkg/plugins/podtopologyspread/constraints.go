package podtopologyspread

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// spreadConstraint is a v1.TopologySpreadConstraint with its selector parsed and its
// optional fields defaulted.
type spreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	Selector           labels.Selector
	MinDomains         int32
	NodeAffinityPolicy v1.NodeInclusionPolicy
	NodeTaintsPolicy   v1.NodeInclusionPolicy
}

// counts reports whether the constraint counts any pod. Upstream counts nothing for an
// empty selector (labelSelector {}), although the incoming pod matches it.
func (c *spreadConstraint) counts() bool { return !c.Selector.Empty() }

// constraints returns the pod's constraints of one kind (hard or soft): its own when it has
// any, else the defaults.
func (pl *PodTopologySpread) constraints(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		cs, err := parseConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, action)
		if err != nil {
			return nil, fmt.Errorf("pod's topology spread constraints: %w", err)
		}
		return cs, nil
	}
	if len(pl.defaults) == 0 {
		return nil, nil
	}
	cs, err := parseConstraints(pl.defaults, pod.Labels, action)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	sel := defaultSelector(pod)
	if sel.Empty() {
		return nil, nil
	}
	for i := range cs {
		cs[i].Selector = sel
	}
	return cs, nil
}

// parseConstraints parses the constraints with the given whenUnsatisfiable. matchLabelKeys
// are ANDed into the selector with the pod's values, as kube-scheduler does (the API
// server has usually merged them already; merging twice selects the same pods); a nil
// labelSelector stays Nothing.
func parseConstraints(in []v1.TopologySpreadConstraint, podLabels map[string]string, action v1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
	var out []spreadConstraint
	for i := range in {
		c := &in[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, err
		}
		if len(c.MatchLabelKeys) > 0 {
			match := labels.Set{}
			for _, k := range c.MatchLabelKeys {
				if v, ok := podLabels[k]; ok {
					match[k] = v
				}
			}
			if len(match) > 0 {
				sel = mergeSelector(match, sel)
			}
		}
		sc := spreadConstraint{
			MaxSkew:            c.MaxSkew,
			TopologyKey:        c.TopologyKey,
			Selector:           sel,
			MinDomains:         1,
			NodeAffinityPolicy: v1.NodeInclusionPolicyHonor,
			NodeTaintsPolicy:   v1.NodeInclusionPolicyIgnore,
		}
		if c.MinDomains != nil {
			sc.MinDomains = *c.MinDomains
		}
		if c.NodeAffinityPolicy != nil {
			sc.NodeAffinityPolicy = *c.NodeAffinityPolicy
		}
		if c.NodeTaintsPolicy != nil {
			sc.NodeTaintsPolicy = *c.NodeTaintsPolicy
		}
		out = append(out, sc)
	}
	return out, nil
}

// mergeSelector ANDs a label set into a selector; Nothing stays Nothing.
func mergeSelector(set labels.Set, sel labels.Selector) labels.Selector {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return sel
	}
	return labels.SelectorFromSet(set).Add(reqs...)
}

var (
	rcKind = v1.SchemeGroupVersion.WithKind("ReplicationController")
	rsKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	ssKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
)

// statefulSetPodLabels are stamped on each pod by the StatefulSet controller, per pod or
// per revision; a StatefulSet's selector never contains them.
var statefulSetPodLabels = []string{
	appsv1.ControllerRevisionHashLabelKey,
	appsv1.StatefulSetPodNameLabel,
	appsv1.PodIndexLabel,
}

// defaultSelector is the selector default constraints use for a pod: its labels (minus the
// StatefulSet per-pod ones) when a ReplicationController, ReplicaSet or StatefulSet
// controls it, else the empty selector (no defaults). The package doc says why.
func defaultSelector(pod *v1.Pod) labels.Selector {
	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil || len(pod.Labels) == 0 {
		return labels.Everything()
	}
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return labels.Everything()
	}
	switch gv.WithKind(owner.Kind) {
	case rcKind, rsKind:
		return labels.SelectorFromSet(pod.Labels)
	case ssKind:
		set := make(labels.Set, len(pod.Labels))
		for k, v := range pod.Labels {
			set[k] = v
		}
		for _, k := range statefulSetPodLabels {
			delete(set, k)
		}
		return labels.SelectorFromSet(set)
	default:
		return labels.Everything()
	}
}
