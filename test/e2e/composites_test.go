//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestNativeCompositeAllOrNothing: on a control plane serving Kubernetes 1.37's
// scheduling.k8s.io/v1alpha3 CompositePodGroup (the CompositePodGroup gate), a native
// composite of two gang PodGroups (v1beta1, each two pods of 1 CPU), made from its
// Workload's composite template, is scheduled all or nothing: with room for three pods
// (one group), none is bound, and the composite says why (CompositePodGroupInitiallyScheduled
// =False, Unschedulable, and a FailedScheduling event regarding it); once a second node
// gives room for both groups, all four pods are bound and the composite and its groups
// are initially scheduled, with phalanx's Scheduled event about the composite.
func TestNativeCompositeAllOrNothing(t *testing.T) {
	c := e2eutil.Connect(t)
	if !c.ServesNativeComposites(t) {
		t.Skip("the control plane serves no scheduling.k8s.io/v1alpha3 CompositePodGroups (Kubernetes 1.36)")
	}
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "ncpg")
	pinnedNode(t, c, "3", pinValue)
	h := c.RecordPods(t, ns)

	p := c.StartPhalanx(t, "native-composite")
	p.WaitReady(t)

	wl := &schedulingv1alpha3.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"},
		Spec: schedulingv1alpha3.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1alpha3.CompositePodGroupTemplate{{
			Name:             "job",
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			PodGroupTemplates: []schedulingv1alpha3.PodGroupTemplate{{Name: "slice",
				SchedulingPolicy: schedulingv1alpha3.PodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.GangSchedulingPolicy{MinCount: 2}}}},
		}}},
	}
	if _, err := c.Client.SchedulingV1alpha3().Workloads(ns).Create(ctx, wl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Workload: %v", err)
	}
	job := c.CreateNativeComposite(t, &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "job"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:      &schedulingv1alpha3.WorkloadReference{WorkloadName: "train", TemplateName: "job"},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
		},
	})
	var members []string
	for _, slice := range []string{"slice-0", "slice-1"} {
		c.CreateNativePodGroup(t, &nativegroup.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: slice},
			Spec: schedulingv1beta1.PodGroupSpec{
				ParentCompositePodGroupName: ptr("job"),
				WorkloadRef:                 &schedulingv1beta1.WorkloadReference{WorkloadName: "train", TemplateName: "slice"},
				SchedulingPolicy:            schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}},
			},
		})
		for i := range 2 {
			name := fmt.Sprintf("%s-%d", slice, i)
			members = append(members, name)
			pod := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi"}.Build()
			pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr(slice)}
			c.CreatePod(t, pin(pod, pinValue))
		}
	}

	// Room for one group of two: the composite is not started in part, and says why.
	// Until phalanx's pod informer has seen all four pods, the composite says it waits for
	// them (the PodGroup and pod watches are separate); then it says why it does not fit.
	want := "1 of the 2 groups the composite pod group " + ns + "/job needs fit"
	var cond metav1.Condition
	if err := e2eutil.Poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
		cpg, err := c.Client.SchedulingV1alpha3().CompositePodGroups(ns).Get(ctx, "job", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if found := apimeta.FindStatusCondition(cpg.Status.Conditions, nativegroup.CompositeInitiallyScheduled); found != nil {
			cond = *found
		}
		return cond.Status == metav1.ConditionFalse && strings.Contains(cond.Message, want), nil
	}); err != nil || cond.Reason != v1alpha1.PodGroupReasonUnschedulable {
		t.Errorf("condition %+v, want Unschedulable: %q (%v)", cond, want, err)
	}
	ev := c.WaitEvent(t, ns, "job", "FailedScheduling", time.Minute)
	if r := ev.Regarding; r.APIVersion != nativegroup.V1alpha3 || r.Kind != nativegroup.KindCompositePodGroup || r.UID != job.UID {
		t.Errorf("FailedScheduling event regards %+v, want the native CompositePodGroup %s", r, job.UID)
	}
	time.Sleep(2 * time.Second) // a partial binding would show by now
	for _, name := range members {
		if nodes := h.Nodes(name); len(nodes) > 0 {
			t.Fatalf("%s bound to %v while the composite does not fit", name, nodes)
		}
	}

	// Room for both groups: all four pods are bound, each once.
	pinnedNode(t, c, "3", pinValue)
	c.WaitPodsBound(t, ns, members, time.Minute)
	for _, name := range members {
		h.WaitBound(t, name)
		if got := h.Nodes(name); len(got) != 1 {
			t.Errorf("%s bound to %v, want one node", name, got)
		}
	}
	cond = c.WaitNativeCompositeCondition(t, ns, "job", nativegroup.CompositeInitiallyScheduled, metav1.ConditionTrue, "", time.Minute)
	if cond.Reason != v1alpha1.PodGroupReasonScheduled || cond.ObservedGeneration != job.Generation {
		t.Errorf("condition %+v, want Scheduled for generation %d", cond, job.Generation)
	}
	for _, slice := range []string{"slice-0", "slice-1"} {
		c.WaitNativePodGroupCondition(t, ns, slice, v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	}
	ev = c.WaitEvent(t, ns, "job", "Scheduled", time.Minute)
	if want := fmt.Sprintf("Scheduled 4 pods of composite pod group %s/job", ns); ev.Note != want || ev.ReportingController != "phalanx" || ev.Regarding.UID != job.UID {
		t.Errorf("Scheduled event %q from %s regarding %+v, want %q from phalanx about the composite", ev.Note, ev.ReportingController, ev.Regarding, want)
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestCompositePreemption: a gang CompositePodGroup of phalanx's CRD (class high) with two
// slices (gangs of two 2-CPU pods, their priority the composite's) preempts as one unit:
// two nodes of 4 CPUs are full with four low-priority pods, and the composite needs all of
// their room. All four are preempted (DisruptionTarget, a Preempted event naming the
// composite), no slice pod is bound before every victim is gone, then all four are, and
// the composite is PodGroupScheduled=True with its Scheduled event.
func TestCompositePreemption(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "cpgp")
	nodes := []string{pinnedNode(t, c, "4", pinValue), pinnedNode(t, c, "4", pinValue)}
	low := c.CreatePriorityClass(t, "low", 10)
	high := c.CreatePriorityClass(t, "high", 1000)
	h := c.RecordPods(t, ns)
	tl := c.RecordPodTimeline(t, ns)

	var victims []string
	for i := range 4 {
		name := fmt.Sprintf("low-%d", i)
		victims = append(victims, name)
		c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: name, NodeName: nodes[i/2], CPU: "2", Memory: "100Mi", Priority: low, GracePeriod: ptr[int64](4)}.Build())
	}
	for _, v := range victims {
		c.WaitPodRunning(t, ns, v)
	}

	p := c.StartPhalanx(t, "composite-preemption")
	p.WaitReady(t)

	c.CreateComposite(t, &v1alpha1.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "job"},
		Spec: v1alpha1.CompositePodGroupSpec{
			SchedulingPolicy:  v1alpha1.CompositePodGroupSchedulingPolicy{Gang: &v1alpha1.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			PriorityClassName: high,
		},
	})
	var members []string
	for _, slice := range []string{"slice-a", "slice-b"} {
		pg := gangGroup(ns, slice, 2, "", nil)
		pg.Spec.ParentCompositePodGroupName = ptr("job")
		c.CreatePodGroup(t, pg)
		for i := range 2 {
			name := fmt.Sprintf("%s-%d", slice, i)
			members = append(members, name)
			c.CreatePod(t, pin(member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "2", Memory: "100Mi",
				Priority: high}.Build(), slice), pinValue))
		}
	}

	c.WaitPodsBound(t, ns, members, 2*time.Minute)
	c.WaitCompositeCondition(t, ns, "job", v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	ev := c.WaitEvent(t, ns, "job", "Scheduled", time.Minute)
	if r := ev.Regarding; r.Kind != nativegroup.KindCompositePodGroup || r.APIVersion != v1alpha1.SchemeGroupVersion.String() {
		t.Errorf("Scheduled event regards %+v, want phalanx's CompositePodGroup", r)
	}

	// Every victim went, each told why and by whom, before any slice pod was bound.
	for _, v := range victims {
		c.WaitPodGone(t, ns, v, time.Minute)
	}
	lastGone := -1
	e2eutil.WaitFor(t, time.Minute, "the victims' deletions in the pod timeline", func(context.Context) (bool, error) {
		gone := 0
		for i, ch := range tl.Changes() {
			if ch.Type == watch.Deleted && strings.HasPrefix(ch.Pod.Name, "low-") {
				lastGone, gone = i, gone+1
			}
		}
		return gone == len(victims), nil
	})
	events := c.Events(t, ns)
	for _, v := range victims {
		cond := h.Condition(v, corev1.DisruptionTarget, corev1.ConditionTrue)
		if cond == nil || cond.Reason != "PreemptionByScheduler" {
			t.Errorf("%s: DisruptionTarget %+v, want True, PreemptionByScheduler", v, cond)
		}
		evs := e2eutil.EventsFor(events, v, "Preempted")
		if len(evs) != 1 || !strings.Contains(evs[0].Note, "Preempted by compositepodgroup "+ns+"/job") {
			t.Errorf("%s: Preempted events %v, want one naming the composite", v, notes(evs))
		}
	}
	for _, m := range members {
		if first := tl.FirstBound(m); first < lastGone {
			t.Errorf("%s bound (change %d) before the last victim was gone (change %d)", m, first, lastGone)
		}
	}
}

// TestWithoutCompositeAPIs: phalanx runs where no CompositePodGroup API is served, or only
// the native one: its CRD deleted (a cluster where it was never installed), and on
// v1.36.3 no scheduling.k8s.io/v1alpha3 either. It becomes ready, says which composite
// APIs it reads, schedules a gang PodGroup, and holds a PodGroup that names a composite,
// saying it waits for it.
func TestWithoutCompositeAPIs(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "nocpg")
	pinnedNode(t, c, "4", pinValue)
	c.WithoutCompositeCRD(t)

	p := c.StartPhalanx(t, "no-composites")
	p.WaitReady(t)
	want := `compositePodGroupAPIs="none"`
	if c.ServesNativeComposites(t) {
		want = `compositePodGroupAPIs="` + nativegroup.V1alpha3 + `"`
	}
	if log, err := os.ReadFile(p.Log); err != nil || !strings.Contains(string(log), want) {
		t.Errorf("phalanx's log does not say %s (%v)", want, err)
	}

	c.CreatePodGroup(t, gangGroup(ns, "gang", 2, "", nil))
	orphan := gangGroup(ns, "orphan", 1, "", nil)
	orphan.Spec.ParentCompositePodGroupName = ptr("job")
	c.CreatePodGroup(t, orphan)
	for _, name := range []string{"gang-0", "gang-1"} {
		c.CreatePod(t, pin(member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi"}.Build(), "gang"), pinValue))
	}
	c.CreatePod(t, pin(member(e2eutil.Pod{Namespace: ns, Name: "orphan-0", SchedulerName: sched, CPU: "1", Memory: "100Mi"}.Build(), "orphan"), pinValue))

	c.WaitPodsBound(t, ns, []string{"gang-0", "gang-1"}, time.Minute)
	c.WaitPodGroupCondition(t, ns, "gang", v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	// The PodGroup naming a composite that is not there says it waits for it, and its pod
	// stays pending.
	msg := "waiting for CompositePodGroup " + ns + "/job to be created"
	c.WaitPodGroupCondition(t, ns, "orphan", v1alpha1.PodGroupScheduled, metav1.ConditionFalse, msg, time.Minute)
	if pod, err := c.Client.CoreV1().Pods(ns).Get(e2eutil.Context(t), "orphan-0", metav1.GetOptions{}); err != nil {
		t.Error(err)
	} else if pod.Spec.NodeName != "" {
		t.Errorf("orphan-0 bound to %s without its composite", pod.Spec.NodeName)
	}
	if p.Exited() {
		t.Fatalf("phalanx exited (%d)", p.ExitCode())
	}
}
