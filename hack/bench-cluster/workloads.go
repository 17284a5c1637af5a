package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// sizes are the workloads' sizes (flags, so a smaller smoke run is possible).
type sizes struct {
	nodes      int
	burst      int
	stream     int
	streamRate float64
	preemptors int
	grace      int64
	gangs      int
	gangSize   int
	timeout    time.Duration
}

// result is one workload run by one scheduler: a line of the results file.
type result struct {
	Scheduler string `json:"scheduler"`
	Limits    string `json:"limits"`
	Workload  string `json:"workload"`
	Pods      int    `json:"pods"`
	// Seconds from the start (the scheduler's, or the first creation for a stream or a
	// preemption wave) to the last pod bound; 0 when some were never bound.
	Seconds    float64 `json:"seconds"`
	PodsPerSec float64 `json:"podsPerSecond"`
	CPUSeconds float64 `json:"cpuSeconds"`
	// NeverScheduled counts pods still pending at the timeout.
	NeverScheduled int `json:"neverScheduled"`
	// FailedAttempts counts scheduling attempts that ended in an error (failed bindings).
	FailedAttempts int `json:"failedAttempts"`
	// BoundMarkedError counts bound pods whose PodScheduled condition says SchedulerError.
	BoundMarkedError int `json:"boundMarkedError"`
	// P50 and P99 are creation-to-binding latencies (stream and preemption).
	P50 float64 `json:"p50Seconds,omitempty"`
	P99 float64 `json:"p99Seconds,omitempty"`
	// Grace is the victims' grace period (preemption).
	Grace float64 `json:"graceSeconds,omitempty"`
	Error string  `json:"error,omitempty"`
}

// workload is one of the benchmark's workloads.
type workload struct {
	name string
	// binder says whether the trivial binder can run it (it cannot preempt).
	binder bool
	run    func(ctx context.Context, b *bench, r *result) error
}

var workloads = []workload{
	{name: "burst", binder: true, run: runBurst},
	{name: "stream", binder: true, run: runStream},
	{name: "preemption", binder: false, run: runPreemption},
	{name: "gang", binder: true, run: runGangs},
	{name: kueueWorkload, binder: false, run: runKueue},
}

// bench is one run: a scheduler on a control plane.
type bench struct {
	c      *cluster
	l      *launcher
	s      sizes
	k      kueueOptions
	limits string
}

// measure starts the scheduler, lets between run (which returns when the timed part
// began), waits for the measured pods (bound; Running for the kueue workload), and
// fills r.
func (b *bench) measure(ctx context.Context, ns string, r *result, waitReady bool, between func(w *bindings) (time.Time, error)) error {
	done := podBound
	if r.Workload == kueueWorkload {
		done = podRunning
	}
	w, err := b.c.watchBindings(ctx, ns, r.Pods, done)
	if err != nil {
		return err
	}
	defer w.close()
	start := time.Now()
	p, err := b.l.start(r.Workload)
	if err != nil {
		return err
	}
	defer func() { r.CPUSeconds = p.stop().Seconds() }()
	if waitReady {
		if err := p.waitReady(ctx); err != nil {
			return err
		}
	}
	if between != nil {
		if start, err = between(w); err != nil {
			return err
		}
	}
	last, pending := w.wait(ctx, b.s.timeout)
	r.NeverScheduled = pending
	if pending == 0 {
		r.Seconds = last.Sub(start).Seconds()
		r.PodsPerSec = float64(r.Pods) / r.Seconds
	}
	r.P50, r.P99 = w.latencies()
	if r.FailedAttempts, err = p.failedAttempts(ctx); err != nil {
		return fmt.Errorf("reading the scheduler's metrics: %w", err)
	}
	r.BoundMarkedError, err = b.c.boundWithSchedulerError(ctx, ns)
	return err
}

// runBurst: burst pending pods exist, then the scheduler starts; timed from its start.
func runBurst(ctx context.Context, b *bench, r *result) error {
	ns := "bench-burst"
	if err := b.c.createNamespace(ctx, ns); err != nil {
		return err
	}
	defer func() { _ = b.c.cleanUp(context.WithoutCancel(ctx), ns, nil) }()
	r.Pods = b.s.burst
	pods := make([]podSpec, r.Pods)
	for i := range pods {
		pods[i] = podSpec{name: fmt.Sprintf("b-%05d", i), namespace: ns, cpu: "1", measured: true}
	}
	if err := b.c.createPods(ctx, pods); err != nil {
		return err
	}
	return b.measure(ctx, ns, r, false, nil)
}

// runStream: the scheduler runs; pods are created at streamRate; timed from the first
// creation.
func runStream(ctx context.Context, b *bench, r *result) error {
	ns := "bench-stream"
	if err := b.c.createNamespace(ctx, ns); err != nil {
		return err
	}
	defer func() { _ = b.c.cleanUp(context.WithoutCancel(ctx), ns, nil) }()
	r.Pods = b.s.stream
	return b.measure(ctx, ns, r, true, func(w *bindings) (time.Time, error) {
		start := time.Now()
		interval := time.Duration(float64(time.Second) / b.s.streamRate)
		err := parallel(ctx, r.Pods, createWorkers, func(ctx context.Context, i int) error {
			// Pod i is due at start + i*interval, whichever worker creates it.
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
			pod := podSpec{name: fmt.Sprintf("s-%05d", i), namespace: ns, cpu: "1", measured: true}
			w.noteCreated(pod.name, time.Now())
			return b.c.createPods(ctx, []podSpec{pod})
		})
		return start, err
	})
}

// runPreemption: every node is full of a low-priority pod (grace period b.s.grace); the
// scheduler runs; preemptors high-priority pods, each needing a whole node, arrive at
// once. Timed from their creation to the last one bound.
func runPreemption(ctx context.Context, b *bench, r *result) error {
	ns := "bench-preemption"
	if err := b.c.createNamespace(ctx, ns); err != nil {
		return err
	}
	defer func() { _ = b.c.cleanUp(context.WithoutCancel(ctx), ns, nil) }()
	r.Pods = b.s.preemptors
	r.Grace = float64(b.s.grace)
	fillers := make([]podSpec, b.s.nodes)
	for i := range fillers {
		fillers[i] = podSpec{name: fmt.Sprintf("filler-%04d", i), namespace: ns, cpu: "32", priorityClass: lowPriority, node: nodeName(i), grace: b.s.grace}
	}
	if err := b.c.createPods(ctx, fillers); err != nil {
		return err
	}
	return b.measure(ctx, ns, r, true, func(w *bindings) (time.Time, error) {
		start := time.Now()
		pods := make([]podSpec, r.Pods)
		for i := range pods {
			pods[i] = podSpec{name: fmt.Sprintf("p-%04d", i), namespace: ns, cpu: "32", priorityClass: highPriority, measured: true}
			w.noteCreated(pods[i].name, start)
		}
		return start, b.c.createPods(ctx, pods)
	})
}

// The PodGroup APIs: phalanx's CRD, and upstream's native one (beta in v1.37).
var (
	phalanxPodGroups  = schema.GroupVersionResource{Group: "scheduling.phalanx.dev", Version: "v1alpha1", Resource: "podgroups"}
	upstreamPodGroups = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "podgroups"}
)

// runGangs: gangs groups of gangSize pods (gang policy, minCount gangSize) exist, then
// the scheduler starts; timed from its start. phalanx's pods name their group with its
// label, upstream's with spec.schedulingGroup; the trivial binder binds them one by one.
func runGangs(ctx context.Context, b *bench, r *result) error {
	ns := "bench-gang"
	if err := b.c.createNamespace(ctx, ns); err != nil {
		return err
	}
	gvr := phalanxPodGroups
	if b.l.kind == kindKubeScheduler {
		gvr = upstreamPodGroups
	}
	defer func() { _ = b.c.cleanUp(context.WithoutCancel(ctx), ns, []schema.GroupVersionResource{gvr}) }()
	r.Pods = b.s.gangs * b.s.gangSize
	err := parallel(ctx, b.s.gangs, createWorkers, func(ctx context.Context, i int) error {
		pg := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvr.GroupVersion().String(),
			"kind":       "PodGroup",
			"metadata":   map[string]any{"name": fmt.Sprintf("g-%03d", i), "namespace": ns},
			"spec": map[string]any{
				"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": int64(b.s.gangSize)}},
			},
		}}
		_, err := b.c.dynamic.Resource(gvr).Namespace(ns).Create(ctx, pg, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("creating %s: %w", gvr.Resource, err)
	}
	pods := make([]podSpec, 0, r.Pods)
	for g := range b.s.gangs {
		for m := range b.s.gangSize {
			p := podSpec{name: fmt.Sprintf("g-%03d-%d", g, m), namespace: ns, cpu: "4", measured: true}
			group := fmt.Sprintf("g-%03d", g)
			if b.l.kind == kindKubeScheduler {
				p.schedulingGroup = group
			} else {
				p.podGroupLabel = group
			}
			pods = append(pods, p)
		}
	}
	if err := b.c.createPods(ctx, pods); err != nil {
		return err
	}
	return b.measure(ctx, ns, r, false, nil)
}
