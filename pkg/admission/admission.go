package admission

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// Priorities of the classes every cluster has.
const (
	systemClusterCritical        = 2000000000
	systemNodeCritical           = 2000001000
	highestUserDefinablePriority = 1000000000
)

func (sc *Scenario) add(obj any, o manifest.Origin) {
	sc.origin[obj] = o
	switch t := obj.(type) {
	case *v1.Node:
		sc.Nodes = append(sc.Nodes, t)
	case *v1.Pod:
		sc.Pods = append(sc.Pods, t)
	case *v1.Namespace:
		sc.Namespaces = append(sc.Namespaces, t)
	case *schedulingv1.PriorityClass:
		sc.PriorityClasses = append(sc.PriorityClasses, t)
	case *nodev1.RuntimeClass:
		sc.RuntimeClasses = append(sc.RuntimeClasses, t)
	case *policyv1.PodDisruptionBudget:
		sc.PDBs = append(sc.PDBs, t)
	case *v1alpha1.PodGroup:
		sc.PodGroups = append(sc.PodGroups, t)
	case *v1alpha1.CompositePodGroup:
		sc.CompositePodGroups = append(sc.CompositePodGroups, t)
	case *schedulingv1alpha2.PodGroup, *schedulingv1alpha2.Workload,
		*schedulingv1alpha3.PodGroup, *schedulingv1alpha3.Workload, *schedulingv1alpha3.CompositePodGroup,
		*schedulingv1beta1.PodGroup, *schedulingv1beta1.Workload:
		sc.nativeInputs = append(sc.nativeInputs, t)
	default:
		if !sc.addWorkload(obj) {
			sc.Resources.add(obj)
		}
	}
}

// errRejected says an object was refused; its errors are in sc.errs.
var errRejected = errors.New("refused")

// errAt records one error of an object and returns errRejected.
func (sc *Scenario) errAt(obj any, desc, fld, msg string) error {
	sc.errs = append(sc.errs, manifest.ErrorAt(sc.origin[obj], desc, fld, msg))
	return errRejected
}

// reject records every error of an object; errRejected when there was one.
func (sc *Scenario) reject(obj any, desc string, errs field.ErrorList) error {
	sc.errs = append(sc.errs, manifest.FieldErrors(sc.origin[obj], desc, errs)...)
	if len(errs) > 0 {
		return errRejected
	}
	return nil
}

// admit applies what a control plane's admission would (defaults, priorities) and refuses
// what it would, object by object: every error of every object is reported.
func (sc *Scenario) admit() error {
	seen := map[string]any{}
	unique := func(obj any, key string) error {
		if prev, ok := seen[key]; ok {
			return sc.errAt(obj, key, "metadata.name", "Duplicate value: also defined at "+sc.origin[prev].String())
		}
		seen[key] = obj
		return nil
	}
	classes := sc.admitPriorityClasses(unique)
	runtimeClasses := sc.admitRuntimeClasses(unique)
	for i, n := range sc.Nodes {
		desc := manifest.Describe("Node", "", n.Name)
		if i < sc.admittedNodes {
			_ = unique(n, desc)
			continue
		}
		if sc.reject(n, desc, nodeErrors(n)) == nil && sc.checkTiming(n, desc, &n.ObjectMeta) == nil {
			_ = unique(n, desc)
		}
	}
	for _, ns := range sc.Namespaces {
		desc := manifest.Describe("Namespace", "", ns.Name)
		if sc.checkMetaName(ns, desc, &ns.ObjectMeta, false, apivalidation.ValidateNamespaceName) == nil {
			_ = unique(ns, desc)
		}
	}
	for i, p := range sc.Pods {
		if i < sc.admittedPods {
			_ = unique(p, manifest.Describe("Pod", p.Namespace, p.Name))
			continue
		}
		_ = sc.admitPod(p, classes, runtimeClasses, unique)
	}
	for _, pdb := range sc.PDBs {
		defaultNamespace(&pdb.ObjectMeta)
		desc := manifest.Describe("PodDisruptionBudget", pdb.Namespace, pdb.Name)
		if sc.checkMeta(pdb, desc, &pdb.ObjectMeta, true) != nil || unique(pdb, desc) != nil {
			continue
		}
		_ = sc.reject(pdb, desc, pdbErrors(pdb))
	}
	for _, pg := range sc.PodGroups {
		// The CRD's schema has checked the group when it was decoded (pkg/crdschema).
		defaultNamespace(&pg.ObjectMeta)
		desc := manifest.Describe("PodGroup", pg.Namespace, pg.Name)
		if sc.checkTiming(pg, desc, &pg.ObjectMeta) != nil || unique(pg, desc) != nil {
			continue
		}
		t, _ := ParseTiming(&pg.ObjectMeta)
		admitGroupPriority(&pg.Spec.PriorityClassName, &pg.Spec.Priority, &pg.Spec.PreemptionPolicy,
			pg.Spec.ParentCompositePodGroupName != nil, classes, t.CreateAt)
	}
	for _, c := range sc.CompositePodGroups {
		defaultNamespace(&c.ObjectMeta)
		desc := manifest.Describe("CompositePodGroup", c.Namespace, c.Name)
		if sc.checkMeta(c, desc, &c.ObjectMeta, true) != nil || unique(c, desc) != nil {
			continue
		}
		t, _ := ParseTiming(&c.ObjectMeta)
		admitGroupPriority(&c.Spec.PriorityClassName, &c.Spec.Priority, &c.Spec.PreemptionPolicy,
			c.Spec.ParentCompositePodGroupName != nil, classes, t.CreateAt)
	}
	if err := sc.admitWorkloads(classes, runtimeClasses, unique); err != nil {
		return err
	}
	if err := sc.admitNative(classes, unique); err != nil && !errors.Is(err, errRejected) {
		return err
	}
	_ = sc.admitResources(unique)
	sc.warnMissing()
	if len(sc.errs) > 0 {
		return sc.errs
	}
	return nil
}

// generateNames names the objects that give only metadata.generateName, as the API server
// does on create: the prefix (at most 58 characters) and five characters, here counted
// rather than random so that runs repeat.
func (sc *Scenario) generateNames() {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // the API server's
	// The objects to name, in input order. Those an earlier scenario named (AdmitOver)
	// keep their names, and the counter goes on from them.
	var objs []any
	for obj := range sc.origin {
		if m, err := meta.Accessor(obj); err == nil && m.GetName() == "" && m.GetGenerateName() != "" {
			objs = append(objs, obj)
		}
	}
	sort.Slice(objs, func(i, j int) bool { return sc.origin[objs[i]].Before(sc.origin[objs[j]]) })
	n := sc.generatedNames
	for _, obj := range objs {
		m, _ := meta.Accessor(obj)
		prefix := m.GetGenerateName()
		if len(prefix) > 58 {
			prefix = prefix[:58]
		}
		suffix := make([]byte, 5)
		for i, k := 4, n; i >= 0; i, k = i-1, k/len(alphabet) {
			suffix[i] = alphabet[k%len(alphabet)]
		}
		m.SetName(prefix + string(suffix))
		n++
	}
	sc.generatedNames = n
}

// warnMissing warns about references the API server accepts but that cannot work: a pod
// bound to a node, or a claim of a StorageClass, that the input never creates.
func (sc *Scenario) warnMissing() {
	nodes := map[string]bool{}
	for _, n := range sc.Nodes {
		nodes[n.Name] = true
	}
	for _, p := range sc.Pods {
		if n := p.Spec.NodeName; n != "" && !nodes[n] {
			sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s (%s): spec.nodeName: node %q is not in the input: the pod never runs, and the pod garbage collector deletes it after %s",
				sc.origin[p], manifest.Describe("Pod", p.Namespace, p.Name), n, PodGCQuarantine))
		}
	}
	classes := map[string]bool{}
	for _, c := range sc.Resources.StorageClasses {
		classes[c.Name] = true
	}
	for _, pvc := range sc.Resources.PVCs {
		if c := pvc.Spec.StorageClassName; c != nil && *c != "" && !classes[*c] && pvc.Spec.VolumeName == "" {
			sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s (%s): spec.storageClassName: StorageClass %q is not in the input: the claim is bound only to a volume of that class, and nothing provisions one",
				sc.origin[pvc], manifest.Describe("PersistentVolumeClaim", pvc.Namespace, pvc.Name), *c))
		}
	}
}

func defaultNamespace(m *metav1.ObjectMeta) {
	if m.Namespace == "" {
		m.Namespace = v1.NamespaceDefault
	}
}

// checkMeta validates an object's metadata as the API server does (its name a DNS
// subdomain), and the timeline annotations.
func (sc *Scenario) checkMeta(obj any, desc string, m *metav1.ObjectMeta, namespaced bool) error {
	return sc.checkMetaName(obj, desc, m, namespaced, apivalidation.NameIsDNSSubdomain)
}

// checkMetaName is checkMeta for a kind whose names follow another rule.
func (sc *Scenario) checkMetaName(obj any, desc string, m *metav1.ObjectMeta, namespaced bool, name apivalidation.ValidateNameFunc) error {
	if namespaced {
		defaultNamespace(m)
	}
	if sc.reject(obj, desc, metaErrors(m, namespaced, name)) != nil {
		return errRejected
	}
	return sc.checkTiming(obj, desc, m)
}

// checkTiming validates the timeline annotations and gives the object its UID.
func (sc *Scenario) checkTiming(obj any, desc string, m *metav1.ObjectMeta) error {
	if _, err := ParseTiming(m); err != nil {
		return sc.errAt(obj, desc, err.Field, err.ErrorBody())
	}
	if m.UID == "" {
		m.UID = types.UID(fmt.Sprintf("sim-%s-%s", m.Namespace, m.Name))
	}
	return nil
}

// priorityClasses resolves class names; the global default, if any, applies to objects
// that name none.
type priorityClasses struct {
	byName        map[string]*schedulingv1.PriorityClass
	globalDefault *schedulingv1.PriorityClass
	// createAt is when each class appears on the timeline.
	createAt map[string]time.Duration
}

// existsAt returns the class if it exists at time t.
func (c *priorityClasses) existsAt(pc *schedulingv1.PriorityClass, t time.Duration) *schedulingv1.PriorityClass {
	if pc == nil || c.createAt[pc.Name] > t {
		return nil
	}
	return pc
}

func (sc *Scenario) admitPriorityClasses(unique func(any, string) error) *priorityClasses {
	pcs := &priorityClasses{createAt: map[string]time.Duration{}, byName: map[string]*schedulingv1.PriorityClass{
		"system-cluster-critical": {ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"}, Value: systemClusterCritical},
		"system-node-critical":    {ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: systemNodeCritical},
	}}
	for _, pc := range sc.PriorityClasses {
		desc := manifest.Describe("PriorityClass", "", pc.Name)
		if sc.checkMeta(pc, desc, &pc.ObjectMeta, false) != nil {
			continue
		}
		if _, builtin := pcs.byName[pc.Name]; builtin {
			_ = sc.errAt(pc, desc, "metadata.name", "Forbidden: "+pc.Name+" is a built-in class")
			continue
		}
		if unique(pc, desc) != nil || sc.reject(pc, desc, priorityClassErrors(pc)) != nil {
			continue
		}
		if pc.GlobalDefault {
			if pcs.globalDefault != nil {
				_ = sc.errAt(pc, desc, "globalDefault", "Invalid value: true: PriorityClass "+pcs.globalDefault.Name+" is already the global default")
				continue
			}
			pcs.globalDefault = pc
		}
		pcs.byName[pc.Name] = pc
		t, _ := ParseTiming(&pc.ObjectMeta)
		pcs.createAt[pc.Name] = t.CreateAt
	}
	return pcs
}

// priorityClassErrors is ValidatePriorityClass: user classes up to 10^9, the "system-"
// prefix reserved, a known preemption policy.
func priorityClassErrors(pc *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	switch {
	case strings.HasPrefix(pc.Name, "system-"):
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only"))
	case pc.Value > highestUserDefinablePriority:
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %d", highestUserDefinablePriority)))
	}
	if pp := pc.PreemptionPolicy; pp != nil && *pp != v1.PreemptLowerPriority && *pp != v1.PreemptNever {
		errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), *pp, []string{string(v1.PreemptLowerPriority), string(v1.PreemptNever)}))
	}
	return errs
}

// pdbErrors is ValidatePodDisruptionBudgetSpec.
func pdbErrors(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(spec, "", "minAvailable and maxUnavailable cannot be both set"))
	}
	for name, v := range map[string]*intstr.IntOrString{"minAvailable": pdb.Spec.MinAvailable, "maxUnavailable": pdb.Spec.MaxUnavailable} {
		if v == nil {
			continue
		}
		p := spec.Child(name)
		if v.Type == intstr.Int && v.IntVal < 0 {
			errs = append(errs, field.Invalid(p, v.IntVal, "must be greater than or equal to 0"))
		}
		if v.Type == intstr.String {
			n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
			switch {
			case !strings.HasSuffix(v.StrVal, "%") || err != nil:
				errs = append(errs, field.Invalid(p, v.StrVal, "must be an integer or percentage (e.g '5%')"))
			case n < 0:
				errs = append(errs, field.Invalid(p, v.StrVal, "must be greater than or equal to 0"))
			case n > 100:
				errs = append(errs, field.Invalid(p, v.StrVal, "must not be greater than 100%"))
			}
		}
	}
	errs = append(errs, metavalidation.ValidateLabelSelector(pdb.Spec.Selector, metavalidation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p != policyv1.IfHealthyBudget && *p != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(spec.Child("unhealthyPodEvictionPolicy"), *p, []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}))
	}
	return errs
}

// admitPod applies the API server's defaults and the priority admission plugin, then its
// validation.
func (sc *Scenario) admitPod(p *v1.Pod, classes *priorityClasses, runtimeClasses map[string]*nodev1.RuntimeClass, unique func(any, string) error) error {
	defaultNamespace(&p.ObjectMeta)
	desc := manifest.Describe("Pod", p.Namespace, p.Name)
	if err := sc.checkMeta(p, desc, &p.ObjectMeta, true); err != nil {
		return err
	}
	if err := unique(p, desc); err != nil {
		return err
	}
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			defaultResources(&cs[i].Resources)
		}
	}
	if p.Spec.Resources != nil {
		defaultResources(p.Spec.Resources)
	}
	for i := range p.Spec.Volumes {
		if sources(p.Spec.Volumes[i].VolumeSource) == 0 {
			p.Spec.Volumes[i].EmptyDir = &v1.EmptyDirVolumeSource{} // the API server's default
		}
	}
	if p.Spec.TerminationGracePeriodSeconds == nil {
		grace := int64(v1.DefaultTerminationGracePeriodSeconds)
		p.Spec.TerminationGracePeriodSeconds = &grace
	}
	if p.Spec.SchedulerName == "" {
		p.Spec.SchedulerName = v1.DefaultSchedulerName
	}
	if err := sc.admitPriority(p, desc, classes); err != nil {
		return err
	}
	if err := admitRuntimeClass(p, runtimeClasses); err != nil {
		return sc.errAt(p, desc, "spec.runtimeClassName", "Forbidden: "+err.Error())
	}
	return sc.reject(p, desc, withoutImageErrors(podSpecErrors(&p.Spec)))
}

// withoutImageErrors drops "image: Required value": the simulator runs no container, and
// its scenarios leave images out (a documented convenience).
func withoutImageErrors(errs field.ErrorList) field.ErrorList {
	out := errs[:0]
	for _, e := range errs {
		if !(e.Type == field.ErrorTypeRequired && strings.HasSuffix(e.Field, ".image")) {
			out = append(out, e)
		}
	}
	return out
}

// admitPriority mirrors the Priority admission plugin: a named class must exist and sets
// priority and preemptionPolicy; without a name the global default class applies. An
// explicit spec.priority with no class and no global default is kept (the simulator is
// lenient there, so small scenarios need no PriorityClass objects); one that contradicts
// its class is refused, as the API server would.
func (sc *Scenario) admitPriority(p *v1.Pod, desc string, classes *priorityClasses) error {
	var pc *schedulingv1.PriorityClass
	if name := p.Spec.PriorityClassName; name != "" {
		pc = classes.byName[name]
		if pc == nil {
			return sc.errAt(p, desc, "spec.priorityClassName", fmt.Sprintf("Not found: no PriorityClass with name %q", name))
		}
	} else if p.Spec.Priority == nil && classes.globalDefault != nil {
		pc = classes.globalDefault
		p.Spec.PriorityClassName = pc.Name
	}
	if pc != nil {
		if p.Spec.Priority != nil && *p.Spec.Priority != pc.Value {
			return sc.errAt(p, desc, "spec.priority", fmt.Sprintf("Invalid value: %d: does not match PriorityClass %s (%d)", *p.Spec.Priority, pc.Name, pc.Value))
		}
		v := pc.Value
		p.Spec.Priority = &v
		if p.Spec.PreemptionPolicy == nil && pc.PreemptionPolicy != nil {
			pp := *pc.PreemptionPolicy
			p.Spec.PreemptionPolicy = &pp
		}
	}
	if p.Spec.Priority == nil {
		zero := int32(0)
		p.Spec.Priority = &zero
	}
	if p.Spec.PreemptionPolicy == nil {
		pp := v1.PreemptLowerPriority
		p.Spec.PreemptionPolicy = &pp
	}
	if pp := *p.Spec.PreemptionPolicy; pp != v1.PreemptLowerPriority && pp != v1.PreemptNever {
		return sc.errAt(p, desc, "spec.preemptionPolicy", fmt.Sprintf("Unsupported value: %q: supported values: \"Never\", \"PreemptLowerPriority\"", pp))
	}
	return nil
}

// defaultResources defaults requests to limits where only limits are set, as the API
// server's defaulting does.
func defaultResources(r *v1.ResourceRequirements) {
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			if r.Requests == nil {
				r.Requests = v1.ResourceList{}
			}
			r.Requests[name] = q.DeepCopy()
		}
	}
}

// admitGroupPriority fills a PodGroup's or CompositePodGroup's priority and
// preemptionPolicy from its class or the global default that exist when it is created, as
// the KEP has admission do. An unknown class (or one created later) is left for the
// scheduler to resolve and report in the group's condition meanwhile. A group in a
// composite (hasParent) that names no class and sets no priority takes its composite's,
// which the scheduler resolves: the global default is not its own.
func admitGroupPriority(class *string, priority **int32, policy **v1.PreemptionPolicy, hasParent bool, classes *priorityClasses, createAt time.Duration) {
	var pc *schedulingv1.PriorityClass
	if name := *class; name != "" {
		pc = classes.existsAt(classes.byName[name], createAt)
	} else if *priority == nil && !hasParent && classes.existsAt(classes.globalDefault, createAt) != nil {
		pc = classes.globalDefault
		*class = pc.Name
	}
	if pc == nil {
		return
	}
	if *priority == nil {
		v := pc.Value
		*priority = &v
	}
	if *policy == nil && pc.PreemptionPolicy != nil {
		pp := *pc.PreemptionPolicy
		*policy = &pp
	}
}
