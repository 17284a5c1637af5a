package sim

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// Timeline annotations (values are Go durations of virtual time).
const (
	AnnotationCreateAt       = "sim.phalanx.dev/create-at"
	AnnotationDeleteAt       = "sim.phalanx.dev/delete-at"
	AnnotationRunFor         = "sim.phalanx.dev/run-for"
	AnnotationTerminateAfter = "sim.phalanx.dev/terminate-after"
)

// Priorities of the classes every cluster has.
const (
	systemClusterCritical        = 2000000000
	systemNodeCritical           = 2000001000
	highestUserDefinablePriority = 1000000000
)

// timing is an object's place on the timeline. Zero durations mean "not set" except
// createAt, whose zero is time 0.
type timing struct {
	createAt, deleteAt, runFor, terminateAfter time.Duration
	hasDelete, hasRunFor, hasTerminateAfter    bool
}

func (sc *Scenario) add(obj any, o origin) {
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

func (sc *Scenario) errAt(obj any, desc, fld, msg string) error {
	return &InputError{Where: sc.origin[obj].String(), Object: desc, Field: fld, Msg: msg}
}

// admit applies what a control plane's admission would (defaults, priorities) and rejects
// what it would refuse.
func (sc *Scenario) admit() error {
	seen := map[string]any{}
	unique := func(obj any, key string) error {
		if prev, ok := seen[key]; ok {
			return sc.errAt(obj, key, "metadata.name", "Duplicate value: also defined at "+sc.origin[prev].String())
		}
		seen[key] = obj
		return nil
	}
	classes, err := sc.admitPriorityClasses(unique)
	if err != nil {
		return err
	}
	for _, n := range sc.Nodes {
		desc := describe("Node", "", n.Name)
		if err := sc.checkMeta(n, desc, &n.ObjectMeta, false); err != nil {
			return err
		}
		if err := unique(n, desc); err != nil {
			return err
		}
	}
	for _, ns := range sc.Namespaces {
		desc := describe("Namespace", "", ns.Name)
		if err := sc.checkMeta(ns, desc, &ns.ObjectMeta, false); err != nil {
			return err
		}
		if err := unique(ns, desc); err != nil {
			return err
		}
	}
	for _, p := range sc.Pods {
		if err := sc.admitPod(p, classes, unique); err != nil {
			return err
		}
	}
	for _, pdb := range sc.PDBs {
		defaultNamespace(&pdb.ObjectMeta)
		desc := describe("PodDisruptionBudget", pdb.Namespace, pdb.Name)
		if err := sc.checkMeta(pdb, desc, &pdb.ObjectMeta, true); err != nil {
			return err
		}
		if err := unique(pdb, desc); err != nil {
			return err
		}
		if pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable != nil {
			return sc.errAt(pdb, desc, "spec", "Invalid value: minAvailable and maxUnavailable cannot both be set")
		}
		if _, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err != nil {
			return sc.errAt(pdb, desc, "spec.selector", "Invalid value: "+err.Error())
		}
	}
	for _, pg := range sc.PodGroups {
		defaultNamespace(&pg.ObjectMeta)
		desc := describe("PodGroup", pg.Namespace, pg.Name)
		if err := sc.checkMeta(pg, desc, &pg.ObjectMeta, true); err != nil {
			return err
		}
		if err := unique(pg, desc); err != nil {
			return err
		}
		t, _ := parseTiming(&pg.ObjectMeta)
		admitGroupPriority(&pg.Spec.PriorityClassName, &pg.Spec.Priority, &pg.Spec.PreemptionPolicy,
			pg.Spec.ParentCompositePodGroupName != nil, classes, t.createAt)
	}
	for _, c := range sc.CompositePodGroups {
		defaultNamespace(&c.ObjectMeta)
		desc := describe("CompositePodGroup", c.Namespace, c.Name)
		if err := sc.checkMeta(c, desc, &c.ObjectMeta, true); err != nil {
			return err
		}
		if err := unique(c, desc); err != nil {
			return err
		}
		t, _ := parseTiming(&c.ObjectMeta)
		admitGroupPriority(&c.Spec.PriorityClassName, &c.Spec.Priority, &c.Spec.PreemptionPolicy,
			c.Spec.ParentCompositePodGroupName != nil, classes, t.createAt)
	}
	if err := sc.admitWorkloads(classes, unique); err != nil {
		return err
	}
	if err := sc.admitNative(classes, unique); err != nil {
		return err
	}
	return sc.admitResources(unique)
}

func defaultNamespace(m *metav1.ObjectMeta) {
	if m.Namespace == "" {
		m.Namespace = v1.NamespaceDefault
	}
}

// checkMeta validates name, namespace, labels and the timeline annotations.
func (sc *Scenario) checkMeta(obj any, desc string, m *metav1.ObjectMeta, namespaced bool) error {
	if m.Name == "" {
		return sc.errAt(obj, desc, "metadata.name", "Required value")
	}
	if namespaced && m.Namespace == "" {
		m.Namespace = v1.NamespaceDefault
	}
	if errs := metavalidation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")); len(errs) > 0 {
		return sc.errAt(obj, desc, errs[0].Field, errs[0].ErrorBody())
	}
	if _, err := parseTiming(m); err != nil {
		return sc.errAt(obj, desc, err.Field, err.ErrorBody())
	}
	if m.UID == "" {
		m.UID = types.UID(fmt.Sprintf("sim-%s-%s", m.Namespace, m.Name))
	}
	return nil
}

// parseTiming reads an object's timeline annotations.
func parseTiming(m *metav1.ObjectMeta) (timing, *field.Error) {
	var t timing
	get := func(key string, into *time.Duration, set *bool) *field.Error {
		v, ok := m.Annotations[key]
		if !ok {
			return nil
		}
		path := field.NewPath("metadata", "annotations").Key(key)
		d, err := time.ParseDuration(v)
		if err != nil {
			return field.Invalid(path, v, "must be a Go duration such as 90s or 5m")
		}
		if d < 0 {
			return field.Invalid(path, v, "must not be negative")
		}
		*into = d
		if set != nil {
			*set = true
		}
		return nil
	}
	for _, g := range []struct {
		key  string
		into *time.Duration
		set  *bool
	}{
		{AnnotationCreateAt, &t.createAt, nil},
		{AnnotationDeleteAt, &t.deleteAt, &t.hasDelete},
		{AnnotationRunFor, &t.runFor, &t.hasRunFor},
		{AnnotationTerminateAfter, &t.terminateAfter, &t.hasTerminateAfter},
	} {
		if err := get(g.key, g.into, g.set); err != nil {
			return t, err
		}
	}
	if t.hasDelete && t.deleteAt < t.createAt {
		return t, field.Invalid(field.NewPath("metadata", "annotations").Key(AnnotationDeleteAt),
			m.Annotations[AnnotationDeleteAt], "must not be earlier than "+AnnotationCreateAt)
	}
	return t, nil
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

func (sc *Scenario) admitPriorityClasses(unique func(any, string) error) (*priorityClasses, error) {
	pcs := &priorityClasses{createAt: map[string]time.Duration{}, byName: map[string]*schedulingv1.PriorityClass{
		"system-cluster-critical": {ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"}, Value: systemClusterCritical},
		"system-node-critical":    {ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: systemNodeCritical},
	}}
	for _, pc := range sc.PriorityClasses {
		desc := describe("PriorityClass", "", pc.Name)
		if err := sc.checkMeta(pc, desc, &pc.ObjectMeta, false); err != nil {
			return nil, err
		}
		if _, builtin := pcs.byName[pc.Name]; builtin {
			return nil, sc.errAt(pc, desc, "metadata.name", "Forbidden: "+pc.Name+" is a built-in class")
		}
		if err := unique(pc, desc); err != nil {
			return nil, err
		}
		if pc.Value > highestUserDefinablePriority {
			return nil, sc.errAt(pc, desc, "value", fmt.Sprintf("Invalid value: %d: must not be greater than %d", pc.Value, highestUserDefinablePriority))
		}
		if pp := pc.PreemptionPolicy; pp != nil && *pp != v1.PreemptLowerPriority && *pp != v1.PreemptNever {
			return nil, sc.errAt(pc, desc, "preemptionPolicy", fmt.Sprintf("Unsupported value: %q: supported values: \"Never\", \"PreemptLowerPriority\"", *pp))
		}
		if pc.GlobalDefault {
			if pcs.globalDefault != nil {
				return nil, sc.errAt(pc, desc, "globalDefault", "Invalid value: true: PriorityClass "+pcs.globalDefault.Name+" is already the global default")
			}
			pcs.globalDefault = pc
		}
		pcs.byName[pc.Name] = pc
		t, _ := parseTiming(&pc.ObjectMeta)
		pcs.createAt[pc.Name] = t.createAt
	}
	return pcs, nil
}

// admitPod applies the API server's defaults and the priority admission plugin.
func (sc *Scenario) admitPod(p *v1.Pod, classes *priorityClasses, unique func(any, string) error) error {
	defaultNamespace(&p.ObjectMeta)
	desc := describe("Pod", p.Namespace, p.Name)
	if err := sc.checkMeta(p, desc, &p.ObjectMeta, true); err != nil {
		return err
	}
	if err := unique(p, desc); err != nil {
		return err
	}
	if len(p.Spec.Containers) == 0 {
		return sc.errAt(p, desc, "spec.containers", "Required value")
	}
	for _, group := range []struct {
		name string
		cs   []v1.Container
	}{{"initContainers", p.Spec.InitContainers}, {"containers", p.Spec.Containers}} {
		for i := range group.cs {
			path := field.NewPath("spec", group.name).Index(i).Child("resources")
			if err := defaultAndCheckResources(&group.cs[i].Resources, path); err != nil {
				return sc.errAt(p, desc, err.Field, err.ErrorBody())
			}
		}
	}
	if p.Spec.Resources != nil {
		if err := defaultAndCheckResources(p.Spec.Resources, field.NewPath("spec", "resources")); err != nil {
			return sc.errAt(p, desc, err.Field, err.ErrorBody())
		}
	}
	for i, c := range p.Spec.ResourceClaims {
		if (c.ResourceClaimName == nil) == (c.ResourceClaimTemplateName == nil) {
			return sc.errAt(p, desc, fmt.Sprintf("spec.resourceClaims[%d]", i),
				"Invalid value: exactly one of resourceClaimName or resourceClaimTemplateName must be set")
		}
	}
	if p.Spec.TerminationGracePeriodSeconds == nil {
		grace := int64(v1.DefaultTerminationGracePeriodSeconds)
		p.Spec.TerminationGracePeriodSeconds = &grace
	}
	if p.Spec.SchedulerName == "" {
		p.Spec.SchedulerName = v1.DefaultSchedulerName
	}
	return sc.admitPriority(p, desc, classes)
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

// defaultAndCheckResources defaults requests to limits where only limits are set (the API
// server's defaulting) and refuses negative amounts and requests above limits.
func defaultAndCheckResources(r *v1.ResourceRequirements, path *field.Path) *field.Error {
	for name, q := range r.Limits {
		if q.Sign() < 0 {
			return field.Invalid(path.Child("limits").Key(string(name)), q.String(), "must be greater than or equal to 0")
		}
		if _, ok := r.Requests[name]; !ok {
			if r.Requests == nil {
				r.Requests = v1.ResourceList{}
			}
			r.Requests[name] = q.DeepCopy()
		}
	}
	for name, q := range r.Requests {
		if q.Sign() < 0 {
			return field.Invalid(path.Child("requests").Key(string(name)), q.String(), "must be greater than or equal to 0")
		}
		if lim, ok := r.Limits[name]; ok && q.Cmp(lim) > 0 {
			return field.Invalid(path.Child("requests").Key(string(name)), q.String(), "must be less than or equal to "+string(name)+" limit of "+lim.String())
		}
	}
	return nil
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

// describe names an object for messages: "Pod default/web", or just the kind when the
// object has no name.
func describe(kind, namespace, name string) string {
	switch {
	case name == "":
		return kind
	case namespace == "":
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}
