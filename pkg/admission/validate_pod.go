package admission

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's validation of a pod's spec, for the fields the simulator reads (see
// validate.go).

// podSpecErrors checks the parts of a pod's spec the simulator reads, after the API
// server's defaults are applied.
func podSpecErrors(spec *v1.PodSpec) field.ErrorList {
	path := field.NewPath("spec")
	var errs field.ErrorList
	names := sets.New[string]()
	volumes := sets.New[string]()
	for i, vol := range spec.Volumes {
		p := path.Child("volumes").Index(i)
		errs = append(errs, uniqueLabelErrors(volumes, vol.Name, p.Child("name"))...)
		errs = append(errs, volumeSourceErrors(sources(vol.VolumeSource), p)...)
		if c := vol.PersistentVolumeClaim; c != nil && c.ClaimName == "" {
			errs = append(errs, field.Required(p.Child("persistentVolumeClaim", "claimName"), ""))
		}
	}
	claims := sets.New[string]()
	for i, c := range spec.ResourceClaims {
		p := path.Child("resourceClaims").Index(i)
		errs = append(errs, uniqueLabelErrors(claims, c.Name, p.Child("name"))...)
		if (c.ResourceClaimName == nil) == (c.ResourceClaimTemplateName == nil) {
			errs = append(errs, field.Invalid(p, c.Name, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
	}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), ""))
	}
	for _, group := range []struct {
		name string
		cs   []v1.Container
	}{{"containers", spec.Containers}, {"initContainers", spec.InitContainers}} {
		for i := range group.cs {
			c := &group.cs[i]
			p := path.Child(group.name).Index(i)
			if c.Name == "" {
				errs = append(errs, field.Required(p.Child("name"), ""))
			} else {
				errs = append(errs, uniqueLabelErrors(names, c.Name, p.Child("name"))...)
			}
			if c.Image == "" {
				errs = append(errs, field.Required(p.Child("image"), ""))
			}
			errs = append(errs, resourcesErrors(&c.Resources, p.Child("resources"))...)
			errs = append(errs, portErrors(c.Ports, p.Child("ports"))...)
			errs = append(errs, containerRestartErrors(c.RestartPolicy, c.RestartPolicyRules, p)...)
		}
	}
	if spec.Resources != nil {
		errs = append(errs, podResourcesErrors(spec.Resources, path.Child("resources"))...)
	}
	if spec.Overhead != nil {
		errs = append(errs, resourcesErrors(&v1.ResourceRequirements{Limits: spec.Overhead}, path.Child("overhead"))...)
	}
	errs = append(errs, metavalidation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	if spec.NodeName != "" {
		errs = append(errs, nameErrors(spec.NodeName, apivalidation.NameIsDNSSubdomain, path.Child("nodeName"))...)
	}
	if spec.PriorityClassName != "" {
		errs = append(errs, nameErrors(spec.PriorityClassName, apivalidation.NameIsDNSSubdomain, path.Child("priorityClassName"))...)
	}
	if spec.SchedulerName != "" {
		errs = append(errs, nameErrors(spec.SchedulerName, apivalidation.NameIsDNSSubdomain, path.Child("schedulerName"))...)
	}
	if pp := spec.PreemptionPolicy; pp != nil && *pp != v1.PreemptLowerPriority && *pp != v1.PreemptNever {
		errs = append(errs, field.NotSupported(path.Child("preemptionPolicy"), *pp, []string{string(v1.PreemptLowerPriority), string(v1.PreemptNever)}))
	}
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(path.Child("terminationGracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	gates := sets.New[string]()
	for i, g := range spec.SchedulingGates {
		p := path.Child("schedulingGates").Index(i)
		for _, msg := range validation.IsQualifiedName(g.Name) {
			errs = append(errs, field.Invalid(p, g.Name, msg))
		}
		if gates.Has(g.Name) {
			errs = append(errs, field.Duplicate(p, g.Name))
		}
		gates.Insert(g.Name)
	}
	errs = append(errs, tolerationErrors(spec.Tolerations, path.Child("tolerations"))...)
	errs = append(errs, affinityErrors(spec.Affinity, path.Child("affinity"))...)
	errs = append(errs, spreadErrors(spec.TopologySpreadConstraints, path.Child("topologySpreadConstraints"))...)
	return errs
}

// podResourcesErrors checks pod-level resources: only cpu, memory and hugepages.
func podResourcesErrors(r *v1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		name string
		list v1.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, name := range sortedNames(l.list) {
			if name != v1.ResourceCPU && name != v1.ResourceMemory && !isHugePages(name) {
				errs = append(errs, field.NotSupported(path.Child(l.name).Key(string(name)), name, []string{string(v1.ResourceCPU), string(v1.ResourceMemory), v1.ResourceHugePagesPrefix + "*"}))
			}
		}
	}
	return append(errs, resourcesErrors(r, path)...)
}

// portErrors checks a container's ports as validateContainerPorts does: numbers in range,
// a known protocol (TCP when unset, the API server's default).
func portErrors(ports []v1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, port := range ports {
		p := path.Index(i)
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		switch port.Protocol {
		case "", v1.ProtocolTCP, v1.ProtocolUDP, v1.ProtocolSCTP:
		default:
			errs = append(errs, field.NotSupported(p.Child("protocol"), port.Protocol, []string{string(v1.ProtocolSCTP), string(v1.ProtocolTCP), string(v1.ProtocolUDP)}))
		}
	}
	return errs
}

func tolerationErrors(tolerations []v1.Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		p := path.Index(i)
		if t.Key != "" {
			errs = append(errs, metavalidation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != v1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case v1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case v1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []string{string(v1.TolerationOpEqual), string(v1.TolerationOpExists)}))
		}
		if t.Effect != "" {
			errs = append(errs, taintEffectErrors(t.Effect, p.Child("effect"))...)
		}
	}
	return errs
}

func taintEffectErrors(effect v1.TaintEffect, path *field.Path) field.ErrorList {
	switch effect {
	case "":
		return field.ErrorList{field.Required(path, "")}
	case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(path, effect, []string{string(v1.TaintEffectNoSchedule), string(v1.TaintEffectPreferNoSchedule), string(v1.TaintEffectNoExecute)})}
}

func affinityErrors(a *v1.Affinity, path *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := path.Child("nodeAffinity")
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			errs = append(errs, nodeSelectorErrors(req, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if term.Weight <= 0 || term.Weight > 100 {
				errs = append(errs, field.Invalid(tp.Child("weight"), term.Weight, "must be in the range 1-100"))
			}
			errs = append(errs, nodeSelectorTermErrors(term.Preference, tp.Child("preference"))...)
		}
	}
	for _, pa := range []struct {
		name      string
		required  []v1.PodAffinityTerm
		preferred []v1.WeightedPodAffinityTerm
	}{
		{"podAffinity", podAffinity(a).required, podAffinity(a).preferred},
		{"podAntiAffinity", podAntiAffinity(a).required, podAntiAffinity(a).preferred},
	} {
		p := path.Child(pa.name)
		for i, term := range pa.required {
			errs = append(errs, podAffinityTermErrors(term, p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
		}
		for i, term := range pa.preferred {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if term.Weight <= 0 || term.Weight > 100 {
				errs = append(errs, field.Invalid(tp.Child("weight"), term.Weight, "must be in the range 1-100"))
			}
			errs = append(errs, podAffinityTermErrors(term.PodAffinityTerm, tp.Child("podAffinityTerm"))...)
		}
	}
	return errs
}

type affinityTerms struct {
	required  []v1.PodAffinityTerm
	preferred []v1.WeightedPodAffinityTerm
}

func podAffinity(a *v1.Affinity) affinityTerms {
	if a.PodAffinity == nil {
		return affinityTerms{}
	}
	return affinityTerms{a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution}
}

func podAntiAffinity(a *v1.Affinity) affinityTerms {
	if a.PodAntiAffinity == nil {
		return affinityTerms{}
	}
	return affinityTerms{a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution}
}

func nodeSelectorErrors(s *v1.NodeSelector, path *field.Path) field.ErrorList {
	terms := path.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(terms, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, term := range s.NodeSelectorTerms {
		errs = append(errs, nodeSelectorTermErrors(term, terms.Index(i))...)
	}
	return errs
}

func nodeSelectorTermErrors(term v1.NodeSelectorTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, rq := range term.MatchExpressions {
		p := path.Child("matchExpressions").Index(j)
		switch rq.Operator {
		case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
			if len(rq.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
			if len(rq.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
			if len(rq.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
		}
		errs = append(errs, metavalidation.ValidateLabelName(rq.Key, p.Child("key"))...)
		for k, value := range rq.Values {
			for _, msg := range validation.IsValidLabelValue(value) {
				errs = append(errs, field.Invalid(p.Child("values").Index(k), value, msg))
			}
		}
	}
	for j, rq := range term.MatchFields {
		p := path.Child("matchFields").Index(j)
		if rq.Key != metav1.ObjectNameField {
			errs = append(errs, field.Invalid(p.Child("key"), rq.Key, "not a valid field selector key"))
		}
		switch {
		case rq.Operator != v1.NodeSelectorOpIn && rq.Operator != v1.NodeSelectorOpNotIn:
			errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
		case len(rq.Values) != 1:
			errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		default:
			errs = append(errs, nameErrors(rq.Values[0], apivalidation.NameIsDNSSubdomain, p.Child("values").Index(0))...)
		}
	}
	return errs
}

func podAffinityTermErrors(term v1.PodAffinityTerm, path *field.Path) field.ErrorList {
	opts := metavalidation.LabelSelectorValidationOptions{}
	errs := metavalidation.ValidateLabelSelector(term.LabelSelector, opts, path.Child("labelSelector"))
	errs = append(errs, metavalidation.ValidateLabelSelector(term.NamespaceSelector, opts, path.Child("namespaceSelector"))...)
	for _, ns := range term.Namespaces {
		errs = append(errs, nameErrors(ns, apivalidation.ValidateNamespaceName, path.Child("namespace"))...)
	}
	if term.TopologyKey == "" {
		errs = append(errs, field.Required(path.Child("topologyKey"), "can not be empty"))
	}
	errs = append(errs, metavalidation.ValidateLabelName(term.TopologyKey, path.Child("topologyKey"))...)
	for _, keys := range []struct {
		name string
		keys []string
	}{{"matchLabelKeys", term.MatchLabelKeys}, {"mismatchLabelKeys", term.MismatchLabelKeys}} {
		for i, k := range keys.keys {
			errs = append(errs, metavalidation.ValidateLabelName(k, path.Child(keys.name).Index(i))...)
		}
	}
	return errs
}

func spreadErrors(constraints []v1.TopologySpreadConstraint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range constraints {
		p := path.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metavalidation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case v1.DoNotSchedule, v1.ScheduleAnyway:
		default:
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, []string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}))
		}
		for _, later := range constraints[i+1:] {
			if c.TopologyKey == later.TopologyKey && c.WhenUnsatisfiable == later.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if m := c.MinDomains; m != nil {
			if *m <= 0 {
				errs = append(errs, field.Invalid(p.Child("minDomains"), *m, "must be greater than 0"))
			}
			if c.WhenUnsatisfiable != v1.DoNotSchedule {
				errs = append(errs, field.Invalid(p.Child("minDomains"), *m, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", v1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		for name, policy := range map[string]*v1.NodeInclusionPolicy{"nodeAffinityPolicy": c.NodeAffinityPolicy, "nodeTaintsPolicy": c.NodeTaintsPolicy} {
			if policy != nil && *policy != v1.NodeInclusionPolicyHonor && *policy != v1.NodeInclusionPolicyIgnore {
				errs = append(errs, field.NotSupported(p.Child(name), *policy, []string{string(v1.NodeInclusionPolicyHonor), string(v1.NodeInclusionPolicyIgnore)}))
			}
		}
		errs = append(errs, metavalidation.ValidateLabelSelector(c.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
		for k, key := range c.MatchLabelKeys {
			errs = append(errs, metavalidation.ValidateLabelName(key, p.Child("matchLabelKeys").Index(k))...)
		}
	}
	return errs
}

// containerRestartErrors is validateContainerRestartPolicy of Kubernetes 1.37 with
// ContainerRestartRules and RestartAllContainersOnContainerExits on (both beta, on by
// default): a container's restartPolicy (an init container's Always makes it a sidecar)
// and its restart rules.
func containerRestartErrors(policy *v1.ContainerRestartPolicy, rules []v1.ContainerRestartRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policy == nil {
		if len(rules) > 0 {
			errs = append(errs, field.Required(path.Child("restartPolicy"), "must specify restartPolicy when restart rules are used"))
		}
		return errs
	}
	policies := []string{string(v1.ContainerRestartPolicyAlways), string(v1.ContainerRestartPolicyNever), string(v1.ContainerRestartPolicyOnFailure)}
	if !slices.Contains(policies, string(*policy)) {
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), *policy, policies))
	}
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(path.Child("restartPolicyRules"), len(rules), 20))
	}
	actions := []string{string(v1.ContainerRestartRuleActionRestart), string(v1.ContainerRestartRuleActionRestartAllContainers)}
	for i, r := range rules {
		rp := path.Child("restartPolicyRules").Index(i)
		if !slices.Contains(actions, string(r.Action)) {
			errs = append(errs, field.NotSupported(rp.Child("action"), r.Action, actions))
		}
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(rp.Child("exitCodes"), "must be specified"))
			continue
		}
		ops := []string{string(v1.ContainerRestartRuleOnExitCodesOpIn), string(v1.ContainerRestartRuleOnExitCodesOpNotIn)}
		if !slices.Contains(ops, string(r.ExitCodes.Operator)) {
			errs = append(errs, field.NotSupported(rp.Child("exitCodes", "operator"), r.ExitCodes.Operator, ops))
		}
		if len(r.ExitCodes.Values) > 255 {
			errs = append(errs, field.TooMany(rp.Child("exitCodes", "values"), len(r.ExitCodes.Values), 255))
		}
	}
	return errs
}
