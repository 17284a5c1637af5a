// Command bench-scale runs phalanx's scheduler and kube-scheduler v1.37.2, in this process,
// one after the other, on a generated AI cluster of each size asked for, and prints a
// table: pods per second, the ratio, the p99 of a pod's and a gang's cycle, bytes per node
// and per pod, and the preemption wave's scheduler time and victims. `make bench-scale`;
// docs/development.md says what it measures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// Result is one scheduler's run on one size.
type Result struct {
	Scheduler string
	// Bound is the number of pods running before the burst.
	Bound int
	// BytesPerNode and BytesPerPod are the heap they grow by, after a collection.
	BytesPerNode, BytesPerPod float64
	// Pods is the number of pods of the burst, Seconds how long until all were bound.
	Pods    int
	Seconds float64
	// CPU is the process's CPU seconds (user and system) during the burst: on a shared
	// machine a steadier figure than the wall clock.
	CPU      float64
	TimedOut bool
	Unbound  int
	// PodP99 and GangP99 are the 99th percentiles of the cycles that placed one pod and
	// of those that placed a gang (none for kube-scheduler: it gets the members as pods).
	PodP99, GangP99 time.Duration
	// GangCPUP99 is the 99th percentile of the CPU time the loop's thread spent in each
	// cycle that placed a gang: what the cycle costs, whatever else runs on the machine
	// (work the cycle hands to other threads, parallel filters, and background garbage
	// collection are not in it).
	GangCPUP99 time.Duration
	// GangKindP99 and GangKindCPUP99 are GangP99 and GangCPUP99 for each kind of gang, in
	// the order of PendingGangKinds.
	GangKindP99, GangKindCPUP99 [3]time.Duration
	// Cycles is the number of scheduling cycles of the burst, Busy their time in all.
	Cycles int
	Busy   float64
	// BurstVictims are pods preempted during the burst.
	BurstVictims int
	// The wave: its pods, the scheduler's cycles in all (seconds), from its creation to
	// its last pod bound, and its victims. WaveCPU is the process's CPU seconds meanwhile
	// and WaveDecisions the time of its preemption decisions (PostFilter and
	// PodGroupPostFilter) in all; -1 where the scheduler does not report them.
	WavePods                 int
	WaveCycles, WaveSeconds  float64
	WaveCPU, WaveDecisions   float64
	WaveTimedOut             bool
	WaveUnbound, WaveVictims int
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		var usage usageError
		if errors.As(err, &usage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench-scale", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	nodesFlag := fs.String("nodes", "5000", "comma-separated cluster sizes (nodes)")
	pods := fs.Int("pods", 0, "plain pending pods (default 20000; one DRA pod more per 40)")
	gangs := fs.Int("gangs", 0, "pending gangs (default one per 100 nodes)")
	wave := fs.Int("wave", 0, "high-priority gangs of the preemption wave (default one per two racks)")
	background := fs.Int("background", 0, "low-priority pods bound on every node before the burst (default 4)")
	schedulers := fs.String("schedulers", "phalanx,kube-scheduler", "which schedulers to run, in this order")
	timeout := fs.Duration("timeout", 30*time.Minute, "how long a phase may take before it is reported as timed out")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of phalanx's runs to this file")
	if err := fs.Parse(args); err != nil {
		return usageError{fmt.Errorf("%w (flags: -nodes -pods -gangs -wave -background -schedulers -timeout -cpuprofile)", err)}
	}
	sizes, err := parseSizes(*nodesFlag)
	if err != nil {
		return usageError{err}
	}
	which := strings.Split(*schedulers, ",")
	for _, w := range which {
		if w != "phalanx" && w != "kube-scheduler" {
			return usageError{fmt.Errorf("-schedulers: %q is neither phalanx nor kube-scheduler", w)}
		}
	}
	for name, v := range map[string]int{"-pods": *pods, "-gangs": *gangs, "-wave": *wave, "-background": *background} {
		if v < 0 {
			return usageError{fmt.Errorf("%s: %d is negative", name, v)}
		}
	}
	// kube-scheduler logs every failed attempt and preemption at level 0-2: keep the
	// table readable.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	ctx := context.Background()
	var rows [][]*Result
	for _, n := range sizes {
		spec := Spec{Nodes: n, Pods: *pods, Gangs: *gangs, Wave: *wave, Background: *background}.defaulted()
		fmt.Fprintf(os.Stderr, "%d nodes: %d plain pods, %d DRA pods, %d gangs, a wave of %d gangs, %d pods bound per node\n",
			n, spec.Pods, spec.Pods/40, spec.Gangs, spec.Wave, spec.Background)
		var row []*Result
		for _, w := range which {
			var res *Result
			var err error
			start := time.Now()
			switch w {
			case "phalanx":
				stop, perr := profile(*cpuProfile)
				if perr != nil {
					return perr
				}
				res, err = runPhalanx(ctx, spec, *timeout)
				stop()
			default:
				res, err = runKube(ctx, spec, *timeout)
			}
			if err != nil {
				return fmt.Errorf("%s at %d nodes: %w", w, n, err)
			}
			fmt.Fprintf(os.Stderr, "  %s: done in %.0fs (burst: %d cycles, %.1fs in cycles)\n", w, time.Since(start).Seconds(), res.Cycles, res.Busy)
			row = append(row, res)
			runtime.GC()
		}
		rows = append(rows, row)
	}
	writeTable(out, sizes, rows)
	return nil
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < minNodes {
			return nil, fmt.Errorf("-nodes: %q is not a number of nodes of at least %d (four blocks: the fourth has the DRA devices)", f, minNodes)
		}
		out = append(out, n)
	}
	return out, nil
}

// profile starts the CPU profile of a phalanx run; the file gets the last run's.
func profile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// cpuSeconds is the process's CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// lockThread locks the calling goroutine to its thread, for threadCPU, until the
// returned function is called.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// threadCPU is the calling thread's CPU time so far (user and system; getrusage's
// RUSAGE_THREAD, Linux), 0 where it is not available.
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile returns the q-th quantile (nearest rank) of ds, 0 for none.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*q+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
