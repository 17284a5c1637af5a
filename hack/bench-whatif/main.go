// Command bench-whatif fills a control plane with a large busy cluster for `make
// bench-whatif` (hack/bench-whatif.sh): kwok nodes in racks and zones, every node full of
// bound pods of two priorities, some pods pending that fit nowhere, and writes the new
// objects of the question: a gang of 8-GPU workers that must share a rack, and a
// preempting pod.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/pager"
)

const (
	namespace      = "bench-whatif"
	kwokAnnotation = "kwok.x-k8s.io/node"
	podsPerNode    = 10
	nodesPerRack   = 50
	racksPerZone   = 20
	gpu            = corev1.ResourceName("nvidia.com/gpu")
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the control plane")
	nodes := flag.Int("nodes", 5000, "nodes")
	pods := flag.Int("pods", 50000, "bound pods (at most 10 a node)")
	pending := flag.Int("pending", 100, "pending pods that fit nowhere")
	gang := flag.Int("gang", 16, "workers of the new gang")
	out := flag.String("out", "new.yaml", "where to write the new objects")
	flag.Parse()
	if err := run(*kubeconfig, *nodes, *pods, *pending, *gang, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bench-whatif:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string, nodes, pods, pending, gang int, out string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = -1, 0
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	start := time.Now()
	for name, v := range map[string]int32{"bench-low": 100, "bench-mid": 1000, "bench-high": 10000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}
		if _, err := c.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods: resource.MustParse("110"), gpu: resource.MustParse("8")}
	if err := parallel(nodes, func(i int) error {
		rack := i / nodesPerRack
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName(i), Annotations: map[string]string{kwokAnnotation: "fake"},
			Labels: map[string]string{corev1.LabelHostname: nodeName(i), "type": "kwok", "example.com/rack": fmt.Sprintf("rack-%03d", rack),
				corev1.LabelTopologyZone: fmt.Sprintf("zone-%d", rack/racksPerZone)}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity}}
		_, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		return ignoreExists(err)
	}); err != nil {
		return fmt.Errorf("nodes: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench-whatif: %d nodes in %.0fs\n", nodes, time.Since(start).Seconds())
	// Each node: four batch pods of 2 GPUs (low priority), six services (mid).
	if err := parallel(pods, func(i int) error {
		node, k := i/podsPerNode, i%podsPerNode
		p := pod(fmt.Sprintf("service-%06d", i), "bench-mid", "2", "", nodeName(node%nodes))
		if k < 4 {
			p = pod(fmt.Sprintf("batch-%06d", i), "bench-low", "2", "2", nodeName(node%nodes))
		}
		_, err := c.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{})
		return ignoreExists(err)
	}); err != nil {
		return fmt.Errorf("pods: %w", err)
	}
	if err := parallel(pending, func(i int) error {
		_, err := c.CoreV1().Pods(namespace).Create(ctx, pod(fmt.Sprintf("too-big-%04d", i), "bench-mid", "64", "", ""), metav1.CreateOptions{})
		return ignoreExists(err)
	}); err != nil {
		return fmt.Errorf("pending pods: %w", err)
	}
	fmt.Fprintf(os.Stderr, "bench-whatif: %d bound and %d pending pods in %.0fs\n", pods, pending, time.Since(start).Seconds())
	// kwok marks the bound pods Running, one status update each: the cluster is measured
	// once that is done, not while it competes for the machine.
	for running := 0; running < pods; time.Sleep(10 * time.Second) {
		running = 0
		p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.CoreV1().Pods(namespace).List(ctx, o)
		})
		p.PageSize = 5000
		if err := p.EachListItem(ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"}, func(runtime.Object) error { running++; return nil }); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "bench-whatif: every bound pod running after %.0fs\n", time.Since(start).Seconds())
	return os.WriteFile(out, []byte(newObjects(gang)), 0o644)
}

func pod(name, class, cpu, gpus, node string) *corev1.Pod {
	grace := int64(30)
	req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("8Gi")}
	var lim corev1.ResourceList
	if gpus != "" {
		req[gpu] = resource.MustParse(gpus)
		lim = corev1.ResourceList{gpu: resource.MustParse(gpus)}
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": name[:5]}},
		Spec: corev1.PodSpec{NodeName: node, PriorityClassName: class, TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}}}}
}

// newObjects is the question: a gang Job of 8-GPU workers in one rack, and a pod of high
// priority that needs a whole node's CPUs.
func newObjects(gang int) string {
	return fmt.Sprintf(`apiVersion: scheduling.phalanx.dev/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: %[1]s}
spec:
  schedulingPolicy: {gang: {minCount: %[2]d}}
  priorityClassName: bench-high
  schedulingConstraints: {topology: [{key: example.com/rack}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: %[1]s}
spec:
  completionMode: Indexed
  completions: %[2]d
  parallelism: %[2]d
  template:
    metadata: {labels: {scheduling.phalanx.dev/pod-group: train}}
    spec:
      schedulingGroup: {podGroupName: train}
      priorityClassName: bench-high
      restartPolicy: Never
      containers: [{name: c, image: trainer, resources: {requests: {cpu: "4", nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: urgent, namespace: %[1]s}
spec:
  priorityClassName: bench-high
  containers: [{name: c, image: tool, resources: {requests: {cpu: "30"}}}]
`, namespace, gang)
}

func nodeName(i int) string { return fmt.Sprintf("bench-node-%04d", i) }

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// parallel runs fn(0..n-1) on 32 goroutines and returns the first error.
func parallel(n int, fn func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
