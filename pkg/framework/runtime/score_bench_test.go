package runtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
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
