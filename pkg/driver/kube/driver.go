// Package kube runs phalanx's scheduler against a real cluster: client-go informers feed
// the scheduling loop, an actuator client makes the API calls (bindings, status patches,
// deletions, events), leader election lets replicas stand by, and one HTTP listener
// serves /healthz, /readyz and /metrics (and, when asked, /debug/pprof). The scheduling core never imports client-go;
// everything that does lives here.
package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// ErrLeadershipLost is Run's error when the Lease was lost: the process should exit
// and be restarted with a clean state, as kube-scheduler does.
var ErrLeadershipLost = errors.New("leader election lost")

// LeaderElection configures the Lease that lets replicas stand by.
type LeaderElection struct {
	Enabled       bool
	Namespace     string
	Name          string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// DefaultLeaderElection is kube-scheduler's: 15 s lease, 10 s renew deadline, 2 s
// retry, on a Lease kube-system/phalanx.
func DefaultLeaderElection() LeaderElection {
	return LeaderElection{
		Enabled: true, Namespace: "kube-system", Name: "phalanx",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	}
}

// Options configure the driver.
type Options struct {
	// REST is the connection to the API server (kubeconfig or in-cluster).
	REST *rest.Config
	// QPS and Burst are the client-side limits of the driver's requests (see RateLimits:
	// QPS 0 trusts the API server's Priority and Fairness). Informers and the actuator
	// share them; events and leader election have their own budgets, so none starves
	// another.
	QPS   float32
	Burst int
	// Concurrency bounds the actuator's API calls in flight (DefaultAPIConcurrency is a
	// good value).
	Concurrency int
	// RequestTimeout bounds each of the actuator's API calls from the moment it is sent
	// (0: DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Config is the scheduler configuration (nil: the defaults).
	Config *config.Configuration
	// AsyncPreemption makes preemptions' API calls off the scheduling loop (KEP-4832);
	// false keeps them in the cycle, for comparison.
	AsyncPreemption bool
	LeaderElection  LeaderElection
	// BindAddress is where /healthz, /readyz and /metrics are served ("" for nowhere).
	BindAddress string
	// PodGroupSource says which PodGroup APIs to read ("" is GroupSourceAuto).
	PodGroupSource GroupSource
	// StartupTimeout bounds the wait, at start, for the API server to answer and the
	// informer caches to fill; Run then returns an error saying why (0: wait for ever).
	StartupTimeout time.Duration
	// DebugEndpoints adds /debug/cache-comparison to the listener. It names pods and
	// nodes, and the listener has no authentication: off by default.
	DebugEndpoints bool
	// Profiling serves Go's profiles on /debug/pprof/ (no authentication either).
	Profiling bool
	Logger    klog.Logger
}

// Validate reports options that cannot work.
func (o *Options) Validate() error {
	var errs []error
	if o.Burst < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-burst %d: must not be negative", o.Burst))
	}
	if o.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-concurrency %d: must be positive", o.Concurrency))
	}
	if o.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-timeout %s: must not be negative", o.RequestTimeout))
	}
	if o.StartupTimeout < 0 {
		errs = append(errs, fmt.Errorf("--startup-timeout %s: must not be negative (0 waits for ever)", o.StartupTimeout))
	}
	if o.PodGroupSource != "" && !slices.Contains(GroupSources, o.PodGroupSource) {
		errs = append(errs, fmt.Errorf("--podgroup-source %q: must be one of %q", o.PodGroupSource, GroupSources))
	}
	if le := o.LeaderElection; le.Enabled {
		switch {
		case le.Namespace == "" || le.Name == "":
			errs = append(errs, errors.New("--leader-elect-resource-namespace and --leader-elect-resource-name must not be empty"))
		case le.RetryPeriod <= 0:
			errs = append(errs, fmt.Errorf("--leader-elect-retry-period %s: must be positive", le.RetryPeriod))
		case float64(le.RenewDeadline) <= leaderelection.JitterFactor*float64(le.RetryPeriod):
			errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline %s: must be more than %v times --leader-elect-retry-period (%s)",
				le.RenewDeadline, leaderelection.JitterFactor, le.RetryPeriod))
		case le.LeaseDuration <= le.RenewDeadline:
			errs = append(errs, fmt.Errorf("--leader-elect-lease-duration %s: must be more than --leader-elect-renew-deadline (%s)",
				le.LeaseDuration, le.RenewDeadline))
		}
	}
	return errors.Join(errs...)
}

// Driver connects one scheduler to a cluster.
type Driver struct {
	opts     Options
	logger   klog.Logger
	cfg      *config.Configuration
	sched    *scheduler.Scheduler
	client   *Client
	events   *eventRecorder
	leClient kubernetes.Interface
	identity string
	// discovery tells which PodGroup APIs the server serves (--podgroup-source=auto).
	discovery discovery.DiscoveryInterface
	// groupAPIs are the PodGroup APIs read, decided by Run.
	groupAPIs groupAPIs

	factory   informers.SharedInformerFactory
	informers []namedInformer
	// handlers feed the scheduler; they are registered when this replica starts to
	// schedule (as leader), so a standby replica keeps warm caches but runs no loop and
	// makes no API call.
	handlers []cache.ResourceEventHandler

	// registries hold every metric /metrics serves; gatherer gathers them all.
	registries []*prometheus.Registry
	gatherer   prometheus.Gatherer
	health     *leaderelection.HealthzAdaptor
	// problems are what keeps the start from finishing (startup.go).
	problems startProblems
	synced   atomic.Bool
	stopping atomic.Bool
	// scheduling is true while the loop runs.
	scheduling atomic.Bool
	server     *server
}

type namedInformer struct {
	name     string
	informer cache.SharedIndexInformer
}

// New builds the driver and its scheduler. It makes no API call: errors are the
// caller's options or configuration.
func New(o Options) (*Driver, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.REST == nil {
		return nil, errors.New("no connection to an API server")
	}
	registerProcessMetrics()
	cfg := o.Config
	if cfg == nil {
		cfg = config.Default()
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}

	clients, err := newClientSet(o, scheme)
	if err != nil {
		return nil, err
	}
	hostname, err := os.Hostname()
	if err != nil {
		hostname = "phalanx"
	}

	d := &Driver{
		opts:      o,
		logger:    o.Logger,
		cfg:       cfg,
		events:    clients.events,
		leClient:  clients.leaderElection,
		identity:  hostname + "_" + string(uuid.NewUUID()),
		health:    leaderelection.NewLeaderHealthzAdaptor(20 * time.Second),
		discovery: clients.informers.Discovery(),
	}
	d.client = newClient(clients.actuator, clients.podGroups, d.events.recorder, clients.calls, clients.metrics.resolved, o.Logger)
	d.client.v1alpha2 = clients.v1alpha2
	d.sched, err = scheduler.New(scheduler.Options{
		Config:         cfg,
		Registry:       plugins.NewRegistry(),
		Clock:          realClock{},
		Client:         d.client,
		Exec:           actuator.GoExecutor{},
		Logger:         o.Logger,
		SyncPreemption: !o.AsyncPreemption,
		// Upstream's ResourceClaim controller runs native PodGroups' claims.
		NativeGroupClaimsUpstream: true,
	})
	if err != nil {
		return nil, err
	}
	d.registries = []*prometheus.Registry{d.sched.Metrics().Registry, clients.registry, processRegistry}
	d.gatherer = prometheus.Gatherers{d.sched.Metrics().Registry, clients.registry, processRegistry}

	d.factory = informers.NewSharedInformerFactory(clients.informers, 0)
	pods := d.factory.InformerFor(&v1.Pod{}, newPodInformer)
	// The PodGroup informers are added by Run, once it knows which PodGroup APIs to read.
	h := Handlers(d.sched)
	resInformers, resHandlers := resourceInformers(d.factory, h, d.sched.Resources())
	d.informers = []namedInformer{
		{"nodes", d.factory.Core().V1().Nodes().Informer()},
		{"namespaces", d.factory.Core().V1().Namespaces().Informer()},
		{"priorityclasses", d.factory.Scheduling().V1().PriorityClasses().Informer()},
		{"poddisruptionbudgets", d.factory.Policy().V1().PodDisruptionBudgets().Informer()},
	}
	d.informers = append(d.informers, resInformers...)
	d.informers = append(d.informers, namedInformer{"pods", pods})
	for _, inf := range d.informers {
		if err := inf.informer.SetTransform(stripManagedFields); err != nil {
			return nil, err
		}
	}
	profiles := map[string]bool{}
	for _, p := range cfg.Profiles {
		profiles[p.SchedulerName] = true
	}
	d.handlers = []cache.ResourceEventHandler{
		nodeHandler(h), namespaceHandler(h), priorityClassHandler(h), pdbHandler(h),
	}
	d.handlers = append(d.handlers, resHandlers...)
	d.handlers = append(d.handlers, &podHandler{h: h, profiles: profiles})
	return d, nil
}

// NewScheme returns a scheme with Kubernetes' types and phalanx's PodGroup: events
// name their objects through it, and the PodGroup client decodes with it.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// newPodInformer watches pods that are not finished: a pod that succeeded or failed
// holds no room, and the informer reports it as deleted.
func newPodInformer(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
	selector := fields.ParseSelectorOrDie("status.phase!=" + string(v1.PodSucceeded) + ",status.phase!=" + string(v1.PodFailed))
	return coreinformers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync, cache.Indexers{}, func(o *metav1.ListOptions) {
		o.FieldSelector = selector.String()
	})
}

// stripManagedFields drops what the scheduler never reads, to keep the caches small.
func stripManagedFields(obj any) (any, error) {
	if a, err := meta.Accessor(obj); err == nil && a.GetManagedFields() != nil {
		a.SetManagedFields(nil)
	}
	return obj, nil
}

// Scheduler is the driver's scheduler (for tests).
func (d *Driver) Scheduler() *scheduler.Scheduler { return d.sched }

// Identity is this replica's name in the Lease.
func (d *Driver) Identity() string { return d.identity }

// Addr is the address of the HTTP listener once Run has started it.
func (d *Driver) Addr() string { return d.server.Addr() }

// Run serves the probes and metrics, starts the informers, waits until their caches
// are full, then schedules: at once, or once this replica holds the Lease. It returns
// nil when ctx is cancelled (after releasing the Lease and writing out pending events),
// ErrLeadershipLost when the Lease was lost, or an error it could not get past.
func (d *Driver) Run(ctx context.Context) error {
	logger := d.logger
	var err error
	mux := newMux(checks{live: d.live, ready: d.ready}, d.gatherer, logger)
	if d.opts.DebugEndpoints {
		mux.Handle("/debug/cache-comparison", d.comparisonHandler())
	}
	if d.opts.Profiling {
		addProfiling(mux)
	}
	d.server, err = listen(d.opts.BindAddress, mux)
	if err != nil {
		return err
	}
	d.server.serve(logger)
	if err := d.events.start(); err != nil {
		d.server.shutdown()
		return err
	}
	// The informers stop with this context, also when Run returns for a lost Lease. A stop
	// takes at most shutdownGrace: with the API server gone, stopping the informers,
	// releasing the Lease or writing events could otherwise wait for minutes.
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		d.stopping.Store(true)
		cancel()
		deadline := time.Now().Add(shutdownGrace)
		waitAtMost(deadline, d.factory.Shutdown)
		d.events.flush(max(0, time.Until(deadline)))
		d.client.calls.Stop()
		d.server.shutdown()
	}()

	// The start: the API server answers, the PodGroup APIs are known, the caches are full.
	// It gives up after StartupTimeout, with an error saying why.
	start, startDone := ctx, context.CancelFunc(func() {})
	if d.opts.StartupTimeout > 0 {
		start, startDone = context.WithTimeout(ctx, d.opts.StartupTimeout)
	}
	defer startDone()
	stopped := func(phase string) error {
		if ctx.Err() != nil {
			return nil // a signal
		}
		return d.gaveUp(ctx, phase)
	}
	logger.Info("Connecting to the API server", "server", d.opts.REST.Host, "startupTimeout", d.opts.StartupTimeout)
	if err := d.waitForAPIServer(start); err != nil {
		return stopped("API server")
	}
	var apis groupAPIs
	err = within(start, func() error {
		var err error
		apis, err = resolveGroupAPIs(start, d.discovery, d.opts.PodGroupSource, logger)
		return err
	})
	if err != nil {
		if start.Err() != nil {
			return stopped("PodGroup APIs' discovery")
		}
		return err
	}
	if err := d.addGroupInformers(apis); err != nil {
		return err
	}
	var taintRules bool
	err = within(start, func() error {
		var err error
		taintRules, err = resolveTaintRules(start, d.discovery, logger)
		return err
	})
	if err != nil {
		if start.Err() != nil {
			return stopped("DeviceTaintRules' discovery")
		}
		return err
	}
	if taintRules {
		if err := d.addTaintRuleInformer(); err != nil {
			return err
		}
	}
	if err := d.watchErrors(); err != nil {
		return err
	}
	logger.Info("Starting informers", "identity", d.identity, "profiles", len(d.cfg.Profiles),
		"asyncPreemption", d.opts.AsyncPreemption, "leaderElection", d.opts.LeaderElection.Enabled, "address", d.server.Addr(),
		"podGroupAPIs", apis.String(), "compositePodGroupAPIs", apis.composites(), "deviceTaintRules", taintRules)
	d.factory.Start(ctx.Done())
	synced := make([]cache.DoneChecker, len(d.informers))
	for i, inf := range d.informers {
		if d.standalone(inf.name) { // not from the factory
			go inf.informer.RunWithContext(ctx)
		}
		synced[i] = inf.informer.HasSyncedChecker()
	}
	go d.reportUnsynced(ctx)
	// On the informers' done channels rather than cache.WaitForCacheSync, which looks
	// every 100 ms (as registerHandlers does for the handlers).
	if !cache.WaitFor(start, "", synced...) {
		return stopped("informer caches")
	}
	d.synced.Store(true)
	logger.Info("Informer caches synced")

	if !d.opts.LeaderElection.Enabled {
		d.schedule(ctx)
		return nil
	}
	return d.runLeaderElection(ctx)
}

// reportUnsynced names, every 30 s until all have synced, the informers whose caches
// are still empty: a missing CRD or permission otherwise shows only as a replica that
// never becomes ready.
func (d *Driver) reportUnsynced(ctx context.Context) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var waiting []string
		for _, inf := range d.informers {
			if !inf.informer.HasSynced() {
				waiting = append(waiting, inf.name)
			}
		}
		if len(waiting) == 0 {
			return
		}
		d.logger.Info("Waiting for informer caches to sync (is the PodGroup API they read served, and the RBAC of config/rbac granted?)", "informers", waiting)
	}
}

func (d *Driver) runLeaderElection(ctx context.Context) error {
	logger := d.logger
	le := d.opts.LeaderElection
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
			Client:     d.leClient.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: d.identity},
		},
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		WatchDog:        d.health,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) { leading <- lctx },
			OnStoppedLeading: func() { logger.Info("Stopped leading", "identity", d.identity) },
			OnNewLeader: func(id string) {
				if id != d.identity {
					logger.Info("New leader elected", "leader", id)
				}
			},
		},
	})
	if err != nil {
		return err
	}
	d.health.SetLeaderElection(elector)
	done := make(chan struct{})
	go func() {
		defer close(done)
		elector.Run(ctx)
	}()
	select {
	case <-done:
		// Never led: cancelled while waiting for the Lease.
		return nil
	case lctx := <-leading:
		// lctx ends when ctx does, or when the Lease could not be renewed.
		d.schedule(lctx)
	}
	if ctx.Err() != nil {
		// Stopped by a signal: the elector releases the Lease, unless the API server does
		// not answer in time.
		waitAtMost(time.Now().Add(shutdownGrace), func() { <-done })
		return nil
	}
	<-done
	return ErrLeadershipLost
}

// schedule feeds the informers' contents to the scheduler and runs its loop until ctx
// ends. Handlers are registered in an order that puts nodes, namespaces, classes, PDBs
// and groups in the loop's inbox before pods, and the loop starts only once every
// handler has received its informer's whole list, so the first cycle sees the cluster.
func (d *Driver) schedule(ctx context.Context) {
	logger := d.logger
	if !registerHandlers(ctx, d.informers, d.handlers, logger) {
		return
	}
	logger.Info("Scheduling", "identity", d.identity)
	d.scheduling.Store(true)
	go d.compareOnSignal(ctx)
	d.sched.Run(ctx)
	d.scheduling.Store(false)
	logger.Info("Stopped scheduling")
}

// registerHandlers adds each informer's handler and waits until every handler has been
// given its informer's objects (false: ctx ended first, or a registration failed). It
// waits on the registrations' done channels: cache.WaitForCacheSync looks every 100 ms,
// and a scheduler that starts with pods pending lost up to that much before its first
// cycle.
func registerHandlers(ctx context.Context, infs []namedInformer, handlers []cache.ResourceEventHandler, logger klog.Logger) bool {
	synced := make([]cache.DoneChecker, 0, len(infs))
	for i, inf := range infs {
		reg, err := inf.informer.AddEventHandler(handlers[i])
		if err != nil {
			logger.Error(err, "Registering an event handler", "informer", inf.name)
			return false
		}
		synced = append(synced, reg.HasSyncedChecker())
	}
	return cache.WaitFor(ctx, "", synced...)
}

// live fails when this replica leads but has not renewed its Lease for a while (a stuck
// process, which a restart fixes).
func (d *Driver) live(r *http.Request) error { return d.health.Check(r) }

// ready is true once the informers' caches are full, on the leader and on standby
// replicas alike: a standby is ready to take over, and a Deployment's rollout waits
// for readiness.
func (d *Driver) ready() error {
	switch {
	case d.stopping.Load():
		return errors.New("shutting down")
	case !d.synced.Load():
		if problem := d.problems.String(); problem != "" {
			return errors.New("starting: " + problem)
		}
		return errors.New("informer caches not synced yet")
	}
	return nil
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
