package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// BenchmarkPreFilterInSimulation is what a gang cycle asks of the term indexes at scale:
// 20,000 nodes, each running a pod with required anti-affinity on the hostname (as
// bench-scale's web pods have), and per PreFilter one member simulated on a node and
// rolled back, as a placement search does between its uses of the plugin. Before
// decision 54 each PreFilter walked every node to find the one that changed.
func BenchmarkPreFilterInSimulation(b *testing.B) {
	const numNodes = 20000
	nodes := make([]*v1.Node, numNodes)
	pods := make([]*v1.Pod, numNodes)
	for i := range nodes {
		nodes[i] = testutil.Node(fmt.Sprintf("node-%d", i)).Labels("zone", fmt.Sprintf("z%d", i%50)).Obj()
		app := fmt.Sprintf("web-%d", i%100)
		pods[i] = pod(fmt.Sprintf("web-%d", i), "default", nodes[i].Name,
			aff{anti: []v1.PodAffinityTerm{term(v1.LabelHostname, "app", app)}}, "app", app)
	}
	c := testutil.NewCache(nodes, pods)
	pl := newPlugin(b, c, "")
	// The member spreads from its own kind, which nothing else matches: what is measured
	// is the index catching up, not the matching.
	member := framework.NewPodInfo(pod("member", "default", "", aff{anti: []v1.PodAffinityTerm{term(v1.LabelHostname, "app", "trainer")}}, "app", "trainer"))
	ctx := context.Background()
	pl.PreFilter(ctx, framework.NewCycleState(), member) // the first use walks
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cp := c.Checkpoint()
		c.AddPod(member, nodes[i%numNodes].Name)
		pl.PreFilter(ctx, framework.NewCycleState(), member)
		c.Rollback(cp)
		i += 7919
	}
}
