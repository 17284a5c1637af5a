package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/report"
	"github.com/phalanx-dev/phalanx/pkg/report/html"
)

type simulateOptions struct {
	files           []string
	output          string
	out             string
	seed            int64
	until           time.Duration
	schedulerName   string
	configFile      string
	checkInvariants bool
	wallTime        bool
	workloadWithJob bool
	// claimReleaseDelay is --claim-release-delay.
	claimReleaseDelay time.Duration
	// deviceBindingDelay is --device-binding-delay.
	deviceBindingDelay time.Duration
	cpuProfile         string
	memProfile         string
}

func newSimulateCommand() *cobra.Command {
	o := &simulateOptions{}
	cmd := &cobra.Command{
		Use:   "simulate -f FILE [-f FILE ...]",
		Short: "Run the scheduler on an in-memory cluster built from manifests, in virtual time",
		Long: `simulate loads Nodes, Pods, PriorityClasses, PodDisruptionBudgets, Namespaces,
PodGroups (phalanx's, and Kubernetes' own scheduling.k8s.io v1beta1, v1alpha3 and
v1alpha2 ones with their Workloads), devices and volumes, and workloads (batch/v1 Jobs,
apps/v1 Deployments, ReplicaSets and StatefulSets, jobset.x-k8s.io/v1alpha2 JobSets, made
into pods as their controllers would) from manifests (files, directories of *.yaml, or -
for stdin; multi-document YAML and List kinds), runs phalanx on them in virtual time and
reports what happened.

Pods with spec.nodeName run there from their creation; other pods are scheduled.
Annotations drive the timeline (Go durations of virtual time):
  sim.phalanx.dev/create-at        the object appears at this time instead of 0
  sim.phalanx.dev/delete-at        the object is deleted at this time
  sim.phalanx.dev/run-for          a pod succeeds this long after it starts
  sim.phalanx.dev/terminate-after  a deleted pod is gone after this long

Manifests are checked as the API server checks them (strict decoding, sizes, phalanx's
kinds against their CRD, Kubernetes' kinds where the simulator reads them), and every
error is reported, one a line.

Exit status: 0 when the simulation ran, 2 for bad input, 1 for other failures or, with
--check-invariants, when an invariant broke.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.files, "filename", "f", nil, "manifest file, directory, or - for stdin (repeatable)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, json or html")
	f.StringVar(&o.out, "out", "", "write the output to this file instead of stdout")
	f.Int64Var(&o.seed, "seed", 1, "seed for tie-breaks; the same input and seed give the same output")
	f.DurationVar(&o.until, "until", 24*time.Hour, "stop at this virtual time")
	f.StringVar(&o.schedulerName, "scheduler-name", "", "only schedule pods with this spec.schedulerName (default: every pending pod)")
	f.StringVar(&o.configFile, "config", "", "scheduler configuration file (SchedulerConfiguration)")
	f.BoolVar(&o.checkInvariants, "check-invariants", false, "check the scheduler's invariants after every step; violations fail the run")
	f.BoolVar(&o.wallTime, "wall-time", false, "report the wall-clock time in summary.wallSeconds (makes the output differ run to run)")
	f.BoolVar(&o.workloadWithJob, "workload-with-job", false, workloadWithJobUsage)
	f.DurationVar(&o.claimReleaseDelay, "claim-release-delay", sim.DefaultClaimReleaseDelay, claimReleaseDelayUsage)
	f.DurationVar(&o.deviceBindingDelay, "device-binding-delay", sim.DefaultDeviceBindingDelay, deviceBindingDelayUsage)
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	_ = f.MarkHidden("cpuprofile")
	f.StringVar(&o.memProfile, "memprofile", "", "write an allocation profile of the run to this file")
	_ = f.MarkHidden("memprofile")
	return cmd
}

func (o *simulateOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(o.files) == 0 {
		return usageError{errors.New("simulate needs at least one -f FILE")}
	}
	if err := checkOutput(o.output, o.until); err != nil {
		return err
	}
	if err := checkClaimReleaseDelay(o.claimReleaseDelay); err != nil {
		return err
	}
	if err := checkDelay("--device-binding-delay", o.deviceBindingDelay); err != nil {
		return err
	}
	cfg, err := loadConfig(o.configFile)
	if err != nil {
		return err
	}
	if o.cpuProfile != "" {
		pf, err := os.Create(o.cpuProfile)
		if err != nil {
			return usageError{err}
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	in, err := manifest.Decode(o.files, stdin)
	if err != nil {
		return inputError(err)
	}
	sc, err := admission.Admit(admission.ControlPlane{WorkloadWithJob: o.workloadWithJob}, in)
	if err != nil {
		return inputError(err)
	}
	for _, w := range sc.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	s, err := sim.New(sc, sim.Options{
		Config: cfg, Seed: o.seed, Until: o.until, SchedulerName: o.schedulerName,
		CheckInvariants: o.checkInvariants, ReportWallTime: o.wallTime, Logger: klog.Background(),
		ClaimReleaseDelay: simClaimReleaseDelay(o.claimReleaseDelay), DeviceBindingDelay: simClaimReleaseDelay(o.deviceBindingDelay),
		// Nothing here reads the scenario after New: its pods need no copies (decision 60).
		TakeOver: true,
	})
	if err != nil {
		return usageError{configError(o.configFile, err)}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	report, err := s.Run(ctx)
	if err != nil {
		return err
	}
	if o.memProfile != "" {
		if err := writeHeapProfile(o.memProfile); err != nil {
			return err
		}
	}
	w, closeOut, err := openOut(o.out, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	if err := write(w, o.output, report); err != nil {
		return err
	}
	if o.out != "" {
		fmt.Fprintf(stderr, "wrote %s (%d pods, %gs of virtual time in %.2fs)\n", o.out, report.Summary.Pods,
			report.Summary.VirtualSeconds, time.Since(start).Seconds())
	}
	if len(report.Violations) > 0 {
		for _, v := range report.Violations {
			fmt.Fprintln(stderr, "invariant violated:", v)
		}
		return exitError{code: exitFailure, msg: fmt.Sprintf("%d invariant violation(s)", len(report.Violations))}
	}
	return nil
}

func write(w io.Writer, format string, r *report.Report) error {
	switch format {
	case "json":
		return report.WriteJSON(w, r)
	case "html":
		return html.Write(w, r, html.Header{})
	}
	return report.WriteText(w, r)
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return usageError{err}
	}
	defer f.Close()
	return pprof.Lookup("allocs").WriteTo(f, 0)
}

// workloadWithJobUsage is the --workload-with-job flag's, which simulate and whatif share.
const workloadWithJobUsage = "model the Job controller of Kubernetes 1.37 with its WorkloadWithJob gate on: each Job gets a Workload and a PodGroup (scheduling.k8s.io/v1beta1)"

// checkOutput checks the flags simulate and whatif share.
// claimReleaseDelayUsage is the --claim-release-delay flag's, which simulate and whatif share.
const claimReleaseDelayUsage = "how long after a pod is gone the ResourceClaim controller releases its claims (their devices stay taken until then, as on a cluster); 0: at once"

// deviceBindingDelayUsage is the --device-binding-delay flag's, which simulate and whatif
// share.
const deviceBindingDelayUsage = "how long after a claim is allocated devices with binding conditions the simulated DRA driver readies them (the pod is bound only then); 0: at once"

// checkClaimReleaseDelay refuses a negative --claim-release-delay.
func checkClaimReleaseDelay(d time.Duration) error { return checkDelay("--claim-release-delay", d) }

// checkDelay refuses a negative delay flag.
func checkDelay(flag string, d time.Duration) error {
	if d < 0 {
		return usageError{fmt.Errorf("%s %s: must not be negative", flag, d)}
	}
	return nil
}

// simClaimReleaseDelay is a delay flag's value as sim.Options spells it (0 there is the
// default, negative at once).
func simClaimReleaseDelay(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func checkOutput(output string, until time.Duration) error {
	switch output {
	case "text", "json", "html":
	default:
		return usageError{fmt.Errorf("--output %q: must be text, json or html", output)}
	}
	if until <= 0 {
		return usageError{fmt.Errorf("--until %s: must be positive", until)}
	}
	return nil
}

// loadConfig reads --config (nil, the defaults, without one).
func loadConfig(path string) (*config.Configuration, error) {
	if path == "" {
		return nil, nil
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, usageError{err}
	}
	return cfg, nil
}

// inputError makes a problem of the input (a *manifest.InputError) exit with status 2.
func inputError(err error) error {
	var ie *manifest.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	return err
}

// openOut is --out's file, or stdout without one.
func openOut(path string, stdout io.Writer) (io.Writer, func(), error) {
	if path == "" {
		return stdout, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return f, func() { f.Close() }, nil
}
