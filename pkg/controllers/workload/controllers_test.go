package workload

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// decode reads a workload from YAML, as the simulator's loader does.
func decode(t *testing.T, kind, doc string) Controller {
	t.Helper()
	obj := Kinds[kind]()
	if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
		t.Fatal(err)
	}
	c, _, ferr := New(obj, Options{})
	if ferr != nil {
		t.Fatal(ferr)
	}
	return c
}

// expand lets each timer among actions fire (nothing else happening meanwhile): what it
// makes comes after its delay.
func expand(acts []Action) []Action {
	var out []Action
	for _, a := range acts {
		if a.Then == nil {
			out = append(out, a)
			continue
		}
		for _, b := range expand(a.Then()) {
			b.After += a.After
			out = append(out, b)
		}
	}
	return out
}

// pods are the pods among actions (timers fired), by name, with when they are made.
func pods(acts []Action) (names []string, after []time.Duration) {
	for _, a := range expand(acts) {
		if p, ok := a.Object.(*v1.Pod); ok {
			names = append(names, p.Name)
			after = append(after, a.After)
		}
	}
	return names, after
}

func podNamed(t *testing.T, acts []Action, name string) *v1.Pod {
	t.Helper()
	for _, a := range acts {
		if p, ok := a.Object.(*v1.Pod); ok && p.Name == name {
			return p
		}
	}
	t.Fatalf("no pod %s among %v", name, acts)
	return nil
}

const indexedJob = `
metadata: {name: train, namespace: ml}
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 2
  template:
    metadata: {labels: {app: train}}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: trainer}]
`

func TestIndexedJobPodsAsTheJobControllerMakesThem(t *testing.T) {
	c := decode(t, "batch/v1/Job", indexedJob)
	acts := c.Start()
	names, _ := pods(acts)
	if len(names) != 2 || !strings.HasPrefix(names[0], "train-0-") || !strings.HasPrefix(names[1], "train-1-") || len(names[0]) != len("train-0-")+5 {
		t.Fatalf("first pods %v, want train-0-xxxxx and train-1-xxxxx (parallelism 2)", names)
	}
	acts = expand(acts)
	p := podNamed(t, acts, names[1])
	for k, v := range map[string]string{"app": "train", "batch.kubernetes.io/job-completion-index": "1",
		"batch.kubernetes.io/job-name": "train", "job-name": "train", "batch.kubernetes.io/controller-uid": "sim-ml-train"} {
		if p.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, p.Labels[k], v)
		}
	}
	if p.Annotations["batch.kubernetes.io/job-completion-index"] != "1" || p.Spec.Hostname != "train-1" || p.Namespace != "ml" {
		t.Errorf("annotations %v, hostname %q, namespace %q", p.Annotations, p.Spec.Hostname, p.Namespace)
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "Job" || ref.Name != "train" || ref.APIVersion != "batch/v1" {
		t.Errorf("controller %+v, want Job train", ref)
	}
	// Index 0 succeeds: index 2 is next. Index 1 is preempted: replaced after 10 s.
	next, _ := pods(c.Observe(podNamed(t, acts, names[0]), Succeeded))
	if len(next) != 1 || !strings.HasPrefix(next[0], "train-2-") {
		t.Fatalf("after index 0 succeeded: %v, want index 2", next)
	}
	again, after := pods(c.Observe(p, Terminating))
	if len(again) != 1 || !strings.HasPrefix(again[0], "train-1-") || after[0] != 10*time.Second {
		t.Fatalf("after index 1 was preempted: %v after %v, want index 1 again after 10s", again, after)
	}
	if more := c.Observe(p, Gone); len(more) != 0 {
		t.Errorf("the preempted pod's end made %v more", more)
	}
}

func TestJobCompletionsBackoffAndLimits(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		// fail ends the first pod this many times, each time the newest replacement.
		fail      int
		ends      []Change
		wantFirst int
		wantAfter []time.Duration // of each replacement; absent: none
	}{
		{name: "work queue: parallelism pods", spec: "parallelism: 3", wantFirst: 3},
		{name: "completions cap the first pods", spec: "parallelism: 5\n  completions: 2", wantFirst: 2},
		{name: "suspended: none", spec: "suspend: true\n  parallelism: 2", wantFirst: 0},
		{name: "backoff doubles", spec: "parallelism: 1", fail: 3, ends: []Change{Terminating, Terminating, Terminating},
			wantFirst: 1, wantAfter: []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second}},
		{name: "backoffLimit ends it", spec: "parallelism: 1\n  backoffLimit: 1", fail: 2, ends: []Change{Terminating, Terminating},
			wantFirst: 1, wantAfter: []time.Duration{10 * time.Second}},
		{name: "replacement policy Failed waits for the pod to go", spec: "parallelism: 1\n  podReplacementPolicy: Failed", fail: 1,
			ends: []Change{Terminating}, wantFirst: 1},
		{name: "a pod failure policy ignoring disruptions: uncounted, yet backed off (upstream's backoff counts every failed pod)",
			spec: "parallelism: 1\n  backoffLimit: 0\n  podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}",
			fail: 2, ends: []Change{Gone, Gone}, wantFirst: 1, wantAfter: []time.Duration{10 * time.Second, 20 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := decode(t, "batch/v1/Job", "metadata: {name: j}\nspec:\n  "+tc.spec+"\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}")
			acts := c.Start()
			first, _ := pods(acts)
			if len(first) != tc.wantFirst {
				t.Fatalf("%d first pods, want %d", len(first), tc.wantFirst)
			}
			if tc.fail == 0 {
				return
			}
			var gotAfter []time.Duration
			cur := podNamed(t, acts, first[0])
			for i := range tc.fail {
				cur.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue}}
				acts = expand(c.Observe(cur, tc.ends[i]))
				names, after := pods(acts)
				if len(names) == 0 {
					break
				}
				gotAfter = append(gotAfter, after[0])
				cur = podNamed(t, acts, names[0])
			}
			if !slices.Equal(gotAfter, tc.wantAfter) {
				t.Errorf("replacements after %v, want %v", gotAfter, tc.wantAfter)
			}
		})
	}
}

func TestDeploymentReplicaSetReplacesAtOnce(t *testing.T) {
	c := decode(t, "apps/v1/Deployment", `
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	acts := c.Start()
	names, _ := pods(acts)
	if len(names) != 2 {
		t.Fatalf("pods %v, want 2", names)
	}
	p := podNamed(t, acts, names[0])
	hash := p.Labels["pod-template-hash"]
	ref := metav1.GetControllerOf(p)
	if hash == "" || ref.Kind != "ReplicaSet" || ref.Name != "web-"+hash || !strings.HasPrefix(p.Name, "web-"+hash+"-") {
		t.Errorf("pod %s, labels %v, owner %+v: want a pod of ReplicaSet web-<pod-template-hash>", p.Name, p.Labels, ref)
	}
	if c.Workload().String() != "Deployment default/web" {
		t.Errorf("workload %s", c.Workload())
	}
	repl, after := pods(c.Observe(p, Terminating))
	if len(repl) != 1 || after[0] != 0 || slices.Contains(names, repl[0]) {
		t.Errorf("replacement %v after %v, want one new pod at once", repl, after)
	}
	if more := c.Observe(p, Gone); len(more) != 0 {
		t.Errorf("the old pod's end made %v more", more)
	}
	if again := decode(t, "apps/v1/Deployment", "metadata: {name: web}\nspec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}}").Start(); podNamed(t, again, names[0]) == nil {
		t.Error("names differ between two runs")
	}
}

func TestStatefulSetOrderedWithClaims(t *testing.T) {
	c := decode(t, "apps/v1/StatefulSet", `
metadata: {name: db, namespace: data}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: postgres}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`)
	acts := c.Start()
	if len(acts) != 2 {
		t.Fatalf("start made %d objects, want the claim and pod of ordinal 0", len(acts))
	}
	pvc := acts[0].Object.(*v1.PersistentVolumeClaim)
	p := acts[1].Object.(*v1.Pod)
	if pvc.Name != "data-db-0" || pvc.Labels["app"] != "db" || p.Name != "db-0" || p.Spec.Hostname != "db-0" || p.Spec.Subdomain != "db" ||
		p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "data-db-0" || p.Labels["apps.kubernetes.io/pod-index"] != "0" {
		t.Fatalf("claim %s %v, pod %s %+v", pvc.Name, pvc.Labels, p.Name, p.Spec)
	}
	next := c.Observe(p, Running)
	if names, _ := pods(next); !slices.Equal(names, []string{"db-1"}) {
		t.Fatalf("after db-0 runs: %v, want db-1", names)
	}
	// db-0 is preempted: made again under its name once gone, its claim kept.
	if more := c.Observe(p, Terminating); len(more) != 0 {
		t.Errorf("terminating made %v", more)
	}
	again := c.Observe(p, Gone)
	if len(again) != 1 || again[0].Object.(*v1.Pod).Name != "db-0" {
		t.Errorf("after db-0 was gone: %v, want db-0 alone (its claim exists)", again)
	}
	par := decode(t, "apps/v1/StatefulSet", "metadata: {name: s}\nspec: {replicas: 3, podManagementPolicy: Parallel, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}")
	if names, _ := pods(par.Start()); len(names) != 3 {
		t.Errorf("Parallel made %v, want 3 at once", names)
	}
}

const jobSetYAML = `
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: llm, namespace: ml}
spec:
  startupPolicy: {startupPolicyOrder: InOrder}
  replicatedJobs:
  - name: driver
    template:
      spec:
        parallelism: 1
        completions: 1
        template: {spec: {containers: [{name: c, image: i}]}}
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        completions: 2
        template: {spec: {containers: [{name: c, image: i}]}}
`

func TestJobSetMakesJobsInOrder(t *testing.T) {
	c := decode(t, JobSetAPIVersion+"/JobSet", jobSetYAML)
	if n := len(c.Templates()); n != 3 {
		t.Fatalf("%d templates, want one per Job (1 driver, 2 workers)", n)
	}
	acts := c.Start()
	names, _ := pods(acts)
	if len(names) != 1 || !strings.HasPrefix(names[0], "llm-driver-0-0-") {
		t.Fatalf("start made %v, want the driver alone (InOrder)", names)
	}
	driver := podNamed(t, acts, names[0])
	if driver.Labels["jobset.sigs.k8s.io/jobset-name"] != "llm" || driver.Labels["jobset.sigs.k8s.io/job-global-index"] != "0" ||
		driver.Spec.Subdomain != "llm" || driver.Spec.RestartPolicy != v1.RestartPolicyOnFailure || metav1.GetControllerOf(driver).Name != "llm-driver-0" {
		t.Errorf("driver pod labels %v, subdomain %q, restart %q, owner %v", driver.Labels, driver.Spec.Subdomain, driver.Spec.RestartPolicy, metav1.GetControllerOf(driver))
	}
	workers, _ := pods(c.Observe(driver, Running))
	slices.Sort(workers)
	if len(workers) != 4 || !strings.HasPrefix(workers[0], "llm-workers-0-0-") || !strings.HasPrefix(workers[3], "llm-workers-1-1-") {
		t.Errorf("once the driver runs: %v, want 2 Jobs of 2 workers", workers)
	}
}

func TestOwnerReplacesPodsOfControllersNotInTheInput(t *testing.T) {
	yes := true
	pod := func(kind string, labels map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x-abcde", Namespace: "n", Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{Kind: kind, Name: "x", Controller: &yes}}},
			Spec: v1.PodSpec{NodeName: "node-1", Containers: []v1.Container{{Name: "c"}}}}
	}
	for _, tc := range []struct {
		kind   string
		labels map[string]string
		on     Change
		name   string // "" for a generated one with this prefix in prefix
		prefix string
		after  time.Duration
	}{
		{kind: "ReplicaSet", on: Terminating, prefix: "x-"},
		{kind: "Job", labels: map[string]string{"batch.kubernetes.io/job-completion-index": "3"}, on: Terminating, prefix: "x-3-", after: 10 * time.Second},
		{kind: "StatefulSet", on: Gone, name: "x-abcde"},
		{kind: "DaemonSet", on: Gone, prefix: "x-"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			p := pod(tc.kind, tc.labels)
			c := ForOwner(p)
			other := Terminating
			if tc.on == Terminating {
				other = Gone
				p.DeletionTimestamp = &metav1.Time{}
			}
			if acts := c.Observe(p, other); len(acts) != 0 {
				t.Errorf("replaced at the wrong moment: %v", acts)
			}
			acts := expand(c.Observe(p, tc.on))
			if len(acts) != 1 {
				t.Fatalf("%d replacements", len(acts))
			}
			r := acts[0].Object.(*v1.Pod)
			if (tc.name != "" && r.Name != tc.name) || !strings.HasPrefix(r.Name, tc.prefix) || acts[0].After != tc.after || r.Spec.NodeName != "" || metav1.GetControllerOf(r).Name != "x" {
				t.Errorf("replacement %s (node %q) after %v", r.Name, r.Spec.NodeName, acts[0].After)
			}
		})
	}
	if ForOwner(pod("PyTorchJob", nil)) != nil || ForOwner(&v1.Pod{}) != nil {
		t.Error("pods of custom controllers, or of none, must not be replaced")
	}
}

func TestInvalidWorkloadsNameTheField(t *testing.T) {
	three := int32(3)
	never := v1.RestartPolicyNever
	tmpl := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
		Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{Name: "c"}}}}
	indexed := batchv1.IndexedCompletion
	one := int32(1)
	for _, tc := range []struct {
		obj  any
		want string
	}{
		{&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: batchv1.JobSpec{Template: tmpl}}, "spec.template.spec.restartPolicy: Unsupported value: \"Always\""},
		{&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: batchv1.JobSpec{CompletionMode: &indexed, Template: v1.PodTemplateSpec{Spec: v1.PodSpec{RestartPolicy: never}}}}, "spec.completions: Required value"},
		{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{Replicas: &three, Template: tmpl}}, "spec.selector: Required value"},
		{&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "c"}}, Template: tmpl}}, "spec.template.metadata.labels: Invalid value"},
		{&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}, Template: tmpl,
			VolumeClaimTemplates: []v1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
				Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("1")}}}}}}}, "spec.volumeClaimTemplates[0].spec.resources.requests[storage]: Required value"},
		{&JobSet{ObjectMeta: metav1.ObjectMeta{Name: "js"}, Spec: JobSetSpec{ReplicatedJobs: []ReplicatedJob{{Name: "a", Template: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Completions: &one, Template: tmpl}}}}}}, "spec.replicatedJobs[0].template.spec.template.spec.restartPolicy: Unsupported value"},
		{&JobSet{ObjectMeta: metav1.ObjectMeta{Name: "js"}, Spec: JobSetSpec{ReplicatedJobs: []ReplicatedJob{{Name: "a", Template: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Completions: &one}}}, {Name: "b", DependsOn: []JobSetDependsOn{{Name: "c", Status: "Ready"}}}}}}, "spec.replicatedJobs[1].dependsOn[0].name: Invalid value: \"c\""},
	} {
		_, _, err := New(tc.obj, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%T: error %v, want %q", tc.obj, err, tc.want)
		}
	}
}

// With WorkloadWithJob, a Job gets a Workload and a PodGroup as Kubernetes 1.37's Job
// controller makes them, and its pods join the group; not when its template names a
// group, nor for a JobSet's Jobs.
func TestJobWithWorkload(t *testing.T) {
	decodeWith := func(doc string) Controller {
		job := &batchv1.Job{}
		if err := yaml.UnmarshalStrict([]byte(doc), job); err != nil {
			t.Fatal(err)
		}
		c, _, err := New(job, Options{WorkloadWithJob: true})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := decodeWith(`
metadata: {name: train, namespace: ml}
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 4
  scheduling: {schedulingPolicy: {gang: {}}}
  template:
    spec:
      priorityClassName: training
      restartPolicy: Never
      containers: [{name: main, image: trainer}]
`)
	made := c.Made()
	if len(made) != 2 {
		t.Fatalf("made %v, want a Workload and a PodGroup", made)
	}
	wl, pg := made[0].(*schedulingv1beta1.Workload), made[1].(*schedulingv1beta1.PodGroup)
	if !strings.HasPrefix(wl.Name, "train-") || len(wl.Spec.PodGroupTemplates) != 1 || wl.Spec.PodGroupTemplates[0].Name != "train-pgt-0" ||
		wl.Spec.PodGroupTemplates[0].PriorityClassName != "training" || metav1.GetControllerOf(wl).Name != "train" {
		t.Errorf("workload %+v", wl)
	}
	if g := pg.Spec.SchedulingPolicy.Gang; g == nil || g.MinCount != 4 || pg.Spec.WorkloadRef.WorkloadName != wl.Name ||
		!strings.HasPrefix(pg.Name, wl.Name+"-train-pgt-0-") || pg.Spec.PriorityClassName != "training" || pg.APIVersion != "scheduling.k8s.io/v1beta1" {
		t.Errorf("pod group %+v", pg)
	}
	if names, _ := pods(c.Start()); len(names) != 4 {
		t.Errorf("pods %v", names)
	}
	basic := decodeWith("metadata: {name: j}\nspec: {parallelism: 2, template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}}")
	if g := basic.Made()[1].(*schedulingv1beta1.PodGroup); g.Spec.SchedulingPolicy.Basic == nil {
		t.Errorf("a Job without spec.scheduling: %+v, want a basic group", g.Spec.SchedulingPolicy)
	}
	acts := basic.Start()
	p := acts[0].Object.(*v1.Pod)
	if sg := p.Spec.SchedulingGroup; sg == nil || *sg.PodGroupName != basic.Made()[1].(*schedulingv1beta1.PodGroup).Name {
		t.Errorf("pod's scheduling group %v", sg)
	}
	named := decodeWith("metadata: {name: j}\nspec: {template: {spec: {schedulingGroup: {podGroupName: mine}, restartPolicy: Never, containers: [{name: c, image: i}]}}}")
	if len(named.Made()) != 0 {
		t.Errorf("a Job whose template names a group got %v", named.Made())
	}
}

func TestBackoffLimitPerIndex(t *testing.T) {
	c := decode(t, "batch/v1/Job", "metadata: {name: j}\nspec:\n  completionMode: Indexed\n  completions: 2\n  parallelism: 2\n  backoffLimitPerIndex: 1\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}")
	acts := expand(c.Start())
	p0 := podNamed(t, acts, func() string { n, _ := pods(acts); return n[0] }())
	if p0.Annotations["batch.kubernetes.io/job-index-failure-count"] != "0" {
		t.Errorf("first pod's annotations %v, want job-index-failure-count 0", p0.Annotations)
	}
	acts = expand(c.Observe(p0, Terminating))
	names, after := pods(acts)
	if len(names) != 1 || !strings.HasPrefix(names[0], "j-0-") || after[0] != 10*time.Second {
		t.Fatalf("index 0's first failure: %v after %v, want index 0 again after 10s", names, after)
	}
	r := podNamed(t, acts, names[0])
	if r.Annotations["batch.kubernetes.io/job-index-failure-count"] != "1" {
		t.Errorf("replacement's annotations %v, want job-index-failure-count 1", r.Annotations)
	}
	// the replacement fails too: the index has failed backoffLimitPerIndex times already, so
	// it fails and is not retried
	if more := expand(c.Observe(r, Terminating)); len(more) != 0 {
		t.Fatalf("the index's second failure made %v, want nothing", more)
	}
}
