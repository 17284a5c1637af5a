//go:build e2e

package e2e

// The README's real-cluster example of a PodGroup with an Indexed Job, run on the control
// plane: the Job controller makes the pods, phalanx places all four in the one rack that
// holds them.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestExampleIndexedJobWithPodGroup applies examples/on-a-cluster/podgroup-indexed-job.yaml
// into the test's namespace, with the test's scheduler name, priority class and nodes, and
// the pod template naming its group in spec.schedulingGroup too, as the example says to on
// a control plane with WorkloadWithJob (this one): rack a has four 8-GPU nodes, rack b two,
// so the four 8-GPU workers must all go to rack a, together.
func TestExampleIndexedJobWithPodGroup(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	prio := c.CreatePriorityClass(t, "training", 10000)
	pinValue := e2eutil.UniqueName(t, "example")
	rackA, rackB := e2eutil.UniqueName(t, "rack-a"), e2eutil.UniqueName(t, "rack-b")
	rackOf := map[string]string{}
	for rack, n := range map[string]int{rackA: 4, rackB: 2} {
		for range n {
			node := c.CreateReadyNode(t, e2eutil.Node{CPU: "64", Memory: "512Gi",
				Extra:  map[corev1.ResourceName]string{"nvidia.com/gpu": "8"},
				Labels: map[string]string{pinLabel: pinValue, "example.com/rack": rack}})
			rackOf[node.Name] = rack
		}
	}

	data, err := os.ReadFile(filepath.Join(e2eutil.RepoRoot(t), "examples", "on-a-cluster", "podgroup-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pg, job := &v1alpha1.PodGroup{}, &batchv1.Job{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		into := map[string]any{"PodGroup": pg, "Job": job}[head.Kind]
		if into == nil {
			t.Fatalf("unexpected kind %q in the example", head.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("%s: %v", head.Kind, err)
		}
	}
	pg.Namespace, pg.Spec.PriorityClassName = ns, prio
	job.Namespace = ns
	spec := &job.Spec.Template.Spec
	if spec.SchedulerName != "phalanx" || job.Spec.Template.Labels[v1alpha1.LabelPodGroup] != pg.Name {
		t.Fatalf("the example's pod template names scheduler %q and group %q", spec.SchedulerName, job.Spec.Template.Labels[v1alpha1.LabelPodGroup])
	}
	spec.SchedulerName, spec.PriorityClassName = sched, prio
	spec.NodeSelector = map[string]string{pinLabel: pinValue}
	spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &pg.Name}
	spec.Containers[0].Image = e2eutil.PodImage
	// kwok completes a Job's pods once they run; these run long enough to be seen.
	job.Spec.Template.Annotations = map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "10m"}

	p := c.StartPhalanx(t, "example")
	p.WaitReady(t)
	c.CreatePodGroup(t, pg)
	if _, err := c.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Job: %v", err)
	}
	var names []string
	e2eutil.WaitFor(t, time.Minute, "the Job's four pods", func(ctx2 context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx2, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job.Name})
		if err != nil {
			return false, nil
		}
		names = names[:0]
		for _, pod := range list.Items {
			names = append(names, pod.Name)
		}
		return len(names) == 4, nil
	})
	bound := c.WaitPodsBound(t, ns, names, 2*time.Minute)
	for name, pod := range bound {
		if rackOf[pod.Spec.NodeName] != rackA {
			t.Errorf("%s on %s (rack %q), want rack a, the only one with room for all four", name, pod.Spec.NodeName, rackOf[pod.Spec.NodeName])
		}
	}
	c.WaitPodGroupCondition(t, ns, pg.Name, v1alpha1.PodGroupScheduled, metav1.ConditionTrue, "", time.Minute)
	natives, err := c.NativePodGroups(ctx, t, ns)
	if err != nil || len(natives) != 0 {
		t.Errorf("native PodGroups %v (%v): the Job controller must make none when the template names a group", natives, err)
	}
}
