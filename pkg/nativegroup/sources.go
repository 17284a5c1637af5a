package nativegroup

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// Sink receives the PodGroups the scheduler should see, one per namespace/name.
// *scheduler.Scheduler implements it.
type Sink interface {
	AddPodGroup(pg *v1alpha1.PodGroup)
	UpdatePodGroup(old, pg *v1alpha1.PodGroup)
	DeletePodGroup(pg *v1alpha1.PodGroup)
}

// ClashFunc is told when a namespace/name becomes claimed by both a CRD PodGroup and a
// native one (or one of the two is replaced while it is), with the message the scheduler
// puts on the CRD group. The driver tells the native object's users.
type ClashFunc func(native *PodGroup, crd *v1alpha1.PodGroup, msg string)

// Sources merges the PodGroups of both APIs, and the Workloads native ones refer to, into
// the groups the scheduler sees: a group's members name it by namespace/name only, so the
// two APIs share one space of names. A name held by one API is that API's group (a native
// one mapped by ToPodGroup); a name held by both is a clash, never a silent pick: the
// scheduler gets the CRD group marked invalid with a message that names both, and the
// ClashFunc hears of the native one. Deleting either ends the clash.
//
// Sources is not safe for concurrent use: drivers call it from the scheduling loop.
type Sources struct {
	sink    Sink
	onClash ClashFunc

	crd       map[string]*v1alpha1.PodGroup
	native    map[string]*PodGroup
	workloads map[string]*Workload
	// users maps a Workload's key to the keys of the native groups that refer to it.
	users map[string]map[string]bool
	// fed is what the sink was last given, per key.
	fed map[string]*v1alpha1.PodGroup
	// clashes holds the UIDs of the pair last reported, per key in clash.
	clashes map[string]*[2]types.UID
}

// NewSources returns Sources that feed sink; onClash may be nil.
func NewSources(sink Sink, onClash ClashFunc) *Sources {
	return &Sources{
		sink: sink, onClash: onClash,
		crd:       map[string]*v1alpha1.PodGroup{},
		native:    map[string]*PodGroup{},
		workloads: map[string]*Workload{},
		users:     map[string]map[string]bool{},
		fed:       map[string]*v1alpha1.PodGroup{},
		clashes:   map[string]*[2]types.UID{},
	}
}

func objKey(namespace, name string) string { return namespace + "/" + name }

// SetCRD records a CRD PodGroup that appeared or changed.
func (s *Sources) SetCRD(pg *v1alpha1.PodGroup) {
	k := objKey(pg.Namespace, pg.Name)
	s.crd[k] = pg
	s.resolve(k)
}

// DeleteCRD forgets a CRD PodGroup.
func (s *Sources) DeleteCRD(pg *v1alpha1.PodGroup) {
	k := objKey(pg.Namespace, pg.Name)
	delete(s.crd, k)
	s.resolve(k)
}

// SetNative records a native PodGroup that appeared or changed, read by PodGroupFrom.
func (s *Sources) SetNative(pg *PodGroup) {
	k := objKey(pg.Namespace, pg.Name)
	s.unlink(k)
	s.native[k] = pg
	if w := workloadKey(pg); w != "" {
		if s.users[w] == nil {
			s.users[w] = map[string]bool{}
		}
		s.users[w][k] = true
	}
	s.resolve(k)
}

// DeleteNative forgets a native PodGroup.
func (s *Sources) DeleteNative(pg *PodGroup) {
	k := objKey(pg.Namespace, pg.Name)
	s.unlink(k)
	delete(s.native, k)
	s.resolve(k)
}

// SetWorkload records a Workload that appeared or changed; the groups that refer to it
// are mapped again. It is read by WorkloadFrom.
func (s *Sources) SetWorkload(wl *Workload) {
	k := objKey(wl.Namespace, wl.Name)
	s.workloads[k] = wl
	s.resolveUsers(k)
}

// DeleteWorkload forgets a Workload; the groups that refer to it are held until it is back.
func (s *Sources) DeleteWorkload(wl *Workload) {
	k := objKey(wl.Namespace, wl.Name)
	delete(s.workloads, k)
	s.resolveUsers(k)
}

func (s *Sources) resolveUsers(workload string) {
	for _, k := range slices.Sorted(maps.Keys(s.users[workload])) {
		s.resolve(k)
	}
}

// unlink removes a native group from the users of the Workload it referred to.
func (s *Sources) unlink(k string) {
	old := s.native[k]
	if old == nil {
		return
	}
	if w := workloadKey(old); w != "" {
		delete(s.users[w], k)
		if len(s.users[w]) == 0 {
			delete(s.users, w)
		}
	}
}

// workloadKey is the key of the Workload a native group's template lives in, "" for none.
func workloadKey(pg *PodGroup) string {
	ref := pg.Spec.WorkloadRef
	if ref == nil || ref.WorkloadName == "" {
		return ""
	}
	return objKey(pg.Namespace, ref.WorkloadName)
}

// resolve gives the sink the group a key now stands for.
func (s *Sources) resolve(k string) {
	want := s.derive(k)
	old := s.fed[k]
	switch {
	case want == nil && old == nil:
	case want == nil:
		delete(s.fed, k)
		s.sink.DeletePodGroup(old)
	case old == nil:
		s.fed[k] = want
		s.sink.AddPodGroup(want)
	default:
		s.fed[k] = want
		s.sink.UpdatePodGroup(old, want)
	}
}

func (s *Sources) derive(k string) *v1alpha1.PodGroup {
	crd, native := s.crd[k], s.native[k]
	if crd == nil || native == nil {
		delete(s.clashes, k)
	}
	switch {
	case crd != nil && native != nil:
		msg := ClashMessage(crd.Namespace, crd.Name, native.APIVersion)
		out := crd.DeepCopy()
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[v1alpha1.AnnotationInvalidReason] = msg
		if pair, prev := [2]types.UID{crd.UID, native.UID}, s.clashes[k]; prev == nil || *prev != pair {
			s.clashes[k] = &pair
			if s.onClash != nil {
				s.onClash(native, crd, msg)
			}
		}
		return out
	case crd != nil:
		if _, marked := crd.Annotations[v1alpha1.AnnotationInvalidReason]; marked {
			out := crd.DeepCopy()
			delete(out.Annotations, v1alpha1.AnnotationInvalidReason)
			return out
		}
		return crd
	case native != nil:
		var wl *Workload
		if w := workloadKey(native); w != "" {
			wl = s.workloads[w]
		}
		return ToPodGroup(native, wl)
	}
	return nil
}

// ClashMessage says that both APIs define a PodGroup namespace/name, the native one read
// as apiVersion.
func ClashMessage(namespace, name, apiVersion string) string {
	return fmt.Sprintf("PodGroup %s/%s is defined both as a %s PodGroup and as a %s PodGroup: phalanx schedules neither until one of them is deleted",
		namespace, name, v1alpha1.SchemeGroupVersion, apiVersion)
}
