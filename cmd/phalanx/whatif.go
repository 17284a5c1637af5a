package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/snapshot"
	"github.com/phalanx-dev/phalanx/pkg/whatif"
)

// exitWouldNotSchedule is whatif's status when a new workload would not schedule.
const exitWouldNotSchedule = 3

type whatifOptions struct {
	files           []string
	admit           []string
	kube            kubeFlags
	snapshots       []string
	configFile      string
	output          string
	out             string
	seed            int64
	until           time.Duration
	checkInvariants bool
	schedulerName   string
	workloadWithJob bool
	// claimReleaseDelay is --claim-release-delay.
	claimReleaseDelay time.Duration
	// deviceBindingDelay is --device-binding-delay.
	deviceBindingDelay time.Duration
}

func newWhatifCommand() *cobra.Command {
	o := &whatifOptions{}
	cmd := &cobra.Command{
		Use:   "whatif -f NEW [-f NEW ...] [--admit NAMESPACE/JOB ...] [--kubeconfig FILE] [--context NAME] [--snapshot FILE]",
		Short: "Ask whether new workloads would schedule on a cluster, where, when and whom they would preempt",
		Long: `whatif takes the cluster, read now as ` + "`phalanx snapshot`" + ` reads it from the
cluster kubectl would talk to (kubectl's flags and loading rules: --kubeconfig, else
$KUBECONFIG, else ~/.kube/config, with --context, --cluster, --user, --server ...; the
cluster it runs in only when none names one), or a saved --snapshot; and the new objects
of -f (Jobs, Deployments, ReplicaSets, StatefulSets, JobSets, pods, PodGroups and the rest
of what ` + "`phalanx simulate`" + ` reads) arriving now, and runs both forward in virtual time with the
scheduler and profiles of --config, as ` + "`phalanx run`" + ` would schedule them. Running pods
run on; workloads' pods are made as their controllers would, and preempted pods are
replaced as theirs would. It runs the cluster once without the new objects too, to tell
which pods already pending the new work delays.

For each new workload it says whether it schedules, on which nodes and in which topology
domains, when (after its victims' grace periods), which pods it preempts (namespace,
owner, priority) and whether their controllers restart them elsewhere at once, and which
pending pods it overtakes or that overtake it. It never writes to the cluster.

--admit asks the same of a Job already in the cluster but queued (suspended, as Kueue
holds a Job until it admits it): as if it were admitted now, unsuspended as it is.

Exit status: 0 when everything new would schedule, 3 when something new would not
(or only in part), 2 for bad input, 1 for other failures (and broken invariants with
--check-invariants).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.files, "filename", "f", nil, "the new objects: a file, directory, or - for stdin (repeatable)")
	f.StringArrayVar(&o.admit, "admit", nil, "a queued (suspended) Job of the cluster, NAMESPACE/NAME: asked about as if admitted now (repeatable)")
	o.kube.bind(f)
	f.StringArrayVar(&o.snapshots, "snapshot", nil, "a snapshot (file or directory, or several) to ask instead of a live cluster")
	f.StringVar(&o.configFile, "config", "", "scheduler configuration file, as for phalanx run")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, json or html")
	f.StringVar(&o.out, "out", "", "write the output to this file instead of stdout")
	f.Int64Var(&o.seed, "seed", 1, "seed for tie-breaks; the same input and seed give the same answer")
	f.DurationVar(&o.until, "until", 24*time.Hour, "stop at this virtual time")
	f.BoolVar(&o.checkInvariants, "check-invariants", false, "check the scheduler's invariants after every step; violations fail the run")
	f.BoolVar(&o.workloadWithJob, "workload-with-job", false, workloadWithJobUsage)
	f.DurationVar(&o.claimReleaseDelay, "claim-release-delay", sim.DefaultClaimReleaseDelay, claimReleaseDelayUsage)
	f.DurationVar(&o.deviceBindingDelay, "device-binding-delay", sim.DefaultDeviceBindingDelay, deviceBindingDelayUsage)
	f.StringVar(&o.schedulerName, "scheduler-name", "", "only schedule pods with this spec.schedulerName (default: every pending pod, whichever scheduler it names)")
	return cmd
}

func (o *whatifOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(o.files) == 0 && len(o.admit) == 0 {
		return usageError{errors.New("whatif needs the new objects (-f FILE) or a queued Job to admit (--admit NAMESPACE/NAME)")}
	}
	if given := o.kube.given(); len(o.snapshots) > 0 && len(given) > 0 {
		return usageError{fmt.Errorf("%w (%s given)", errNoKubeFlags, strings.Join(given, ", "))}
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
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	news := manifest.FromObjects("the new objects", nil)
	if len(o.files) > 0 {
		if news, err = manifest.Decode(o.files, stdin); err != nil {
			return inputError(err)
		}
	}
	var cluster *manifest.Input
	if len(o.snapshots) > 0 {
		if cluster, err = manifest.Decode(o.snapshots, stdin); err != nil {
			return inputError(err)
		}
	} else {
		snap, err := takeSnapshot(ctx, &o.kube, snapshot.Options{Progress: stderr})
		if err != nil {
			return err
		}
		cluster = manifest.FromObjects("the cluster", snap.Objects())
	}
	if len(o.admit) > 0 {
		var admitted *manifest.Input
		if cluster, admitted, err = whatif.Admit(cluster, o.admit); err != nil {
			return inputError(err)
		}
		news = manifest.Concat(news, admitted)
	}
	answer, runs, err := whatif.Ask(ctx, cluster, news, whatif.Options{ControlPlane: admission.ControlPlane{WorkloadWithJob: o.workloadWithJob},
		Sim: sim.Options{Config: cfg, Seed: o.seed, Until: o.until, SchedulerName: o.schedulerName, CheckInvariants: o.checkInvariants, Logger: klog.Background(),
			ClaimReleaseDelay: simClaimReleaseDelay(o.claimReleaseDelay), DeviceBindingDelay: simClaimReleaseDelay(o.deviceBindingDelay)}})
	if err != nil {
		return inputError(err)
	}
	w, closeOut, err := openOut(o.out, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	switch o.output {
	case "json":
		err = whatif.WriteJSON(w, answer)
	case "html":
		err = whatif.WriteHTML(w, answer, runs.WhatIf)
	default:
		err = whatif.WriteText(w, answer)
	}
	if err != nil {
		return err
	}
	if len(answer.Violations) > 0 {
		for _, v := range answer.Violations {
			fmt.Fprintln(stderr, "invariant violated:", v)
		}
		return exitError{code: exitFailure, msg: fmt.Sprintf("%d invariant violation(s)", len(answer.Violations))}
	}
	if !answer.AllSchedule {
		return exitError{code: exitWouldNotSchedule, msg: "not everything new would schedule"}
	}
	return nil
}
