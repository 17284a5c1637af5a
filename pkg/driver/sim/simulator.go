package sim

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/controllers/disruption"
	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/report"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// Options configure a simulation.
type Options struct {
	// Config is the scheduler configuration (defaults when nil). Its seed is overridden by
	// Seed when Seed is not zero.
	Config *config.Configuration
	Seed   int64
	// Until bounds virtual time (default 24h).
	Until time.Duration
	// SchedulerName, when set, schedules only pods with that spec.schedulerName; by
	// default every pending pod is scheduled.
	SchedulerName string
	// CheckInvariants checks the scheduler's invariants after every step and records
	// violations in the report.
	CheckInvariants bool
	// ReportWallTime fills summary.wallSeconds. It is off by default so that the same input
	// and seed give the same output byte for byte.
	ReportWallTime bool
	Logger         klog.Logger
	// ClaimReleaseDelay is how long after a pod is gone the ResourceClaim controller drops
	// its reservations, deallocates its claims and deletes those made for it (0:
	// DefaultClaimReleaseDelay; negative: at once). Until then the claims' devices stay
	// taken, as on a cluster.
	ClaimReleaseDelay time.Duration
	// DeviceBindingDelay is how long after a claim is allocated devices with binding
	// conditions (DRADeviceBindingConditions) the simulated DRA driver readies them: it
	// sets their binding conditions True in the claim's status.devices (0:
	// DefaultDeviceBindingDelay; negative: at once). The scheduler binds a pod using them
	// only then (it asks every 5 s, as kube-scheduler polls).
	DeviceBindingDelay time.Duration
	// TakeOver hands the scenario's pods to the simulator: it creates each pod of the
	// scenario as the object itself, changed in place (its creation timestamp, the claims
	// made for it), instead of as a deep copy. Every later change to a pod is made on a
	// copy either way. Set it only when nothing else reads or will read the scenario's pods
	// from New on: not the caller, and no other simulator of a scenario sharing them
	// (admission.AdmitOver), unless that one has finished. Without it the scenario's objects are left as they were, and any number of runs may
	// read them, one after the other or at once.
	TakeOver bool
}

// DefaultDeviceBindingDelay is the simulated driver's time to ready a device with binding
// conditions (attach it to the node, say) by default.
const DefaultDeviceBindingDelay = 2 * time.Second

// deviceBindingDelay is the delay in effect.
func (o Options) deviceBindingDelay() time.Duration {
	return delayInEffect(o.DeviceBindingDelay, DefaultDeviceBindingDelay)
}

// delayInEffect reads a delay option: 0 is the default, a negative one none.
func delayInEffect(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// DefaultClaimReleaseDelay is the ResourceClaim controller's delay by default: the time a
// cluster's controller takes to see a pod gone and release its claims, a few seconds
// (kube-controller-manager's informers, its work queue and two API writes; the issue that
// asked for it saw the scheduler retry 4 s before the claims were released).
const DefaultClaimReleaseDelay = 4 * time.Second

// claimReleaseDelay is the delay in effect.
func (o Options) claimReleaseDelay() time.Duration {
	return delayInEffect(o.ClaimReleaseDelay, DefaultClaimReleaseDelay)
}

// Epoch is virtual time 0.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Simulator runs one scenario: it is the scheduler's clock, executor and API server
// (framework.Clock, actuator.Executor, actuator.Client; objectStore is its
// framework.ResourceClient), and the control plane around it: the kubelets (pods.go), the
// controllers of pkg/controllers, and the objects' timeline (timeline.go).
type Simulator struct {
	sc    *admission.Scenario
	opts  Options
	sched *scheduler.Scheduler

	now    time.Time
	queue  timedQueue
	tasks  []func()
	events []report.Event

	pods     map[string]*podRecord
	podOrder []*podRecord
	nodes    map[string]*v1.Node
	// unreplaced are each controller's ended pods that no pod it made replaces yet, in
	// the order they ended (workloads.go).
	unreplaced map[workload.Controller][]*podRecord
	// waitingForNode are the pods created bound to a node that does not exist (yet), by
	// node name: no kubelet runs them.
	waitingForNode map[string][]*podRecord
	// nodeAdded and nodeDeleted are when each node came and went (names are unique).
	nodeAdded, nodeDeleted map[string]float64
	// nodeUsage is the invariant checks' own account of the nodes (invariants.go); nil,
	// and not kept, without CheckInvariants: nothing else reads it.
	nodeUsage nodeUsage

	// groups are the PodGroups and CompositePodGroups of both APIs (groups.go); objs the
	// storage and DRA objects with their controllers (objects.go); budgets the disruption
	// controller with the PodDisruptionBudgets.
	groups  *groupObjects
	objs    *objectStore
	budgets *disruption.Controller

	violations []string
}

// New prepares a simulation of a scenario (pkg/admission's).
func New(sc *admission.Scenario, opts Options) (*Simulator, error) {
	if opts.Until == 0 {
		opts.Until = 24 * time.Hour
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if opts.Seed != 0 {
		c := *cfg
		c.Seed = opts.Seed
		cfg = &c
	}
	if opts.SchedulerName != "" {
		c := *cfg
		c.Profiles = append([]config.Profile(nil), cfg.Profiles...)
		c.Profiles[0].SchedulerName = opts.SchedulerName
		cfg = &c
	}
	s := &Simulator{
		sc:             sc,
		opts:           opts,
		now:            Epoch,
		pods:           map[string]*podRecord{},
		nodes:          map[string]*v1.Node{},
		unreplaced:     map[workload.Controller][]*podRecord{},
		waitingForNode: map[string][]*podRecord{},
		nodeAdded:      map[string]float64{},
		nodeDeleted:    map[string]float64{},
	}
	var observer scheduler.Observer
	if opts.CheckInvariants {
		observer = &invariantObserver{s: s}
		s.nodeUsage = nodeUsage{}
	}
	s.objs = newObjectStore()
	sched, err := scheduler.New(scheduler.Options{
		Observer:         observer,
		Config:           cfg,
		Registry:         plugins.NewRegistry(),
		Clock:            s,
		Client:           s,
		Resources:        s.objs,
		Exec:             s,
		Logger:           opts.Logger,
		AnySchedulerName: opts.SchedulerName == "",
	})
	if err != nil {
		return nil, err
	}
	s.sched = sched
	s.groups = newGroupObjects(s)
	s.objs.attach(sched.Resources(), s.groups.podGroup, func(name string) *v1.Node { return s.nodes[name] }, s.patchPodStatus, s.violate)
	s.objs.readyDevices = func(c *resourceapi.ResourceClaim) {
		key, uid, alloc := c.Namespace+"/"+c.Name, c.UID, c.Status.Allocation.DeepCopy()
		s.at(s.now.Add(opts.deviceBindingDelay()), func() { s.objs.readyClaimDevices(key, uid, alloc) })
	}
	s.objs.later = func(fn func()) { s.at(s.now, fn) }
	s.budgets = disruption.New(s.existingPods, sched.UpdatePDB)
	s.plan()
	return s, nil
}

// Metrics are the scheduler's metrics, as a real cluster's /metrics would show them.
func (s *Simulator) Metrics() *metrics.Metrics { return s.sched.Metrics() }

// Now is the virtual clock.
func (s *Simulator) Now() time.Time { return s.now }

// Go queues work of the actuator to run at the current virtual time, after the cycle that
// asked for it, in order.
func (s *Simulator) Go(task func()) { s.tasks = append(s.tasks, task) }

func (s *Simulator) seconds(t time.Time) float64 { return t.Sub(Epoch).Seconds() }

// at schedules work at a virtual time.
func (s *Simulator) at(t time.Time, fn func()) { s.queue.push(t, fn) }

// Run runs the simulation to its end: when nothing more can happen (no timed event left
// and the scheduler idle), or at Until.
func (s *Simulator) Run(ctx context.Context) (*report.Report, error) {
	wallStart := time.Now()
	end := Epoch.Add(s.opts.Until)
	for ctx.Err() == nil {
		s.step(ctx)
		next, ok := s.queue.next()
		// The scheduler's own timers (backoff, the periodic retry of unschedulable pods)
		// matter while it has work, or before the next timed event; alone, they would
		// keep an idle simulation running forever.
		if wake, hasWake := s.sched.NextWakeup(); hasWake && (s.sched.Busy() || ok) && (!ok || wake.Before(next)) {
			next, ok = wake, true
		}
		if !ok {
			break
		}
		if !next.After(s.now) {
			next = s.now.Add(time.Millisecond)
		}
		if next.After(end) {
			s.now = end
			break
		}
		s.now = next
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.report(time.Since(wallStart)), nil
}

// step runs everything due now: timed events, the actuator's work, and scheduling cycles
// until the queue has nothing ready.
func (s *Simulator) step(ctx context.Context) {
	for {
		for s.queue.due(s.now) {
			s.queue.pop()()
			s.settle()
		}
		s.budgets.Sync()
		popped := s.sched.ScheduleOne(ctx)
		s.checkCache(popped)
		if !popped {
			// Nothing was ready, but the scheduler may still have queued work (reports of
			// timeouts it checks before popping): settle it, and look again if it did any.
			if s.settle() || s.queue.due(s.now) {
				continue
			}
			return
		}
		s.settle()
	}
}

// settle runs queued actuator work and delivers its completions, until quiet. It reports
// whether there was any.
func (s *Simulator) settle() bool {
	worked := false
	for {
		if s.sched.DrainInbox() {
			worked = true
		}
		if len(s.tasks) == 0 {
			if !s.sched.DrainInbox() {
				return worked
			}
			worked = true
			continue
		}
		task := s.tasks[0]
		s.tasks = s.tasks[1:]
		task()
		worked = true
	}
}

// checkCache checks, with invariants on, that a cycle left no simulation open in the
// cache, and at the end of each step (nothing popped) that every index of the cache equals
// one rebuilt from scratch.
func (s *Simulator) checkCache(popped bool) {
	if !s.opts.CheckInvariants {
		return
	}
	c := s.sched.Cache()
	if n := c.OpenCheckpoints(); n > 0 {
		s.violate("a scheduling cycle left %d cache checkpoint(s) open", n)
	}
	if !popped {
		if err := c.Verify(); err != nil {
			s.violate("cache inconsistent: %v", err)
		}
	}
}

func (s *Simulator) violate(format string, args ...any) {
	if s.opts.CheckInvariants {
		s.violations = append(s.violations, fmt.Sprintf("t=%gs: ", s.seconds(s.now))+fmt.Sprintf(format, args...))
	}
}

var _ framework.Binder = (*Simulator)(nil)

// Parallel runs the items one after the other: the simulator is single-threaded and its
// output must not depend on goroutine scheduling.
func (s *Simulator) Parallel(n int, fn func(i int)) {
	for i := range n {
		fn(i)
	}
}
