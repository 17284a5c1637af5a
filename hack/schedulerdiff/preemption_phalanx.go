package schedulerdiff

import (
	"context"
	"math/rand/v2"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
)

// preemptionHandle is the handle phalanx's pod evaluator is given, as its own tests build
// it (pkg/preemption/internal/preempttest): the default profile's plugins over the cache.
type preemptionHandle struct {
	*fwkruntime.Framework
	c *cache.Cache
}

func (h preemptionHandle) Snapshot() framework.Snapshot                       { return h.c }
func (h preemptionHandle) Nominator() framework.Nominator                     { return h.c.Nominations() }
func (h preemptionHandle) Parallelizer() framework.Parallelizer               { return framework.NewParallelizer(1) }
func (h preemptionHandle) Binder() framework.Binder                           { return nil }
func (h preemptionHandle) Preemption() framework.PreemptionActuator           { return nil }
func (h preemptionHandle) GroupPreemption() framework.GroupPreemptionActuator { return nil }
func (h preemptionHandle) Rand() *rand.Rand                                   { return rand.New(rand.NewPCG(1, 1)) }
func (h preemptionHandle) Metrics() *metrics.Metrics                          { return metrics.New() }
func (h preemptionHandle) ResourceClient() framework.ResourceClient           { return nil }
func (h preemptionHandle) ProfileName() string                                { return "default-scheduler" }
func (h preemptionHandle) Clock() framework.Clock                             { return framework.WallClock{} }

// Preempt runs a cycle of phalanx's default profile for the case's pod and, when it fits
// nowhere, the pod evaluator DefaultPreemption uses (pkg/preemption) with its default
// arguments, as the plugin's PostFilter does; nothing is carried out.
func (p *Phalanx) Preempt(ctx context.Context, c *Case) (*PreemptionResult, error) {
	cc := newCache(c)
	setBudgets(cc)
	cfg := config.Default()
	f, err := fwkruntime.New(cfg.Profiles[0], field.NewPath("profiles").Index(0), p.registry, fwkruntime.Options{
		Snapshot:     cc,
		Nominator:    cc.Nominations(),
		Parallelizer: framework.NewParallelizer(1),
		Rand:         rand.New(rand.NewPCG(1, 2)),
		Metrics:      metrics.New(),
	})
	if err != nil {
		return nil, err
	}
	pod := framework.NewPodInfo(c.Pod)
	state := framework.NewCycleState()
	res := &PreemptionResult{}
	r, st := f.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		res.Outcome = OutcomeRejected
		return res, nil
	}
	filtered := framework.NewNodeToStatus()
	for _, n := range cc.NodeInfos() {
		if r != nil && r.NodeNames != nil {
			if _, ok := r.NodeNames[n.Name]; !ok {
				filtered.Set(n.Name, framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) PreFilter"))
				continue
			}
		}
		st := f.RunFilterPlugins(ctx, state, pod, n)
		if st.Code() == framework.Error {
			res.Outcome = OutcomeError
			return res, nil
		}
		if st.IsSuccess() {
			res.Outcome = OutcomeFits
		}
		filtered.Set(n.Name, st)
	}
	if res.Outcome == OutcomeFits {
		return res, nil
	}
	exact, err := preemption.ExactSearchBound(nil)
	if err != nil {
		return nil, err
	}
	e, err := preemption.NewPodEvaluator(preemptionHandle{Framework: f, c: cc}, nil, nil, exact)
	if err != nil {
		return nil, err
	}
	out, err := e.Preempt(ctx, state, pod, filtered)
	if err != nil {
		res.Outcome = OutcomeError
		return res, nil
	}
	if out.Candidate == nil {
		res.Outcome = OutcomeNoCandidate
		return res, nil
	}
	res.Outcome = OutcomePreempts
	res.Node = out.Candidate.Node.Name
	var victims []string
	for _, v := range out.Candidate.Victims {
		victims = append(victims, v.Pod.Namespace+"/"+v.Pod.Name)
	}
	res.Victims = map[string][]string{res.Node: sortedNames(victims)}
	return res, nil
}
