//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestClient checks the kube driver's API calls against a real API server, where a
// fake clientset would not tell: UIDs guard against replacement pods, a cleared
// nomination is really cleared, and a PodGroup status write survives a conflict.
func TestClient(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	node := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi"})
	scheme, err := kube.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	pgs, err := kube.NewPodGroupClient(c.Config, scheme)
	if err != nil {
		t.Fatal(err)
	}
	client := kube.NewClient(c.Client, pgs, nil, klog.Background())
	pods := c.Client.CoreV1().Pods(ns)
	get := func(name string) *corev1.Pod {
		t.Helper()
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("nomination set and cleared", func(t *testing.T) {
		pod := c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "nominated", SchedulerName: "nobody"}.Build())
		cond := &corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/1 nodes are available"}
		if err := client.PatchPodStatus(ctx, pod, cond, new(node.Name)); err != nil {
			t.Fatal(err)
		}
		got := get("nominated")
		if got.Status.NominatedNodeName != node.Name {
			t.Errorf("nominatedNodeName %q, want %q", got.Status.NominatedNodeName, node.Name)
		}
		if c := podCondition(got, corev1.PodScheduled); c == nil || c.Reason != "Unschedulable" || c.Message != cond.Message {
			t.Errorf("PodScheduled condition %+v", c)
		}
		// The scheduler's copy may predate the nomination: clearing must not depend on it.
		if err := client.PatchPodStatus(ctx, pod, nil, new("")); err != nil {
			t.Fatal(err)
		}
		got = get("nominated")
		if got.Status.NominatedNodeName != "" {
			t.Errorf("nominatedNodeName %q after clearing", got.Status.NominatedNodeName)
		}
		if podCondition(got, corev1.PodScheduled) == nil {
			t.Errorf("clearing the nomination dropped the PodScheduled condition")
		}
	})

	t.Run("replacement pod is left alone", func(t *testing.T) {
		old := c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "replaced", SchedulerName: "nobody", GracePeriod: new(int64(0))}.Build())
		if err := pods.Delete(ctx, "replaced", metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))}); err != nil {
			t.Fatal(err)
		}
		c.WaitPodGone(t, ns, "replaced", time.Minute)
		c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "replaced", SchedulerName: "nobody"}.Build())

		cond := &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"}
		if err := client.PatchPodStatus(ctx, old, cond, nil); err == nil {
			t.Errorf("status patch of the old pod's UID applied to its replacement")
		}
		if err := client.DeletePod(ctx, old, nil); !apierrors.IsNotFound(err) {
			t.Errorf("delete with the old pod's UID: %v, want NotFound", err)
		}
		if err := client.BindPod(ctx, old, node.Name); err == nil {
			t.Errorf("binding with the old pod's UID bound the replacement")
		}
		got := get("replaced")
		if got.DeletionTimestamp != nil || got.Spec.NodeName != "" || podCondition(got, corev1.DisruptionTarget) != nil {
			t.Errorf("replacement pod was touched: deleting %v, node %q, conditions %v", got.DeletionTimestamp != nil, got.Spec.NodeName, got.Status.Conditions)
		}
		if err := client.BindPod(ctx, got, node.Name); err != nil {
			t.Fatalf("binding the current pod: %v", err)
		}
		// Binding it again to the same node is our own earlier binding, read back (a
		// retry whose first attempt's answer was lost); to another node, it fails.
		if err := client.BindPod(ctx, got, node.Name); err != nil {
			t.Errorf("binding a pod again to the node it is bound to: %v, want success", err)
		}
		if err := client.BindPod(ctx, got, "elsewhere"); err == nil || !strings.Contains(err.Error(), "is bound to node "+node.Name) {
			t.Errorf("binding a bound pod to another node: %v, want an error naming its node", err)
		}
		if err := client.DeletePod(ctx, got, new(int64(1))); err != nil {
			t.Fatalf("deleting the current pod: %v", err)
		}
		if get("replaced").DeletionTimestamp == nil {
			t.Errorf("the current pod is not terminating")
		}
	})

	t.Run("PodGroup status after a conflict", func(t *testing.T) {
		pg := &v1alpha1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "group"},
			Spec:       v1alpha1.PodGroupSpec{SchedulingPolicy: v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: 2}}},
		}
		stale := c.CreatePodGroup(t, pg)
		// Someone else writes first: stale's resourceVersion is now old.
		fresh := stale.DeepCopy()
		fresh.Status.Conditions = []metav1.Condition{{Type: "Other", Status: metav1.ConditionTrue, Reason: "Test", LastTransitionTime: metav1.Now()}}
		if _, err := pgs.UpdateStatus(ctx, fresh); err != nil {
			t.Fatal(err)
		}
		want := stale.DeepCopy()
		meta.SetStatusCondition(&want.Status.Conditions, metav1.Condition{
			Type: v1alpha1.PodGroupScheduled, Status: metav1.ConditionFalse, Reason: v1alpha1.PodGroupReasonUnschedulable, Message: "waiting",
		})
		want.Status.Phase = v1alpha1.PodGroupPhasePending
		if err := client.UpdateStatus(ctx, want); err != nil {
			t.Fatalf("UpdateStatus with a stale resourceVersion: %v", err)
		}
		got, err := pgs.Get(ctx, ns, "group")
		if err != nil {
			t.Fatal(err)
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.PodGroupScheduled); c == nil || c.Message != "waiting" {
			t.Errorf("PodGroupScheduled %+v, want the one written", c)
		}
		if meta.FindStatusCondition(got.Status.Conditions, "Other") == nil {
			t.Errorf("the other writer's condition was lost: %+v", got.Status.Conditions)
		}
		if got.Status.Phase != v1alpha1.PodGroupPhasePending {
			t.Errorf("phase %q", got.Status.Phase)
		}
	})
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
