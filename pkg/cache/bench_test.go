package cache

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
)

// BenchmarkNominatedAdds: what every cycle of a preemption wave does before it filters,
// on 10,000 nodes running 4 pods each with 3,200 pods nominated (400 gangs of 8 waiting
// for their victims), the nodes in racks of 16 and blocks of 128 whose versions
// placements ask about: the nominated pods added and rolled back. "one by one" is the walk
// the cycles made before (a lookup of the node and the pod, then AddPod, per nomination),
// "walk" is AddNominatedPods. On a shared machine read cpu-ms/op, the process's CPU time
// per cycle's adds and rollback (garbage collection included), not ns/op.
func BenchmarkNominatedAdds(b *testing.B) {
	const nodes, perNode, nominated = 10000, 4, 3200
	c := New()
	for i := range nodes {
		c.Nodes().AddNode(node(fmt.Sprintf("n%05d", i)))
		for j := range perNode {
			p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("p%05d-%d", i, j),
				Labels: map[string]string{"app": fmt.Sprintf("a%d", j)}},
				Spec: v1.PodSpec{NodeName: fmt.Sprintf("n%05d", i), Containers: []v1.Container{{Name: "c",
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("1")}}}}}}
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(p)); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, size := range []int{16, 128} {
		for i := 0; i < nodes; i += size {
			c.NodeSetVersion(framework.NewNodeSet(c.NodeInfos()[i:min(i+size, nodes)]))
		}
	}
	for i := range nominated {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("w%05d", i),
			Labels: map[string]string{"group": fmt.Sprintf("g%d", i/8)}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"nvidia.com/gpu": apiresource.MustParse("4")}}}}}}
		c.Nominations().Nominate(framework.NewPodInfo(p), fmt.Sprintf("n%05d", (i*7)%nodes))
	}
	all := func(*framework.PodInfo) bool { return true }
	b.Run("one by one", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			cp := c.Checkpoint()
			c.Nominations().ForEachNominated(func(pi *framework.PodInfo, name string) {
				if !all(pi) || c.Get(name) == nil || c.Nodes().Pod(pi.Key) != nil {
					return
				}
				c.AddPod(pi, name)
			})
			c.Rollback(cp)
		}
	})
	b.Run("walk", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			cp := c.Checkpoint()
			c.AddNominatedPods(all)
			c.Rollback(cp)
		}
	})
}

// reportCPU starts counting the process's CPU time; the function it returns reports it
// per iteration as cpu-ms/op.
func reportCPU(b *testing.B) func() {
	cpu0 := cputime.Process()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		}
	}
}
