package nativegroup

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// recorder is a Sink that writes down what it is told, and a ClashFunc.
type recorder struct {
	calls         []string
	last          map[string]*v1alpha1.PodGroup
	lastComposite map[string]*v1alpha1.CompositePodGroup
	clashes       []string
}

func newRecorder() *recorder {
	return &recorder{last: map[string]*v1alpha1.PodGroup{}, lastComposite: map[string]*v1alpha1.CompositePodGroup{}}
}

func describeGroup(pg *v1alpha1.PodGroup) string {
	src := "crd"
	if IsNative(pg) {
		src = "native"
	}
	s := fmt.Sprintf("%s/%s %s %s", pg.Namespace, pg.Name, src, pg.UID)
	if r := pg.Annotations[v1alpha1.AnnotationInvalidReason]; r != "" {
		s += " invalid: " + r
	}
	return s
}

func (r *recorder) AddPodGroup(pg *v1alpha1.PodGroup) {
	r.calls = append(r.calls, "add "+describeGroup(pg))
	r.last[pg.Namespace+"/"+pg.Name] = pg
}

func (r *recorder) UpdatePodGroup(old, pg *v1alpha1.PodGroup) {
	if r.last[old.Namespace+"/"+old.Name] != old {
		r.calls = append(r.calls, "update with a stale old object")
	}
	r.calls = append(r.calls, "update "+describeGroup(pg))
	r.last[pg.Namespace+"/"+pg.Name] = pg
}

func (r *recorder) DeletePodGroup(pg *v1alpha1.PodGroup) {
	r.calls = append(r.calls, "delete "+describeGroup(pg))
	delete(r.last, pg.Namespace+"/"+pg.Name)
}

func describeComposite(c *v1alpha1.CompositePodGroup) string {
	src := "crd"
	if IsNativeComposite(c) {
		src = "native"
	}
	s := fmt.Sprintf("composite %s/%s %s %s", c.Namespace, c.Name, src, c.UID)
	if r := c.Annotations[v1alpha1.AnnotationInvalidReason]; r != "" {
		s += " invalid: " + r
	}
	return s
}

func (r *recorder) AddCompositePodGroup(c *v1alpha1.CompositePodGroup) {
	r.calls = append(r.calls, "add "+describeComposite(c))
	r.lastComposite[c.Namespace+"/"+c.Name] = c
}

func (r *recorder) UpdateCompositePodGroup(old, c *v1alpha1.CompositePodGroup) {
	if r.lastComposite[old.Namespace+"/"+old.Name] != old {
		r.calls = append(r.calls, "update with a stale old composite")
	}
	r.calls = append(r.calls, "update "+describeComposite(c))
	r.lastComposite[c.Namespace+"/"+c.Name] = c
}

func (r *recorder) DeleteCompositePodGroup(c *v1alpha1.CompositePodGroup) {
	r.calls = append(r.calls, "delete "+describeComposite(c))
	delete(r.lastComposite, c.Namespace+"/"+c.Name)
}

func (r *recorder) compositeClash(native *CompositePodGroup, crd *v1alpha1.CompositePodGroup, msg string) {
	r.clashes = append(r.clashes, fmt.Sprintf("composite %s %s %s: %s", native.Name, native.UID, crd.UID, msg))
}

func (r *recorder) clash(native *PodGroup, crd *v1alpha1.PodGroup, msg string) {
	r.clashes = append(r.clashes, fmt.Sprintf("%s %s %s: %s", native.Name, native.UID, crd.UID, msg))
}

func (r *recorder) take() []string {
	out := r.calls
	r.calls = nil
	return out
}

func crdGroup(name string, uid types.UID) *v1alpha1.PodGroup {
	return &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: uid},
		Spec:       v1alpha1.PodGroupSpec{SchedulingPolicy: gang8},
	}
}

func native(name string, uid types.UID, ref *schedulingv1alpha2.PodGroupTemplateReference) *PodGroup {
	return FromV1alpha2PodGroup(&schedulingv1alpha2.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: uid},
		Spec:       schedulingv1alpha2.PodGroupSpec{SchedulingPolicy: nativeGang(8), PodGroupTemplateRef: ref},
	})
}

func expectCalls(t *testing.T, step string, r *recorder, want ...string) {
	t.Helper()
	if got := r.take(); !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", step, got, want)
	}
}

func TestSourcesOneAPI(t *testing.T) {
	r := newRecorder()
	s := NewSources(r, r.clash)

	a := crdGroup("a", "crd-a")
	s.SetCRD(a)
	expectCalls(t, "CRD group added", r, "add ml/a crd crd-a")
	if r.last["ml/a"] != a {
		t.Error("a CRD group without markers is passed on as it is")
	}
	a2 := a.DeepCopy()
	a2.Status.Phase = v1alpha1.PodGroupPhaseScheduled
	s.SetCRD(a2)
	expectCalls(t, "CRD group updated", r, "update ml/a crd crd-a")
	s.DeleteCRD(a2)
	expectCalls(t, "CRD group deleted", r, "delete ml/a crd crd-a")

	spoofed := crdGroup("s", "crd-s")
	spoofed.Annotations = map[string]string{v1alpha1.AnnotationInvalidReason: "not from phalanx"}
	s.SetCRD(spoofed)
	expectCalls(t, "a CRD group's marker is dropped", r, "add ml/s crd crd-s")
	if _, ok := spoofed.Annotations[v1alpha1.AnnotationInvalidReason]; !ok {
		t.Error("the informer's object was changed")
	}

	n := native("n", "nat-n", nil)
	s.SetNative(n)
	expectCalls(t, "native group added", r, "add ml/n native nat-n")
	if got := r.last["ml/n"]; got.MinCount() != 8 || !got.IsGang() {
		t.Errorf("native group mapped to %+v", got.Spec)
	}
	s.DeleteNative(n)
	expectCalls(t, "native group deleted", r, "delete ml/n native nat-n")
	s.DeleteNative(n)
	s.DeleteCRD(a)
	expectCalls(t, "deleting what is gone", r)
	if len(r.clashes) > 0 {
		t.Errorf("clashes %q", r.clashes)
	}
}

func TestSourcesWorkloads(t *testing.T) {
	r := newRecorder()
	s := NewSources(r, r.clash)
	missing := `spec.podGroupTemplateRef.workload.workloadName: Not found: "job"`

	// Two groups of one Workload, seen before it (informers are not ordered).
	s.SetNative(native("w-0", "nat-0", templateRef("job", "workers")))
	s.SetNative(native("w-1", "nat-1", templateRef("job", "workers")))
	s.SetNative(native("other", "nat-o", templateRef("other", "workers")))
	expectCalls(t, "groups without their Workload", r,
		"add ml/w-0 native nat-0 invalid: "+missing,
		"add ml/w-1 native nat-1 invalid: "+missing,
		`add ml/other native nat-o invalid: spec.podGroupTemplateRef.workload.workloadName: Not found: "other"`)

	wl := FromV1alpha2Workload(workload(schedulingv1alpha2.PodGroupTemplate{Name: "workers", SchedulingPolicy: nativeGang(8), SchedulingConstraints: nativeRack()}))
	s.SetWorkload(wl)
	expectCalls(t, "the Workload arrives", r, "update ml/w-0 native nat-0", "update ml/w-1 native nat-1")
	if c := r.last["ml/w-1"].Spec.SchedulingConstraints; c == nil || len(c.Topology) != 1 {
		t.Errorf("the template's topology was not taken: %+v", c)
	}

	s.DeleteNative(native("w-1", "nat-1", templateRef("job", "workers")))
	expectCalls(t, "a group goes", r, "delete ml/w-1 native nat-1")
	s.DeleteWorkload(wl)
	expectCalls(t, "the Workload goes: its remaining group is held", r, "update ml/w-0 native nat-0 invalid: "+missing)

	// A group that now refers to another Workload is no longer its user.
	s.SetNative(native("w-0", "nat-0", templateRef("other", "workers")))
	r.take()
	s.SetWorkload(wl)
	expectCalls(t, "a Workload nobody refers to", r)
}

func TestSourcesClash(t *testing.T) {
	r := newRecorder()
	s := NewSources(r, r.clash)
	msg := "PodGroup ml/g is defined both as a scheduling.phalanx.dev/v1alpha1 PodGroup and as a scheduling.k8s.io/v1alpha2 PodGroup: phalanx schedules neither until one of them is deleted"

	c := crdGroup("g", "crd-1")
	s.SetCRD(c)
	r.take()
	s.SetNative(native("g", "nat-1", nil))
	expectCalls(t, "the native group clashes", r, "update ml/g crd crd-1 invalid: "+msg)
	if want := []string{"g nat-1 crd-1: " + msg}; !slices.Equal(r.clashes, want) {
		t.Errorf("clashes %q, want %q", r.clashes, want)
	}
	if _, ok := c.Annotations[v1alpha1.AnnotationInvalidReason]; ok {
		t.Error("the CRD informer's object was marked")
	}

	// A status write on the CRD group keeps the clash, reported once.
	c2 := c.DeepCopy()
	c2.Status.Phase = v1alpha1.PodGroupPhasePending
	s.SetCRD(c2)
	expectCalls(t, "status of the CRD group in a clash", r, "update ml/g crd crd-1 invalid: "+msg)
	if len(r.clashes) != 1 {
		t.Errorf("clash reported %d times, want once", len(r.clashes))
	}
	// A new native object of the same name is a new clash to report.
	s.SetNative(native("g", "nat-2", nil))
	r.take()
	if len(r.clashes) != 2 {
		t.Errorf("clashes %q: the replaced native group was not reported", r.clashes)
	}

	s.DeleteCRD(c2)
	expectCalls(t, "the CRD group goes: the native one is scheduled", r, "update ml/g native nat-2")
	s.SetCRD(crdGroup("g", "crd-3"))
	expectCalls(t, "a clash again", r, "update ml/g crd crd-3 invalid: "+msg)
	if len(r.clashes) != 3 {
		t.Errorf("clashes %q: a clash after one ended was not reported", r.clashes)
	}
	s.DeleteNative(native("g", "nat-2", nil))
	expectCalls(t, "the native group goes: the CRD one is scheduled", r, "update ml/g crd crd-3")
	if r.last["ml/g"].UID != "crd-3" {
		t.Errorf("the scheduler has %v", r.last["ml/g"])
	}
}
