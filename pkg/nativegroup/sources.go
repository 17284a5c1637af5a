package nativegroup

import (
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// Sink receives the PodGroups and CompositePodGroups the scheduler should see, one per
// kind and namespace/name. *scheduler.Scheduler implements it.
type Sink interface {
	AddPodGroup(pg *v1alpha1.PodGroup)
	UpdatePodGroup(old, pg *v1alpha1.PodGroup)
	DeletePodGroup(pg *v1alpha1.PodGroup)
	AddCompositePodGroup(c *v1alpha1.CompositePodGroup)
	UpdateCompositePodGroup(old, c *v1alpha1.CompositePodGroup)
	DeleteCompositePodGroup(c *v1alpha1.CompositePodGroup)
}

// ClashFunc is told when a namespace/name becomes claimed by both a CRD PodGroup and a
// native one (or one of the two is replaced while it is), with the message the scheduler
// puts on the CRD group. The driver tells the native object's users.
type ClashFunc func(native *PodGroup, crd *v1alpha1.PodGroup, msg string)

// CompositeClashFunc is ClashFunc for CompositePodGroups.
type CompositeClashFunc func(native *CompositePodGroup, crd *v1alpha1.CompositePodGroup, msg string)

// Sources merges the PodGroups and CompositePodGroups of both APIs, and the Workloads
// native ones refer to, into the groups the scheduler sees: a group's members name it by
// namespace/name only, and a group names its composite so, so the two APIs share one space
// of names per kind. A name held by one API is that API's object (a native one mapped by
// ToPodGroup or ToCompositePodGroup); a name held by both is a clash, never a silent pick:
// the scheduler gets the CRD object marked invalid with a message that names both, and the
// clash function hears of the native one. Deleting either ends the clash.
//
// Sources is not safe for concurrent use: drivers call it from the scheduling loop.
type Sources struct {
	groups     *merged[*v1alpha1.PodGroup, *PodGroup]
	composites *merged[*v1alpha1.CompositePodGroup, *CompositePodGroup]
	workloads  map[string]*Workload
}

// NewSources returns Sources that feed sink; onClash may be nil (OnCompositeClash sets the
// composites' own).
func NewSources(sink Sink, onClash ClashFunc) *Sources {
	s := &Sources{workloads: map[string]*Workload{}}
	s.groups = &merged[*v1alpha1.PodGroup, *PodGroup]{
		add: sink.AddPodGroup, update: sink.UpdatePodGroup, del: sink.DeletePodGroup,
		onClash: onClash,
		toSink: func(n *PodGroup) *v1alpha1.PodGroup {
			return ToPodGroup(n, s.workloadOf(n.Namespace, n.Spec.WorkloadRef))
		},
		marked: func(pg *v1alpha1.PodGroup, reason string) *v1alpha1.PodGroup {
			out := pg.DeepCopy()
			markInvalid(&out.ObjectMeta, reason)
			return out
		},
		clashMessage: func(n *PodGroup) string { return ClashMessage(n.Namespace, n.Name, n.APIVersion) },
		workloadKey:  func(n *PodGroup) string { return refKey(n.Namespace, n.Spec.WorkloadRef) },
	}
	s.composites = &merged[*v1alpha1.CompositePodGroup, *CompositePodGroup]{
		add: sink.AddCompositePodGroup, update: sink.UpdateCompositePodGroup, del: sink.DeleteCompositePodGroup,
		toSink: func(n *CompositePodGroup) *v1alpha1.CompositePodGroup {
			return ToCompositePodGroup(n, s.workloadOf(n.Namespace, compositeRef(n)))
		},
		marked: func(c *v1alpha1.CompositePodGroup, reason string) *v1alpha1.CompositePodGroup {
			out := c.DeepCopy()
			markInvalid(&out.ObjectMeta, reason)
			return out
		},
		clashMessage: func(n *CompositePodGroup) string { return CompositeClashMessage(n.Namespace, n.Name, n.APIVersion) },
		workloadKey:  func(n *CompositePodGroup) string { return refKey(n.Namespace, compositeRef(n)) },
	}
	s.groups.init()
	s.composites.init()
	return s
}

// OnCompositeClash sets the function told of a CompositePodGroup name both APIs define.
func (s *Sources) OnCompositeClash(f CompositeClashFunc) {
	s.composites.onClash = f
}

func objKey(namespace, name string) string { return namespace + "/" + name }

// SetCRD records a CRD PodGroup that appeared or changed.
func (s *Sources) SetCRD(pg *v1alpha1.PodGroup) { s.groups.setCRD(pg) }

// DeleteCRD forgets a CRD PodGroup.
func (s *Sources) DeleteCRD(pg *v1alpha1.PodGroup) { s.groups.deleteCRD(pg) }

// SetNative records a native PodGroup that appeared or changed, read by PodGroupFrom.
func (s *Sources) SetNative(pg *PodGroup) { s.groups.setNative(pg) }

// DeleteNative forgets a native PodGroup.
func (s *Sources) DeleteNative(pg *PodGroup) { s.groups.deleteNative(pg) }

// SetCRDComposite records a CRD CompositePodGroup that appeared or changed.
func (s *Sources) SetCRDComposite(c *v1alpha1.CompositePodGroup) { s.composites.setCRD(c) }

// DeleteCRDComposite forgets a CRD CompositePodGroup.
func (s *Sources) DeleteCRDComposite(c *v1alpha1.CompositePodGroup) { s.composites.deleteCRD(c) }

// SetNativeComposite records a native CompositePodGroup that appeared or changed, read by
// CompositeFrom.
func (s *Sources) SetNativeComposite(c *CompositePodGroup) { s.composites.setNative(c) }

// DeleteNativeComposite forgets a native CompositePodGroup.
func (s *Sources) DeleteNativeComposite(c *CompositePodGroup) { s.composites.deleteNative(c) }

// SetWorkload records a Workload that appeared or changed; the groups and composites that
// refer to it are mapped again. It is read by WorkloadFrom.
func (s *Sources) SetWorkload(wl *Workload) {
	k := objKey(wl.Namespace, wl.Name)
	s.workloads[k] = wl
	s.resolveUsers(k)
}

// DeleteWorkload forgets a Workload; the groups and composites that refer to it are held
// until it is back.
func (s *Sources) DeleteWorkload(wl *Workload) {
	k := objKey(wl.Namespace, wl.Name)
	delete(s.workloads, k)
	s.resolveUsers(k)
}

func (s *Sources) resolveUsers(workload string) {
	s.composites.resolveUsers(workload)
	s.groups.resolveUsers(workload)
}

// workloadOf is the Workload a reference names, nil when none or not known.
func (s *Sources) workloadOf(namespace string, ref *WorkloadReference) *Workload {
	if k := refKey(namespace, ref); k != "" {
		return s.workloads[k]
	}
	return nil
}

// refKey is the key of the Workload a reference names, "" for none.
func refKey(namespace string, ref *WorkloadReference) string {
	if ref == nil || ref.WorkloadName == "" {
		return ""
	}
	return objKey(namespace, ref.WorkloadName)
}

// markInvalid sets the invalid-reason marker on metadata, or drops it for "".
func markInvalid(m *metav1.ObjectMeta, reason string) {
	if reason == "" {
		delete(m.Annotations, v1alpha1.AnnotationInvalidReason)
		if len(m.Annotations) == 0 {
			m.Annotations = nil
		}
		return
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[v1alpha1.AnnotationInvalidReason] = reason
}

// merged is one kind's objects of both APIs, by namespace/name: the CRD's (C) and the
// native API's (N), and what the sink was last given (C, a native object mapped).
type merged[C, N interface {
	comparable
	metav1.Object
}] struct {
	crd    map[string]C
	native map[string]N
	fed    map[string]C
	// clashes holds the UIDs of the pair last reported, per key in clash.
	clashes map[string][2]types.UID
	// users maps a Workload's key to the keys of the native objects that refer to it.
	users map[string]map[string]bool

	add    func(C)
	update func(old, c C)
	del    func(C)
	// onClash (may be nil) hears of a native object whose name the CRD holds too.
	onClash func(native N, crd C, msg string)
	// toSink maps a native object (with its Workload) onto the CRD's kind; marked copies a
	// CRD object with the invalid-reason marker set ("" drops it).
	toSink       func(N) C
	marked       func(c C, reason string) C
	clashMessage func(N) string
	// workloadKey is the key of the Workload a native object refers to, "" for none.
	workloadKey func(N) string
}

func (m *merged[C, N]) init() {
	m.crd, m.native, m.fed = map[string]C{}, map[string]N{}, map[string]C{}
	m.clashes, m.users = map[string][2]types.UID{}, map[string]map[string]bool{}
}

func (m *merged[C, N]) setCRD(c C) {
	k := objKey(c.GetNamespace(), c.GetName())
	m.crd[k] = c
	m.resolve(k)
}

func (m *merged[C, N]) deleteCRD(c C) {
	k := objKey(c.GetNamespace(), c.GetName())
	delete(m.crd, k)
	m.resolve(k)
}

func (m *merged[C, N]) setNative(n N) {
	k := objKey(n.GetNamespace(), n.GetName())
	m.unlink(k)
	m.native[k] = n
	if w := m.workloadKey(n); w != "" {
		if m.users[w] == nil {
			m.users[w] = map[string]bool{}
		}
		m.users[w][k] = true
	}
	m.resolve(k)
}

func (m *merged[C, N]) deleteNative(n N) {
	k := objKey(n.GetNamespace(), n.GetName())
	m.unlink(k)
	delete(m.native, k)
	m.resolve(k)
}

func (m *merged[C, N]) resolveUsers(workload string) {
	for _, k := range slices.Sorted(maps.Keys(m.users[workload])) {
		m.resolve(k)
	}
}

// unlink removes a native object from the users of the Workload it referred to.
func (m *merged[C, N]) unlink(k string) {
	old, ok := m.native[k]
	if !ok {
		return
	}
	if w := m.workloadKey(old); w != "" {
		delete(m.users[w], k)
		if len(m.users[w]) == 0 {
			delete(m.users, w)
		}
	}
}

// resolve gives the sink the object a key now stands for.
func (m *merged[C, N]) resolve(k string) {
	want, ok := m.derive(k)
	old, had := m.fed[k]
	switch {
	case !ok && !had:
	case !ok:
		delete(m.fed, k)
		m.del(old)
	case !had:
		m.fed[k] = want
		m.add(want)
	default:
		m.fed[k] = want
		m.update(old, want)
	}
}

func (m *merged[C, N]) derive(k string) (C, bool) {
	crd, hasCRD := m.crd[k]
	native, hasNative := m.native[k]
	if !hasCRD || !hasNative {
		delete(m.clashes, k)
	}
	switch {
	case hasCRD && hasNative:
		msg := m.clashMessage(native)
		out := m.marked(crd, msg)
		pair := [2]types.UID{crd.GetUID(), native.GetUID()}
		if prev, reported := m.clashes[k]; !reported || prev != pair {
			m.clashes[k] = pair
			if m.onClash != nil {
				m.onClash(native, crd, msg)
			}
		}
		return out, true
	case hasCRD:
		if _, spoofed := crd.GetAnnotations()[v1alpha1.AnnotationInvalidReason]; spoofed {
			return m.marked(crd, ""), true
		}
		return crd, true
	case hasNative:
		return m.toSink(native), true
	}
	var none C
	return none, false
}

// ClashMessage says that both APIs define a PodGroup namespace/name, the native one read
// as apiVersion.
func ClashMessage(namespace, name, apiVersion string) string {
	return clashMessage(KindPodGroup, namespace, name, apiVersion)
}

// CompositeClashMessage says that both APIs define a CompositePodGroup namespace/name.
func CompositeClashMessage(namespace, name, apiVersion string) string {
	return clashMessage(KindCompositePodGroup, namespace, name, apiVersion)
}

func clashMessage(kind, namespace, name, apiVersion string) string {
	return fmt.Sprintf("%s %s/%s is defined both as a %s %s and as a %s %s: phalanx schedules neither until one of them is deleted",
		kind, namespace, name, v1alpha1.SchemeGroupVersion, kind, apiVersion, kind)
}
