package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// defaultBindAddress serves /healthz, /readyz and /metrics in plain HTTP. 10251 was
// kube-scheduler's insecure port before it went away: no clash with a kube-scheduler
// (10259) on the same host network.
const defaultBindAddress = "0.0.0.0:10251"

type runOptions struct {
	kubeconfig  string
	configFile  string
	qps         float32
	burst       int
	concurrency int
	timeout     time.Duration
	async       bool
	bindAddress string
	groupSource string
	startup     time.Duration
	debug       bool
	profiling   bool
	contention  bool
	logFormat   string
	le          kube.LeaderElection
}

func newRunCommand() *cobra.Command {
	cmd, _ := runCommand()
	return cmd
}

// runCommand returns the command and the options its flags fill.
func runCommand() (*cobra.Command, *runOptions) {
	o := &runOptions{le: kube.DefaultLeaderElection()}
	cmd := &cobra.Command{
		Use:   "run [--kubeconfig FILE] [--config FILE]",
		Short: "Schedule pods in a real cluster, as a secondary scheduler",
		Long: `run schedules the pods whose spec.schedulerName is one of the configuration's
profiles ("phalanx" by default) in the cluster that --kubeconfig names, or in the cluster
it runs in when there is no --kubeconfig.

With --leader-elect (the default), replicas take turns through a Lease: one schedules,
the others keep their caches warm and take over when it goes away. A replica that loses
its Lease exits with status 1, to be restarted clean.

PodGroups come from phalanx's CRD, from Kubernetes' own scheduling.k8s.io API (with its
Workloads: v1beta1 or v1alpha3 on 1.37, v1alpha2 on 1.36, the newest served) on clusters
that serve it, or both (--podgroup-source); CompositePodGroups from each of those APIs
whose server serves them (phalanx's CRD installed, scheduling.k8s.io/v1alpha3 on 1.37).

/healthz, /readyz and /metrics are served on --bind-address (and /debug/pprof with
--profiling). SIGTERM or SIGINT stops scheduling, releases the Lease and exits 0.

--config takes phalanx's SchedulerConfiguration or kube-scheduler's
kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration; the latter's leaderElection,
clientConnection and enableProfiling apply where no flag says otherwise.

At start, an API server that does not answer or refuses phalanx is named, with the
cause, at once (and on /readyz) and asked again with backoff; after --startup-timeout
phalanx gives up. A signal ends it within seconds in every phase.

Exit status: 0 after a signal, 1 when the start gave up, the Lease was lost or the
scheduler could not run, 2 for bad flags or configuration.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unexpected arguments %q: run takes only flags", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.Flags())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file of the cluster (default: the in-cluster configuration)")
	f.StringVar(&o.configFile, "config", "", "scheduler configuration file (phalanx's SchedulerConfiguration or kube-scheduler's KubeSchedulerConfiguration)")
	f.Float32Var(&o.qps, "kube-api-qps", 0, "client-side limit of requests per second to the API server (informers and scheduling decisions); 0: none while the API server enforces Priority and Fairness (else 50), negative: none")
	f.IntVar(&o.burst, "kube-api-burst", 0, "burst of requests to the API server when --kube-api-qps is positive (0: twice --kube-api-qps)")
	f.IntVar(&o.concurrency, "kube-api-concurrency", kube.DefaultAPIConcurrency, "scheduling decisions' API calls (bindings, evictions, status writes) in flight at most; halved while the API server answers 429")
	f.DurationVar(&o.timeout, "kube-api-timeout", kube.DefaultRequestTimeout, "deadline of each of those calls, from the moment it is sent")
	f.BoolVar(&o.async, "async-preemption", true, "make preemptions' API calls off the scheduling loop (KEP-4832); false makes them in the cycle")
	f.StringVar(&o.bindAddress, "bind-address", defaultBindAddress, "address of the plain-HTTP listener for /healthz, /readyz and /metrics (empty: none)")
	f.DurationVar(&o.startup, "startup-timeout", kube.DefaultStartupTimeout, "how long to wait at start for the API server to answer and the informer caches to fill before exiting with status 1 and the reason (0: wait for ever)")
	f.StringVar(&o.groupSource, "podgroup-source", string(kube.GroupSourceAuto), "PodGroup APIs to read: auto (every one the server serves, asked at start), crd (phalanx's PodGroup CRD) or native (scheduling.k8s.io PodGroups and Workloads, in the newest version served: v1beta1, v1alpha3 or v1alpha2); CompositePodGroups come from those APIs when served")
	f.BoolVar(&o.debug, "debug-endpoints", false, "also serve /debug/cache-comparison (it names pods and nodes; the listener has no authentication)")
	f.BoolVar(&o.profiling, "profiling", false, "also serve Go's profiles on /debug/pprof/ (the listener has no authentication)")
	f.BoolVar(&o.contention, "contention-profiling", false, "with --profiling, also profile blocking on locks and channels")
	f.StringVar(&o.logFormat, "logging-format", logFormatText, "log format: text (klog's) or json (one object a line)")
	f.BoolVar(&o.le.Enabled, "leader-elect", o.le.Enabled, "take turns with other replicas through a Lease; only the holder schedules")
	f.StringVar(&o.le.Namespace, "leader-elect-resource-namespace", o.le.Namespace, "namespace of the leader-election Lease")
	f.StringVar(&o.le.Name, "leader-elect-resource-name", o.le.Name, "name of the leader-election Lease")
	f.DurationVar(&o.le.LeaseDuration, "leader-elect-lease-duration", o.le.LeaseDuration, "how long standby replicas wait after the last renewal before taking the Lease")
	f.DurationVar(&o.le.RenewDeadline, "leader-elect-renew-deadline", o.le.RenewDeadline, "how long the leader keeps trying to renew before it gives up (and exits)")
	f.DurationVar(&o.le.RetryPeriod, "leader-elect-retry-period", o.le.RetryPeriod, "how often replicas try to acquire or renew the Lease")

	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	f.AddGoFlagSet(klogFlags)
	return cmd, o
}

func (o *runOptions) run(ctx context.Context, flags *pflag.FlagSet) error {
	defer klog.Flush()
	if err := setLogFormat(o.logFormat, flags); err != nil {
		return usageError{err}
	}
	opts, err := o.driverOptions(flags)
	if err != nil {
		return usageError{err}
	}
	if o.profiling && o.contention {
		runtime.SetBlockProfileRate(1)
	}
	d, err := kube.New(opts)
	if err != nil {
		return usageError{configError(o.configFile, err)}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		// A second signal kills at once.
		stop()
	}()
	err = d.Run(ctx)
	if errors.Is(err, kube.ErrLeadershipLost) {
		return exitError{code: exitFailure, msg: "lost the leader-election Lease; exiting to restart clean"}
	}
	return err
}

// driverOptions loads the configuration, checks the flags and loads the connection.
func (o *runOptions) driverOptions(flags *pflag.FlagSet) (kube.Options, error) {
	var cfg *config.Configuration
	if o.configFile != "" {
		var err error
		if cfg, err = config.Load(o.configFile); err != nil {
			return kube.Options{}, err
		}
		o.apply(cfg.Run, flags.Changed)
	}
	opts := kube.Options{
		QPS: o.qps, Burst: o.burst, Concurrency: o.concurrency, RequestTimeout: o.timeout, AsyncPreemption: o.async, LeaderElection: o.le,
		BindAddress: o.bindAddress, PodGroupSource: kube.GroupSource(o.groupSource), StartupTimeout: o.startup, DebugEndpoints: o.debug, Profiling: o.profiling,
		Logger: klog.Background(), Config: cfg,
	}
	if err := opts.Validate(); err != nil {
		return opts, err
	}
	rc, err := restConfig(o.kubeconfig)
	if err != nil {
		return opts, err
	}
	opts.REST = rc
	return opts, nil
}

// configError names the configuration file in an error building the scheduler from it
// (a plugin that does not exist, say), as the file's own errors are named.
func configError(file string, err error) error {
	var ce *scheduler.ConfigurationError
	if file == "" || !errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("%s: %w", file, err)
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
		}
		return rc, nil
	}
	rc, err := rest.InClusterConfig()
	if errors.Is(err, rest.ErrNotInCluster) {
		return nil, errors.New("no --kubeconfig given and not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)")
	}
	if err != nil {
		return nil, fmt.Errorf("in-cluster configuration: %w", err)
	}
	return rc, nil
}

// apply takes what a KubeSchedulerConfiguration says about the process, where the flag
// that says the same was not given (flags win, as in kube-scheduler).
func (o *runOptions) apply(r config.RunSettings, given func(flag string) bool) {
	set := func(flag string, ok bool, apply func()) {
		if ok && !given(flag) {
			apply()
		}
	}
	set("leader-elect", r.LeaderElect != nil, func() { o.le.Enabled = *r.LeaderElect })
	set("leader-elect-lease-duration", r.LeaseDuration != 0, func() { o.le.LeaseDuration = r.LeaseDuration })
	set("leader-elect-renew-deadline", r.RenewDeadline != 0, func() { o.le.RenewDeadline = r.RenewDeadline })
	set("leader-elect-retry-period", r.RetryPeriod != 0, func() { o.le.RetryPeriod = r.RetryPeriod })
	set("leader-elect-resource-name", r.ResourceName != "", func() { o.le.Name = r.ResourceName })
	set("leader-elect-resource-namespace", r.ResourceNamespace != "", func() { o.le.Namespace = r.ResourceNamespace })
	set("kubeconfig", r.Kubeconfig != "", func() { o.kubeconfig = r.Kubeconfig })
	set("kube-api-qps", r.QPS != 0, func() { o.qps = r.QPS })
	set("kube-api-burst", r.Burst != 0, func() { o.burst = int(r.Burst) })
	set("profiling", r.EnableProfiling != nil, func() { o.profiling = *r.EnableProfiling })
	set("contention-profiling", r.EnableContentionProfiling != nil, func() { o.contention = *r.EnableContentionProfiling })
}
