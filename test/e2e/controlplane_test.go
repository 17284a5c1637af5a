//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestControlPlane checks that the control plane hack/e2e.sh starts does what
// phalanx's e2e tests rely on. Its subtests share one node and run in order.
func TestControlPlane(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)

	t.Run("DefaultServiceAccount", func(t *testing.T) {
		if _, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
			t.Fatalf("default ServiceAccount: %v", err)
		}
	})

	ns := c.CreateNamespace(t)
	node := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi", Pods: 20, Labels: map[string]string{"e2e.phalanx.dev/pool": "a"}})

	t.Run("NodeReady", func(t *testing.T) {
		for _, taint := range node.Spec.Taints {
			t.Errorf("node has taint %v", taint)
		}
		want := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("8Gi"),
			corev1.ResourcePods:   resource.MustParse("20"),
		}
		for name, q := range want {
			if got := node.Status.Allocatable[name]; got.Cmp(q) != 0 {
				t.Errorf("allocatable %s = %s, want %s", name, got.String(), q.String())
			}
			if got := node.Status.Capacity[name]; got.Cmp(q) != 0 {
				t.Errorf("capacity %s = %s, want %s", name, got.String(), q.String())
			}
		}
		if node.Labels["e2e.phalanx.dev/pool"] != "a" {
			t.Errorf("labels = %v, want e2e.phalanx.dev/pool=a", node.Labels)
		}
	})

	t.Run("PodRuns", func(t *testing.T) {
		c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "runs", NodeName: node.Name, CPU: "100m", Memory: "64Mi"}.Build())
		pod := c.WaitPodRunning(t, ns, "runs")
		if pod.Status.PodIP == "" {
			t.Errorf("running pod has no podIP: %+v", pod.Status)
		}
	})

	t.Run("GracefulTermination", func(t *testing.T) {
		testGracefulTermination(t, c, ns, node.Name)
	})

	t.Run("PodDisruptionBudgetStatus", func(t *testing.T) {
		testPDBStatus(t, c, ns, node.Name)
	})

	t.Run("ValidatingAdmissionPolicyDeniesDelete", func(t *testing.T) {
		testValidatingAdmissionPolicy(t, c, ns, node.Name)
	})

	t.Run("APIServerRestart", func(t *testing.T) {
		testAPIServerRestart(t, c, ns, node.Name)
	})
}

// kube-apiserver can be stopped and started again with the same flags
// (hack/lib/e2e-ctl.sh); the state survives in etcd, and kwok and
// kube-controller-manager reconnect: a pod created afterwards runs.
func testAPIServerRestart(t *testing.T, c *e2eutil.Cluster, ns, nodeName string) {
	c.StopComponent(t, e2eutil.KubeAPIServer)
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			c.StartComponent(t, e2eutil.KubeAPIServer)
		}
	})
	ctx, cancel := context.WithTimeout(e2eutil.Context(t), 5*time.Second)
	_, err := c.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	cancel()
	if err == nil {
		t.Fatalf("kube-apiserver answered while stopped")
	}
	time.Sleep(2 * time.Second)
	c.StartComponent(t, e2eutil.KubeAPIServer)
	restarted = true

	if _, err := c.Client.CoreV1().Pods(ns).Get(e2eutil.Context(t), "runs", metav1.GetOptions{}); err != nil {
		t.Fatalf("pod created before the restart: %v", err)
	}
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "after-restart", NodeName: nodeName}.Build())
	c.WaitPodRunning(t, ns, "after-restart")
	c.WaitNodeReady(t, nodeName)
}

// A pod deleted with a 3 s grace period stays, terminating, until its
// deletionTimestamp (the request time plus the grace period, in whole seconds)
// and is removed after it: kwok plays a kubelet that takes the whole grace
// period to stop the containers.
func testGracefulTermination(t *testing.T, c *e2eutil.Cluster, ns, nodeName string) {
	ctx := e2eutil.Context(t)
	pods := c.Client.CoreV1().Pods(ns)
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "graceful", NodeName: nodeName, GracePeriod: new(int64(30))}.Build())
	c.WaitPodRunning(t, ns, "graceful")

	if err := pods.Delete(ctx, "graceful", metav1.DeleteOptions{GracePeriodSeconds: new(int64(3))}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	pod, err := pods.Get(ctx, "graceful", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("pod gone right after a graceful delete: %v", err)
	}
	if pod.DeletionTimestamp == nil || pod.DeletionGracePeriodSeconds == nil || *pod.DeletionGracePeriodSeconds != 3 {
		t.Fatalf("deletionTimestamp %v, deletionGracePeriodSeconds %v; want set, 3", pod.DeletionTimestamp, pod.DeletionGracePeriodSeconds)
	}
	deadline := pod.DeletionTimestamp.Time

	// The timestamp has whole seconds, so the grace period really is between
	// 2 and 3 s. Until half a second before it, the pod must be there.
	for time.Until(deadline) > 500*time.Millisecond {
		pod, err := pods.Get(ctx, "graceful", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("pod gone %v before its deletionTimestamp: %v", time.Until(deadline), err)
		}
		if pod.Status.Phase != corev1.PodRunning {
			t.Fatalf("terminating pod phase %s, want Running until the grace period ends", pod.Status.Phase)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.WaitPodGone(t, ns, "graceful", 30*time.Second)
	if late := time.Since(deadline); late < 0 {
		t.Errorf("pod removed %v before its deletionTimestamp", -late)
	}
}

// The disruption controller computes a PDB's status from the ready pods it
// selects: two running pods, minAvailable 1, so one disruption is allowed.
func testPDBStatus(t *testing.T, c *e2eutil.Cluster, ns, nodeName string) {
	labels := map[string]string{"app": "pdb"}
	for _, name := range []string{"pdb-0", "pdb-1"} {
		c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: name, NodeName: nodeName, Labels: labels}.Build())
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pdb"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: new(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: labels},
		},
	}
	if _, err := c.Client.PolicyV1().PodDisruptionBudgets(ns).Create(e2eutil.Context(t), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PDB: %v", err)
	}
	var got policyv1.PodDisruptionBudgetStatus
	err := e2eutil.Poll(e2eutil.Context(t), time.Minute, func(ctx context.Context) (bool, error) {
		pdb, err := c.Client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "pdb", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = pdb.Status
		return got.ObservedGeneration == pdb.Generation && got.CurrentHealthy == 2 && got.DisruptionsAllowed == 1, nil
	})
	if err != nil {
		t.Fatalf("PDB status %+v, want currentHealthy 2, desiredHealthy 1, disruptionsAllowed 1: %v", got, err)
	}
	if got.DesiredHealthy != 1 || got.ExpectedPods != 2 {
		t.Errorf("PDB status %+v, want desiredHealthy 1, expectedPods 2", got)
	}
}

const undeletableLabel = "e2e.phalanx.dev/undeletable"

// A ValidatingAdmissionPolicy can refuse DELETE of labelled pods; phalanx's
// tests use this to make evictions and preemptions fail.
func testValidatingAdmissionPolicy(t *testing.T, c *e2eutil.Cluster, ns, nodeName string) {
	ctx := e2eutil.Context(t)
	pods := c.Client.CoreV1().Pods(ns)
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "undeletable", NodeName: nodeName, Labels: map[string]string{undeletableLabel: "true"}}.Build())
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "deletable", NodeName: nodeName}.Build())

	// The helper waits until a dry-run delete is refused (policies reach admission
	// through an informer); then the real one must be too.
	c.DenyPodDeletion(t, ns, undeletableLabel, "undeletable")
	dryRun := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	err := pods.Delete(ctx, "undeletable", metav1.DeleteOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("delete of a labelled pod: got %v, want Forbidden by the policy", err)
	}
	pod, err := pods.Get(ctx, "undeletable", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("labelled pod after refused delete: %v", err)
	}
	if pod.DeletionTimestamp != nil {
		t.Errorf("labelled pod is terminating after a refused delete")
	}
	if err := pods.Delete(ctx, "deletable", dryRun); err != nil {
		t.Errorf("dry-run delete of an unlabelled pod: %v, want allowed", err)
	}
}
