package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	kubescheduler "k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

var podsResource = v1.SchemeGroupVersion.WithResource("pods")

// chunk is the size of the fake watchers' buffers, and twice the number of objects added
// before the harness waits for the informers to read them.
const chunk = 64_000

// kubeCycles times kube-scheduler's scheduling cycles: NextEntity is wrapped to note when
// a cycle starts and what it schedules, and the loop notes when ScheduleOne returns (the
// binding cycle runs on a goroutine of its own, as in kube-scheduler).
type kubeCycles struct {
	mu     sync.Mutex
	start  time.Time
	kind   cycleKind
	cycles map[cycleKind][]time.Duration
	busy   time.Duration
}

func (k *kubeCycles) begin(e framework.QueuedEntityInfo) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.start, k.kind = time.Now(), cyclePod
	if _, ok := e.(*framework.QueuedPodInfo); !ok {
		k.kind = cycleGang
	}
}

func (k *kubeCycles) end() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.start.IsZero() {
		return
	}
	d := time.Since(k.start)
	k.cycles[k.kind] = append(k.cycles[k.kind], d)
	k.busy += d
	k.start = time.Time{}
}

// take returns the cycles timed since the last take.
func (k *kubeCycles) take() (map[cycleKind][]time.Duration, time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, b := k.cycles, k.busy
	k.cycles, k.busy = map[cycleKind][]time.Duration{}, 0
	return c, b
}

// runKube runs kube-scheduler v1.37.2 (scheduler.New with its default profile, on an
// informer factory over client-go's fake clientset) on the same workload. Bindings are
// made by a reactor that sets the pod's node at once; deletions are immediate. It has no
// gangs of phalanx's kind: the gangs' members come as plain pods, without their topology.
func runKube(ctx context.Context, spec Spec, timeout time.Duration) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := &Result{Scheduler: "kube-scheduler"}
	// The fake watchers panic when their buffer is full: objects are added in chunks no
	// larger than it, each read by the informers before the next.
	watch.DefaultChanSize = chunk
	// NewClientset's tracker manages fields: it builds a REST mapper on every write, under
	// the fake's one lock, which would make the fake API, not kube-scheduler, the cost of
	// every binding. The simple tracker stores objects as they come.
	client := fake.NewSimpleClientset(Namespace(), DeviceClass())
	tracker := client.Tracker()
	var binds, victims atomic.Int64
	var waveBinds atomic.Int64
	client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		create := action.(clienttesting.CreateAction)
		if create.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := create.GetObject().(*v1.Binding)
		obj, err := tracker.Get(podsResource, b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		if err := tracker.Update(podsResource, pod, b.Namespace); err != nil {
			return true, nil, err
		}
		binds.Add(1)
		if strings.HasPrefix(b.Name, "w-") {
			waveBinds.Add(1)
		}
		return true, b, nil
	})
	client.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		victims.Add(1)
		return false, nil, nil
	})
	informerFactory := kubescheduler.NewInformerFactory(client, 0, nil)
	recorders := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	sched, err := kubescheduler.New(ctx, client, informerFactory, nil, recorders)
	if err != nil {
		return nil, err
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return nil, err
	}
	slices := informerFactory.Resource().V1().ResourceSlices().Informer().GetStore()
	base := heap()

	// adder adds objects to the API, waiting for the informers to have read a chunk
	// before the next.
	added := 0
	add := func(obj runtime.Object, caughtUp func() bool) error {
		if err := tracker.Add(obj); err != nil {
			return err
		}
		if added++; added%(chunk/2) == 0 {
			return waitFor(ctx, caughtUp, timeout)
		}
		return nil
	}
	nodes, nSlices := 0, 0
	nodesIn := func() bool { return sched.Cache.NodeCount() >= nodes && len(slices.List()) >= nSlices }
	for i := range spec.Nodes {
		nodes++
		if err := add(Node(i), nodesIn); err != nil {
			return nil, err
		}
		if sl := Slice(i); sl != nil {
			nSlices++
			if err := add(sl, nodesIn); err != nil {
				return nil, err
			}
		}
	}
	if err := waitFor(ctx, nodesIn, timeout); err != nil {
		return nil, fmt.Errorf("kube-scheduler's cache: %w", err)
	}
	withNodes := heap()
	res.BytesPerNode = float64(withNodes-base) / float64(spec.Nodes)

	bound := 0
	podsIn := func() bool { return cachedPods(sched) >= bound }
	for i := range spec.Nodes {
		for _, p := range Bound(spec, i) {
			bound++
			if err := add(p, podsIn); err != nil {
				return nil, err
			}
		}
	}
	if err := waitFor(ctx, podsIn, timeout); err != nil {
		return nil, fmt.Errorf("kube-scheduler's cache: %w", err)
	}
	res.BytesPerPod = float64(heap()-withNodes) / float64(bound)
	res.Bound = bound

	// The burst: every pending pod created, then the loop started.
	pending := 0
	queued := func() bool { pods, _ := sched.SchedulingQueue.PendingPods(); return len(pods) >= pending }
	var addErr error
	forEachPending(spec, func(p *v1.Pod, cl *resourceapi.ResourceClaim, g *Gang) {
		if addErr != nil {
			return
		}
		if cl != nil {
			addErr = add(cl, func() bool { return true })
		}
		pods := []*v1.Pod{p}
		if g != nil {
			pods = g.Members
		}
		for _, m := range pods {
			if addErr == nil {
				pending++
				addErr = add(m, queued)
			}
		}
	})
	if addErr != nil {
		return nil, addErr
	}
	res.Pods = pending
	if err := waitFor(ctx, queued, timeout); err != nil {
		return nil, fmt.Errorf("kube-scheduler's queue: %w", err)
	}

	cycles := &kubeCycles{cycles: map[cycleKind][]time.Duration{}}
	next := sched.NextEntity
	sched.NextEntity = func(logger klog.Logger) (framework.QueuedEntityInfo, error) {
		e, err := next(logger)
		if e != nil {
			cycles.begin(e)
		}
		return e, err
	}
	logger := klog.FromContext(ctx)
	sched.SchedulingQueue.Run(logger)
	if sched.APIDispatcher != nil {
		sched.APIDispatcher.Run(logger)
	}
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		for ctx.Err() == nil {
			sched.ScheduleOne(ctx)
			cycles.end()
		}
	}()
	defer func() {
		cancel()
		if sched.APIDispatcher != nil {
			sched.APIDispatcher.Close()
		}
		sched.SchedulingQueue.Close()
		<-loopDone
	}()

	start, cpu := time.Now(), cpuSeconds()
	err = waitFor(ctx, progress("kube-scheduler", "burst", func() (int64, int64) { return binds.Load(), int64(pending) }), timeout)
	res.Seconds, res.TimedOut, res.CPU = time.Since(start).Seconds(), err != nil, cpuSeconds()-cpu
	res.Unbound = pending - int(binds.Load())
	burst, busy := cycles.take()
	res.Cycles, res.Busy = len(burst[cyclePod])+len(burst[cycleOther])+len(burst[cycleGang]), busy.Seconds()
	res.PodP99 = percentile(burst[cyclePod], 0.99)
	res.BurstVictims = int(victims.Load())

	// The wave: its gangs' members as plain pods of high priority.
	victimsBefore := victims.Load()
	wave := 0
	start, cpu = time.Now(), cpuSeconds()
	for w := range spec.Wave {
		for _, m := range WaveGang(w).Members {
			wave++
			if err := add(m, func() bool { return true }); err != nil {
				return nil, err
			}
		}
	}
	res.WavePods = wave
	err = waitFor(ctx, progress("kube-scheduler", "wave", func() (int64, int64) { return waveBinds.Load(), int64(wave) }), timeout)
	res.WaveSeconds, res.WaveTimedOut = time.Since(start).Seconds(), err != nil
	res.WaveCPU, res.WaveDecisions = cpuSeconds()-cpu, -1
	_, busy = cycles.take()
	res.WaveCycles = busy.Seconds()
	res.WaveVictims = int(victims.Load() - victimsBefore)
	res.WaveUnbound = wave - int(waveBinds.Load())
	return res, nil
}

func cachedPods(sched *kubescheduler.Scheduler) int {
	n, err := sched.Cache.PodCount()
	if err != nil {
		return 0
	}
	return n
}

// waitFor polls cond until it holds, the timeout passes or ctx ends.
func waitFor(ctx context.Context, cond func() bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// progress is a condition that holds when done reaches want, and tells stderr how far a
// long phase has come every 30 seconds.
func progress(scheduler, phase string, count func() (done, want int64)) func() bool {
	last := time.Now()
	return func() bool {
		done, want := count()
		if time.Since(last) >= 30*time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "  %s: %s: %d of %d pods bound\n", scheduler, phase, done, want)
		}
		return done >= want
	}
}
