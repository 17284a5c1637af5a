package admission

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's validation of Kubernetes' own kinds lives in k8s.io/kubernetes, which
// phalanx does not import (decision 17). The metadata is checked with apimachinery's
// ValidateObjectMeta, the API server's own code; the fields the simulator reads are
// checked here as upstream's pkg/apis/core/validation checks them, with its messages.
// Fields the simulator does not read (probes, environment, security contexts...) are not.

// metaErrors is the API server's validation of an object's metadata.
func metaErrors(m *metav1.ObjectMeta, namespaced bool, name apivalidation.ValidateNameFunc) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, namespaced, name, field.NewPath("metadata"))
}

// Resource names, as upstream's pkg/apis/core/helper classifies them.

func isNativeResource(name v1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), v1.ResourceDefaultNamespacePrefix)
}

func isHugePages(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

func isExtendedResource(name v1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+string(name))) == 0
}

func isIntegerResource(name v1.ResourceName) bool {
	return name == v1.ResourcePods || isExtendedResource(name)
}

// isOvercommitAllowed: native resources other than hugepages may be requested below their
// limit; extended resources and hugepages must request exactly their limit.
func isOvercommitAllowed(name v1.ResourceName) bool {
	return isNativeResource(name) && !isHugePages(name)
}

// quantityErrors is ValidateResourceQuantityValue: not negative, whole for counted
// resources (with upstream's arithmetic, so the verdict is the API server's).
func quantityErrors(name v1.ResourceName, q resource.Quantity, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Sign() < 0 {
		errs = append(errs, field.Invalid(path, q.String(), "must be greater than or equal to 0"))
	}
	if isIntegerResource(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(path, q.String(), "must be an integer"))
	}
	return errs
}

// containerResourceNameErrors is validateContainerResourceName.
func containerResourceNameErrors(name v1.ResourceName, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	switch {
	case !strings.Contains(string(name), "/"):
		if name != v1.ResourceCPU && name != v1.ResourceMemory && name != v1.ResourceEphemeralStorage && !isHugePages(name) {
			return append(errs, field.Invalid(path, name, "must be a standard resource for containers"))
		}
	case !isNativeResource(name) && !isExtendedResource(name):
		return append(errs, field.Invalid(path, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// resourcesErrors is validateResourceRequirements, on requirements already defaulted
// (requests from limits).
func resourcesErrors(r *v1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := path.Child("limits"), path.Child("requests")
	cpuOrMemory, hugePages := false, false
	for _, name := range sortedNames(r.Limits) {
		q := r.Limits[name]
		p := limPath.Key(string(name))
		errs = append(errs, containerResourceNameErrors(name, p)...)
		errs = append(errs, quantityErrors(name, q, p)...)
		cpuOrMemory = cpuOrMemory || name == v1.ResourceCPU || name == v1.ResourceMemory
		hugePages = hugePages || isHugePages(name)
	}
	for _, name := range sortedNames(r.Requests) {
		q := r.Requests[name]
		p := reqPath.Key(string(name))
		errs = append(errs, containerResourceNameErrors(name, p)...)
		errs = append(errs, quantityErrors(name, q, p)...)
		if lim, ok := r.Limits[name]; ok {
			if q.Cmp(lim) != 0 && !isOvercommitAllowed(name) {
				errs = append(errs, field.Invalid(p, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, lim.String())))
			} else if q.Cmp(lim) > 0 {
				errs = append(errs, field.Invalid(p, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
			}
		} else if !isOvercommitAllowed(name) {
			errs = append(errs, field.Required(limPath.Key(string(name)), "Limit must be set for non overcommitable resources (the simulator sets no limit from a request)"))
		}
		cpuOrMemory = cpuOrMemory || name == v1.ResourceCPU || name == v1.ResourceMemory
		hugePages = hugePages || isHugePages(name)
	}
	if hugePages && !cpuOrMemory {
		errs = append(errs, field.Forbidden(path, "HugePages require cpu or memory"))
	}
	return errs
}

func sortedNames(l v1.ResourceList) []v1.ResourceName {
	names := make([]v1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// nodeErrors is ValidateNode's: taints and the amounts of capacity and allocatable (at the
// path of the field, spec.taints, where upstream says metadata.taints).
func nodeErrors(n *v1.Node) field.ErrorList {
	errs := metaErrors(&n.ObjectMeta, false, apivalidation.NameIsDNSSubdomain)
	taints := field.NewPath("spec", "taints")
	seen := map[v1.TaintEffect]sets.Set[string]{}
	for i, t := range n.Spec.Taints {
		p := taints.Index(i)
		errs = append(errs, metavalidation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, taintEffectErrors(t.Effect, p.Child("effect"))...)
		if seen[t.Effect].Has(t.Key) {
			e := field.Duplicate(p, t)
			e.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, e)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = sets.New[string]()
		}
		seen[t.Effect].Insert(t.Key)
	}
	errs = append(errs, declaredFeaturesErrors(n.Status.DeclaredFeatures, field.NewPath("status", "declaredFeatures"))...)
	for _, l := range []struct {
		name string
		list v1.ResourceList
	}{{"capacity", n.Status.Capacity}, {"allocatable", n.Status.Allocatable}} {
		for _, name := range sortedNames(l.list) {
			errs = append(errs, quantityErrors(name, l.list[name], field.NewPath("status", l.name).Key(string(name)))...)
		}
	}
	return errs
}

// uniqueLabelErrors checks the name of an entry of a list: a DNS label, not one an earlier
// entry has (seen holds theirs).
func uniqueLabelErrors(seen sets.Set[string], name string, path *field.Path) field.ErrorList {
	errs := dnsLabelErrors(name, path)
	if seen.Has(name) {
		errs = append(errs, field.Duplicate(path, name))
	}
	seen.Insert(name)
	return errs
}

func dnsLabelErrors(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// nameErrors checks a reference to an object by the rules of that object's name.
func nameErrors(value string, valid apivalidation.ValidateNameFunc, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range valid(value, false) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// declaredFeatureName is how Kubernetes 1.37 spells a node's declared feature.
var declaredFeatureName = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(\/[a-zA-Z][a-zA-Z0-9]*)*$`)

// declaredFeaturesErrors is validateNodeDeclaredFeatures: names of at most 253 characters
// in their form, sorted, no duplicates (NodeDeclaredFeatures relies on the order).
func declaredFeaturesErrors(features []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range features {
		if len(f) > validation.DNS1123SubdomainMaxLength {
			errs = append(errs, field.Invalid(path.Index(i), f, fmt.Sprintf("invalid feature name %q: must be no more than %d characters", f, validation.DNS1123SubdomainMaxLength)))
		}
		if !declaredFeatureName.MatchString(f) {
			errs = append(errs, field.Invalid(path.Index(i), f, fmt.Sprintf("invalid feature name %q: must start with an UpperCamelCase segment, "+
				"with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes", f)))
		}
		if i+1 < len(features) {
			switch next := features[i+1]; {
			case f == next:
				errs = append(errs, field.Duplicate(path.Index(i+1), next))
			case f > next:
				errs = append(errs, field.Invalid(path.Index(i+1), next, "list must be sorted alphabetically"))
			}
		}
	}
	return errs
}
