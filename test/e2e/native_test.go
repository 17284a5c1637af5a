//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestIndexedJobGangScheduled: on a control plane that serves the native workload API
// (scheduling.k8s.io/v1beta1 on v1.37, v1alpha2 on v1.36) with WorkloadWithJob on (and,
// on v1.37, the Job's spec.scheduling asking for a gang), a plain Indexed Job (parallelism 4, schedulerName phalanx) is
// gang-scheduled by phalanx through the Workload and PodGroup the Job controller creates
// for it. With room for three of its pods, none is bound and the PodGroup says why; once
// a second node gives room for all four, all four are bound and the PodGroup is
// PodGroupScheduled=True, with phalanx's Scheduled event about it.
func TestIndexedJobGangScheduled(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "job")
	node := func() string {
		n := c.CreateNode(t, e2eutil.Node{CPU: "3", Memory: "8Gi", Labels: map[string]string{pinLabel: pinValue}})
		c.WaitNodeReady(t, n.Name)
		return n.Name
	}
	nodes := []string{node()}
	h := c.RecordPods(t, ns)

	p := c.StartPhalanx(t, "job")
	p.WaitReady(t)

	grace := int64(1)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"},
		Spec: batchv1.JobSpec{
			Parallelism:    ptr[int32](4),
			Completions:    ptr[int32](4),
			CompletionMode: ptr(batchv1.IndexedCompletion),
			Template: corev1.PodTemplateSpec{
				// kwok completes a Job's pods once they run; these run long enough to be seen.
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "10m"}},
				Spec: corev1.PodSpec{
					SchedulerName:                 sched,
					NodeSelector:                  map[string]string{pinLabel: pinValue},
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: &grace,
					Containers: []corev1.Container{{Name: "app", Image: e2eutil.PodImage, Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("100Mi")},
					}}},
				},
			},
		},
	}
	if c.NativeVersion(t) != nativegroup.V1alpha2 {
		// From v1.37 on, the Job controller makes a Workload and a PodGroup for every Job,
		// basic unless spec.scheduling asks for a gang (minCount: the parallelism).
		job.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}}}
	}
	created, err := c.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create Job: %v", err)
	}

	// The Job controller's objects: a Workload controlled by the Job, a gang PodGroup of
	// its template, and four pods that name the PodGroup.
	var pg *nativegroup.PodGroup
	e2eutil.WaitFor(t, time.Minute, "the Job's PodGroup", func(ctx context.Context) (bool, error) {
		list, err := c.NativePodGroups(ctx, t, ns)
		if err != nil || len(list) == 0 {
			return false, nil
		}
		pg = list[0]
		return len(list) == 1, nil
	})
	if !metav1.IsControlledBy(pg, created) || pg.Spec.SchedulingPolicy.Gang == nil || pg.Spec.SchedulingPolicy.Gang.MinCount != 4 {
		t.Fatalf("PodGroup %s: owners %v, policy %+v: want a gang of 4 controlled by the Job", pg.Name, pg.OwnerReferences, pg.Spec.SchedulingPolicy)
	}
	ref := pg.Spec.WorkloadRef
	if ref == nil {
		t.Fatalf("PodGroup %s refers to no Workload template", pg.Name)
	}
	wl, err := c.NativeWorkload(ctx, t, ns, ref.WorkloadName)
	if err != nil || !metav1.IsControlledBy(wl, created) || nativegroup.FindTemplate(&wl.Spec, ref.TemplateName) == nil {
		t.Fatalf("Workload %s: %v, want one controlled by the Job, with template %s", ref.WorkloadName, err, ref.TemplateName)
	}
	var members []string
	e2eutil.WaitFor(t, time.Minute, "the Job's four pods", func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=train"})
		if err != nil {
			return false, nil
		}
		members = nil
		for _, pod := range list.Items {
			if sg := pod.Spec.SchedulingGroup; sg == nil || sg.PodGroupName == nil || *sg.PodGroupName != pg.Name {
				return false, fmt.Errorf("pod %s: schedulingGroup %+v, want podGroupName %s", pod.Name, sg, pg.Name)
			}
			members = append(members, pod.Name)
		}
		return len(members) == 4, nil
	})

	// Room for three: the gang is not started in part, and its PodGroup says why.
	scheduled := nativegroup.ScheduledCondition(pg.APIVersion)
	e2eutil.WaitFor(t, time.Minute, scheduled+"=False for lack of cpu", func(ctx context.Context) (bool, error) {
		got, err := c.NativePodGroup(ctx, t, ns, pg.Name)
		if err != nil {
			return false, nil
		}
		cond := apimeta.FindStatusCondition(got.Status.Conditions, scheduled)
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == v1alpha1.PodGroupReasonUnschedulable &&
			strings.Contains(cond.Message, "Insufficient cpu"), nil
	})
	c.WaitEvent(t, ns, pg.Name, "FailedScheduling", time.Minute)
	time.Sleep(2 * time.Second) // a partial binding would show by now
	for _, name := range members {
		if nodes := h.Nodes(name); len(nodes) > 0 {
			t.Fatalf("%s bound to %v while the gang does not fit", name, nodes)
		}
	}

	// Room for all four: all are bound, each once, within the nodes' room.
	nodes = append(nodes, node())
	bound := c.WaitPodsBound(t, ns, members, time.Minute)
	c.WaitNativePodGroupCondition(t, ns, pg.Name, v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	perNode := map[string]int{}
	for _, name := range members {
		h.WaitBound(t, name)
		if got := h.Nodes(name); len(got) != 1 {
			t.Errorf("%s bound to %v, want one node", name, got)
		}
		perNode[bound[name].Spec.NodeName]++
	}
	for n, count := range perNode {
		if !slices.Contains(nodes, n) || count > 3 {
			t.Errorf("%d pods on %s (nodes %v, 3 cpu each)", count, n, nodes)
		}
	}
	ev := c.WaitEvent(t, ns, pg.Name, "Scheduled", time.Minute)
	if want := fmt.Sprintf("Scheduled 4 pods of pod group %s/%s", ns, pg.Name); ev.Note != want || ev.ReportingController != "phalanx" {
		t.Errorf("PodGroup's Scheduled event %q from %s, want %q from phalanx", ev.Note, ev.ReportingController, want)
	}
	if r := ev.Regarding; r.APIVersion != pg.APIVersion || r.Kind != "PodGroup" || r.UID != pg.UID {
		t.Errorf("Scheduled event regards %+v, want the native PodGroup %s", r, pg.UID)
	}
	if code := p.Stop(t); code != 0 {
		t.Errorf("phalanx exited %d after SIGTERM, want 0", code)
	}
}

// TestPodGroupNameClash: a PodGroup name that both phalanx's CRD and the native API define
// is a clear error, never a silent pick: both objects get PodGroupScheduled=False
// (SchedulerError) and a Warning event saying so, phalanx logs it, and the members wait.
// Deleting phalanx's PodGroup ends the clash: the native group is then scheduled.
func TestPodGroupNameClash(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "clash")
	n := c.CreateNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi", Labels: map[string]string{pinLabel: pinValue}})
	c.WaitNodeReady(t, n.Name)

	p := c.StartPhalanx(t, "clash")
	p.WaitReady(t)

	crd, native := groupAPIs[0], groupAPIs[1]
	crd.createGang(t, c, ns, "train", 2, "", nil)
	native.createGang(t, c, ns, "train", 2, "", nil)
	members := []string{"train-0", "train-1"}
	for _, name := range members {
		c.CreatePod(t, pin(native.member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi"}.Build(), "train"), pinValue))
	}
	msg := nativegroup.ClashMessage(ns, "train", c.NativeVersion(t))
	c.WaitPodGroupCondition(t, ns, "train", v1alpha1.PodGroupScheduled, metav1.ConditionFalse, msg, time.Minute)
	c.WaitNativePodGroupCondition(t, ns, "train", v1alpha1.PodGroupScheduled, metav1.ConditionFalse, msg, time.Minute)
	var apis []string
	e2eutil.WaitFor(t, time.Minute, "a Warning event on each PodGroup", func(ctx context.Context) (bool, error) {
		apis = nil
		for _, ev := range e2eutil.EventsFor(c.Events(t, ns), "train", "FailedScheduling") {
			if ev.Type == corev1.EventTypeWarning && ev.Note == msg && ev.Regarding.Kind == "PodGroup" {
				apis = append(apis, ev.Regarding.APIVersion)
			}
		}
		slices.Sort(apis)
		return slices.Equal(apis, []string{c.NativeVersion(t), "scheduling.phalanx.dev/v1alpha1"}), nil
	})
	for _, name := range members {
		pod, err := c.Client.CoreV1().Pods(ns).Get(e2eutil.Context(t), name, metav1.GetOptions{})
		if err != nil || pod.Spec.NodeName != "" {
			t.Fatalf("%s: %v, bound to %q during the clash", name, err, pod.Spec.NodeName)
		}
	}
	if log, err := os.ReadFile(p.Log); err != nil || !strings.Contains(string(log), "PodGroup defined by both APIs") {
		t.Errorf("phalanx's log does not report the clash (%v)", err)
	}

	c.DeletePodGroup(t, ns, "train")
	c.WaitPodsBound(t, ns, members, time.Minute)
	c.WaitNativePodGroupCondition(t, ns, "train", v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
}
