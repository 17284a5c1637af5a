//go:build e2e

package e2e

// Kueue admits, phalanx places: Kueue v0.17.0 (hack/cluster/kueue) decides when a Job
// may start, within a ClusterQueue's GPU quota; phalanx decides where its pods go, as a
// gang in one rack (README, "Kueue and phalanx"; decision 33).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/whatif"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// kueueQueueLabel is the label that sends a Job to a LocalQueue.
const kueueQueueLabel = "kueue.x-k8s.io/queue-name"

// kueueSetup is one test's Kueue queues, phalanx and nodes.
type kueueSetup struct {
	c        *e2eutil.Cluster
	ns       string
	sched    string
	pinValue string
	rackKey  string
	queue    string
	// clusterQueue is the ClusterQueue's name.
	clusterQueue string
	// rackOf is each node's rack.
	rackOf map[string]string
}

// newKueueSetup starts Kueue and phalanx, and makes a ResourceFlavor, a ClusterQueue
// with gpus GPUs of quota (and CPU and memory enough not to matter), preempting lower
// priorities within the queue, and a LocalQueue in a namespace of the test. Racks: each
// entry is a rack's node count, every node 8 GPUs.
func newKueueSetup(t *testing.T, gpus int, racks ...int) *kueueSetup {
	t.Helper()
	c := e2eutil.Connect(t)
	c.StartKueue(t)
	s := &kueueSetup{c: c, ns: c.CreateKueueNamespace(t), sched: e2eutil.SchedulerName(t), rackOf: map[string]string{}}
	s.pinValue = e2eutil.UniqueName(t, "kueue")
	s.rackKey = "e2e.phalanx.dev/rack-" + s.pinValue[len(s.pinValue)-6:]
	var nodes []string
	for r, n := range racks {
		for range n {
			node := c.CreateNode(t, e2eutil.Node{CPU: "64", Memory: "256Gi",
				Extra:  map[corev1.ResourceName]string{"nvidia.com/gpu": "8"},
				Labels: map[string]string{pinLabel: s.pinValue, s.rackKey: fmt.Sprintf("r%d", r)}})
			s.rackOf[node.Name] = fmt.Sprintf("r%d", r)
			nodes = append(nodes, node.Name)
		}
	}
	for _, n := range nodes {
		c.WaitNodeReady(t, n)
	}

	flavor := e2eutil.UniqueName(t, "flavor")
	cq := e2eutil.UniqueName(t, "cq")
	s.queue, s.clusterQueue = "training", cq
	c.CreateKueueObject(t, e2eutil.KueueObject("ResourceFlavor", "", flavor, map[string]any{}))
	c.CreateKueueObject(t, e2eutil.KueueObject("ClusterQueue", "", cq, map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": s.ns}},
		"preemption":        map[string]any{"withinClusterQueue": "LowerPriority"},
		"resourceGroups": []any{map[string]any{
			"coveredResources": []any{"cpu", "memory", "nvidia.com/gpu"},
			"flavors": []any{map[string]any{
				"name": flavor,
				"resources": []any{
					map[string]any{"name": "cpu", "nominalQuota": "1000"},
					map[string]any{"name": "memory", "nominalQuota": "4Ti"},
					map[string]any{"name": "nvidia.com/gpu", "nominalQuota": fmt.Sprint(gpus)},
				},
			}},
		}},
	}))
	c.CreateKueueObject(t, e2eutil.KueueObject("LocalQueue", s.ns, s.queue, map[string]any{"clusterQueue": cq}))
	e2eutil.WaitFor(t, time.Minute, "ClusterQueue "+cq+" Active", func(ctx context.Context) (bool, error) {
		u, err := c.GetKueueObject(ctx, t, "ClusterQueue", "", cq)
		return err == nil && e2eutil.KueueConditionTrue(u, "Active"), nil
	})

	p := c.StartPhalanx(t, "kueue")
	p.WaitReady(t)
	return s
}

// trainingJob is an Indexed Job of workers 8-GPU pods sent to the setup's LocalQueue,
// created unsuspended (Kueue's webhook suspends it). With a group, its pods are members
// of a phalanx PodGroup of that name, a gang in one rack (the PodGroup is created too);
// without, on v1.37 its spec.scheduling asks the Job controller for a native gang.
// Its pods complete after run (kwok's pod-complete stage).
func (s *kueueSetup) trainingJob(t *testing.T, name string, workers int32, prio, group, run string) *batchv1.Job {
	t.Helper()
	grace := int64(0)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name, Labels: map[string]string{kueueQueueLabel: s.queue}},
		Spec: batchv1.JobSpec{
			Parallelism:    ptr(workers),
			Completions:    ptr(workers),
			CompletionMode: ptr(batchv1.IndexedCompletion),
			BackoffLimit:   ptr[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": run}},
				Spec: corev1.PodSpec{
					SchedulerName:                 s.sched,
					PriorityClassName:             prio,
					NodeSelector:                  map[string]string{pinLabel: s.pinValue},
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: &grace,
					Containers: []corev1.Container{{Name: "trainer", Image: e2eutil.PodImage, Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), "nvidia.com/gpu": resource.MustParse("8")},
						Limits:   corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")},
					}}},
				},
			},
		},
	}
	if group != "" {
		pg := topologyGang(s.ns, group, workers, s.rackKey)
		pg.Spec.PriorityClassName = prio
		s.c.CreatePodGroup(t, pg)
		job.Spec.Template.Labels = map[string]string{v1alpha1.LabelPodGroup: group}
		job.Spec.Template.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &group}
	} else if s.c.NativeVersion(t) != nativegroup.V1alpha2 {
		job.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
			Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}}}
	}
	created, err := s.c.Client.BatchV1().Jobs(s.ns).Create(e2eutil.Context(t), job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create Job %s: %v", name, err)
	}
	return created
}

// jobOf is the Job a Kueue Workload stands for (its controller).
func jobOf(u *unstructured.Unstructured) string {
	for _, ref := range u.GetOwnerReferences() {
		if ref.Kind == "Job" && ref.Controller != nil && *ref.Controller {
			return ref.Name
		}
	}
	return ""
}

// admitted tells whether a Workload version holds quota (QuotaReserved) and is not done.
func admitted(u *unstructured.Unstructured) bool {
	return u.GetAnnotations()["e2e.phalanx.dev/deleted"] == "" &&
		e2eutil.KueueConditionTrue(u, "QuotaReserved") && !e2eutil.KueueConditionTrue(u, "Finished")
}

// podsOfJob are the pods of a Job in the history, by name.
func podsOfJob(h *e2eutil.PodHistory, job string) []string {
	var out []string
	for _, name := range h.Names() {
		v := h.Versions(name)
		if len(v) > 0 && v[0].Labels[batchv1.JobNameLabel] == job {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// TestKueueAdmitsOneJobAtATimeEachGangInOneRack: a ClusterQueue with 16 GPUs of quota,
// three Indexed Jobs of two 8-GPU workers queued at once. The cluster has room for more
// than one (three 8-GPU nodes free), so only the quota keeps them apart: Kueue admits
// one at a time, each when the one before finished. Rack r0 has two free nodes, r1 one
// (the others are taken by pods outside Kueue): each Job's two pods, a phalanx PodGroup
// held in one rack, both go to r0, although the cluster could hold them spread.
func TestKueueAdmitsOneJobAtATimeEachGangInOneRack(t *testing.T) {
	s := newKueueSetup(t, 16, 3, 3)
	// Taken outside Kueue: one node of r0, two of r1.
	other := s.c.CreateNamespace(t)
	taken := map[string]int{"r0": 1, "r1": 2}
	var nodes []string
	for n := range s.rackOf {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	i := 0
	for _, n := range nodes {
		if r := s.rackOf[n]; taken[r] > 0 {
			taken[r]--
			i++
			pod := e2eutil.Pod{Namespace: other, Name: fmt.Sprintf("taken-%d", i), NodeName: n, CPU: "1"}.Build()
			pod.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"] = resource.MustParse("8")
			pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}
			s.c.CreatePod(t, pod)
		}
	}
	h := s.c.RecordPods(t, s.ns)
	wh := s.c.RecordKueueWorkloads(t, s.ns)

	jobs := []string{"train-a", "train-b", "train-c"}
	for _, name := range jobs {
		job := s.trainingJob(t, name, 2, "", name, "3s")
		if job.Spec.Suspend == nil || !*job.Spec.Suspend {
			t.Fatalf("Job %s created unsuspended: Kueue's webhook must suspend a Job sent to a queue", name)
		}
	}
	e2eutil.WaitFor(t, 3*time.Minute, "the three Jobs complete", func(ctx context.Context) (bool, error) {
		for _, name := range jobs {
			job, err := s.c.Client.BatchV1().Jobs(s.ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			if !jobCondition(job, batchv1.JobComplete) {
				if jobCondition(job, batchv1.JobFailed) {
					return false, fmt.Errorf("Job %s failed", name)
				}
				return false, nil
			}
		}
		return true, nil
	})

	// Kueue: never two Workloads holding quota at once, and each admitted once.
	state := map[string]bool{}
	admissions := map[string]int{}
	for _, v := range wh.Versions() {
		job := jobOf(v)
		if admitted(v) && !state[job] {
			admissions[job]++
		}
		state[job] = admitted(v)
		var holding []string
		for j, on := range state {
			if on {
				holding = append(holding, j)
			}
		}
		if len(holding) > 1 {
			sort.Strings(holding)
			t.Errorf("Workloads of %v hold quota at once; the ClusterQueue's 16 GPUs fit one Job", holding)
			break
		}
	}
	for _, name := range jobs {
		if admissions[name] != 1 {
			t.Errorf("Job %s admitted %d times, want once", name, admissions[name])
		}
	}
	// phalanx: each Job's two pods bound, in rack r0, never deleted before they ran.
	for _, name := range jobs {
		pods := podsOfJob(h, name)
		if len(pods) != 2 {
			t.Errorf("Job %s: pods %v, want two", name, pods)
			continue
		}
		for _, pod := range pods {
			nodes := h.Nodes(pod)
			if len(nodes) != 1 {
				t.Errorf("%s bound to %v, want one node", pod, nodes)
				continue
			}
			if r := s.rackOf[nodes[0]]; r != "r0" {
				t.Errorf("%s (Job %s) on %s in rack %q, want r0, the one rack with room for both", pod, name, nodes[0], r)
			}
		}
	}
	if evs := preemptedEvents(s.c.Events(t, s.ns)); len(evs) > 0 {
		t.Errorf("phalanx preempted %v: nothing needed to be", evs)
	}
}

func jobCondition(job *batchv1.Job, typ batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// preemptedEvents are the pods a scheduler's Preempted events are about (Kueue's are
// about its Workloads: it says Preempted of the one it evicts for quota).
func preemptedEvents(events []eventsv1.Event) []string {
	var out []string
	for _, e := range events {
		if e.Reason == "Preempted" && e.Regarding.Kind == "Pod" {
			out = append(out, e.Regarding.Name)
		}
	}
	return out
}

// TestKueuePreemptionAndPhalanxDoNotFight: a low-priority Job holds the ClusterQueue's
// whole quota and runs; a high-priority Job arrives. Kueue preempts (its quota
// preemption: the low Workload evicted, its Job suspended, its pods deleted by the Job
// controller), then admits the high Job, whose gang phalanx places in the room the low
// one left, without preempting anything itself. Nothing goes back and forth: the low
// Job is evicted once and waits, the high one is admitted once and never evicted, and no
// pod phalanx bound is deleted but the low Job's, after Kueue suspended it.
func TestKueuePreemptionAndPhalanxDoNotFight(t *testing.T) {
	s := newKueueSetup(t, 16, 2)
	low := s.c.CreatePriorityClass(t, "low", 100)
	high := s.c.CreatePriorityClass(t, "high", 1000)
	h := s.c.RecordPods(t, s.ns)
	wh := s.c.RecordKueueWorkloads(t, s.ns)

	s.trainingJob(t, "low", 2, low, "low", "10m")
	lowPods := s.waitJobPodsBound(t, "low", 2)
	s.trainingJob(t, "high", 2, high, "high", "10m")
	highPods := s.waitJobPodsBound(t, "high", 2)

	e2eutil.WaitFor(t, time.Minute, "the low Job suspended", func(ctx context.Context) (bool, error) {
		job, err := s.c.Client.BatchV1().Jobs(s.ns).Get(ctx, "low", metav1.GetOptions{})
		return err == nil && job.Spec.Suspend != nil && *job.Spec.Suspend, nil
	})
	for _, pod := range lowPods {
		s.c.WaitPodGone(t, s.ns, pod, time.Minute)
	}
	// Let both controllers have another look: nothing may change any more.
	for _, pod := range highPods {
		h.WaitBound(t, pod)
	}
	time.Sleep(5 * time.Second)

	admissions, evictions := map[string]int{}, map[string]int{}
	state, evicted := map[string]bool{}, map[string]bool{}
	for _, v := range wh.Versions() {
		job := jobOf(v)
		if admitted(v) && !state[job] {
			admissions[job]++
		}
		state[job] = admitted(v)
		ev := e2eutil.KueueConditionTrue(v, "Evicted")
		if ev && !evicted[job] {
			evictions[job]++
			if c := e2eutil.KueueCondition(v, "Evicted"); c["reason"] != "Preempted" {
				t.Errorf("Workload of %s evicted for %v, want Preempted", job, c["reason"])
			}
		}
		evicted[job] = ev
	}
	if admissions["low"] != 1 || evictions["low"] != 1 || state["low"] {
		t.Errorf("low Job: admitted %d times, evicted %d times, holding quota at the end %v; want once, once, no",
			admissions["low"], evictions["low"], state["low"])
	}
	if admissions["high"] != 1 || evictions["high"] != 0 || !state["high"] {
		t.Errorf("high Job: admitted %d times, evicted %d times, holding quota at the end %v; want once, never, yes",
			admissions["high"], evictions["high"], state["high"])
	}
	for _, pod := range highPods {
		if h.Deleting(pod) {
			t.Errorf("%s of the admitted high Job was deleted", pod)
		}
	}
	for _, name := range h.Names() {
		if c := h.Condition(name, corev1.DisruptionTarget, corev1.ConditionTrue); c != nil && c.Reason == "PreemptionByScheduler" {
			t.Errorf("%s preempted by phalanx: Kueue had already made room", name)
		}
	}
	if evs := preemptedEvents(s.c.Events(t, s.ns)); len(evs) > 0 {
		t.Errorf("phalanx preempted %v: Kueue had already made room", evs)
	}
	if lp := podsOfJob(h, "low"); len(lp) != 2 {
		t.Errorf("low Job's pods %v, want the two first made (none recreated while it waits)", lp)
	}
}

// waitJobPodsBound waits for n pods of the Job, all bound, in one rack, and returns them.
func (s *kueueSetup) waitJobPodsBound(t *testing.T, job string, n int) []string {
	t.Helper()
	var names []string
	e2eutil.WaitFor(t, 2*time.Minute, fmt.Sprintf("the %d pods of Job %s", n, job), func(ctx context.Context) (bool, error) {
		list, err := s.c.Client.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job})
		if err != nil {
			return false, nil
		}
		names = names[:0]
		for _, pod := range list.Items {
			if pod.DeletionTimestamp == nil {
				names = append(names, pod.Name)
			}
		}
		return len(names) == n, nil
	})
	bound := s.c.WaitPodsBound(t, s.ns, names, 2*time.Minute)
	racks := map[string]bool{}
	for _, pod := range bound {
		racks[s.rackOf[pod.Spec.NodeName]] = true
	}
	if len(racks) != 1 {
		t.Errorf("Job %s's pods in racks %v, want one", job, racks)
	}
	sort.Strings(names)
	return names
}

// TestKueueNativeGang: on v1.37 a Job without phalanx's PodGroup, whose spec.scheduling
// asks for a gang, goes through Kueue with the native Workload the Job controller makes
// (WorkloadWithJob): Kueue's webhook and its admission leave spec.scheduling alone, the
// Job controller makes a gang PodGroup of two once Kueue unsuspends the Job, and phalanx
// binds both pods as that gang.
func TestKueueNativeGang(t *testing.T) {
	c := e2eutil.Connect(t)
	if c.NativeVersion(t) != nativegroup.V1beta1 {
		t.Skipf("the Job's spec.scheduling is v1.37's; the control plane is %s", c.NativeVersion(t))
	}
	s := newKueueSetup(t, 16, 2)
	job := s.trainingJob(t, "native", 2, "", "", "10m")
	if job.Spec.Scheduling == nil || job.Spec.Scheduling.SchedulingPolicy == nil || job.Spec.Scheduling.SchedulingPolicy.Gang == nil {
		t.Fatalf("the Job's spec.scheduling after Kueue's webhook: %+v, want the gang asked for", job.Spec.Scheduling)
	}
	pods := s.waitJobPodsBound(t, "native", 2)
	ctx := e2eutil.Context(t)
	groups, err := s.c.NativePodGroups(ctx, t, s.ns)
	if err != nil || len(groups) != 1 {
		t.Fatalf("native PodGroups %v (%v), want the Job's one", groups, err)
	}
	pg := groups[0]
	if pg.Spec.SchedulingPolicy.Gang == nil || pg.Spec.SchedulingPolicy.Gang.MinCount != 2 || !metav1.IsControlledBy(pg, job) {
		t.Errorf("PodGroup %s: policy %+v, owners %v: want a gang of 2 of the Job", pg.Name, pg.Spec.SchedulingPolicy, pg.OwnerReferences)
	}
	for _, name := range pods {
		pod, err := s.c.Client.CoreV1().Pods(s.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sg := pod.Spec.SchedulingGroup; sg == nil || sg.PodGroupName == nil || *sg.PodGroupName != pg.Name {
			t.Errorf("pod %s: schedulingGroup %+v, want %s", name, sg, pg.Name)
		}
	}
	s.c.WaitNativePodGroupCondition(t, s.ns, pg.Name, v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
}

// TestKueueWhatIfForAQueuedJob: a Job Kueue holds (the quota is taken by one running)
// is asked about with `phalanx whatif --kubeconfig --admit`, as the read-only role of
// config/snapshot: the snapshot keeps the queued Job and its PodGroup, and the answer is
// rack r1, whose batch pod (outside Kueue, lower priority) it preempts, since r0 runs
// the first Job. Then the quota is raised, Kueue admits it, and phalanx does just that.
func TestKueueWhatIfForAQueuedJob(t *testing.T) {
	s := newKueueSetup(t, 16, 2, 2)
	ctx := e2eutil.Context(t)
	training := s.c.CreatePriorityClass(t, "training", 1000)
	batch := s.c.CreatePriorityClass(t, "batch", 100)
	var r1 []string
	for n, r := range s.rackOf {
		if r == "r1" {
			r1 = append(r1, n)
		}
	}
	sort.Strings(r1)
	// Half of r1's first node taken by a batch pod of another namespace: r0 is the one
	// rack with room for the first Job.
	other := s.c.CreateNamespace(t)
	victim := gpuPod(e2eutil.Pod{Namespace: other, Name: "batch", NodeName: r1[0], CPU: "1", Priority: batch}, "4", nil)
	s.c.CreatePod(t, victim)
	s.c.WaitPodRunning(t, other, "batch")
	h := s.c.RecordPods(t, other)

	s.trainingJob(t, "first", 2, training, "first", "10m")
	for _, pod := range s.waitJobPodsBound(t, "first", 2) {
		p, err := s.c.Client.CoreV1().Pods(s.ns).Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.rackOf[p.Spec.NodeName] != "r0" {
			t.Fatalf("first Job's %s on %s, want rack r0", pod, p.Spec.NodeName)
		}
	}
	s.trainingJob(t, "queued", 2, training, "queued", "10m")
	e2eutil.WaitFor(t, time.Minute, "Kueue's Workload of the queued Job, waiting for quota", func(ctx context.Context) (bool, error) {
		wls, err := s.c.KueueWorkloads(ctx, t, s.ns)
		if err != nil {
			return false, nil
		}
		for i := range wls {
			if jobOf(&wls[i]) == "queued" {
				c := e2eutil.KueueCondition(&wls[i], "QuotaReserved")
				return c != nil && c["status"] == "False", nil
			}
		}
		return false, nil
	})

	stdout, stderr, code := e2eutil.RunPhalanx(t, "whatif", "--kubeconfig", s.c.SnapshotKubeconfig(t), "--config", s.c.PhalanxConfig(t),
		"--scheduler-name", s.sched, "--check-invariants", "--admit", s.ns+"/queued", "-o", "json")
	if code != 0 {
		t.Fatalf("phalanx whatif --admit: exit %d\n%s\n%s", code, stderr, stdout)
	}
	var answer whatif.Answer
	if err := json.Unmarshal(stdout, &answer); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(answer.Workloads) != 1 {
		t.Fatalf("answer about %d workloads, want the queued Job:\n%s", len(answer.Workloads), stdout)
	}
	w := answer.Workloads[0]
	var predicted []string
	for _, n := range w.Nodes {
		predicted = append(predicted, n.Node)
	}
	sort.Strings(predicted)
	if !w.Schedules || w.Name != "queued" || w.PodGroup != "queued" || fmt.Sprint(predicted) != fmt.Sprint(r1) ||
		len(w.Preempts) != 1 || w.Preempts[0].Name != "batch" {
		t.Fatalf("the answer for the queued Job: %s\nwant it on %v, preempting batch", stdout, r1)
	}

	// Kueue admits it once the quota allows; phalanx does what the answer said.
	cq := s.clusterQueue
	patch := []byte(`[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/2/nominalQuota","value":"32"}]`)
	if _, err := s.c.PatchKueueObject(ctx, t, "ClusterQueue", "", cq, patch); err != nil {
		t.Fatalf("raise the quota: %v", err)
	}
	var actual []string
	for _, pod := range s.waitJobPodsBound(t, "queued", 2) {
		p, err := s.c.Client.CoreV1().Pods(s.ns).Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		actual = append(actual, p.Spec.NodeName)
	}
	sort.Strings(actual)
	if fmt.Sprint(actual) != fmt.Sprint(predicted) {
		t.Errorf("admitted, the Job went to %v; whatif said %v", actual, predicted)
	}
	if c := h.Condition("batch", corev1.DisruptionTarget, corev1.ConditionTrue); c == nil || c.Reason != "PreemptionByScheduler" {
		t.Errorf("batch: DisruptionTarget %+v, want phalanx's preemption, as whatif said", c)
	}
}

// TestKueueExample applies examples/kueue (its queues and its training Job) into the
// test's namespace, with the test's names for what is cluster-wide (the flavor, the
// ClusterQueue, the PriorityClass), scheduler and nodes: rack a has two 8-GPU nodes, rack
// b one. The Job waits suspended until Kueue admits it, then both workers go to rack a,
// together, and the PodGroup is Scheduled.
func TestKueueExample(t *testing.T) {
	c := e2eutil.Connect(t)
	c.StartKueue(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateKueueNamespace(t)
	sched := e2eutil.SchedulerName(t)
	prio := c.CreatePriorityClass(t, "training", 1000)
	pinValue := e2eutil.UniqueName(t, "kueue-example")
	rackA, rackB := e2eutil.UniqueName(t, "rack-a"), e2eutil.UniqueName(t, "rack-b")
	rackOf := map[string]string{}
	for rack, n := range map[string]int{rackA: 2, rackB: 1} {
		for range n {
			node := c.CreateReadyNode(t, e2eutil.Node{CPU: "64", Memory: "512Gi",
				Extra:  map[corev1.ResourceName]string{"nvidia.com/gpu": "8"},
				Labels: map[string]string{pinLabel: pinValue, "example.com/rack": rack}})
			rackOf[node.Name] = rack
		}
	}
	dir := filepath.Join(e2eutil.RepoRoot(t), "examples", "kueue")

	// The queues, renamed where they are cluster-wide.
	flavor, cq := e2eutil.UniqueName(t, "gpu"), e2eutil.UniqueName(t, "gpus")
	for _, doc := range exampleDocs(t, filepath.Join(dir, "01-queues.yaml")) {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatal(err)
		}
		switch u.GetKind() {
		case "ResourceFlavor":
			u.SetName(flavor)
		case "ClusterQueue":
			u.SetName(cq)
			groups, _, _ := unstructured.NestedSlice(u.Object, "spec", "resourceGroups")
			flavors, _, _ := unstructured.NestedSlice(groups[0].(map[string]any), "flavors")
			flavors[0].(map[string]any)["name"] = flavor
			_ = unstructured.SetNestedSlice(groups[0].(map[string]any), flavors, "flavors")
			_ = unstructured.SetNestedSlice(u.Object, groups, "spec", "resourceGroups")
			_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"kubernetes.io/metadata.name": ns}, "spec", "namespaceSelector", "matchLabels")
		case "LocalQueue":
			u.SetNamespace(ns)
			_ = unstructured.SetNestedField(u.Object, cq, "spec", "clusterQueue")
		default:
			t.Fatalf("unexpected kind %q in 01-queues.yaml", u.GetKind())
		}
		c.CreateKueueObject(t, u)
	}
	e2eutil.WaitFor(t, time.Minute, "ClusterQueue "+cq+" Active", func(ctx context.Context) (bool, error) {
		u, err := c.GetKueueObject(ctx, t, "ClusterQueue", "", cq)
		return err == nil && e2eutil.KueueConditionTrue(u, "Active"), nil
	})

	pg, job := &v1alpha1.PodGroup{}, &batchv1.Job{}
	for _, doc := range exampleDocs(t, filepath.Join(dir, "02-training-job.yaml")) {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatal(err)
		}
		into := map[string]any{"PodGroup": pg, "Job": job}[head.Kind]
		if into == nil {
			t.Fatalf("unexpected kind %q in 02-training-job.yaml", head.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			t.Fatalf("%s: %v", head.Kind, err)
		}
	}
	if job.Labels[kueueQueueLabel] != "training" || job.Spec.Suspend == nil || !*job.Spec.Suspend {
		t.Fatalf("the example's Job: queue %q, suspend %v; want the LocalQueue training, suspended", job.Labels[kueueQueueLabel], job.Spec.Suspend)
	}
	pg.Namespace, pg.Spec.PriorityClassName = ns, prio
	job.Namespace = ns
	spec := &job.Spec.Template.Spec
	spec.SchedulerName, spec.PriorityClassName = sched, prio
	spec.NodeSelector = map[string]string{pinLabel: pinValue}
	spec.Containers[0].Image = e2eutil.PodImage
	// kwok completes a Job's pods once they run; these run long enough to be seen.
	job.Spec.Template.Annotations = map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "10m"}

	p := c.StartPhalanx(t, "kueue-example")
	p.WaitReady(t)
	c.CreatePodGroup(t, pg)
	if _, err := c.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Job: %v", err)
	}
	var names []string
	e2eutil.WaitFor(t, 2*time.Minute, "the Job admitted and its two pods made", func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job.Name})
		if err != nil {
			return false, nil
		}
		names = names[:0]
		for _, pod := range list.Items {
			names = append(names, pod.Name)
		}
		return len(names) == 2, nil
	})
	for name, pod := range c.WaitPodsBound(t, ns, names, 2*time.Minute) {
		if rackOf[pod.Spec.NodeName] != rackA {
			t.Errorf("%s on %s (rack %q), want rack a, the only one with room for both", name, pod.Spec.NodeName, rackOf[pod.Spec.NodeName])
		}
	}
	c.WaitPodGroupCondition(t, ns, pg.Name, v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	wls, err := c.KueueWorkloads(ctx, t, ns)
	if err != nil || len(wls) != 1 || !e2eutil.KueueConditionTrue(&wls[0], "Admitted") {
		t.Errorf("Kueue's Workloads %d (%v), want the Job's one, Admitted", len(wls), err)
	}
}

// exampleDocs are the YAML documents of an example file.
func exampleDocs(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, doc := range strings.Split(string(data), "\n---\n") {
		if strings.TrimSpace(doc) != "" {
			out = append(out, []byte(doc))
		}
	}
	return out
}
