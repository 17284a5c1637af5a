package interpodaffinity

import (
	"context"
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
)

const (
	benchNodes = 5000
	benchPods  = 20000
	benchApps  = 2000 // 10 pods per app
)

var benchCluster = sync.OnceValue(func() *cache.Cache {
	nodes := make([]*v1.Node, benchNodes)
	for i := range nodes {
		nodes[i] = testutil.Node(fmt.Sprintf("node-%d", i)).
			Labels("zone", fmt.Sprintf("z%d", i%50), "region", fmt.Sprintf("r%d", i%5)).Obj()
	}
	pods := make([]*v1.Pod, benchPods)
	for i := range pods {
		pods[i] = benchPod(i, nodes[(i*7)%benchNodes].Name)
	}
	return testutil.NewCache(nodes, pods)
})

// benchPod: one app in ten spreads its pods with required anti-affinity on the hostname
// (2,000 such pods), one in twenty prefers its zone.
func benchPod(i int, node string) *v1.Pod {
	app := fmt.Sprintf("app-%d", i%benchApps)
	var a aff
	if i%benchApps%10 == 0 {
		a.anti = []v1.PodAffinityTerm{term(v1.LabelHostname, "app", app)}
	}
	if i%benchApps%20 == 5 {
		a.prefAff = []v1.WeightedPodAffinityTerm{weighted(10, term("zone", "app", app))}
	}
	return pod(fmt.Sprintf("pod-%d", i), "default", node, a, "app", app, "tier", fmt.Sprintf("t%d", i%3))
}

var benchIncoming = map[string]*v1.Pod{
	// No terms, but the existing anti-affinity terms must be checked against it.
	"plain": pod("in", "default", "", aff{}, "app", "app-new"),
	// Anti-affinity to its own app (whose pods have it too), the usual way to spread.
	"anti-hostname": pod("in", "default", "", aff{anti: []v1.PodAffinityTerm{term(v1.LabelHostname, "app", "app-10")}}, "app", "app-10"),
	// Affinity to another app's zone.
	"affinity-zone": pod("in", "default", "", aff{req: []v1.PodAffinityTerm{term("zone", "app", "app-7")}}, "app", "app-new"),
	// The worst case: anti-affinity matching a third of all pods (6,667).
	"anti-region-tier": pod("in", "default", "", aff{anti: []v1.PodAffinityTerm{term("region", "tier", "t1")}}, "app", "app-new"),
}

func BenchmarkPreFilter(b *testing.B) {
	c := benchCluster()
	pl := newPlugin(b, c, "")
	for name, p := range benchIncoming {
		pi := framework.NewPodInfo(p)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pl.PreFilter(context.Background(), framework.NewCycleState(), pi)
			}
		})
	}
}

// BenchmarkPreFilterFilter is one cycle's worth of this plugin's filtering: PreFilter then
// Filter on all 5,000 nodes, on one goroutine. On a shared machine read cpu-ms/op, the
// process's CPU time per cycle.
func BenchmarkPreFilterFilter(b *testing.B) {
	c := benchCluster()
	pl := newPlugin(b, c, "")
	ctx := context.Background()
	nodes := c.NodeInfos()
	for name, p := range benchIncoming {
		pi := framework.NewPodInfo(p)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				state := framework.NewCycleState()
				if _, st := pl.PreFilter(ctx, state, pi); st.IsSkip() {
					continue
				}
				for _, n := range nodes {
					pl.Filter(ctx, state, pi, n)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

func BenchmarkPreScore(b *testing.B) {
	c := benchCluster()
	pl := newPlugin(b, c, "")
	pi := framework.NewPodInfo(pod("in", "default", "", aff{prefAnti: []v1.WeightedPodAffinityTerm{weighted(10, term(v1.LabelHostname, "app", "app-3"))}}, "app", "app-3"))
	b.ReportAllocs()
	for b.Loop() {
		pl.PreScore(context.Background(), framework.NewCycleState(), pi, nil)
	}
}
