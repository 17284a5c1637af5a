package kube

import (
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// recorder is a Handlers that notes each call made on the loop, and counts posts.
type recorder struct {
	posts int
	calls []string
}

func (r *recorder) Post(fn func()) { r.posts++; fn() }
func (r *recorder) note(format string, args ...any) {
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}
func (r *recorder) AddPod(p *v1.Pod)                 { r.note("AddPod %s", p.Name) }
func (r *recorder) UpdatePod(o, p *v1.Pod)           { r.note("UpdatePod %s->%s", o.Name, p.Name) }
func (r *recorder) DeletePod(p *v1.Pod)              { r.note("DeletePod %s", p.Name) }
func (r *recorder) AddNode(n *v1.Node)               { r.note("AddNode %s", n.Name) }
func (r *recorder) UpdateNode(o, n *v1.Node)         { r.note("UpdateNode %s", n.Name) }
func (r *recorder) DeleteNode(n *v1.Node)            { r.note("DeleteNode %s", n.Name) }
func (r *recorder) SetNamespace(ns *v1.Namespace)    { r.note("SetNamespace %s", ns.Name) }
func (r *recorder) DeleteNamespace(ns *v1.Namespace) { r.note("DeleteNamespace %s", ns.Name) }
func (r *recorder) UpdatePDB(o, p *policyv1.PodDisruptionBudget) {
	r.note("UpdatePDB %v %s", o != nil, p.Name)
}
func (r *recorder) DeletePDB(p *policyv1.PodDisruptionBudget) { r.note("DeletePDB %s", p.Name) }
func (r *recorder) AddPriorityClass(pc *schedulingv1.PriorityClass) {
	r.note("AddPriorityClass %s", pc.Name)
}
func (r *recorder) DeletePriorityClass(pc *schedulingv1.PriorityClass) {
	r.note("DeletePriorityClass %s", pc.Name)
}
func (r *recorder) AddPodGroup(pg *v1alpha1.PodGroup)       { r.note("AddPodGroup %s", pg.Name) }
func (r *recorder) UpdatePodGroup(_, pg *v1alpha1.PodGroup) { r.note("UpdatePodGroup %s", pg.Name) }
func (r *recorder) DeletePodGroup(pg *v1alpha1.PodGroup)    { r.note("DeletePodGroup %s", pg.Name) }
func (r *recorder) AddCompositePodGroup(c *v1alpha1.CompositePodGroup) {
	r.note("AddCompositePodGroup %s %s", c.Name, c.APIVersion)
}
func (r *recorder) UpdateCompositePodGroup(_, c *v1alpha1.CompositePodGroup) {
	r.note("UpdateCompositePodGroup %s %s", c.Name, c.APIVersion)
}
func (r *recorder) DeleteCompositePodGroup(c *v1alpha1.CompositePodGroup) {
	r.note("DeleteCompositePodGroup %s %s", c.Name, c.APIVersion)
}

func pod(name, scheduler, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec:       v1.PodSpec{SchedulerName: scheduler, NodeName: node},
	}
}

func deleting(p *v1.Pod) *v1.Pod {
	p = p.DeepCopy()
	now := metav1.Now()
	p.DeletionTimestamp = &now
	return p
}

func tombstone(obj any) cache.DeletedFinalStateUnknown {
	return cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: obj}
}

// TestPodHandler: bound pods of every scheduler reach the loop, pending pods only when
// one of our profiles schedules them, a pending pod being deleted leaves the queue,
// and tombstones are unwrapped.
func TestPodHandler(t *testing.T) {
	ours, other := "phalanx", "default-scheduler"
	tests := []struct {
		name  string
		event func(h *podHandler)
		want  []string
	}{
		{"our pending pod", func(h *podHandler) { h.OnAdd(pod("a", ours, ""), false) }, []string{"AddPod a"}},
		{"another scheduler's pending pod", func(h *podHandler) { h.OnAdd(pod("a", other, ""), false) }, nil},
		{"another scheduler's bound pod", func(h *podHandler) { h.OnAdd(pod("a", other, "n1"), true) }, []string{"AddPod a"}},
		{"our pending pod already being deleted", func(h *podHandler) { h.OnAdd(deleting(pod("a", ours, "")), false) }, nil},
		{"a bound pod being deleted still takes room", func(h *podHandler) { h.OnAdd(deleting(pod("a", other, "n1")), false) },
			[]string{"AddPod a"}},
		{"update of our pending pod", func(h *podHandler) { h.OnUpdate(pod("a", ours, ""), pod("a", ours, "")) },
			[]string{"UpdatePod a->a"}},
		{"another scheduler binds its pod", func(h *podHandler) { h.OnUpdate(pod("a", other, ""), pod("a", other, "n1")) },
			[]string{"UpdatePod a->a"}},
		{"update of another scheduler's pending pod", func(h *podHandler) { h.OnUpdate(pod("a", other, ""), pod("a", other, "")) }, nil},
		{"our pending pod gets deleted", func(h *podHandler) { h.OnUpdate(pod("a", ours, ""), deleting(pod("a", ours, ""))) },
			[]string{"DeletePod a"}},
		{"delete of our pod", func(h *podHandler) { h.OnDelete(pod("a", ours, "")) }, []string{"DeletePod a"}},
		{"delete of another scheduler's pending pod", func(h *podHandler) { h.OnDelete(pod("a", other, "")) }, nil},
		{"delete of another scheduler's bound pod", func(h *podHandler) { h.OnDelete(pod("a", other, "n1")) }, []string{"DeletePod a"}},
		{"tombstone of a bound pod", func(h *podHandler) { h.OnDelete(tombstone(pod("a", other, "n1"))) }, []string{"DeletePod a"}},
		{"tombstone of our pending pod", func(h *podHandler) { h.OnDelete(tombstone(pod("a", ours, ""))) }, []string{"DeletePod a"}},
		{"tombstone of something else", func(h *podHandler) { h.OnDelete(tombstone(&v1.Node{})) }, nil},
		{"not a pod", func(h *podHandler) { h.OnAdd(&v1.Node{}, false) }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			tc.event(&podHandler{h: r, profiles: map[string]bool{ours: true, "phalanx-gpu": true}})
			if !slices.Equal(r.calls, tc.want) {
				t.Errorf("calls %q, want %q", r.calls, tc.want)
			}
			if r.posts != len(r.calls) {
				t.Errorf("%d posts for %d calls: handlers must run on the loop", r.posts, len(r.calls))
			}
		})
	}
}

// TestOtherHandlers: each kind's events map to the scheduler's handlers, through Post,
// with tombstones unwrapped.
func TestOtherHandlers(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb"}}
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}}
	tests := []struct {
		name    string
		handler func(Handlers) cache.ResourceEventHandler
		obj     any
		want    []string
	}{
		{"node", nodeHandler, node, []string{"AddNode n1", "UpdateNode n1", "DeleteNode n1", "DeleteNode n1"}},
		{"namespace", namespaceHandler, ns, []string{"SetNamespace ns", "SetNamespace ns", "DeleteNamespace ns", "DeleteNamespace ns"}},
		{"pdb", pdbHandler, pdb, []string{"UpdatePDB false pdb", "UpdatePDB true pdb", "DeletePDB pdb", "DeletePDB pdb"}},
		{"priority class", priorityClassHandler, pc,
			[]string{"AddPriorityClass high", "AddPriorityClass high", "DeletePriorityClass high", "DeletePriorityClass high"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			h := tc.handler(r)
			h.OnAdd(tc.obj, true)
			h.OnUpdate(tc.obj, tc.obj)
			h.OnDelete(tc.obj)
			h.OnDelete(tombstone(tc.obj))
			h.OnAdd(&v1.ConfigMap{}, false) // wrong type: dropped
			if !slices.Equal(r.calls, tc.want) {
				t.Errorf("calls %q, want %q", r.calls, tc.want)
			}
			if r.posts != len(r.calls) {
				t.Errorf("%d posts for %d calls", r.posts, len(r.calls))
			}
		})
	}
}
