package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// addGang adds a rack-constrained gang of size members, each asking for one GPU.
func addGang(s *Scheduler, name string, size int) {
	s.AddPodGroup(rackGroup(name, int32(size), 0))
	for m := range size {
		s.AddPod(testutil.Pod(fmt.Sprintf("%s-%d", name, m)).Labels(v1alpha1.LabelPodGroup, name).
			Req("cpu", "1", "nvidia.com/gpu", "1").Lim("nvidia.com/gpu", "1").Obj())
	}
}

// nodeUse counts the nodes a run left whole (no GPU used) and those it left partly used.
func nodeUse(s *Scheduler) (whole, partial int) {
	for _, n := range s.cache.NodeInfos() {
		used := 0
		for _, p := range n.Pods {
			if strings.Contains(p.Key, "gang") {
				used++
			}
		}
		switch {
		case used == 0:
			whole++
		case used < 8:
			partial++
		}
	}
	return whole, partial
}

// TestPackingKeepsNodesWhole measures what node packing inside a placement does to
// fragmentation: a rack of eight 8-GPU nodes receives gangs of 1-GPU members one after the
// other. With packing, the gangs fill nodes one by one and leave the most nodes whole for
// a later 8-GPU job; without it (packingWeight 0, the profile's spreading scores alone),
// they are scattered over partly used nodes.
func TestPackingKeepsNodesWhole(t *testing.T) {
	sizes := []int{3, 5, 2, 6, 4, 3, 5}
	run := func(pack int) (whole, partial int) {
		cfg := defaultConfigWithArgs(t, "TopologyPlacement", fmt.Sprintf(`{"packingWeight": %d}`, pack))
		s, fc, _ := newTestScheduler(t, cfg)
		for i := range 8 {
			s.AddNode(testutil.Node(fmt.Sprintf("gpu-%d", i)).Labels(rackKey, "rack-a").
				Capacity("cpu", "64", "memory", "256Gi", "nvidia.com/gpu", "8").Obj())
		}
		total := 0
		for g, size := range sizes {
			addGang(s, fmt.Sprintf("gang-%d", g), size)
			total += size
			drain(s)
		}
		if len(fc.binds) != total {
			t.Fatalf("packingWeight %d: %d members bound, want %d", pack, len(fc.binds), total)
		}
		return nodeUse(s)
	}
	packedWhole, packedPartial := run(5)
	spreadWhole, spreadPartial := run(0)
	t.Logf("28 GPUs of 64 in gangs %v: packing leaves %d whole nodes and %d partly used; spreading %d whole and %d partly used",
		sizes, packedWhole, packedPartial, spreadWhole, spreadPartial)
	// 28 GPUs fill three nodes and part of a fourth at best.
	if packedWhole != 4 || packedPartial != 1 {
		t.Errorf("packing: %d whole and %d partly used nodes, want 4 and 1", packedWhole, packedPartial)
	}
	if spreadWhole >= packedWhole {
		t.Errorf("spreading left %d whole nodes, packing %d: packing should keep more whole", spreadWhole, packedWhole)
	}
}

// reservingPlugin is a PlacementState plugin standing in for a DRA one: it refuses the
// placements whose names it is given and records its calls.
type reservingPlugin struct {
	refuse  string
	calls   []string
	assumed string
}

func (p *reservingPlugin) Name() string { return "Reserving" }
func (p *reservingPlugin) AssumePlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, pl *framework.Placement) *framework.Status {
	p.calls = append(p.calls, "assume "+pl.Name)
	if strings.Contains(pl.Name, p.refuse) {
		return framework.NewStatus(framework.Unschedulable, "no devices free in "+pl.Name)
	}
	p.assumed = pl.Name
	return nil
}
func (p *reservingPlugin) RevertPlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, pl *framework.Placement) {
	p.calls = append(p.calls, "revert "+pl.Name)
	p.assumed = ""
}

// TestPlacementStatePlugin checks the PlacementState extension point: every placement
// evaluated is assumed and reverted in pairs, and one the plugin refuses is not chosen,
// even when it would score best.
func TestPlacementStatePlugin(t *testing.T) {
	pl := &reservingPlugin{refuse: "rack-b"}
	reg := plugins.NewRegistry()
	reg["Reserving"] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) { return pl, nil }
	cfg := config.Default()
	cfg.Profiles[0].Plugins.Enabled = []config.Plugin{{Name: "Reserving"}}
	fc := &fakeCluster{binds: map[string]string{}}
	s, err := New(Options{Config: cfg, Registry: reg, Clock: &fixedClock{t: time.Unix(1000, 0)}, Client: fc, Exec: inline{}, Logger: klog.Background(), AnySchedulerName: true})
	if err != nil {
		t.Fatal(err)
	}
	fc.s = s
	// rack-b is the tighter fit, so bin packing would pick it.
	s.AddNode(testutil.Node("a-1").Labels(rackKey, "rack-a").Capacity("cpu", "8", "memory", "8Gi").Obj())
	s.AddNode(testutil.Node("b-1").Labels(rackKey, "rack-b").Capacity("cpu", "4", "memory", "8Gi").Obj())
	s.AddPodGroup(rackGroup("g", 2, 0))
	for m := range 2 {
		s.AddPod(testutil.Pod(fmt.Sprintf("g-%d", m)).Labels(v1alpha1.LabelPodGroup, "g").Req("cpu", "2").Obj())
	}
	drain(s)
	if fc.binds["default/g-0"] != "a-1" || fc.binds["default/g-1"] != "a-1" {
		t.Errorf("binds %v, want both members on a-1", fc.binds)
	}
	for i := 0; i < len(pl.calls); i++ {
		c := pl.calls[i]
		if strings.HasPrefix(c, "assume") && !strings.Contains(c, "rack-b") {
			if i+1 >= len(pl.calls) || pl.calls[i+1] != "revert"+strings.TrimPrefix(c, "assume") {
				t.Errorf("calls %q: %q is not followed by its revert", pl.calls, c)
			}
		}
		if strings.HasPrefix(c, "revert") && strings.Contains(c, "rack-b") {
			t.Errorf("calls %q: a refused placement was reverted", pl.calls)
		}
	}
	if !slices.Contains(pl.calls, "assume example.com/rack=rack-b") || pl.assumed != "" {
		t.Errorf("calls %q, assumed %q at the end", pl.calls, pl.assumed)
	}
}

// TestPlacementLimit checks that the search stops at FeasiblePlacementsToFind feasible
// placements and counts its stages in the metrics.
func TestPlacementLimit(t *testing.T) {
	cfg := config.Default()
	cfg.FeasiblePlacementsToFind = 3
	s, fc, _ := newTestScheduler(t, cfg)
	for r := range 10 {
		s.AddNode(testutil.Node(fmt.Sprintf("n-%d", r)).Labels(rackKey, fmt.Sprintf("rack-%d", r)).Capacity("cpu", "4", "memory", "8Gi").Obj())
	}
	// Two racks are too small for the gang.
	s.AddPod(testutil.Pod("busy-0").Req("cpu", "3").Node("n-0").Obj())
	s.AddPod(testutil.Pod("busy-1").Req("cpu", "3").Node("n-1").Obj())
	s.AddPodGroup(rackGroup("g", 2, 0))
	for m := range 2 {
		s.AddPod(testutil.Pod(fmt.Sprintf("g-%d", m)).Labels(v1alpha1.LabelPodGroup, "g").Req("cpu", "2").Obj())
	}
	drain(s)
	if len(fc.binds) != 2 {
		t.Fatalf("binds %v, want the gang bound", fc.binds)
	}
	got := map[string]float64{}
	mfs, err := s.metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "scheduler_podgroup_placements_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{"generated": 10, "evaluated": 3, "feasible": 3}
	for stage, n := range want {
		if got[stage] != n {
			t.Errorf("placements %s = %v, want %v (all: %v)", stage, got[stage], n, got)
		}
	}
	// Pruning happens as the search walks the list: at most the two small racks.
	if got["pruned"] > 2 {
		t.Errorf("placements pruned = %v, want at most 2", got["pruned"])
	}
}
