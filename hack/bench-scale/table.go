package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// writeTable prints one row per scheduler and size, as Markdown; the ratio is phalanx's
// pods/s over kube-scheduler's in the same run.
func writeTable(out io.Writer, sizes []int, rows [][]*Result) {
	fmt.Fprintln(out, "| nodes | scheduler | bound before | pods | seconds | CPU s | pods/s | vs kube-scheduler | p99 pod cycle ms | p99 gang cycle ms | p99 gang cycle CPU ms | p99 gang cycle ms by kind | p99 gang cycle CPU ms by kind | bytes/node | bytes/pod | burst victims | wave pods | wave cycles s | wave CPU s | wave decisions s | wave seconds | wave victims |")
	fmt.Fprintln(out, "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for i, row := range rows {
		var kube *Result
		for _, r := range row {
			if r.Scheduler == "kube-scheduler" {
				kube = r
			}
		}
		for _, r := range row {
			ratio := ""
			if r.Scheduler == "phalanx" && kube != nil && kube.Seconds > 0 && r.Seconds > 0 && !r.TimedOut && !kube.TimedOut {
				ratio = fmt.Sprintf("%.1fx", rate(r)/rate(kube))
			}
			gang, gangCPU := ms(r.GangP99), ms(r.GangCPUP99)
			byKind, byKindCPU := byKind(r.GangKindP99), byKind(r.GangKindCPUP99)
			if r.Scheduler == "kube-scheduler" {
				gang, gangCPU, byKind, byKindCPU = "n/a (members as plain pods)", "n/a", "n/a", "n/a"
			}
			fmt.Fprintf(out, "| %d | %s | %d | %d | %s | %.1f | %.0f | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %d | %d | %.2f | %.1f | %s | %s | %d |\n",
				sizes[i], r.Scheduler, r.Bound, r.Pods, seconds(r.Seconds, r.TimedOut, r.Unbound), r.CPU, rate(r), ratio,
				ms(r.PodP99), gang, gangCPU, byKind, byKindCPU, r.BytesPerNode, r.BytesPerPod, r.BurstVictims,
				r.WavePods, r.WaveCycles, r.WaveCPU, decisions(r.WaveDecisions), seconds(r.WaveSeconds, r.WaveTimedOut, r.WaveUnbound), r.WaveVictims)
		}
	}
}

func rate(r *Result) float64 {
	if r.Seconds == 0 {
		return 0
	}
	return float64(r.Pods-r.Unbound) / r.Seconds
}

// byKind is a p99 for each of PendingGangKinds, in their order: "g64 31.0, g8 9.5,
// g16 40.2".
func byKind(p99 [3]time.Duration) string {
	parts := make([]string, len(p99))
	for i, d := range p99 {
		parts[i] = PendingGangKinds[i] + " " + ms(d)
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func seconds(s float64, timedOut bool, unbound int) string {
	if timedOut {
		return fmt.Sprintf("%.1f (timed out, %d unbound)", s, unbound)
	}
	return fmt.Sprintf("%.1f", s)
}

// decisions is the wave's decision time, "n/a" where the scheduler does not report it.
func decisions(s float64) string {
	if s < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", s)
}
