package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// printTable prints the results as one Markdown table: a row per workload and scheduler
// run, with the ratio of phalanx's pods/s to kube-scheduler's under the same limits, and
// how close each comes to the ceiling (the trivial binder's pods/s; for the preemption
// wave, the victims' grace period).
func printTable(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	find := func(workload, scheduler, limits string) *result {
		for i := range rs {
			if r := &rs[i]; r.Workload == workload && r.Scheduler == scheduler && (limits == "" || r.Limits == limits) {
				return r
			}
		}
		return nil
	}
	fmt.Fprintln(w, "| workload | scheduler | limits | pods | seconds | pods/s | CPU s | vs kube-scheduler | vs ceiling | never scheduled | failed attempts | bound marked SchedulerError | p99 s |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	order := []string{kindPhalanx, kindKubeScheduler, kindBinder}
	for _, wl := range workloads {
		var rows []*result
		for i := range rs {
			if rs[i].Workload == wl.name {
				rows = append(rows, &rs[i])
			}
		}
		slices.SortStableFunc(rows, func(a, b *result) int {
			if c := strings.Compare(a.Limits, b.Limits); c != 0 {
				return c
			}
			return slices.Index(order, a.Scheduler) - slices.Index(order, b.Scheduler)
		})
		ceiling := find(wl.name, kindBinder, "")
		for _, r := range rows {
			vsUpstream, vsCeiling := "", ""
			if up := find(wl.name, kindKubeScheduler, r.Limits); r.Scheduler == kindPhalanx && up != nil && up.PodsPerSec > 0 && r.PodsPerSec > 0 {
				vsUpstream = fmt.Sprintf("%.2fx", r.PodsPerSec/up.PodsPerSec)
			}
			switch {
			case r.Scheduler == kindBinder || r.Seconds == 0:
			case wl.name == "preemption" && r.Grace > 0:
				vsCeiling = fmt.Sprintf("%.2fx grace", r.Seconds/r.Grace)
			case ceiling != nil && ceiling.PodsPerSec > 0:
				vsCeiling = fmt.Sprintf("%.0f%%", 100*r.PodsPerSec/ceiling.PodsPerSec)
			}
			limits := r.Limits
			if r.Scheduler == kindBinder {
				limits = "none"
			}
			seconds, rate := "-", "-"
			if r.Seconds > 0 {
				seconds, rate = fmt.Sprintf("%.1f", r.Seconds), fmt.Sprintf("%.0f", r.PodsPerSec)
			}
			if r.Error != "" {
				seconds = "error"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %.1f | %s | %s | %d | %d | %d | %.1f |\n",
				wl.name, r.Scheduler, limits, r.Pods, seconds, rate, r.CPUSeconds, vsUpstream, vsCeiling,
				r.NeverScheduled, r.FailedAttempts, r.BoundMarkedError, r.P99)
		}
	}
	if find(kueueWorkload, kindKubeScheduler, "") != nil {
		fmt.Fprintln(w, "\nkueue: Indexed Jobs sent to a Kueue LocalQueue whose quota admits a few at a time; seconds from their creation to the last pod Running. phalanx's Jobs are gangs (a PodGroup each); kube-scheduler's are the same Jobs without gang semantics.")
	}
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(w, "\n%s (%s), %s: %s\n", r.Scheduler, r.Limits, r.Workload, r.Error)
		}
	}
	return nil
}
