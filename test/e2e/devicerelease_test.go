//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestWhatIfPredictsOnePreemptionForReleasingDevices (issue 28): a pod needs two GPUs. On
// node a both are held through ResourceClaims by low-priority pods, on node b by a
// middle- and a low-priority pod. phalanx preempts node a's two pods; once they are gone
// their claims keep the GPUs until kube-controller-manager's ResourceClaim controller
// deletes them, and phalanx waits for that instead of preempting node b's pods. The
// outcome (one preemption of two pods, the pod on node a) is what `phalanx whatif`
// predicts.
func TestWhatIfPredictsOnePreemptionForReleasingDevices(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	low, middle, high := c.CreatePriorityClass(t, "low", 100), c.CreatePriorityClass(t, "middle", 1000), c.CreatePriorityClass(t, "high", 10000)
	pin := e2eutil.UniqueName(t, "release")
	const slot = "e2e.phalanx.dev/slot"
	a := c.CreateReadyNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: map[string]string{pinLabel: pin, slot: "a"}})
	b := c.CreateReadyNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: map[string]string{pinLabel: pin, slot: "b"}})
	publishGPUs(t, c, a.Name, "h100", "h100")
	publishGPUs(t, c, b.Name, "h100", "h100")
	class := createGPUClass(t, c)
	for name, n := range map[string]int64{"one-gpu": 1, "two-gpus": 2} {
		tmpl := &resourceapi.ResourceClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: gpuRequest(class, n, "")}},
		}
		if _, err := c.Client.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := c.StartPhalanx(t, "release")
	p.WaitReady(t)

	grace := int64(5)
	pod := func(name, priority, onSlot, tmpl string) *corev1.Pod {
		pd := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1", Memory: "100Mi", Priority: priority, GracePeriod: &grace}.Build()
		pd.Spec.NodeSelector = map[string]string{pinLabel: pin}
		if onSlot != "" {
			pd.Spec.NodeSelector[slot] = onSlot
		}
		pd.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: &tmpl}}
		return pd
	}
	holders := []*corev1.Pod{pod("low-a0", low, "a", "one-gpu"), pod("low-a1", low, "a", "one-gpu"),
		pod("middle-b0", middle, "b", "one-gpu"), pod("low-b1", low, "b", "one-gpu")}
	var names []string
	for _, h := range holders {
		c.CreatePod(t, h)
		names = append(names, h.Name)
	}
	c.WaitPodsBound(t, ns, names, 2*time.Minute)

	trainer := pod("trainer", high, "", "two-gpus")
	trainer.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	answer, stdout := askWhatIf(t, c, sched, writeManifest(t, "trainer.yaml", trainer))
	predicted := answer.Workloads[0]
	if !predicted.Schedules || !slices.Equal(predictedNodes(predicted), []string{a.Name}) || !slices.Equal(victimsOf(predicted), []string{"low-a0", "low-a1"}) {
		t.Fatalf("prediction %s: want trainer on %s, low-a0 and low-a1 preempted", stdout, a.Name)
	}

	history := c.RecordPods(t, ns)
	c.CreatePod(t, trainer)
	bound := c.WaitPodsBound(t, ns, []string{"trainer"}, 3*time.Minute)
	if got := bound["trainer"].Spec.NodeName; got != a.Name {
		t.Errorf("trainer bound to %s, predicted %s", got, a.Name)
	}
	var realVictims []string
	for _, name := range names {
		if history.Condition(name, corev1.DisruptionTarget, corev1.ConditionTrue) != nil {
			realVictims = append(realVictims, name)
		}
	}
	if got, want := victimsOf(predicted), sorted(realVictims); !slices.Equal(got, want) {
		t.Errorf("preempted %v, predicted %v: one preemption only", want, got)
	}
}
