//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// setNodeStatus changes a node's status (images, declared features) as its kubelet would,
// and waits until the API server reports it (kwok's own status writes must not undo it).
func setNodeStatus(t *testing.T, c *e2eutil.Cluster, name string, change func(*corev1.NodeStatus), done func(*corev1.Node) bool) {
	t.Helper()
	ctx := e2eutil.Context(t)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(&n.Status)
		_, err = c.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update node %s status: %v", name, err)
	}
	e2eutil.WaitFor(t, 30*time.Second, "node "+name+"'s status", func(ctx context.Context) (bool, error) {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return err == nil && done(n), err
	})
}

// TestImageLocality: ImageLocality (default profile, weight 1) sends a pod to the node whose
// status.images holds its 5 GiB image, though that node is the busiest of three.
func TestImageLocality(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	var nodes []string
	for range 3 {
		nodes = append(nodes, c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi"}).Name)
	}
	cached := nodes[1]
	const image = "registry.example/trainer:v1"
	images := []corev1.ContainerImage{{Names: []string{image}, SizeBytes: 5 << 30}}
	setNodeStatus(t, c, cached, func(s *corev1.NodeStatus) { s.Images = images },
		func(n *corev1.Node) bool { return len(n.Status.Images) == 1 && n.Status.Images[0].Names[0] == image })
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "busy", NodeName: cached, CPU: "2", Memory: "2Gi"}.Build())

	p := c.StartPhalanx(t, "imagelocality")
	p.WaitReady(t)
	trainer := e2eutil.Pod{Namespace: ns, Name: "trainer", SchedulerName: e2eutil.SchedulerName(t), CPU: "500m", Memory: "100Mi"}.Build()
	trainer.Spec.Containers[0].Image = image
	c.CreatePod(t, trainer)
	bound := c.WaitPodsBound(t, ns, []string{"trainer"}, time.Minute)
	if got := bound["trainer"].Spec.NodeName; got != cached {
		t.Errorf("trainer bound to %s, want %s, the node holding its image", got, cached)
	}
}

// TestNodeDeclaredFeatures: a pod whose restart rule restarts all containers needs
// RestartAllContainersOnContainerExits of its node; it goes only where status.declaredFeatures
// lists it, says why it waits with kube-scheduler's message, and is scheduled when its
// node declares the feature (a declared-features update retries it).
func TestNodeDeclaredFeatures(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	const feature = "RestartAllContainersOnContainerExits"
	declares := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi", Labels: map[string]string{zoneLabel: "a"}}).Name
	silent := c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi", Labels: map[string]string{zoneLabel: "b"}}).Name
	setNodeStatus(t, c, declares, func(s *corev1.NodeStatus) { s.DeclaredFeatures = []string{feature} },
		func(n *corev1.Node) bool { return slices.Contains(n.Status.DeclaredFeatures, feature) })

	p := c.StartPhalanx(t, "nodedeclaredfeatures")
	p.WaitReady(t)
	never := corev1.ContainerRestartPolicyNever
	needs := func(name string) *corev1.Pod {
		pod := e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: e2eutil.SchedulerName(t), CPU: "100m", Memory: "100Mi"}.Build()
		pod.Spec.RestartPolicy = corev1.RestartPolicyNever
		pod.Spec.Containers[0].RestartPolicy = &never
		pod.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{
			Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
			ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
		}}
		return pod
	}
	c.CreatePod(t, needs("anywhere"))
	c.CreatePod(t, requireZone(needs("zone-b"), "b"))
	bound := c.WaitPodsBound(t, ns, []string{"anywhere"}, time.Minute)
	if got := bound["anywhere"].Spec.NodeName; got != declares {
		t.Errorf("anywhere bound to %s, want %s, the node declaring %s", got, declares, feature)
	}
	ev := c.WaitEvent(t, ns, "zone-b", "FailedScheduling", time.Minute)
	if !strings.Contains(ev.Note, "1 node(s) didn't match Pod's required features") {
		t.Errorf("zone-b FailedScheduling %q: want NodeDeclaredFeatures' diagnosis", ev.Note)
	}
	setNodeStatus(t, c, silent, func(s *corev1.NodeStatus) { s.DeclaredFeatures = []string{feature} },
		func(n *corev1.Node) bool { return slices.Contains(n.Status.DeclaredFeatures, feature) })
	bound = c.WaitPodsBound(t, ns, []string{"zone-b"}, time.Minute)
	if got := bound["zone-b"].Spec.NodeName; got != silent {
		t.Errorf("zone-b bound to %s, want %s", got, silent)
	}
}
