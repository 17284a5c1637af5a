package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// The names the workloads share.
const (
	schedulerName = "bench"
	// measureLabel marks the pods whose binding a workload times.
	measureLabel   = "bench.phalanx.dev/measure"
	kwokAnnotation = "kwok.x-k8s.io/node"
	lowPriority    = "bench-low"
	highPriority   = "bench-high"
)

// cluster is the control plane under test, seen through a client that does not limit
// itself (the workloads create objects as fast as the API server takes them).
type cluster struct {
	config  *rest.Config
	client  kubernetes.Interface
	dynamic dynamic.Interface
}

func connect(kubeconfig string) (*cluster, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.UserAgent = "bench-cluster"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{config: cfg, client: cs, dynamic: dyn}, nil
}

// parallel runs fn(0..n-1) on workers goroutines and returns the first error.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range min(n, workers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// createWorkers is how many creations run at once.
const createWorkers = 32

// setUp creates the priority classes and n kwok nodes of 32 cpu, and waits until
// every node is Ready and untainted.
func (c *cluster) setUp(ctx context.Context, n int) error {
	for name, value := range map[string]int32{lowPriority: 0, highPriority: 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := c.client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	err := parallel(ctx, n, createWorkers, func(ctx context.Context, i int) error {
		name := nodeName(i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Labels:      map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux", "type": "kwok"},
				Annotations: map[string]string{kwokAnnotation: "fake"},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		_, err := c.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("creating nodes: %w", err)
	}
	return poll(ctx, 5*time.Minute, func(ctx context.Context) (bool, error) {
		list, err := c.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		ready := 0
		for i := range list.Items {
			if nodeReady(&list.Items[i]) {
				ready++
			}
		}
		return ready >= n, nil
	})
}

func nodeName(i int) string { return fmt.Sprintf("node-%04d", i) }

func nodeReady(node *corev1.Node) bool {
	if len(node.Spec.Taints) > 0 {
		return false
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// poll calls cond every 200 ms until it is true or timeout passes.
func poll(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %v", timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// podSpec is what a workload's pods look like.
type podSpec struct {
	name, namespace string
	cpu             string
	priorityClass   string
	node            string // pre-bound
	grace           int64
	measured        bool
	// podGroupLabel and schedulingGroup put the pod in a phalanx or an upstream PodGroup.
	podGroupLabel, schedulingGroup string
}

func (p podSpec) build() *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: p.namespace, Labels: map[string]string{}},
		Spec: corev1.PodSpec{
			SchedulerName:                 schedulerName,
			NodeName:                      p.node,
			PriorityClassName:             p.priorityClass,
			TerminationGracePeriodSeconds: &p.grace,
			Containers: []corev1.Container{{
				Name:  "c",
				Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(p.cpu),
					corev1.ResourceMemory: resource.MustParse("256Mi"),
				}},
			}},
		},
	}
	if p.measured {
		pod.Labels[measureLabel] = "true"
	}
	if p.podGroupLabel != "" {
		pod.Labels["scheduling.phalanx.dev/pod-group"] = p.podGroupLabel
	}
	if p.schedulingGroup != "" {
		name := p.schedulingGroup
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &name}
	}
	return pod
}

// createPods creates the pods with createWorkers at once.
func (c *cluster) createPods(ctx context.Context, pods []podSpec) error {
	return parallel(ctx, len(pods), createWorkers, func(ctx context.Context, i int) error {
		_, err := c.client.CoreV1().Pods(pods[i].namespace).Create(ctx, pods[i].build(), metav1.CreateOptions{})
		return err
	})
}

func (c *cluster) createNamespace(ctx context.Context, ns string) error {
	_, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// The ServiceAccount admission plugin refuses pods until the namespace's default
	// ServiceAccount exists.
	return poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
		_, err := c.client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

// cleanUp removes a workload's pods at once (grace 0) and its pod groups, and waits
// until the pods are gone.
func (c *cluster) cleanUp(ctx context.Context, ns string, groups []schema.GroupVersionResource) error {
	zero := int64(0)
	err := c.client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, gvr := range groups {
		if err := c.dynamic.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return poll(ctx, 5*time.Minute, func(ctx context.Context) (bool, error) {
		list, err := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil && len(list.Items) == 0, nil
	})
}

// bindings watches a namespace's measured pods and notes when each is first seen bound
// (or done, as watchBindings's done says).
type bindings struct {
	mu      sync.Mutex
	want    int
	bound   map[string]time.Time
	created map[string]time.Time
	done    chan struct{}
	stop    context.CancelFunc
	factory informers.SharedInformerFactory
	pods    cache.SharedIndexInformer
}

// podBound and podRunning tell whether a measured pod is done: bound, or running (or
// run: kwok completes Jobs' pods).
func podBound(pod *corev1.Pod) bool { return pod.Spec.NodeName != "" }

func podRunning(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning || pod.Status.Phase == corev1.PodSucceeded
}

func (c *cluster) watchBindings(ctx context.Context, ns string, want int, done func(*corev1.Pod) bool) (*bindings, error) {
	ctx, cancel := context.WithCancel(ctx)
	b := &bindings{want: want, bound: map[string]time.Time{}, created: map[string]time.Time{}, done: make(chan struct{}), stop: cancel}
	b.factory = informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = measureLabel + "=true" }))
	b.pods = b.factory.Core().V1().Pods().Informer()
	note := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || !done(pod) {
			return
		}
		now := time.Now()
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, seen := b.bound[pod.Name]; seen {
			return
		}
		b.bound[pod.Name] = now
		if len(b.bound) == b.want {
			close(b.done)
		}
	}
	if _, err := b.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: note, UpdateFunc: func(_, obj any) { note(obj) }}); err != nil {
		cancel()
		return nil, err
	}
	b.factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), b.pods.HasSynced) {
		cancel()
		return nil, fmt.Errorf("watching pods of %s: not synced", ns)
	}
	return b, nil
}

// created notes when a measured pod was created (for latencies).
func (b *bindings) noteCreated(name string, at time.Time) {
	b.mu.Lock()
	b.created[name] = at
	b.mu.Unlock()
}

// wait waits until every measured pod is bound or timeout passes, and returns when the
// last was bound (the zero time if not all were) and how many are still pending.
func (b *bindings) wait(ctx context.Context, timeout time.Duration) (time.Time, int) {
	select {
	case <-b.done:
	case <-time.After(timeout):
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var last time.Time
	for _, t := range b.bound {
		if t.After(last) {
			last = t
		}
	}
	if len(b.bound) < b.want {
		return time.Time{}, b.want - len(b.bound)
	}
	return last, 0
}

// latencies returns the p50 and p99 of creation-to-binding times, in seconds.
func (b *bindings) latencies() (p50, p99 float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ds []float64
	for name, c := range b.created {
		if t, ok := b.bound[name]; ok {
			ds = append(ds, t.Sub(c).Seconds())
		}
	}
	if len(ds) == 0 {
		return 0, 0
	}
	sort.Float64s(ds)
	at := func(q float64) float64 { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	return at(0.5), at(0.99)
}

func (b *bindings) close() { b.stop(); b.factory.Shutdown() }

// boundWithSchedulerError counts the namespace's bound pods whose PodScheduled condition
// says False/SchedulerError: a status that says the opposite of the truth.
func (c *cluster) boundWithSchedulerError(ctx context.Context, ns string) (int, error) {
	list, err := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range list.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonSchedulerError {
				n++
			}
		}
	}
	return n, nil
}
