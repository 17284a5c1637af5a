package runtime_test

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/plugins/noderesources"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
)

// BenchmarkRunScorePlugins is the score loop's own cost: seven plugins that answer at once
// (as many as the default profile scores a plain pod with) over 6,500 nodes, what a pod
// scores at 130,000 nodes.
func BenchmarkRunScorePlugins(b *testing.B) {
	var pls []framework.Plugin
	var enabled []config.Plugin
	for k := range 7 {
		pl := &scorer{name: fmt.Sprintf("S%d", k), def: int64(10 * k)}
		pls = append(pls, pl)
		enabled = append(enabled, config.Plugin{Name: pl.name})
	}
	f, err := runtime.New(config.Profile{SchedulerName: "bench", Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}}, Enabled: enabled}}, profilePath, registryOf(pls...), options())
	if err != nil {
		b.Fatal(err)
	}
	nodes := nodeInfos(6500)
	b.ReportAllocs()
	for b.Loop() {
		if _, st := f.RunScorePlugins(context.Background(), framework.NewCycleState(), testPod, nodes); !st.IsSuccess() {
			b.Fatal(st)
		}
	}
}

// BenchmarkResourceScores is the two resource scores (NodeResourcesFit, least allocated,
// and BalancedAllocation, as the default profile has them) of pods of five request shapes,
// in turn, over 500 of 5,000 nodes (bench-sim's share), one node changing per cycle as a
// bind changes it.
func BenchmarkResourceScores(b *testing.B) {
	var nodes []*v1.Node
	for i := range 5000 {
		nodes = append(nodes, testutil.Node(fmt.Sprintf("n%04d", i)).Capacity("cpu", "32", "memory", "128Gi", "pods", "110").Obj())
	}
	c := testutil.NewCache(nodes, nil)
	f, err := runtime.New(config.Profile{SchedulerName: "bench", Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}},
		Enabled:  []config.Plugin{{Name: noderesources.FitName}, {Name: noderesources.BalancedAllocationName}}}},
		profilePath, plugins.NewRegistry(), runtime.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1)})
	if err != nil {
		b.Fatal(err)
	}
	var pods []*framework.PodInfo
	for k, req := range [][]string{{"cpu", "250m", "memory", "512Mi"}, {"cpu", "500m", "memory", "1Gi"}, {"cpu", "1", "memory", "2Gi"}, {"cpu", "2", "memory", "4Gi"}, {"cpu", "4", "memory", "8Gi"}} {
		pods = append(pods, testutil.Pod(fmt.Sprintf("p%d", k)).Req(req...).Info())
	}
	all := c.NodeInfos()
	cycle := 0
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		p := pods[cycle%len(pods)]
		start := cycle * 500 % len(all)
		scored := all[start : start+500]
		state := framework.NewCycleState()
		if st := f.RunPreScorePlugins(context.Background(), state, p, scored); !st.IsSuccess() {
			b.Fatal(st)
		}
		if _, st := f.RunScorePlugins(context.Background(), state, p, scored); !st.IsSuccess() {
			b.Fatal(st)
		}
		bound := testutil.Pod(fmt.Sprintf("bound%d", cycle)).Req("cpu", "100m", "memory", "100Mi").Node(all[cycle*7%len(all)].Name).Obj()
		if err := c.Nodes().AddBoundPod(framework.NewPodInfo(bound)); err != nil {
			b.Fatal(err)
		}
		cycle++
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e3, "cpu-us/op")
}
