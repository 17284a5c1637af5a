//go:build e2e

package e2e

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// backoffTolerance is how far the cluster's replacement delay may be from the predicted
// one: the API server's timestamps are whole seconds, and the Job controller acts on its
// informer's events, a moment after the fact.
const backoffTolerance = 3 * time.Second

// TestWhatIfPredictsTheJobBackoff (issue 28): a gang of two Job pods (a phalanx PodGroup,
// disruption mode all) runs on a node; a high-priority pod needs the node and preempts
// both. kube-controller-manager's Job controller backs off once for the Job, from its
// failure count (two: 20 s, counted from the latest failure), and then creates both
// replacements together. `phalanx whatif`, asked before the pod is created, predicts the
// same victims and the same single delay: both replacements at about +20 s, not one at
// +10 s and one at +20 s.
func TestWhatIfPredictsTheJobBackoff(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	low, high := c.CreatePriorityClass(t, "low", 100), c.CreatePriorityClass(t, "high", 10000)
	pin := e2eutil.UniqueName(t, "backoff")
	node := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi", Labels: map[string]string{pinLabel: pin}})
	p := c.StartPhalanx(t, "backoff")
	p.WaitReady(t)

	c.CreatePodGroup(t, gangGroup(ns, "train", 2, low, disruptAll))
	grace := int64(5)
	worker := e2eutil.Pod{SchedulerName: sched, CPU: "2", Memory: "100Mi", Priority: low, GracePeriod: &grace}.Build()
	worker.Spec.NodeSelector = map[string]string{pinLabel: pin}
	worker.Spec.RestartPolicy = corev1.RestartPolicyNever
	two := int32(2)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "train"},
		Spec: batchv1.JobSpec{Completions: &two, Parallelism: &two,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{
				Labels:      map[string]string{v1alpha1.LabelPodGroup: "train"},
				Annotations: map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": "10m"}}, Spec: worker.Spec}}}
	if _, err := c.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	jobPods := func(ctx context.Context) ([]corev1.Pod, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job.Name})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
	var workers []string
	e2eutil.WaitFor(t, time.Minute, "the Job's two pods", func(ctx context.Context) (bool, error) {
		pods, err := jobPods(ctx)
		workers = workers[:0]
		for _, pod := range pods {
			workers = append(workers, pod.Name)
		}
		return err == nil && len(workers) == 2, nil
	})
	workers = sorted(workers)
	c.WaitPodsBound(t, ns, workers, 2*time.Minute)

	urgent := e2eutil.Pod{Namespace: ns, Name: "urgent", SchedulerName: sched, CPU: "3", Memory: "100Mi", Priority: high, GracePeriod: &grace}.Build()
	urgent.Spec.NodeSelector = map[string]string{pinLabel: pin}
	urgent.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	answer, stdout := askWhatIf(t, c, sched, writeManifest(t, "urgent.yaml", urgent))
	predicted := answer.Workloads[0]
	if !predicted.Schedules || !slices.Equal(predictedNodes(predicted), []string{node.Name}) || !slices.Equal(victimsOf(predicted), workers) {
		t.Fatalf("prediction %s: want urgent on %s, the Job's pods %v preempted", stdout, node.Name, workers)
	}
	// The predicted delay of each replacement, from the latest failure (the victims'
	// deletions start together in the simulator; the Job controller counts from the
	// latest).
	var predictedFailure float64
	for _, v := range predicted.Preempts {
		predictedFailure = math.Max(predictedFailure, v.PreemptedAt)
	}
	var predictedDelays []time.Duration
	for _, v := range predicted.Preempts {
		if v.Replacement == nil {
			t.Fatalf("prediction %s: victim %s is not replaced by its Job", stdout, v.Name)
		}
		predictedDelays = append(predictedDelays, seconds(v.Replacement.CreatedAt-predictedFailure))
	}
	slices.Sort(predictedDelays)

	history := c.RecordPods(t, ns)
	c.CreatePod(t, urgent)
	bound := c.WaitPodsBound(t, ns, []string{"urgent"}, 2*time.Minute)
	if got := bound["urgent"].Spec.NodeName; got != node.Name {
		t.Errorf("urgent bound to %s, predicted %s", got, node.Name)
	}
	// The replacements: the Job's pods other than the victims, once both exist (the
	// prediction and the controller make them some 20 s after the preemption).
	var replacements []corev1.Pod
	e2eutil.WaitFor(t, 2*time.Minute, "the Job's two replacement pods", func(ctx context.Context) (bool, error) {
		pods, err := jobPods(ctx)
		replacements = replacements[:0]
		for _, pod := range pods {
			if !slices.Contains(workers, pod.Name) {
				replacements = append(replacements, pod)
			}
		}
		return err == nil && len(replacements) == 2, nil
	})

	var realVictims []string
	var realFailure time.Time
	for _, name := range workers {
		if history.Condition(name, corev1.DisruptionTarget, corev1.ConditionTrue) != nil {
			realVictims = append(realVictims, name)
		}
		// When its deletion started: the Job controller's failure time of a pod deleted
		// before it ended (deletionTimestamp less the grace period).
		for _, v := range history.Versions(name) {
			if v.DeletionTimestamp != nil {
				started := v.DeletionTimestamp.Add(-time.Duration(ptrOr(v.DeletionGracePeriodSeconds, 0)) * time.Second)
				if started.After(realFailure) {
					realFailure = started
				}
				break
			}
		}
	}
	if got, want := victimsOf(predicted), sorted(realVictims); !slices.Equal(got, want) {
		t.Errorf("preempted %v, predicted %v", want, got)
	}
	if realFailure.IsZero() {
		t.Fatalf("no victim was seen terminating")
	}
	var realDelays []time.Duration
	for _, r := range replacements {
		realDelays = append(realDelays, r.CreationTimestamp.Sub(realFailure))
	}
	slices.Sort(realDelays)
	t.Logf("replacements after the latest failure: predicted %v, observed %v (timestamps in whole seconds)", predictedDelays, realDelays)

	// Order: no replacement before the failures, both together (one backoff for the
	// Job, not one per pod), and after the delay predicted.
	if spread := predictedDelays[1] - predictedDelays[0]; spread > time.Second {
		t.Errorf("whatif predicts the replacements %v apart (%v): the Job controller makes them together", spread, predictedDelays)
	}
	if realDelays[0] <= 0 {
		t.Errorf("a replacement was made %v after the latest failure: before the backoff", realDelays[0])
	}
	if spread := realDelays[1] - realDelays[0]; spread > backoffTolerance {
		t.Errorf("the Job controller made the replacements %v apart (%v): want them together", spread, realDelays)
	}
	for i := range realDelays {
		if d := realDelays[i] - predictedDelays[i]; d > backoffTolerance || d < -backoffTolerance {
			t.Errorf("replacement %d made %v after the latest failure, predicted %v (tolerance %v)", i, realDelays[i], predictedDelays[i], backoffTolerance)
		}
	}
}

// seconds converts whatif's virtual seconds to a duration.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

// ptrOr returns *p, or or when p is nil.
func ptrOr[T any](p *T, or T) T {
	if p == nil {
		return or
	}
	return *p
}
