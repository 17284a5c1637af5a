package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

func TestNodes(t *testing.T) {
	for _, tc := range []struct {
		i                 int
		rack, block, zone string
		gpus              int64
		slice             bool
	}{
		{i: 0, rack: "r00000", block: "b0000", zone: "zone-0"},
		{i: 1, rack: "r00000", block: "b0000", zone: "zone-0", gpus: 8},
		{i: 16, rack: "r00001", block: "b0000", zone: "zone-0"},
		{i: 129, rack: "r00008", block: "b0001", zone: "zone-1", gpus: 8},
		{i: 3*128 + 1, rack: "r00024", block: "b0003", zone: "zone-3", slice: true}, // GPUs through DRA
		{i: 8*128 + 3, rack: "r00064", block: "b0008", zone: "zone-0", gpus: 8},
	} {
		n := Node(tc.i)
		got := []string{n.Labels[labelRack], n.Labels[labelBlock], n.Labels[labelZone]}
		if want := []string{tc.rack, tc.block, tc.zone}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("node %d: rack, block, zone = %v, want %v", tc.i, got, want)
		}
		q := n.Status.Allocatable[gpu]
		if q.Value() != tc.gpus {
			t.Errorf("node %d: %d GPUs, want %d", tc.i, q.Value(), tc.gpus)
		}
		if cpu := n.Status.Allocatable[v1.ResourceCPU]; cpu.Value() != 64 {
			t.Errorf("node %d: %d cpu, want 64", tc.i, cpu.Value())
		}
		if sl := Slice(tc.i); (sl != nil) != tc.slice || (sl != nil && len(sl.Spec.Devices) != 8) {
			t.Errorf("node %d: slice %v, want one of 8 devices: %v", tc.i, sl, tc.slice)
		}
	}
}

func TestBoundPods(t *testing.T) {
	spec := Spec{Nodes: 512}.defaulted()
	for _, tc := range []struct {
		i, pods, batch int
	}{
		{i: 0, pods: 4},           // a CPU node
		{i: 1, pods: 6, batch: 2}, // a GPU node of a busy rack (rack 0)
		{i: 17, pods: 4},          // a GPU node of a free rack (rack 1)
		{i: 3*128 + 1, pods: 4},   // a DRA node: its rack is never busy
		{i: 2*nodesPerRack + 3, pods: 6, batch: 2},
	} {
		pods := Bound(spec, tc.i)
		batch := 0
		for _, p := range pods {
			if p.Spec.NodeName != nodeName(tc.i) {
				t.Errorf("node %d: pod %s bound to %q", tc.i, p.Name, p.Spec.NodeName)
			}
			if strings.HasPrefix(p.Name, "batch-") {
				batch++
			}
		}
		if len(pods) != tc.pods || batch != tc.batch {
			t.Errorf("node %d: %d pods, %d batch; want %d, %d", tc.i, len(pods), batch, tc.pods, tc.batch)
		}
	}
}

func TestPendingPods(t *testing.T) {
	spec := Spec{Nodes: 1024, Pods: 770, Gangs: 3}.defaulted()
	var plain, dra, gangs, members, selectors, spread, anti int
	forEachPending(spec, func(p *v1.Pod, cl *resourceapi.ResourceClaim, g *Gang) {
		switch {
		case g != nil:
			gangs++
			members += len(g.Members)
		case cl != nil:
			dra++
		default:
			plain++
			if p.Spec.NodeSelector != nil {
				selectors++
			}
			if p.Spec.TopologySpreadConstraints != nil {
				spread++
			}
			if p.Spec.Affinity != nil {
				anti++
			}
		}
	})
	got := []int{plain, dra, gangs, members, selectors, spread, anti}
	want := []int{770, 19, 3, 64 + 8 + 16, 154, 110, 70}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("plain, DRA, gangs, members, selectors, spread, anti-affinity = %v, want %v", got, want)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-nodes", "100"},
		{"-nodes", "5000,x"},
		{"-schedulers", "volcano"},
		{"-pods", "-1"},
		{"-bogus"},
	} {
		err := run(args, &bytes.Buffer{})
		var usage usageError
		if !errors.As(err, &usage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestSmallRun runs both schedulers on the smallest cluster: every pod of the burst and
// of the wave is bound, and the wave preempts.
func TestSmallRun(t *testing.T) {
	spec := Spec{Nodes: minNodes, Pods: 200}.defaulted()
	for name, run := range map[string]func(context.Context, Spec, time.Duration) (*Result, error){
		"phalanx": runPhalanx, "kube-scheduler": runKube,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := run(context.Background(), spec, 5*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if res.TimedOut || res.Unbound != 0 || res.WaveTimedOut || res.WaveUnbound != 0 {
				t.Fatalf("%d of %d pods and %d of %d wave pods unbound", res.Unbound, res.Pods, res.WaveUnbound, res.WavePods)
			}
			if res.WaveVictims == 0 {
				t.Errorf("the wave preempted no pods")
			}
			if res.Pods != 200+5+spec.Gangs/3*(64+8+16)+64+8 || res.WavePods != spec.Wave*8 {
				t.Errorf("%d pods, %d wave pods", res.Pods, res.WavePods)
			}
		})
	}
}

// TestTable: every row has the header's columns, the ratio is phalanx's pods/s over
// kube-scheduler's, and phalanx's gang p99s by kind are in the kinds' order.
func TestTable(t *testing.T) {
	var out bytes.Buffer
	writeTable(&out, []int{5000}, [][]*Result{{
		{Scheduler: "phalanx", Pods: 1000, Seconds: 1,
			GangKindP99:    [3]time.Duration{31 * time.Millisecond, 9500 * time.Microsecond, 40200 * time.Microsecond},
			GangKindCPUP99: [3]time.Duration{25 * time.Millisecond, 8 * time.Millisecond, 33 * time.Millisecond}},
		{Scheduler: "kube-scheduler", Pods: 1000, Seconds: 20, TimedOut: false},
	}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if got, want := strings.Count(l, "|"), strings.Count(lines[0], "|"); got != want {
			t.Errorf("%d columns, want %d: %s", got-1, want-1, l)
		}
	}
	if !strings.Contains(lines[2], "| 20.0x |") {
		t.Errorf("phalanx's row has no ratio of 20.0x: %s", lines[2])
	}
	if !strings.Contains(lines[2], "| g64 31.0, g8 9.5, g16 40.2 | g64 25.0, g8 8.0, g16 33.0 |") {
		t.Errorf("phalanx's row has not the gang p99s by kind: %s", lines[2])
	}
}

// TestGangKind: the table's kinds name the burst's gangs in PendingGang's turn.
func TestGangKind(t *testing.T) {
	for g := range 6 {
		if got, want := GangKind(PendingGang(g).Group.Name), PendingGangKinds[g%3]; got != want {
			t.Errorf("gang %d: kind %q, want %q", g, got, want)
		}
	}
	if got := GangKind(WaveGang(0).Group.Name); got != "w" {
		t.Errorf("the wave's gang: kind %q, want w", got)
	}
}
