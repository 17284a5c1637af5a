package podtopologyspread

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
)

// benchCluster is 5,000 nodes in 50 zones with 20,000 pods, 4 per node, split over apps
// (one app: every pod matches the incoming pod's selector).
func benchCluster(b *testing.B, apps int) (*PodTopologySpread, []*framework.NodeInfo) {
	b.Helper()
	const numNodes, numZones, podsPerNode = 5000, 50, 4
	nodes := make([]*v1.Node, numNodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%04d", i)
		nodes[i] = node(name, v1.LabelTopologyZone, fmt.Sprintf("zone-%02d", i%numZones), hostname, name, "pool", fmt.Sprint(i%2))
	}
	pods := make([]*v1.Pod, 0, numNodes*podsPerNode)
	for i := range numNodes * podsPerNode {
		pods = append(pods, bound(fmt.Sprintf("p-%05d", i), nodes[i%numNodes].Name, "app", fmt.Sprintf("app-%03d", i%apps), "tier", "backend"))
	}
	pl, c := setup(b, nil, nodes, pods)
	return pl, c.NodeInfos()
}

func benchPod(kind v1.UnsatisfiableConstraintAction, nodeSelector bool) *framework.PodInfo {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app-000"}}
	b := incoming([]string{"app", "app-000", "tier", "backend"},
		spread(1, v1.LabelTopologyZone, kind, sel), spread(1, hostname, kind, sel))
	if nodeSelector {
		b.NodeSelector("pool", "0")
	}
	return framework.NewPodInfo(b.Obj())
}

// BenchmarkPreFilterFilter measures one scheduling cycle's share of this plugin: PreFilter,
// then Filter on every node.
func BenchmarkPreFilterFilter(b *testing.B) {
	for _, bc := range []struct {
		name         string
		apps         int
		nodeSelector bool
	}{
		{name: "20000-matching-pods", apps: 1},
		{name: "200-matching-pods", apps: 100},
		{name: "20000-matching-pods-nodeSelector", apps: 1, nodeSelector: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pl, nodes := benchCluster(b, bc.apps)
			p := benchPod(v1.DoNotSchedule, bc.nodeSelector)
			ctx := context.Background()
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				state := framework.NewCycleState()
				if _, st := pl.PreFilter(ctx, state, p); !st.IsSuccess() {
					b.Fatal(st)
				}
				for _, n := range nodes {
					pl.Filter(ctx, state, p, n)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkFilter is Filter alone on one node, the per-node cost in the parallel loop.
func BenchmarkFilter(b *testing.B) {
	pl, nodes := benchCluster(b, 1)
	p := benchPod(v1.DoNotSchedule, false)
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, p); !st.IsSuccess() {
		b.Fatal(st)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		pl.Filter(ctx, state, p, nodes[i%len(nodes)])
		i++
	}
}

// BenchmarkPreScoreScore is PreScore over 500 filtered nodes (kube-scheduler's adaptive
// share of 5,000), then Score and NormalizeScore on them.
func BenchmarkPreScoreScore(b *testing.B) {
	pl, nodes := benchCluster(b, 1)
	p := benchPod(v1.ScheduleAnyway, false)
	filtered := nodes[:500]
	ctx := context.Background()
	scores := make([]int64, len(filtered))
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		state := framework.NewCycleState()
		if st := pl.PreScore(ctx, state, p, filtered); !st.IsSuccess() {
			b.Fatal(st)
		}
		for i, n := range filtered {
			s, _ := pl.Score(ctx, state, p, n)
			scores[i] = s
		}
		pl.NormalizeScore(ctx, state, p, filtered, scores)
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkCyclesAsPodsBind is make bench-sim's spreading in small: 5,000 nodes, 20,000
// pods of 200 apps bound, and per iteration one pod of the next app spread over zones
// (DoNotSchedule) and hosts (ScheduleAnyway) through PreFilter and PreScore on 500 nodes,
// then seven pods bound, of seven apps in turn, so that between two pods of one app seven
// of its pods arrived. The walk costs the app's pods bound; the kept counts, the changes.
func BenchmarkCyclesAsPodsBind(b *testing.B) {
	const numNodes, numZones, apps = 5000, 50, 200
	nodes := make([]*v1.Node, numNodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%04d", i)
		nodes[i] = node(name, v1.LabelTopologyZone, fmt.Sprintf("zone-%02d", i%numZones), hostname, name)
	}
	appOf := func(i int) string { return fmt.Sprintf("app-%03d", i%apps) }
	var pods []*v1.Pod
	for i := range 4 * numNodes {
		pods = append(pods, bound(fmt.Sprintf("p-%06d", i), nodes[i%numNodes].Name, "app", appOf(i)))
	}
	pl, c := setup(b, nil, nodes, pods)
	infos := c.NodeInfos()
	ctx := context.Background()
	next := len(pods)
	b.ReportAllocs()
	cpu0 := cputime.Process()
	i := 0
	for b.Loop() {
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": appOf(i)}}
		p := framework.NewPodInfo(incoming([]string{"app", appOf(i)},
			spread(1, v1.LabelTopologyZone, v1.DoNotSchedule, sel), spread(1, hostname, v1.ScheduleAnyway, sel)).Obj())
		state := framework.NewCycleState()
		if _, st := pl.PreFilter(ctx, state, p); !st.IsSuccess() {
			b.Fatal(st)
		}
		start := (i * 500) % (numNodes - 500)
		if st := pl.PreScore(ctx, state, p, infos[start:start+500]); !st.IsSuccess() {
			b.Fatal(st)
		}
		for range 7 {
			pod := bound(fmt.Sprintf("p-%06d", next), infos[(next*7)%numNodes].Name, "app", appOf(next))
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(pod)); err != nil {
				b.Fatal(err)
			}
			next++
		}
		i++
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}
