package sim

import (
	"cmp"
	"fmt"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// groupObjects are the PodGroups and CompositePodGroups as the API server holds them:
// phalanx's CRD objects, and Kubernetes' own scheduling.k8s.io ones (v1beta1 and v1alpha3
// as 1.37 serves them, v1alpha2 as 1.36 did), simulated as a cluster serving that API with
// its gates on. nativegroup.Sources merges both into what the scheduler sees, as in the
// kube driver; phalanx's status writes land on the object of the API the group came from,
// a native one in its version's condition types.
type groupObjects struct {
	s *Simulator

	crd map[string]*v1alpha1.PodGroup
	// crdGone marks groups deleted on the timeline (their last status is still reported).
	crdGone map[string]bool
	// crdComposites are the CRD's CompositePodGroups (crdCompositeGone: deleted on the
	// timeline).
	crdComposites    map[string]*v1alpha1.CompositePodGroup
	crdCompositeGone map[string]bool
	// native and nativeComposites hold Kubernetes' own, by namespace/name.
	native           map[string]*nativeRecord[*nativegroup.PodGroup]
	nativeComposites map[string]*nativeRecord[*nativegroup.CompositePodGroup]
	sources          *nativegroup.Sources
}

// nativeRecord is a native PodGroup or CompositePodGroup during the run.
type nativeRecord[T any] struct {
	// obj is the object as the API server would hold it now, its status included.
	obj T
	// phase is the phase phalanx last decided, for the report (the native status has none).
	phase v1alpha1.PodGroupPhase
	gone  bool
}

func newGroupObjects(s *Simulator) *groupObjects {
	g := &groupObjects{
		s:                s,
		crd:              map[string]*v1alpha1.PodGroup{},
		crdGone:          map[string]bool{},
		crdComposites:    map[string]*v1alpha1.CompositePodGroup{},
		crdCompositeGone: map[string]bool{},
		native:           map[string]*nativeRecord[*nativegroup.PodGroup]{},
		nativeComposites: map[string]*nativeRecord[*nativegroup.CompositePodGroup]{},
	}
	g.sources = nativegroup.NewSources(s.sched, g.nativeClash)
	g.sources.OnCompositeClash(g.nativeCompositeClash)
	return g
}

// podGroup is phalanx's PodGroup of that namespace/name as it stands (nil if it never
// appeared).
//
// Without one, a native PodGroup of that name is mapped (its own fields, not its
// Workload's template), so that the report finds the claims a native group shares.
func (g *groupObjects) podGroup(key string) *v1alpha1.PodGroup {
	if pg := g.crd[key]; pg != nil {
		return pg
	}
	if rec := g.native[key]; rec != nil && !rec.gone {
		return nativegroup.ToPodGroup(rec.obj, nil)
	}
	return nil
}

// createCRD creates a copy of phalanx's PodGroup.
func (g *groupObjects) createCRD(pg *v1alpha1.PodGroup) {
	cur := pg.DeepCopy()
	g.crd[pg.Namespace+"/"+pg.Name] = cur
	g.sources.SetCRD(cur)
}

// deleteCRD deletes phalanx's PodGroup; it returns the group deleted (nil when it was
// not there), whose claims the garbage collector then deletes.
func (g *groupObjects) deleteCRD(key string) *v1alpha1.PodGroup {
	cur := g.crd[key]
	if cur == nil || g.crdGone[key] {
		return nil
	}
	g.crdGone[key] = true
	g.sources.DeleteCRD(cur)
	return cur
}

// createCRDComposite creates a copy of phalanx's CompositePodGroup.
func (g *groupObjects) createCRDComposite(c *v1alpha1.CompositePodGroup) {
	cur := c.DeepCopy()
	g.crdComposites[c.Namespace+"/"+c.Name] = cur
	g.sources.SetCRDComposite(cur)
}

func (g *groupObjects) deleteCRDComposite(key string) {
	if cur := g.crdComposites[key]; cur != nil && !g.crdCompositeGone[key] {
		g.crdCompositeGone[key] = true
		g.sources.DeleteCRDComposite(cur)
	}
}

// planNative puts the native objects on the timeline: Workloads before the composites and
// PodGroups that refer to them, composites before the groups that name them.
func (g *groupObjects) planNative() {
	sc, src := g.s.sc, g.sources
	for _, wl := range sc.Workloads {
		g.s.planObject(&wl.ObjectMeta, func() { src.SetWorkload(wl) }, func() { src.DeleteWorkload(wl) })
	}
	for _, c := range sc.NativeComposites {
		planRecord(g.s, c, &c.ObjectMeta, g.nativeComposites, src.SetNativeComposite, src.DeleteNativeComposite)
	}
	for _, pg := range sc.NativePodGroups {
		planRecord(g.s, pg, &pg.ObjectMeta, g.native, src.SetNative, src.DeleteNative)
	}
}

// planRecord puts a native object's creation and deletion on the timeline: its record in
// records, from a copy of obj, and set and del told.
func planRecord[T interface{ DeepCopy() T }](s *Simulator, obj T, m *metav1.ObjectMeta, records map[string]*nativeRecord[T], set, del func(T)) {
	key := m.Namespace + "/" + m.Name
	s.planObject(m, func() {
		rec := &nativeRecord[T]{obj: obj.DeepCopy()}
		records[key] = rec
		set(rec.obj)
	}, func() {
		if rec := records[key]; rec != nil && !rec.gone {
			rec.gone = true
			del(rec.obj)
		}
	})
}

// updateStatus stores the status of a PodGroup or a CompositePodGroup, on the object of the
// API it came from.
func (g *groupObjects) updateStatus(obj runtime.Object) error {
	switch o := obj.(type) {
	case *v1alpha1.CompositePodGroup:
		if nativegroup.IsNativeComposite(o) {
			return updateRecord(g.nativeComposites[o.Namespace+"/"+o.Name], o.UID, "compositepodgroups.scheduling.k8s.io", o.Name,
				nativegroup.CompositeStatusConditions(o), o.Status.Phase,
				func(n *nativegroup.CompositePodGroup) *[]metav1.Condition { return &n.Status.Conditions }, g.sources.SetNativeComposite)
		}
		return setStatus(g.crdComposites, g.crdCompositeGone, o.Namespace+"/"+o.Name, "compositepodgroups", o.Name,
			func(cur *v1alpha1.CompositePodGroup) bool { return cur.UID == o.UID },
			func(next *v1alpha1.CompositePodGroup) { next.Status = *o.Status.DeepCopy() }, g.sources.SetCRDComposite)
	case *v1alpha1.PodGroup:
		if nativegroup.IsNative(o) {
			// phalanx's conditions go to the native PodGroup the group was mapped from, as the
			// kube driver patches its status, and the change is reported back.
			// In the simulator phalanx also plays upstream's ResourceClaim controller for
			// the group's claims (DRAWorkloadResourceClaims): the claims it made from the
			// group's templates are recorded in the native status, as that controller does,
			// or the group would ask for them again and again.
			claims := nativeClaimStatuses(o.Status.ResourceClaimStatuses)
			return updateRecord(g.native[o.Namespace+"/"+o.Name], o.UID, "podgroups.scheduling.k8s.io", o.Name,
				nativegroup.StatusConditions(o), o.Status.Phase,
				func(n *nativegroup.PodGroup) *[]metav1.Condition {
					n.Status.ResourceClaimStatuses = claims
					return &n.Status.Conditions
				}, g.sources.SetNative)
		}
		return setStatus(g.crd, g.crdGone, o.Namespace+"/"+o.Name, "podgroups", o.Name,
			func(*v1alpha1.PodGroup) bool { return true },
			func(next *v1alpha1.PodGroup) { next.Status = *o.Status.DeepCopy() }, g.sources.SetCRD)
	}
	return fmt.Errorf("status updates of %T are not supported", obj)
}

// setStatus stores a copy of phalanx's object at key with its status set by set, if the
// object exists, was not deleted and is the one written (same), and tells tell.
func setStatus[T interface{ DeepCopy() T }](objs map[string]T, gone map[string]bool, key, resource, name string,
	same func(cur T) bool, set, tell func(T)) error {
	cur, ok := objs[key]
	if !ok || gone[key] || !same(cur) {
		return fmt.Errorf("%s %q not found", resource, name)
	}
	next := cur.DeepCopy()
	set(next)
	objs[key] = next
	tell(next)
	return nil
}

// updateRecord sets conditions on a copy of a native object (of uid), records phase and
// tells set.
func updateRecord[T interface {
	DeepCopy() T
	GetUID() types.UID
}](rec *nativeRecord[T], uid types.UID, resource, name string, conds []metav1.Condition, phase v1alpha1.PodGroupPhase,
	conditionsOf func(T) *[]metav1.Condition, set func(T)) error {
	if rec == nil || rec.gone || rec.obj.GetUID() != uid {
		return fmt.Errorf("%s %q not found", resource, name)
	}
	next := rec.obj.DeepCopy()
	conditions := conditionsOf(next)
	for _, c := range conds {
		meta.SetStatusCondition(conditions, c)
	}
	rec.obj, rec.phase = next, phase
	set(next)
	return nil
}

// nativeClash tells a native PodGroup's users that a CRD PodGroup of the same name holds
// it back, as the kube driver does: its condition and a Warning event (the scheduler
// reports the CRD group).
func (g *groupObjects) nativeClash(native *nativegroup.PodGroup, _ *v1alpha1.PodGroup, msg string) {
	clashRecord(g.s, g.native[native.Namespace+"/"+native.Name], nativegroup.ClashCondition(native, msg, g.s.now), msg,
		func(o *nativegroup.PodGroup) *[]metav1.Condition { return &o.Status.Conditions }, g.sources.SetNative)
}

// nativeCompositeClash is nativeClash for a native CompositePodGroup.
func (g *groupObjects) nativeCompositeClash(native *nativegroup.CompositePodGroup, _ *v1alpha1.CompositePodGroup, msg string) {
	clashRecord(g.s, g.nativeComposites[native.Namespace+"/"+native.Name], nativegroup.CompositeClashCondition(native, msg, g.s.now), msg,
		func(o *nativegroup.CompositePodGroup) *[]metav1.Condition { return &o.Status.Conditions }, g.sources.SetNativeComposite)
}

func clashRecord[T interface {
	DeepCopy() T
	runtime.Object
}](s *Simulator, rec *nativeRecord[T], cond metav1.Condition, msg string, conditionsOf func(T) *[]metav1.Condition, set func(T)) {
	if rec == nil {
		return
	}
	next := rec.obj.DeepCopy()
	meta.SetStatusCondition(conditionsOf(next), cond)
	rec.obj, rec.phase = next, v1alpha1.PodGroupPhasePending
	s.Event(next, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	// The change reaches the scheduler as an informer would report it, after this event.
	s.Go(func() {
		if !rec.gone && any(rec.obj) == any(next) {
			set(next)
		}
	})
}

// reports are the PodGroups' outcomes (phalanx's, then Kubernetes' own), and the
// CompositePodGroups' alike, in input order: each object as the run left it (its input, if
// it never appeared).
func (g *groupObjects) reports() (groups, composites []report.Group) {
	sc := g.s.sc
	groups = []report.Group{}
	for _, pg := range sc.PodGroups {
		cur := cmp.Or(g.crd[pg.Namespace+"/"+pg.Name], pg)
		groups = append(groups, groupReport("", &cur.ObjectMeta, cur.Status.Phase, cur.Status.Conditions, cur.Spec.Priority, cur.Spec.ParentCompositePodGroupName, cur.MinCount()))
	}
	for _, pg := range sc.NativePodGroups {
		cur, phase := recordNow(g.native[pg.Namespace+"/"+pg.Name], pg)
		groups = append(groups, groupReport(pg.APIVersion, &cur.ObjectMeta, phase, cur.Status.Conditions, cur.Spec.Priority, cur.Spec.ParentCompositePodGroupName, nativegroup.ToPodGroup(cur, nil).MinCount()))
	}
	for _, c := range sc.CompositePodGroups {
		cur := cmp.Or(g.crdComposites[c.Namespace+"/"+c.Name], c)
		composites = append(composites, groupReport("", &cur.ObjectMeta, cur.Status.Phase, cur.Status.Conditions, cur.Spec.Priority, cur.Spec.ParentCompositePodGroupName, cur.MinGroupCount()))
	}
	for _, c := range sc.NativeComposites {
		cur, phase := recordNow(g.nativeComposites[c.Namespace+"/"+c.Name], c)
		composites = append(composites, groupReport(c.APIVersion, &cur.ObjectMeta, phase, cur.Status.Conditions, cur.Spec.Priority, cur.Spec.ParentCompositePodGroupName, nativegroup.ToCompositePodGroup(cur, nil).MinGroupCount()))
	}
	return groups, composites
}

// recordNow is a native object as the run left it (its input, if it never appeared) and
// the phase phalanx last decided.
func recordNow[T any](rec *nativeRecord[T], input T) (T, v1alpha1.PodGroupPhase) {
	if rec == nil {
		return input, v1alpha1.PodGroupPhasePending
	}
	phase := rec.phase
	if phase == "" {
		phase = v1alpha1.PodGroupPhasePending
	}
	return rec.obj, phase
}

// groupReport is a group's or composite's outcome; apiVersion is set for Kubernetes' own
// only, minCount is a composite's minGroupCount.
func groupReport(apiVersion string, m *metav1.ObjectMeta, phase v1alpha1.PodGroupPhase, conds []metav1.Condition, priority *int32, parent *string, minCount int32) report.Group {
	gr := report.GroupOf(m, phase, conds, priority, parent)
	gr.APIVersion, gr.MinCount = apiVersion, minCount
	return gr
}

// nativeClaimStatuses are phalanx's status.resourceClaimStatuses in the native shape.
func nativeClaimStatuses(in []v1alpha1.PodGroupResourceClaimStatus) []schedulingv1beta1.PodGroupResourceClaimStatus {
	var out []schedulingv1beta1.PodGroupResourceClaimStatus
	for _, c := range in {
		st := schedulingv1beta1.PodGroupResourceClaimStatus{Name: c.Name}
		if c.ResourceClaimName != nil {
			n := *c.ResourceClaimName
			st.ResourceClaimName = &n
		}
		out = append(out, st)
	}
	return out
}
