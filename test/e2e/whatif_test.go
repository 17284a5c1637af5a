//go:build e2e

package e2e

// phalanx snapshot and phalanx whatif on the control plane: the snapshot reads the
// cluster as the scheduler sees it, and the prediction of whatif is what then happens
// when the new objects are created with phalanx scheduling.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/whatif"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// whatifCluster is the running work of the prediction test: two racks of four 8-GPU
// nodes and a small edge node, full. Rack a runs a Deployment's four batch pods (priority
// low), rack b four research pods (priority mid); the edge node a low and a mid pod.
type whatifCluster struct {
	ns, sched, pin      string
	low, mid, high      string
	rackOf              map[string]string
	batch               *appsv1.Deployment
	spare, edge, rackAv string
}

const gpu = corev1.ResourceName("nvidia.com/gpu")

func gpuPod(p e2eutil.Pod, gpus string, selector map[string]string) *corev1.Pod {
	pod := p.Build()
	if gpus != "" {
		q := resource.MustParse(gpus)
		pod.Spec.Containers[0].Resources.Requests[gpu] = q
		pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{gpu: q}
	}
	pod.Spec.NodeSelector = selector
	return pod
}

func fillWhatifCluster(t *testing.T, c *e2eutil.Cluster) *whatifCluster {
	ctx := e2eutil.Context(t)
	w := &whatifCluster{ns: c.CreateNamespace(t), sched: e2eutil.SchedulerName(t), pin: e2eutil.UniqueName(t, "whatif"), rackOf: map[string]string{}}
	w.low, w.mid, w.high = c.CreatePriorityClass(t, "low", 100), c.CreatePriorityClass(t, "mid", 1000), c.CreatePriorityClass(t, "high", 10000)
	w.rackAv = e2eutil.UniqueName(t, "rack-a")
	rackB := e2eutil.UniqueName(t, "rack-b")
	for _, rack := range []string{w.rackAv, rackB} {
		for range 4 {
			n := c.CreateReadyNode(t, e2eutil.Node{CPU: "32", Memory: "256Gi", Extra: map[corev1.ResourceName]string{gpu: "8"},
				Labels: map[string]string{pinLabel: w.pin, "example.com/rack": rack}})
			w.rackOf[n.Name] = rack
		}
	}
	w.edge = c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "16Gi", Labels: map[string]string{pinLabel: w.pin, "role": "edge"}}).Name
	grace := int64(5)
	pinned := map[string]string{pinLabel: w.pin}
	var names []string
	for i := range 4 {
		p := gpuPod(e2eutil.Pod{Namespace: w.ns, Name: fmt.Sprintf("research-%d", i), SchedulerName: w.sched, CPU: "8", Priority: w.mid, GracePeriod: &grace},
			"8", map[string]string{pinLabel: w.pin, "example.com/rack": rackB})
		c.CreatePod(t, p)
		names = append(names, p.Name)
	}
	for _, e := range []struct {
		name, prio, cpu string
	}{{"edge-low", w.low, "3"}, {"edge-mid", w.mid, "1"}} {
		c.CreatePod(t, gpuPod(e2eutil.Pod{Namespace: w.ns, Name: e.name, SchedulerName: w.sched, CPU: e.cpu, Priority: e.prio, GracePeriod: &grace},
			"", map[string]string{pinLabel: w.pin, "role": "edge"}))
		names = append(names, e.name)
	}
	c.WaitPodsBound(t, w.ns, names, 2*time.Minute)
	// The batch Deployment goes where room is left: rack a.
	tmpl := gpuPod(e2eutil.Pod{SchedulerName: w.sched, CPU: "8", Priority: w.low, GracePeriod: &grace, Labels: map[string]string{"app": "batch"}}, "8", pinned)
	four := int32(4)
	w.batch = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: "batch"}, Spec: appsv1.DeploymentSpec{Replicas: &four,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "batch"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: tmpl.Spec}}}
	if _, err := c.Client.AppsV1().Deployments(w.ns).Create(ctx, w.batch, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e2eutil.WaitFor(t, 2*time.Minute, "the batch Deployment's four pods bound in rack a", func(ctx context.Context) (bool, error) {
		pods := w.batchPods(t, c)
		bound := 0
		for _, p := range pods {
			if w.rackOf[p.Spec.NodeName] == w.rackAv {
				bound++
			}
		}
		return len(pods) == 4 && bound == 4, nil
	})
	// A spare 8-GPU node in no rack, made after the batch pods are placed: one of them
	// can run there again once preempted.
	w.spare = c.CreateReadyNode(t, e2eutil.Node{CPU: "32", Memory: "256Gi", Extra: map[corev1.ResourceName]string{gpu: "8"}, Labels: pinned}).Name
	return w
}

func (w *whatifCluster) batchPods(t *testing.T, c *e2eutil.Cluster) []corev1.Pod {
	list, err := c.Client.CoreV1().Pods(w.ns).List(e2eutil.Context(t), metav1.ListOptions{LabelSelector: "app=batch"})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// newWork is the question's new objects: a gang Job of four 8-GPU workers that must share
// a rack (phalanx's PodGroup, named in the pod template as the Job controller of a control
// plane with WorkloadWithJob needs) and a pod of high priority for the edge node.
func (w *whatifCluster) newWork(t *testing.T) (string, *v1alpha1.PodGroup, *batchv1.Job, *corev1.Pod) {
	pg := &v1alpha1.PodGroup{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: "train"},
		Spec: v1alpha1.PodGroupSpec{SchedulingPolicy: v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: 4}},
			PriorityClassName:     w.high,
			SchedulingConstraints: &v1alpha1.PodGroupSchedulingConstraints{Topology: []v1alpha1.TopologyConstraint{{Key: "example.com/rack"}}}}}
	worker := gpuPod(e2eutil.Pod{SchedulerName: w.sched, CPU: "8", Priority: w.high, Labels: map[string]string{v1alpha1.LabelPodGroup: "train"}},
		"8", map[string]string{pinLabel: w.pin})
	worker.Spec.RestartPolicy = corev1.RestartPolicyNever
	worker.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &pg.Name}
	four := int32(4)
	indexed := batchv1.IndexedCompletion
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: "train"},
		Spec: batchv1.JobSpec{CompletionMode: &indexed, Completions: &four, Parallelism: &four,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: worker.Labels,
				// kwok completes a Job's pods once they run; these run long enough to be seen.
				Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "10m"}}, Spec: worker.Spec}}}
	urgent := gpuPod(e2eutil.Pod{Namespace: w.ns, Name: "urgent", SchedulerName: w.sched, CPU: "2", Priority: w.high}, "", map[string]string{pinLabel: w.pin, "role": "edge"})
	urgent.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	var doc bytes.Buffer
	for _, o := range []any{pg, job, urgent} {
		y, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		doc.WriteString("---\n")
		doc.Write(y)
	}
	path := filepath.Join(t.TempDir(), "new.yaml")
	if err := os.WriteFile(path, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, pg, job, urgent
}

// TestWhatIfPredictsTheOutcome asks phalanx whatif, as the read-only snapshot role, what
// a gang Job and a preempting pod would do on a full cluster, then creates them with
// phalanx scheduling, and checks that what happens is what was predicted: the same
// victims, the same nodes and rack, both started, and the same restarts of the victims
// (one batch pod again at once on the spare node, three waiting).
func TestWhatIfPredictsTheOutcome(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	p := c.StartPhalanx(t, "whatif")
	p.WaitReady(t)
	w := fillWhatifCluster(t, c)
	newFile, pg, job, urgent := w.newWork(t)

	answer, stdout := askWhatIf(t, c, w.sched, newFile)
	t.Logf("predicted:\n%s", stdout)
	predicted := map[string]whatif.Workload{}
	for _, wl := range answer.Workloads {
		predicted[wl.Kind+"/"+wl.Name] = wl
	}
	pJob, pUrgent := predicted["Job/train"], predicted["Pod/urgent"]
	if !answer.AllSchedule || !pJob.Schedules || !pUrgent.Schedules || len(pJob.Domains) == 0 || pJob.Domains[0].Values[0] != w.rackAv {
		t.Fatalf("prediction %+v: want both scheduled, the Job in rack a (whose batch pods it may preempt at least cost)", answer)
	}

	history := c.RecordPods(t, w.ns)
	before := map[string]bool{}
	for _, name := range history.Names() {
		before[name] = true
	}
	c.CreatePodGroup(t, pg)
	if _, err := c.Client.BatchV1().Jobs(w.ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.CreatePod(t, urgent)
	var workers []string
	e2eutil.WaitFor(t, time.Minute, "the Job's four pods", func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(w.ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job.Name})
		workers = workers[:0]
		for _, pod := range list.Items {
			workers = append(workers, pod.Name)
		}
		return err == nil && len(workers) == 4, nil
	})
	bound := c.WaitPodsBound(t, w.ns, append(slices.Clone(workers), urgent.Name), 3*time.Minute)

	// The same nodes and rack.
	var realNodes []string
	for _, name := range workers {
		realNodes = append(realNodes, bound[name].Spec.NodeName)
	}
	if got, want := predictedNodes(pJob), sorted(realNodes); !slices.Equal(got, want) {
		t.Errorf("the Job's pods run on %v, predicted %v", want, got)
	}
	if got := bound[urgent.Name].Spec.NodeName; len(pUrgent.Nodes) != 1 || pUrgent.Nodes[0].Node != got {
		t.Errorf("urgent runs on %s, predicted %v", got, pUrgent.Nodes)
	}
	// The same victims: the pods that existed before and were preempted.
	var realVictims []string
	for name := range before {
		if history.Condition(name, corev1.DisruptionTarget, corev1.ConditionTrue) != nil {
			realVictims = append(realVictims, name)
		}
	}
	if got, want := victimsOf(pJob, pUrgent), sorted(realVictims); !slices.Equal(got, want) {
		t.Errorf("preempted %v, predicted %v", want, got)
	}
	// The victims' restarts: the Deployment makes each batch pod again; one fits on the
	// spare node at once, three find no room.
	restarts := map[string]int{}
	for _, v := range pJob.Preempts {
		restarts[v.Restart]++
	}
	if restarts[whatif.RestartAtOnce] != 1 || restarts[whatif.RestartWaiting] != 3 {
		t.Errorf("predicted restarts %v, want one at once and three waiting", restarts)
	}
	e2eutil.WaitFor(t, 2*time.Minute, "the batch pods made again: one on the spare node, three unschedulable", func(ctx context.Context) (bool, error) {
		onSpare, unschedulable := 0, 0
		for _, pod := range w.batchPods(t, c) {
			if before[pod.Name] {
				continue
			}
			switch {
			case pod.Spec.NodeName == w.spare:
				onSpare++
			case pod.Spec.NodeName == "" && podUnschedulable(&pod):
				unschedulable++
			}
		}
		return onSpare == restarts[whatif.RestartAtOnce] && unschedulable == restarts[whatif.RestartWaiting], nil
	})
}

func podUnschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

func predictedNodes(w whatif.Workload) []string {
	var out []string
	for _, n := range w.Nodes {
		for range n.Pods {
			out = append(out, n.Node)
		}
	}
	return sorted(out)
}

func victimsOf(ws ...whatif.Workload) []string {
	var out []string
	for _, w := range ws {
		for _, v := range w.Preempts {
			out = append(out, v.Name)
		}
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestSnapshot reads the control plane as the snapshot role: two snapshots of an
// unchanged cluster are the same byte for byte, the simulator reads one back, and what a
// pod does not need for scheduling (its environment, command, secrets) is not in it.
func TestSnapshot(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	node := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi"})
	pod := e2eutil.Pod{Namespace: ns, Name: "app", NodeName: node.Name, CPU: "1"}.Build()
	pod.Spec.Containers[0].Command = []string{"serve", "--password=hunter2"}
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "TOKEN", Value: "s3cr3t"}}
	pod.Spec.Volumes = []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db-credentials"}}}}
	c.CreatePod(t, pod)
	c.WaitPodRunning(t, ns, pod.Name)
	// A CompositePodGroup of phalanx's CRD, which the read-only role may list too.
	c.CreateComposite(t, &v1alpha1.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "snap-composite"},
		Spec: v1alpha1.CompositePodGroupSpec{SchedulingPolicy: v1alpha1.CompositePodGroupSchedulingPolicy{Gang: &v1alpha1.CompositeGangSchedulingPolicy{MinGroupCount: 2}}}})
	kubeconfig := c.SnapshotKubeconfig(t)
	dir := t.TempDir()
	var first []byte
	// Other tests' objects may still be going away: snapshot until two in a row agree.
	e2eutil.WaitFor(t, 2*time.Minute, "two snapshots of an unchanged cluster byte for byte the same", func(context.Context) (bool, error) {
		out, stderr, code := e2eutil.RunPhalanx(t, "snapshot", "--kubeconfig", kubeconfig)
		if code != 0 {
			t.Fatalf("phalanx snapshot: exit %d: %s", code, stderr)
		}
		same := bytes.Equal(out, first)
		first = out
		return same, nil
	})
	for _, secret := range []string{"hunter2", "s3cr3t", "TOKEN", "db-credentials", "managedFields"} {
		if bytes.Contains(first, []byte(secret)) {
			t.Errorf("the snapshot has %q", secret)
		}
	}
	if !bytes.Contains(first, []byte("name: app\n")) || !bytes.Contains(first, []byte("nodeName: "+node.Name)) {
		t.Errorf("the snapshot lacks the pod on its node")
	}
	if !bytes.Contains(first, []byte("apiVersion: scheduling.phalanx.dev/v1alpha1\nkind: CompositePodGroup\nmetadata:\n  name: snap-composite\n")) {
		t.Errorf("the snapshot lacks the CompositePodGroup")
	}
	if _, stderr, code := e2eutil.RunPhalanx(t, "snapshot", "--kubeconfig", kubeconfig, "-o", dir+"/"); code != 0 {
		t.Fatalf("phalanx snapshot -o DIR: exit %d: %s", code, stderr)
	}
	out, stderr, code := e2eutil.RunPhalanx(t, "simulate", "-f", dir, "--check-invariants")
	if code != 0 || !strings.Contains(string(out), node.Name) {
		t.Errorf("phalanx simulate of the snapshot: exit %d: %s\n%s", code, stderr, out)
	}
}

// TestWhatIfPredictsAJobControllerGang asks, with --workload-with-job, about an Indexed Job
// whose spec.scheduling asks for a gang: on this control plane (v1.37.2, WorkloadWithJob
// on) the Job controller makes a Workload and a gang PodGroup for it, and the prediction
// models just that. Two of four 8-GPU nodes are free and two run a low-priority pod each;
// the gang of three must preempt exactly one of them, and does what was predicted.
func TestWhatIfPredictsAJobControllerGang(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	if v := c.NativeVersion(t); v != nativegroup.V1beta1 {
		t.Skipf("the control plane serves native PodGroups in %q: the Job controller modelled is 1.37's (v1beta1)", v)
	}
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	low, high := c.CreatePriorityClass(t, "low", 100), c.CreatePriorityClass(t, "high", 10000)
	pin := e2eutil.UniqueName(t, "whatif-gang")
	for range 4 {
		c.CreateReadyNode(t, e2eutil.Node{CPU: "32", Memory: "256Gi", Extra: map[corev1.ResourceName]string{gpu: "8"}, Labels: map[string]string{pinLabel: pin}})
	}
	p := c.StartPhalanx(t, "whatif-gang")
	p.WaitReady(t)
	grace := int64(5)
	var fillers []string
	for i := range 2 {
		pod := gpuPod(e2eutil.Pod{Namespace: ns, Name: fmt.Sprintf("low-%d", i), SchedulerName: sched, CPU: "4", Priority: low, GracePeriod: &grace},
			"8", map[string]string{pinLabel: pin})
		c.CreatePod(t, pod)
		fillers = append(fillers, pod.Name)
	}
	c.WaitPodsBound(t, ns, fillers, 2*time.Minute)

	worker := gpuPod(e2eutil.Pod{SchedulerName: sched, CPU: "4", Priority: high}, "8", map[string]string{pinLabel: pin})
	worker.Spec.RestartPolicy = corev1.RestartPolicyNever
	three := int32(3)
	indexed := batchv1.IndexedCompletion
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"},
		Spec: batchv1.JobSpec{CompletionMode: &indexed, Completions: &three, Parallelism: &three,
			Scheduling: &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}}},
			Template:   corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "10m"}}, Spec: worker.Spec}}}
	answer, stdout := askWhatIf(t, c, sched, writeManifest(t, "job.yaml", job), "--workload-with-job")
	predicted := answer.Workloads[0]
	if !predicted.Schedules || predicted.PodGroup == "" || len(predicted.Preempts) != 1 {
		t.Fatalf("prediction %s: want the Job's three pods in its PodGroup, one filler preempted", stdout)
	}

	history := c.RecordPods(t, ns)
	if _, err := c.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var workers []string
	e2eutil.WaitFor(t, time.Minute, "the Job's three pods", func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job.Name})
		workers = workers[:0]
		for _, pod := range list.Items {
			if pod.Spec.SchedulingGroup == nil {
				return false, fmt.Errorf("pod %s is in no scheduling group: is WorkloadWithJob on?", pod.Name)
			}
			workers = append(workers, pod.Name)
		}
		return err == nil && len(workers) == 3, nil
	})
	bound := c.WaitPodsBound(t, ns, workers, 3*time.Minute)
	var realNodes []string
	for _, name := range workers {
		realNodes = append(realNodes, bound[name].Spec.NodeName)
	}
	if got, want := predictedNodes(predicted), sorted(realNodes); !slices.Equal(got, want) {
		t.Errorf("the Job's pods run on %v, predicted %v", want, got)
	}
	var realVictims []string
	for _, name := range fillers {
		if history.Condition(name, corev1.DisruptionTarget, corev1.ConditionTrue) != nil {
			realVictims = append(realVictims, name)
		}
	}
	if got, want := victimsOf(predicted), sorted(realVictims); !slices.Equal(got, want) {
		t.Errorf("preempted %v, predicted %v", want, got)
	}
}

// askWhatIf runs `phalanx whatif -o json` against the cluster as the read-only snapshot
// role, with the configuration phalanx runs with and its scheduler name, on the file of
// new objects, and returns the parsed answer and the JSON it printed.
func askWhatIf(t *testing.T, c *e2eutil.Cluster, sched, newFile string, extra ...string) (whatif.Answer, []byte) {
	t.Helper()
	args := append([]string{"whatif", "--kubeconfig", c.SnapshotKubeconfig(t), "--config", c.PhalanxConfig(t),
		"--scheduler-name", sched, "--check-invariants", "-f", newFile, "-o", "json"}, extra...)
	stdout, stderr, code := e2eutil.RunPhalanx(t, args...)
	if code != 0 {
		t.Fatalf("phalanx whatif: exit %d\n%s\n%s", code, stderr, stdout)
	}
	var answer whatif.Answer
	if err := json.Unmarshal(stdout, &answer); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return answer, stdout
}

// writeManifest writes obj as YAML into a file of the test's temporary directory.
func writeManifest(t *testing.T, name string, obj any) string {
	t.Helper()
	y, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, y, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
