// Command bench-cluster is the Go half of `make bench-cluster` (hack/bench-cluster.sh),
// which starts a fresh control plane for each scheduler and calls it:
//
//	bench-cluster run [flags]     on the control plane KUBECONFIG names, runs the
//	                              workloads against one scheduler, one process per
//	                              workload, and appends a JSON line per workload to --out
//	bench-cluster binder [flags]  the trivial binder (binder.go)
//	bench-cluster table FILE      prints the table of a results file
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := dispatch(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cluster:", err)
		os.Exit(1)
	}
}

func dispatch(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: bench-cluster run|binder|table ARGS")
	}
	switch args[0] {
	case "run":
		return runBench(args[1:])
	case "binder":
		return runBinder(args[1:])
	case "table":
		if len(args) != 2 {
			return errors.New("usage: bench-cluster table RESULTS")
		}
		return printTable(os.Stdout, args[1])
	}
	return fmt.Errorf("unknown command %q", args[0])
}

func runBench(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var s sizes
	l := &launcher{}
	b := &bench{l: l}
	var out, only, limits string
	fs.StringVar(&l.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the control plane (admin)")
	fs.StringVar(&l.kind, "scheduler", kindPhalanx, "phalanx, kube-scheduler or binder")
	fs.StringVar(&limits, "limits", "defaults", "label of the client limits: defaults, or equal (with --qps and --burst)")
	fs.Func("qps", "client QPS of the scheduler (0: its default)", func(v string) error {
		_, err := fmt.Sscan(v, &l.qps)
		return err
	})
	fs.IntVar(&l.burst, "burst", 0, "client burst of the scheduler")
	fs.StringVar(&l.phalanx, "phalanx", "", "phalanx binary")
	fs.Func("phalanx-arg", "one more argument of phalanx run (repeatable; -v=4, say)", func(v string) error {
		l.phalanxArgs = append(l.phalanxArgs, v)
		return nil
	})
	fs.StringVar(&l.kubeScheduler, "kube-scheduler", "", "kube-scheduler binary")
	fs.StringVar(&l.dir, "dir", os.TempDir(), "where scheduler configurations and logs go")
	fs.StringVar(&out, "out", "", "results file (JSON lines, appended)")
	fs.StringVar(&only, "workloads", "burst,stream,preemption,gang", "workloads to run, comma-separated (kueue too, on request)")
	fs.IntVar(&s.nodes, "nodes", 1000, "kwok nodes of 32 cpu")
	fs.IntVar(&s.burst, "burst-pods", 5000, "pending pods of the burst")
	fs.IntVar(&s.stream, "stream-pods", 2000, "pods of the stream")
	fs.Float64Var(&s.streamRate, "stream-rate", 100, "pods created per second in the stream")
	fs.IntVar(&s.preemptors, "preemptors", 500, "preemptors arriving at once on full nodes")
	fs.Int64Var(&s.grace, "grace", 30, "grace period of the preemption victims, seconds")
	fs.IntVar(&s.gangs, "gangs", 100, "gangs")
	fs.IntVar(&s.gangSize, "gang-size", 8, "pods per gang (its minCount)")
	fs.StringVar(&b.k.bin, "kueue", "", "Kueue's manager binary (the kueue workload)")
	fs.StringVar(&b.k.moduleDir, "kueue-module", "", "sigs.k8s.io/kueue's directory in the module cache, for its CRDs and webhooks (the kueue workload)")
	fs.IntVar(&b.k.jobs, "kueue-jobs", 100, "Indexed Jobs of --gang-size pods sent to Kueue (the kueue workload)")
	fs.IntVar(&b.k.admit, "kueue-admit", 4, "Jobs the ClusterQueue's CPU quota admits at a time")
	fs.DurationVar(&b.k.run, "kueue-run", 2*time.Second, "how long each Job's pods run before kwok completes them")
	fs.DurationVar(&s.timeout, "timeout", 10*time.Minute, "longest wait for a workload's pods")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if out == "" {
		return errors.New("--out is required")
	}
	names := strings.Split(only, ",")
	if slices.Contains(names, "preemption") && s.preemptors > s.nodes {
		return fmt.Errorf("--preemptors %d: at most --nodes (%d), one preemptor a node", s.preemptors, s.nodes)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	l.self = self
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := connect(l.kubeconfig)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	if err := c.setUp(ctx, s.nodes); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d nodes ready in %.0fs\n", s.nodes, time.Since(start).Seconds())
	b.c, b.s, b.limits = c, s, limits
	for _, w := range workloads {
		if !slices.Contains(names, w.name) {
			continue
		}
		r := result{Scheduler: l.kind, Limits: limits, Workload: w.name}
		if l.kind == kindBinder && !w.binder {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s (%s): %s...\n", l.kind, limits, w.name)
		if err := w.run(ctx, b, &r); err != nil {
			r.Error = err.Error()
			fmt.Fprintf(os.Stderr, "  error: %v\n", err)
		}
		fmt.Fprintf(os.Stderr, "  %d pods in %.1fs (%.0f pods/s), %.1f CPU s, %d never scheduled, %d failed attempts, %d bound pods marked SchedulerError\n",
			r.Pods, r.Seconds, r.PodsPerSec, r.CPUSeconds, r.NeverScheduled, r.FailedAttempts, r.BoundMarkedError)
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}
