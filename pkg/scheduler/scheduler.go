// Package scheduler is phalanx's scheduling loop: it applies cluster events to the cache and
// queue, pops entries, runs the pod cycle (and the group cycle for pod groups) over the
// cache, and hands decisions to the actuator. It is pure: drivers feed it events and supply
// the actuator's client.
//
// Scheduler is the loop and its event handlers; each other job has a type of its own:
// podCycle (one pod: filter, score, assume, Permit, bind), groupCycle (one pod group,
// placed by pkg/placement), pendingGroups (the groups with pending members, their gates),
// binder (bindings in flight), podStatus (what pending pods are told), retries (which
// cluster events move which pending entries) and cacheComparer (the cache checked against
// the cluster). Two jobs with a narrow seam have packages of their own: pkg/preemptexec
// carries out the preemptions the cycles decide and follows preemptors until their
// victims are gone; pkg/groupapi writes what the scheduler decides about pod groups (their
// status, the claims they share).
package scheduler

import (
	"context"
	"math/rand/v2"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/groupapi"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/preemptexec"
	"github.com/phalanx-dev/phalanx/pkg/queue"
)

// Options assemble a Scheduler.
type Options struct {
	Config   *config.Configuration
	Registry fwkruntime.Registry
	Clock    framework.Clock
	Client   actuator.Client
	// Resources writes storage and DRA objects for PreBind plugins and group claims; when
	// nil, Client is used if it implements framework.ResourceClient.
	Resources framework.ResourceClient
	Exec      actuator.Executor
	Logger    klog.Logger
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

// Scheduler is the scheduling loop and its event handlers. Its methods must be called from
// one goroutine (the loop); other goroutines hand it work through Post.
type Scheduler struct {
	cfg      *config.Configuration
	cache    *cache.Cache
	queue    *queue.Queue
	profiles map[string]*fwkruntime.Framework
	first    *fwkruntime.Framework
	clock    framework.Clock
	logger   klog.Logger
	anyName  bool
	metrics  *metrics.Metrics
	// pendingGauges are scheduler_pending_pods for the active, backoff, unschedulable and
	// gated pools.
	pendingGauges [4]prometheus.Gauge
	// cycles counts the entries popped, each a scheduling cycle (OpportunisticBatching).
	cycles int64

	pods        *podCycle
	groups      *groupCycle
	pending     *pendingGroups
	preemptions *preemptexec.Preemptions
	groupAPI    *groupapi.Writer
	binder      *binder
	status      *podStatus
	retries     *retries
	resources   *ResourceEvents

	// loggingCtx is loopCtx, the context ScheduleOne was last given, with the logger.
	loopCtx, loggingCtx context.Context

	inboxMu sync.Mutex
	inbox   []func()
	notify  chan struct{}
}

// podSpecPlugin is the pseudo-plugin blamed for pods whose spec the scheduler cannot use;
// only an update of the pod can help them.
const podSpecPlugin = "PodSpec"

// New builds a scheduler with its cache, queue and profiles.
func New(opts Options) (*Scheduler, error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	s := &Scheduler{
		cfg:      cfg,
		cache:    cache.New(),
		profiles: map[string]*fwkruntime.Framework{},
		clock:    opts.Clock,
		logger:   opts.Logger,
		anyName:  opts.AnySchedulerName,
		metrics:  metrics.New(),
		notify:   make(chan struct{}, 1),
		// The profiles' plugins carry preemptions out through it; it is filled in by
		// assemble, once the queue exists.
		preemptions: &preemptexec.Preemptions{},
	}
	for i, pool := range metrics.QueuePools {
		s.pendingGauges[i] = s.metrics.PendingPods.WithLabelValues(pool)
	}
	rnd := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15))
	parallelizer := framework.NewParallelizer(cfg.Parallelism)
	resources := opts.Resources
	if resources == nil {
		resources, _ = opts.Client.(framework.ResourceClient)
	}
	finder := podfit.New(podfit.Options{Snapshot: s.cache, Nominator: s.cache.Nominations(), Parallelizer: parallelizer,
		PercentageOfNodesToScore: cfg.PercentageOfNodesToScore, Rand: rnd, Clock: s.clock, BatchRecorder: s.metrics.Batch()})
	events := map[string][]framework.ClusterEvent{
		podSpecPlugin: {{Resource: framework.UnscheduledPod, Action: framework.Update, Label: "PodUpdate"}},
		// Only the end of the preemption's API calls releases this gate; only a change of
		// the group or its members releases the group gates.
		preemptexec.GatePlugin:  nil,
		gateGroupMissing:        nil,
		gateGroupInvalid:        nil,
		gateCompositeIncomplete: nil,
		// Placements too small in aggregate grow only when pods leave or nodes come.
		placement.CapacityPlugin: placement.CapacityEvents,
	}
	placers := map[*fwkruntime.Framework]*placement.Placer{}
	for i, prof := range cfg.Profiles {
		fwk, err := fwkruntime.New(prof, field.NewPath("profiles").Index(i), opts.Registry, fwkruntime.Options{
			Snapshot:        s.cache,
			Nominator:       s.cache.Nominations(),
			Parallelizer:    parallelizer,
			Binder:          opts.Client,
			Preemption:      s.preemptions,
			GroupPreemption: s.preemptions,
			Rand:            rnd,
			Metrics:         s.metrics,
			ResourceClient:  resources,
			Clock:           s.clock,
		})
		if err != nil {
			return nil, &ConfigurationError{Err: err}
		}
		s.profiles[prof.SchedulerName] = fwk
		var plugins []string
		for _, p := range fwk.Plugins() {
			plugins = append(plugins, p.Name())
		}
		s.metrics.InitProfile(prof.SchedulerName, plugins)
		if s.first == nil {
			s.first = fwk
		}
		placers[fwk] = placement.New(placement.Options{Framework: fwk, Pods: finder.For(fwk), Snapshot: s.cache,
			Rand: rnd, Metrics: s.metrics, FeasiblePlacementsToFind: cfg.FeasiblePlacementsToFind})
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
	s.assemble(opts, parts{resources: resources, finder: finder, placers: placers, events: events})
	return s, nil
}

// parts are what New makes for the scheduler's parts to share.
type parts struct {
	resources framework.ResourceClient
	finder    *podfit.Finder
	placers   map[*fwkruntime.Framework]*placement.Placer
	events    map[string][]framework.ClusterEvent
}

// assemble makes the scheduler's parts and ties each to the others it works with.
func (s *Scheduler) assemble(opts Options, p parts) {
	act := &actuator.Actuator{Client: opts.Client, Exec: opts.Exec, Post: s.Post, Name: "phalanx"}
	preemptExec := opts.Exec
	if opts.SyncPreemption {
		preemptExec = inlineExecutor{}
	}
	s.status = &podStatus{actuator: act, clock: s.clock, logger: s.logger, nominations: s.cache.Nominations(), queue: s.queue, failures: map[string]string{}}
	s.retries = &retries{queue: s.queue, profiles: s.profiles, events: p.events, preemptions: s.preemptions}
	s.binder = &binder{actuator: act, pods: s.cache.Nodes(), retries: s.retries, post: s.Post, binding: map[string]*framework.PodInfo{}, clock: s.clock}
	s.groupAPI = groupapi.New(groupapi.Options{Actuator: act, Clock: s.clock, Logger: s.logger, Groups: s.cache.Groups(),
		Claims: s.cache.Devices(), Resources: p.resources, NativeClaimsUpstream: opts.NativeGroupClaimsUpstream,
		ClaimMade: s.AddPodGroup})
	s.pending = &pendingGroups{cfg: s.cfg, clock: s.clock, groupStore: s.cache.Groups(), nominations: s.cache.Nominations(), queue: s.queue, profiles: s.profiles,
		actuator: act, status: s.status, groupAPI: s.groupAPI, preemptions: s.preemptions, profileFor: s.profileFor,
		classes: map[string]*schedulingv1.PriorityClass{}, groups: map[string]*groupState{}, composites: map[string]*groupState{},
		filed: map[string]*groupState{}, gangWaits: map[*groupState]bool{}, refused: map[string]bool{}}
	// The profiles were given s.preemptions before the queue existed: it is filled in place.
	*s.preemptions = *preemptexec.New(preemptexec.Options{Actuator: act, Exec: preemptExec, Clock: s.clock, Logger: s.logger,
		Metrics: s.metrics, Queue: s.queue, Snapshot: s.cache, Nodes: s.cache.Nodes(), Nominations: s.cache.Nominations(),
		GroupAPI: s.groupAPI, DropNomination: s.status.dropNomination, QueueKey: unitKey, GroupOf: groupOf,
		Observer: opts.Observer, ReleaseWaitTimeout: s.cfg.ReleaseWaitTimeout.Duration})
	s.pods = &podCycle{cache: s.cache, queue: s.queue, finder: p.finder, metrics: s.metrics, observer: opts.Observer,
		clock: s.clock, status: s.status, binder: s.binder, preemptions: s.preemptions, waiting: map[string]*waitingPod{},
		batching: s.cfg.FeatureEnabled(config.OpportunisticBatching)}
	s.status.filed = func(key string) *groupState { return s.pending.filed[key] }
	s.groups = &groupCycle{cache: s.cache, queue: s.queue, metrics: s.metrics, observer: opts.Observer, actuator: act,
		status: s.status, binder: s.binder, preemptions: s.preemptions, pending: s.pending, groupAPI: s.groupAPI,
		placers: p.placers}
	s.resources = &ResourceEvents{volumes: s.cache.Storage(), devices: s.cache.Devices(), retries: s.retries, preemptions: s.preemptions}
}

// inlineExecutor runs work on the calling goroutine.
type inlineExecutor struct{}

func (inlineExecutor) Go(task func()) { task() }
func (inlineExecutor) Parallel(n int, fn func(i int)) {
	for i := range n {
		fn(i)
	}
}

// Cache exposes the cache, for drivers' reports and tests.
func (s *Scheduler) Cache() *cache.Cache { return s.cache }

// Queue exposes the queue, for drivers' reports and tests.
func (s *Scheduler) Queue() *queue.Queue { return s.queue }

// Metrics exposes the scheduler's metrics.
func (s *Scheduler) Metrics() *metrics.Metrics { return s.metrics }

// Resources are the handlers of the storage and Dynamic Resource Allocation objects.
func (s *Scheduler) Resources() *ResourceEvents { return s.resources }

// ConfigurationError is New's error when the configuration's profiles cannot be built (a
// plugin that does not exist, arguments a plugin refuses): callers name the file it came
// from.
type ConfigurationError struct{ Err error }

func (e *ConfigurationError) Error() string { return e.Err.Error() }
func (e *ConfigurationError) Unwrap() error { return e.Err }
