// Package preempttest is what the tests of pod preemption (pkg/preemption) and of group
// preemption (pkg/preemption/group) share: a handle that runs a real profile over a cache,
// and builders of the clusters they preempt in. It is for tests only.
package preempttest

import (
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// handle is a framework.Handle whose plugin runner is a real profile.
type handle struct {
	*fwkruntime.Framework
	c *cache.Cache
}

func (h handle) Snapshot() framework.Snapshot                       { return h.c }
func (h handle) Nominator() framework.Nominator                     { return h.c.Nominations() }
func (h handle) Parallelizer() framework.Parallelizer               { return framework.NewParallelizer(1) }
func (h handle) Binder() framework.Binder                           { return nil }
func (h handle) Preemption() framework.PreemptionActuator           { return nil }
func (h handle) GroupPreemption() framework.GroupPreemptionActuator { return nil }
func (h handle) Rand() *rand.Rand                                   { return rand.New(rand.NewPCG(1, 1)) }
func (h handle) Metrics() *metrics.Metrics                          { return metrics.New() }
func (h handle) ResourceClient() framework.ResourceClient           { return nil }
func (h handle) ProfileName() string                                { return "default-scheduler" }
func (h handle) Clock() framework.Clock                             { return framework.WallClock{} }

// Handle is a handle over c whose plugins are fwk's: what an evaluator is given.
func Handle(fwk *fwkruntime.Framework, c *cache.Cache) framework.Handle {
	return handle{Framework: fwk, c: c}
}

// PodGroup is a gang in namespace default; all makes it a preemption unit of disruption
// mode All.
func PodGroup(name string, priority, minCount int32, all bool) *framework.GroupInfo {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	pg.Spec.SchedulingPolicy.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: minCount}
	if all {
		pg.Spec.DisruptionMode = &v1alpha1.DisruptionMode{All: &v1alpha1.AllDisruptionMode{}}
	}
	return &framework.GroupInfo{PodGroup: pg, Key: "default/" + name, Priority: priority}
}

// Low is a running pod of a lower priority than the preemptor.
func Low(name string, priority int32, cpu, node string) *v1.Pod {
	return testutil.Pod(name).Priority(priority).Req("cpu", cpu).Node(node).Obj()
}

// CPUNodes are nodes with that much cpu.
func CPUNodes(cpu string, names ...string) []*v1.Node {
	var out []*v1.Node
	for _, n := range names {
		out = append(out, testutil.Node(n).Capacity("cpu", cpu).Obj())
	}
	return out
}

// Deleting marks p as being deleted: it is leaving, nobody's victim.
func Deleting(p *v1.Pod) *v1.Pod {
	now := metav1.Now()
	p.DeletionTimestamp = &now
	return p
}

// Names are the pods' names, in order.
func Names(pods []*framework.PodInfo) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Pod.Name)
	}
	return out
}
