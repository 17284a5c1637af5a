package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// phalanxAPI is the API server phalanx's scheduler talks to: a binding or a deletion
// succeeds at once and is reported back to the loop as an informer would; claims are
// kept and their writes reported back too. Status patches and events go nowhere.
type phalanxAPI struct {
	s        *scheduler.Scheduler
	binds    atomic.Int64
	victims  atomic.Int64
	claimsMu sync.Mutex
	claims   map[string]*resourceapi.ResourceClaim
}

func (a *phalanxAPI) BindPod(_ context.Context, pod *v1.Pod, node string) error {
	bound := pod.DeepCopy()
	bound.Spec.NodeName = node
	a.binds.Add(1)
	a.s.Post(func() { a.s.UpdatePod(pod, bound) })
	return nil
}

func (a *phalanxAPI) DeletePod(_ context.Context, pod *v1.Pod, _ *int64) error {
	a.victims.Add(1)
	a.s.Post(func() { a.s.DeletePod(pod) })
	return nil
}

func (a *phalanxAPI) PatchPodStatus(context.Context, *v1.Pod, *v1.PodCondition, *string) error {
	return nil
}
func (a *phalanxAPI) UpdateStatus(context.Context, runtime.Object) error { return nil }
func (a *phalanxAPI) Event(_, _ runtime.Object, _, _, _, _ string)       {}

func (a *phalanxAPI) putClaim(cl *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	a.claimsMu.Lock()
	defer a.claimsMu.Unlock()
	old := a.claims[cl.Namespace+"/"+cl.Name]
	a.claims[cl.Namespace+"/"+cl.Name] = cl
	return old
}

func (a *phalanxAPI) GetResourceClaim(_ context.Context, ns, name string) (*resourceapi.ResourceClaim, error) {
	a.claimsMu.Lock()
	defer a.claimsMu.Unlock()
	if cl := a.claims[ns+"/"+name]; cl != nil {
		return cl, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("resourceclaims"), name)
}
func (a *phalanxAPI) CreateResourceClaim(_ context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return a.UpdateResourceClaimStatus(context.Background(), cl)
}
func (a *phalanxAPI) DeleteClaim(context.Context, string, string) error { return nil }
func (a *phalanxAPI) UpdateResourceClaim(_ context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	return a.UpdateResourceClaimStatus(context.Background(), cl)
}
func (a *phalanxAPI) UpdateResourceClaimStatus(_ context.Context, cl *resourceapi.ResourceClaim) (*resourceapi.ResourceClaim, error) {
	old := a.putClaim(cl)
	a.s.Post(func() { a.s.Resources().UpdateResourceClaim(old, cl) })
	return cl, nil
}
func (a *phalanxAPI) GetResourceClaimTemplate(_ context.Context, _, name string) (*resourceapi.ResourceClaimTemplate, error) {
	return nil, apierrors.NewNotFound(resourceapi.Resource("resourceclaimtemplates"), name)
}
func (a *phalanxAPI) PatchPodExtendedResourceClaimStatus(context.Context, *v1.Pod, *v1.PodExtendedResourceClaimStatus) error {
	return nil
}
func (a *phalanxAPI) GetPersistentVolume(_ context.Context, name string) (*v1.PersistentVolume, error) {
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), name)
}
func (a *phalanxAPI) UpdatePersistentVolume(_ context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	return pv, nil
}
func (a *phalanxAPI) GetPersistentVolumeClaim(_ context.Context, _, name string) (*v1.PersistentVolumeClaim, error) {
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), name)
}
func (a *phalanxAPI) UpdatePersistentVolumeClaim(_ context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	return pvc, nil
}

// cycleKind is what a cycle did, as the scheduler's Observer saw it.
type cycleKind int

const (
	cycleOther cycleKind = iota // failed, or preempted for a pod
	cyclePod                    // assumed one pod
	cycleGang                   // placed a gang
)

// observer classifies the cycle under way, and names the kind of gang it placed.
type observer struct {
	kind     cycleKind
	gangKind string
}

func (o *observer) BeforeAssume(*framework.PodInfo, string, *cache.Cache) {
	if o.kind == cycleOther {
		o.kind = cyclePod
	}
}
func (o *observer) Preempting(*framework.PodInfo, string, []*framework.PodInfo) {}
func (o *observer) PreemptingForGroup(*framework.GroupInfo, map[*framework.PodInfo]string, []*framework.PodInfo) {
}
func (o *observer) GroupPlaced(g *framework.GroupInfo, _ []framework.Assignment) {
	o.kind = cycleGang
	if g.PodGroup != nil {
		o.gangKind = GangKind(g.PodGroup.Name)
	}
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// runPhalanx runs phalanx's scheduler (its cache, queue, framework with the default
// profile, preemption) on the workload, driving its loop on this goroutine.
func runPhalanx(ctx context.Context, spec Spec, timeout time.Duration) (*Result, error) {
	res := &Result{Scheduler: "phalanx"}
	api := &phalanxAPI{claims: map[string]*resourceapi.ResourceClaim{}}
	obs := &observer{}
	base := heap()
	s, err := scheduler.New(scheduler.Options{Config: config.Default(), Registry: plugins.NewRegistry(), Clock: realClock{},
		Client: api, Exec: actuator.GoExecutor{}, Logger: klog.Background(), AnySchedulerName: true, Observer: obs})
	if err != nil {
		return nil, err
	}
	api.s = s
	s.SetNamespace(Namespace())
	s.Resources().UpdateDeviceClass(nil, DeviceClass())
	for i := range spec.Nodes {
		s.AddNode(Node(i))
		if sl := Slice(i); sl != nil {
			s.Resources().UpdateResourceSlice(nil, sl)
		}
	}
	withNodes := heap()
	res.BytesPerNode = float64(withNodes-base) / float64(spec.Nodes)
	bound := 0
	for i := range spec.Nodes {
		for _, p := range Bound(spec, i) {
			s.AddPod(p)
			bound++
		}
	}
	res.BytesPerPod = float64(heap()-withNodes) / float64(bound)
	res.Bound = bound

	// The burst: every pending pod and gang at once.
	pending := 0
	forEachPending(spec, func(p *v1.Pod, cl *resourceapi.ResourceClaim, g *Gang) {
		switch {
		case g != nil:
			s.AddPodGroup(g.Group)
			for _, m := range g.Members {
				s.AddPod(m)
			}
			pending += len(g.Members)
		default:
			if cl != nil {
				api.putClaim(cl)
				s.Resources().UpdateResourceClaim(nil, cl)
			}
			s.AddPod(p)
			pending++
		}
	})
	res.Pods = pending
	cpu := cpuSeconds()
	burst := loopPhalanx(ctx, s, obs, progress("phalanx", "burst", func() (int64, int64) { return api.binds.Load(), int64(pending) }), timeout)
	res.Seconds, res.TimedOut, res.CPU = burst.wall.Seconds(), burst.timedOut, cpuSeconds()-cpu
	res.Unbound = pending - int(api.binds.Load())
	res.PodP99, res.GangP99, res.GangCPUP99 = burst.p99(cyclePod), burst.p99(cycleGang), burst.p99CPU(cycleGang)
	for i, k := range PendingGangKinds {
		res.GangKindP99[i], res.GangKindCPUP99[i] = percentile(burst.gangs[k], 0.99), percentile(burst.gangsCPU[k], 0.99)
	}
	res.Cycles, res.Busy = len(burst.cycles[cyclePod])+len(burst.cycles[cycleOther])+len(burst.cycles[cycleGang]), burst.busy.Seconds()
	res.BurstVictims = int(api.victims.Load())

	// The wave: high-priority gangs that preempt.
	before, victimsBefore := api.binds.Load(), api.victims.Load()
	wave := 0
	for w := range spec.Wave {
		g := WaveGang(w)
		s.AddPodGroup(g.Group)
		for _, m := range g.Members {
			s.AddPod(m)
		}
		wave += len(g.Members)
	}
	res.WavePods = wave
	waveCPU, waveDecisions := cpuSeconds(), decisionSeconds(s)
	waveRun := loopPhalanx(ctx, s, obs, progress("phalanx", "wave", func() (int64, int64) { return api.binds.Load() - before, int64(wave) }), timeout)
	res.WaveCycles, res.WaveSeconds, res.WaveTimedOut = waveRun.busy.Seconds(), waveRun.wall.Seconds(), waveRun.timedOut
	res.WaveCPU, res.WaveDecisions = cpuSeconds()-waveCPU, decisionSeconds(s)-waveDecisions
	res.WaveVictims = int(api.victims.Load() - victimsBefore)
	res.WaveUnbound = wave - int(api.binds.Load()-before)
	return res, nil
}

// loopRun is what one phase of a loop measured.
type loopRun struct {
	wall, busy time.Duration
	// cycles are each cycle's wall time, cpu the loop thread's CPU time in it, by kind.
	cycles, cpu map[cycleKind][]time.Duration
	// gangs and gangsCPU are the same for the cycles that placed a gang, by GangKind.
	gangs, gangsCPU map[string][]time.Duration
	timedOut        bool
}

func (r loopRun) p99(k cycleKind) time.Duration    { return percentile(r.cycles[k], 0.99) }
func (r loopRun) p99CPU(k cycleKind) time.Duration { return percentile(r.cpu[k], 0.99) }

// loopPhalanx runs the scheduling loop, as `phalanx run` does (posted work drained, one
// cycle, a wait when nothing is ready), until done or the timeout, timing every cycle: its
// wall time, and the CPU time of the thread that ran it (the loop's goroutine is locked to
// its thread), which the machine's load does not stretch.
func loopPhalanx(ctx context.Context, s *scheduler.Scheduler, obs *observer, done func() bool, timeout time.Duration) loopRun {
	defer lockThread()()
	run := loopRun{cycles: map[cycleKind][]time.Duration{}, cpu: map[cycleKind][]time.Duration{},
		gangs: map[string][]time.Duration{}, gangsCPU: map[string][]time.Duration{}}
	start := time.Now()
	for !done() {
		if time.Since(start) > timeout {
			run.timedOut = true
			break
		}
		s.DrainInbox()
		obs.kind, obs.gangKind = cycleOther, ""
		t, cpu := time.Now(), threadCPU()
		if s.ScheduleOne(ctx) {
			d, c := time.Since(t), threadCPU()-cpu
			run.busy += d
			run.cycles[obs.kind] = append(run.cycles[obs.kind], d)
			run.cpu[obs.kind] = append(run.cpu[obs.kind], c)
			if obs.kind == cycleGang {
				run.gangs[obs.gangKind] = append(run.gangs[obs.gangKind], d)
				run.gangsCPU[obs.gangKind] = append(run.gangsCPU[obs.gangKind], c)
			}
			continue
		}
		wait := 100 * time.Millisecond
		if at, ok := s.NextWakeup(); ok {
			wait = max(time.Millisecond, min(wait, time.Until(at)))
		}
		timer := time.NewTimer(wait)
		select {
		case <-s.Notify():
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	s.DrainInbox()
	run.wall = time.Since(start)
	return run
}
