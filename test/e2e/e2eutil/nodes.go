//go:build e2e

package e2eutil

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KwokAnnotation marks the nodes kwok manages (hack/e2e.sh starts it with
// --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake). kwok makes
// them Ready, renews their leases, and runs and terminates their pods.
const KwokAnnotation = "kwok.x-k8s.io/node"

// Node describes a fake node. Its capacity and allocatable are both CPU,
// Memory and Pods; kwok keeps them as given.
type Node struct {
	Name   string // "" for a unique name
	CPU    string // e.g. "4" or "3500m"
	Memory string // e.g. "8Gi"
	Pods   int64  // 0 for 110
	// Extended resources (e.g. "example.com/gpu": "2"), added to both.
	Extra  map[corev1.ResourceName]string
	Labels map[string]string
	Taints []corev1.Taint
}

// CreateNode creates a kwok node that is deleted when the test ends, and
// returns it as created (status still as given; see WaitNodeReady).
func (c *Cluster) CreateNode(t testing.TB, n Node) *corev1.Node {
	t.Helper()
	if n.Name == "" {
		n.Name = UniqueName(t, "node")
	}
	if n.Pods == 0 {
		n.Pods = 110
	}
	list := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(n.CPU),
		corev1.ResourceMemory: resource.MustParse(n.Memory),
		corev1.ResourcePods:   *resource.NewQuantity(n.Pods, resource.DecimalSI),
	}
	for name, q := range n.Extra {
		list[name] = resource.MustParse(q)
	}
	labels := map[string]string{
		corev1.LabelHostname:   n.Name,
		corev1.LabelOSStable:   "linux",
		corev1.LabelArchStable: "amd64",
		"type":                 "kwok",
	}
	for k, v := range n.Labels {
		labels[k] = v
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        n.Name,
			Labels:      labels,
			Annotations: map[string]string{KwokAnnotation: "fake"},
		},
		Spec: corev1.NodeSpec{Taints: n.Taints},
		Status: corev1.NodeStatus{
			Capacity:    list,
			Allocatable: list.DeepCopy(),
			Phase:       corev1.NodePending,
		},
	}
	created, err := c.Client.CoreV1().Nodes().Create(Context(t), node, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node %s: %v", n.Name, err)
	}
	t.Cleanup(func() {
		err := c.Client.CoreV1().Nodes().Delete(context.Background(), n.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete node %s: %v", n.Name, err)
		}
	})
	return created
}

// CreateReadyNode is CreateNode then WaitNodeReady.
func (c *Cluster) CreateReadyNode(t testing.TB, n Node) *corev1.Node {
	t.Helper()
	return c.WaitNodeReady(t, c.CreateNode(t, n).Name)
}

// NodeReady tells whether node is Ready and no longer carries the
// node.kubernetes.io/not-ready taint that admission puts on new nodes and the
// node lifecycle controller removes.
func NodeReady(node *corev1.Node) bool {
	ready := false
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
			ready = true
		}
	}
	for _, taint := range node.Spec.Taints {
		if taint.Key == corev1.TaintNodeNotReady || taint.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	return ready
}

// WaitNodeReady waits until NodeReady and returns the node.
func (c *Cluster) WaitNodeReady(t testing.TB, name string) *corev1.Node {
	t.Helper()
	var node *corev1.Node
	WaitFor(t, time.Minute, "node "+name+" Ready and untainted", func(ctx context.Context) (bool, error) {
		var err error
		node, err = c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return NodeReady(node), nil
	})
	return node
}
