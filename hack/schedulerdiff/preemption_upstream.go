package schedulerdiff

import (
	"context"
	"math"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
)

// UpstreamPreemption runs kube-scheduler v1.37.2's DefaultPreemption as its own tests do
// (default_preemption_test.go): a framework with the compared filter plugins of the
// default profile, a scheduling queue as nominator, and the plugin's Evaluator, whose
// DryRunPreemption (SelectVictimsOnNode on every node where preemption might help) and
// SelectCandidate are driven directly; nothing is actuated.
type UpstreamPreemption struct {
	*upstreamFramework
	pl *defaultpreemption.DefaultPreemption
}

// NewUpstreamPreemption builds the framework with the named plugins and DefaultPreemption
// with its default arguments (feature gates off, as its own tests build it: every pod is a
// victim of its own).
func NewUpstreamPreemption(ctx context.Context, names []string) (*UpstreamPreemption, error) {
	def, err := defaultProfile()
	if err != nil {
		return nil, err
	}
	var dpArgs runtime.Object
	for _, pc := range def.PluginConfig {
		if pc.Name == defaultpreemption.Name {
			dpArgs = pc.Args
		}
	}
	fw, err := newUpstreamFramework(ctx, frameworkOptions{profile: narrowProfile(def, names), namespaces: Namespaces,
		objects: append(StorageObjects(), BudgetObjects()...), mutableSnapshot: true})
	if err != nil {
		return nil, err
	}
	pl, err := defaultpreemption.New(ctx, dpArgs, fw.fh, feature.Features{})
	if err != nil {
		return nil, err
	}
	fw.start(ctx)
	return &UpstreamPreemption{upstreamFramework: fw, pl: pl}, nil
}

// Preempt runs a cycle's PreFilter and Filter for the case's pod and, when it fits
// nowhere, DefaultPreemption's dry run and choice.
func (u *UpstreamPreemption) Preempt(ctx context.Context, c *Case) (*PreemptionResult, error) {
	u.lister.Snapshot = cache.NewSnapshot(c.Pods, c.Nodes)
	u.dra.use(c)
	nodes, err := u.lister.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	state := framework.NewCycleState()
	res := &PreemptionResult{}
	r, st, _ := u.fh.RunPreFilterPlugins(ctx, state, c.Pod)
	if !st.IsSuccess() {
		res.Outcome = OutcomeRejected
		return res, nil
	}
	var potential []fwk.NodeInfo
	fits := false
	for _, n := range nodes {
		if !r.AllNodes() && !r.NodeNames.Has(n.Node().Name) {
			continue
		}
		st := u.fh.RunFilterPluginsWithNominatedPods(ctx, state, c.Pod, n)
		switch {
		case st.IsSuccess():
			fits = true
		case st.Code() == fwk.Error:
			// kube-scheduler's cycle fails on a Filter error, whatever other nodes say.
			res.Outcome = OutcomeError
			return res, nil
		case st.Code() == fwk.Unschedulable:
			potential = append(potential, n)
		}
	}
	if fits {
		res.Outcome = OutcomeFits
		return res, nil
	}
	res.Outcome = OutcomeNoCandidate
	if len(potential) == 0 {
		return res, nil
	}
	// Every potential node is simulated (offset 0): with at most 8 nodes the plugin's
	// minimum of 100 candidates takes them all, so its offset changes only the order.
	_, num := u.pl.GetOffsetAndNumCandidates(int32(len(potential)))
	// The budgets as the evaluator's Preempt lists them for its dry run.
	pdbs, err := u.pl.Evaluator.PdbLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	cands, _, err := u.pl.Evaluator.DryRunPreemption(ctx, state, c.Pod, potential, pdbs, 0, num)
	if err != nil && len(cands) == 0 {
		// As the evaluator's Preempt: errors count only when no node is a candidate.
		res.Outcome = OutcomeError
		return res, nil
	}
	if len(cands) == 0 {
		return res, nil
	}
	best := u.pl.Evaluator.SelectCandidate(ctx, cands)
	res.Outcome = OutcomePreempts
	res.Node = best.Name()
	res.Victims = map[string][]string{}
	for _, cd := range cands {
		res.Victims[cd.Name()] = podNames(cd.Victims().Pods)
		res.BudgetsInPlay = res.BudgetsInPlay || cd.Victims().NumPDBViolations > 0
	}
	res.Tied = tiedCandidates(cands)
	return res, nil
}

func podNames(pods []*v1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return sortedNames(out)
}

// sortedNames sorts names, an empty list for none.
func sortedNames(names []string) []string {
	out := append([]string{}, names...)
	slices.Sort(out)
	return out
}

// tiedCandidates are the candidates kube-scheduler's pickOneNodeForPreemption cannot tell
// apart by its deterministic criteria (PDB violations, highest victim priority, sum of
// shifted priorities, number of victims), sorted: its last criterion, the latest start
// time, reads time.Now() for pods without a start time (every generated pod), and its
// final tie-break is the first candidate in an order its random offset and goroutines
// make, so among these it chooses arbitrarily.
func tiedCandidates(cands []preemption.Candidate) []string {
	key := func(c preemption.Candidate) [4]int64 {
		v := c.Victims()
		var sum int64
		top := int64(math.MinInt32)
		for _, p := range v.Pods {
			sum += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
			top = max(top, int64(corev1helpers.PodPriority(p)))
		}
		return [4]int64{v.NumPDBViolations, top, sum, int64(len(v.Pods))}
	}
	var best [4]int64
	var out []string
	for i, c := range cands {
		k := key(c)
		switch cmp := slices.Compare(k[:], best[:]); {
		case i == 0 || cmp < 0:
			best, out = k, []string{c.Name()}
		case cmp == 0:
			out = append(out, c.Name())
		}
	}
	slices.Sort(out)
	return out
}
