// Package scheduler is phalanx's scheduling loop: it applies cluster events to the cache and
// queue, pops entries, runs the pod cycle (and the group cycle for pod groups) over the
// cache, and hands decisions to the actuator. It is pure: drivers feed it events and supply
// the actuator's client.
package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// Clock tells the time; the simulator's is virtual.
type Clock interface {
	Now() time.Time
}

// Options assemble a Scheduler.
type Options struct {
	Config   *config.Configuration
	Registry fwkruntime.Registry
	Clock    Clock
	Client   actuator.Client
	Exec     actuator.Executor
	Logger   klog.Logger
	// AnySchedulerName makes the first profile schedule pending pods whatever their
	// spec.schedulerName (the simulator's default).
	AnySchedulerName bool
	// Observer, when set, is told about every decision (the simulator's invariant checks
	// and reports use it).
	Observer Observer
	// SyncPreemption makes preemption's API calls inside the scheduling cycle, as
	// kube-scheduler did before KEP-4832, for comparison; by default they run off the loop.
	SyncPreemption bool
	// NativeGroupClaimsUpstream says upstream's ResourceClaim controller makes and releases
	// the claims of Kubernetes' own PodGroups (a real cluster); phalanx then only reads them.
	NativeGroupClaimsUpstream bool
}

// inlineExecutor runs work on the calling goroutine.
type inlineExecutor struct{}

func (inlineExecutor) Go(task func()) { task() }
func (inlineExecutor) Parallel(n int, fn func(i int)) {
	for i := range n {
		fn(i)
	}
}

// Observer sees the scheduler's decisions as they are made.
type Observer interface {
	// BeforeAssume is called when a pod is about to be assumed on a node, with the cache
	// as it is then.
	BeforeAssume(p *framework.PodInfo, node string, c *cache.Cache)
	// Preempting is called when a preemption is decided, before anything is carried out.
	Preempting(preemptor *framework.PodInfo, node string, victims []*framework.PodInfo)
	// PreemptingForGroup is called when a group's preemption is decided.
	PreemptingForGroup(g *framework.GroupInfo, nominations map[*framework.PodInfo]string, victims []*framework.PodInfo)
	// GroupPlaced is called when a group's members are assumed together.
	GroupPlaced(g *framework.GroupInfo, assigned []framework.Assignment)
}

// Scheduler is the scheduling loop's state. Its methods must be called from one goroutine
// (the loop); other goroutines hand it work through Post.
type Scheduler struct {
	cfg      *config.Configuration
	cache    *cache.Cache
	queue    *queue.Queue
	profiles map[string]*fwkruntime.Framework
	first    *fwkruntime.Framework
	actuator *actuator.Actuator
	clock    Clock
	logger   klog.Logger
	rand     *rand.Rand
	anyName  bool
	observer Observer
	metrics  *metrics.Metrics
	// preemptExec runs preemptions' API calls: off the loop (the actuator's executor), or
	// inline with SyncPreemption.
	preemptExec actuator.Executor

	parallelizer       framework.Parallelizer
	nextStartNodeIndex int
	static             staticCache
	filterScratch      []*framework.Status
	eligibleScratch    []*framework.NodeInfo
	feasibleScratch    []*framework.NodeInfo
	// domain, when not nil, restricts filtering to its nodes: the placement a group is
	// being placed in. inDomain marks them by Index.
	domain   []*framework.NodeInfo
	inDomain []bool

	// bindingsInFlight counts binding cycles not yet reported back; binding holds their
	// pods, as assumed, by key.
	bindingsInFlight int
	binding          map[string]*framework.PodInfo
	// waiting holds pods a Permit plugin asked to wait.
	waiting map[string]*waitingPod
	// failures keeps the last failure message of pending pods, for reports.
	failures map[string]string
	// preempting holds the preemptions whose API calls are running, by preemptor.
	preempting map[string]*inflightPreemption
	// nativeGroupClaimsUpstream: see Options.
	nativeGroupClaimsUpstream bool
	// spentDecisions are the notes of preemptors whose victims are all gone
	// (decisions.go).
	spentDecisions map[string]string
	// victimOf and waitingForVictims hold the preemptors waiting for victims to leave, by
	// victim and by preemptor.
	victimOf          map[string]*victimWait
	waitingForVictims map[string]*victimWait
	// classes are the PriorityClasses, for resolving PodGroups' priorities.
	classes map[string]*schedulingv1.PriorityClass
	// groups are the PodGroups with pending members, by namespace/name.
	groups map[string]*groupState
	// statusWriters serialise each PodGroup's status writes, by namespace/name.
	statusWriters map[string]*groupStatusWriter
	// gangWaits are the groups held at their gate for lack of members whose wait has not
	// been reported yet.
	gangWaits map[*groupState]bool
	// resources is the driver's API of storage and DRA objects (nil without one);
	// groupClaimsMaking are the group claims being made from templates (groupclaims.go).
	resources         framework.ResourceClient
	groupClaimsMaking map[string]bool

	// events are the cluster events each plugin (and pseudo-plugin) registered.
	events map[string][]framework.ClusterEvent
	// pendingGauges are scheduler_pending_pods for the active, backoff, unschedulable and
	// gated pools.
	pendingGauges [4]prometheus.Gauge

	inboxMu sync.Mutex
	inbox   []func()
	notify  chan struct{}
}

// New builds a scheduler with its cache, queue and profiles.
func New(opts Options) (*Scheduler, error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	s := &Scheduler{
		cfg:            cfg,
		cache:          cache.New(),
		profiles:       map[string]*fwkruntime.Framework{},
		clock:          opts.Clock,
		logger:         opts.Logger,
		rand:           rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		anyName:        opts.AnySchedulerName,
		observer:       opts.Observer,
		metrics:        metrics.New(),
		parallelizer:   framework.NewParallelizer(cfg.Parallelism),
		notify:         make(chan struct{}, 1),
		waiting:        map[string]*waitingPod{},
		failures:       map[string]string{},
		preempting:     map[string]*inflightPreemption{},
		spentDecisions: map[string]string{},

		nativeGroupClaimsUpstream: opts.NativeGroupClaimsUpstream,
		classes:                   map[string]*schedulingv1.PriorityClass{},
		groups:                    map[string]*groupState{},
		statusWriters:             map[string]*groupStatusWriter{},
		gangWaits:                 map[*groupState]bool{},

		groupClaimsMaking: map[string]bool{},
	}
	// The bookkeeping of binding.go and victims.go.
	s.binding = map[string]*framework.PodInfo{}
	s.victimOf = map[string]*victimWait{}
	s.waitingForVictims = map[string]*victimWait{}
	for i, pool := range []string{"active", "backoff", "unschedulable", "gated"} {
		s.pendingGauges[i] = s.metrics.PendingPods.WithLabelValues(pool)
	}
	s.actuator = &actuator.Actuator{Client: opts.Client, Exec: opts.Exec, Post: s.Post, Name: "phalanx"}
	s.preemptExec = opts.Exec
	if opts.SyncPreemption {
		s.preemptExec = inlineExecutor{}
	}
	events := map[string][]framework.ClusterEvent{
		podSpecPlugin: {{Resource: framework.UnscheduledPod, Action: framework.Update, Label: "PodUpdate"}},
		// Only the end of the preemption's API calls releases this gate; only a change of
		// the group or its members releases the group gates.
		gatePreemption:   nil,
		gateGroupMissing: nil,
		gateGroupInvalid: nil,
		// Placements too small in aggregate grow only when pods leave or nodes come.
		placementCapacityPlugin: placementCapacityEvents,
	}
	resources, _ := opts.Client.(framework.ResourceClient)
	s.resources = resources
	for i, prof := range cfg.Profiles {
		fwk, err := fwkruntime.New(prof, field.NewPath("profiles").Index(i), opts.Registry, fwkruntime.Options{
			Snapshot:        s.cache,
			Nominator:       s.cache,
			Parallelizer:    s.parallelizer,
			Binder:          opts.Client,
			Preemption:      s,
			GroupPreemption: s,
			Rand:            s.rand,
			Metrics:         s.metrics,
			ResourceClient:  resources,
		})
		if err != nil {
			return nil, err
		}
		s.profiles[prof.SchedulerName] = fwk
		if s.first == nil {
			s.first = fwk
		}
		for name, evs := range fwk.EventsToRegister() {
			events[name] = append(events[name], evs...)
		}
	}
	var less func(a, b *framework.QueuedUnit) bool
	if qs := s.first.QueueSort(); qs != nil {
		for i, prof := range cfg.Profiles {
			other := s.profiles[prof.SchedulerName].QueueSort()
			if other == nil || other.Name() != qs.Name() {
				return nil, field.Invalid(field.NewPath("profiles").Index(i).Child("plugins"), prof.SchedulerName,
					"every profile must use the same QueueSort plugin ("+qs.Name()+"): there is one queue")
			}
		}
		less = qs.Less
	}
	s.events = events
	s.queue = queue.New(queue.Options{
		Less:             less,
		Clock:            opts.Clock,
		InitialBackoff:   cfg.PodInitialBackoff.Duration,
		MaxBackoff:       cfg.PodMaxBackoff.Duration,
		MaxUnschedulable: cfg.PodMaxInUnschedulablePodsDuration.Duration,
		PreEnqueue:       s.preEnqueue,
		Events:           events,
		Metrics:          s.metrics.Queue(),
	})
	return s, nil
}

// podSpecPlugin is the pseudo-plugin blamed for pods whose spec the scheduler cannot use;
// only an update of the pod can help them.
const podSpecPlugin = "PodSpec"

// Cache exposes the cache, for drivers' reports and tests.
func (s *Scheduler) Cache() *cache.Cache { return s.cache }

// Queue exposes the queue, for drivers' reports and tests.
func (s *Scheduler) Queue() *queue.Queue { return s.queue }

// Metrics exposes the scheduler's metrics.
func (s *Scheduler) Metrics() *metrics.Metrics { return s.metrics }

// Post hands work to the loop; safe from any goroutine.
func (s *Scheduler) Post(fn func()) {
	s.inboxMu.Lock()
	s.inbox = append(s.inbox, fn)
	s.inboxMu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Notify is signalled when work is posted, so an idle loop can wake.
func (s *Scheduler) Notify() <-chan struct{} { return s.notify }

// DrainInbox runs posted work, in order, on the calling (loop) goroutine. It reports
// whether there was any.
func (s *Scheduler) DrainInbox() bool {
	ran := false
	for {
		s.inboxMu.Lock()
		work := s.inbox
		s.inbox = nil
		s.inboxMu.Unlock()
		if len(work) == 0 {
			return ran
		}
		for _, fn := range work {
			fn()
		}
		ran = true
	}
}

// ScheduleOne pops the next entry and runs its cycle. It returns false when nothing was
// ready.
func (s *Scheduler) ScheduleOne(ctx context.Context) bool {
	if len(s.waiting) > 0 {
		s.expireWaitingPods()
	}
	s.reportGangWaits()
	e := s.queue.Pop()
	if e == nil {
		return false
	}
	fwk := s.profiles[e.Profile]
	if fwk == nil {
		s.logger.Error(nil, "No profile for queued entry", "entry", e.Key, "profile", e.Profile)
		s.queue.Done(e.Key)
		return true
	}
	switch {
	case e.Pod != nil:
		s.schedulePodEntry(ctx, fwk, e)
	case e.Group != nil:
		s.scheduleGroupEntry(ctx, fwk, e)
	}
	return true
}

// NextWakeup is when the queue next has work without any event: the earliest backoff
// expiry or unschedulable flush.
func (s *Scheduler) NextWakeup() (time.Time, bool) {
	var next time.Time
	for _, f := range []func() (time.Time, bool){s.queue.NextBackoffExpiry, s.queue.NextUnschedulableFlush, s.nextPermitDeadline, s.nextGangWaitDeadline} {
		if t, ok := f(); ok && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, !next.IsZero()
}

// Busy reports whether entries are ready or backing off (the simulator runs until it is
// not, and no timed event is left).
func (s *Scheduler) Busy() bool {
	active, backoff, _, _ := s.queue.Counts()
	return active > 0 || backoff > 0 || s.bindingsInFlight > 0 || len(s.waiting) > 0
}

// Run is the loop for a real cluster: drain posted work, schedule, and sleep until work is
// posted or a backoff expires.
func (s *Scheduler) Run(ctx context.Context) {
	for ctx.Err() == nil {
		s.DrainInbox()
		s.observeQueue()
		if s.ScheduleOne(ctx) {
			continue
		}
		wait := time.Second
		if t, ok := s.NextWakeup(); ok {
			wait = max(time.Millisecond, min(wait, t.Sub(s.clock.Now())))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-s.notify:
		case <-timer.C:
		}
		timer.Stop()
	}
}

func (s *Scheduler) profileFor(schedulerName string) (*fwkruntime.Framework, string, error) {
	if fwk, ok := s.profiles[schedulerName]; ok {
		return fwk, schedulerName, nil
	}
	if s.anyName {
		return s.first, s.first.SchedulerName(), nil
	}
	return nil, "", fmt.Errorf("no profile for scheduler name %q", schedulerName)
}

// observeQueue sets scheduler_pending_pods from the queue's pools.
func (s *Scheduler) observeQueue() {
	active, backoff, unschedulable, gated := s.queue.Counts()
	for i, n := range []int{active, backoff, unschedulable, gated} {
		s.pendingGauges[i].Set(float64(n))
	}
}
