package preemption_test

import (
	"math/rand/v2"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// testHandle is a framework.Handle whose plugin runner is a real profile.
type testHandle struct {
	*fwkruntime.Framework
	c *cache.Cache
}

func (h testHandle) Snapshot() framework.Snapshot                       { return h.c }
func (h testHandle) Nominator() framework.Nominator                     { return h.c.Nominations() }
func (h testHandle) Parallelizer() framework.Parallelizer               { return framework.NewParallelizer(1) }
func (h testHandle) Binder() framework.Binder                           { return nil }
func (h testHandle) Preemption() framework.PreemptionActuator           { return nil }
func (h testHandle) GroupPreemption() framework.GroupPreemptionActuator { return nil }
func (h testHandle) Rand() *rand.Rand                                   { return rand.New(rand.NewPCG(1, 1)) }
func (h testHandle) Metrics() *metrics.Metrics                          { return metrics.New() }
func (h testHandle) ResourceClient() framework.ResourceClient           { return nil }

func handleOf(_ *testing.T, fwk *fwkruntime.Framework, c *cache.Cache) framework.Handle {
	return testHandle{Framework: fwk, c: c}
}

func metav1Now() metav1.Time { return metav1.Now() }
