package schedulerdiff

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	metricstestutil "k8s.io/component-base/metrics/testutil"
	fwk "k8s.io/kube-scheduler/framework"
	upconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	phcache "github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	phframework "github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
)

// The sequence comparison runs a profile whose plugins can sign pods: the default plugins
// with PodTopologySpread's defaultingType List and no default constraints (with the system
// defaults, kube-scheduler v1.37.2 signs no pod and never batches).
var listDefaulting = []byte(`{"defaultingType":"List"}`)

// Sequence is a cluster and the pods to schedule one after the other, each assumed where it
// goes before the next.
type Sequence struct {
	Case *Case
	Pods []*v1.Pod
}

// Step is one pod's outcome: where it went ("" : nowhere, or PreFilter rejected it), and
// whether it took the hint its batch gave.
type Step struct {
	Node   string
	Hinted bool
	// Failed: the cycle failed with an error (a Filter, PreScore or Score plugin's, such as
	// an in-tree volume the CSI translation refuses): the pod is not placed, and nothing is
	// stored for the next pod's hint.
	Failed bool
}

// UpstreamBatch schedules a sequence as kube-scheduler v1.37.2's schedulePod does with
// OpportunisticBatching: a framework (frameworkruntime.NewFramework, so with its
// OpportunisticBatch) of the compared plugins; per pod PreFilter, GetNodeHint, the hint
// filtered first (evaluateNominatedNode), else Filter on every node (the cases have fewer
// than 100 nodes: every node is filtered), Score, the sorted nodes' head chosen and the rest
// stored (StoreScheduleResults), the pod assumed in the snapshot.
type UpstreamBatch struct {
	*upstreamFramework
}

// NewUpstreamBatch builds the framework with the named plugins (and PrioritySort,
// DefaultBinder).
func NewUpstreamBatch(ctx context.Context, names []string) (*UpstreamBatch, error) {
	def, err := defaultProfile()
	if err != nil {
		return nil, err
	}
	prof := narrowProfile(def, names)
	for i, pc := range prof.PluginConfig {
		if pc.Name == "PodTopologySpread" {
			args := pc.Args.(*upconfig.PodTopologySpreadArgs).DeepCopy()
			args.DefaultingType, args.DefaultConstraints = upconfig.ListDefaulting, nil
			prof.PluginConfig[i] = upconfig.PluginConfig{Name: pc.Name, Args: args}
		}
	}
	fw, err := newUpstreamFramework(ctx, frameworkOptions{profile: prof, namespaces: Namespaces, objects: StorageObjects()})
	if err != nil {
		return nil, err
	}
	fw.start(ctx)
	return &UpstreamBatch{fw}, nil
}

// Expired is how many times kube-scheduler's batch state was found older than its 500ms
// maxBatchAge (its batch_cache_flushed_total{reason="expired"}). Its OpportunisticBatch
// reads the wall clock, which no option replaces: a sequence's cycles run back to back, and
// only a machine under load spaces two of them that far apart; phalanx's side runs on a
// clock that stands still (ScheduleBatched), so a sequence during which kube-scheduler's
// state expired is run again (TestBatchedSequenceAgrees).
func (u *UpstreamBatch) Expired() float64 {
	v, err := metricstestutil.GetCounterMetricValue(metrics.BatchCacheFlushed.WithLabelValues(u.fh.ProfileName(), metrics.BatchFlushExpired))
	if err != nil {
		panic(err)
	}
	return v
}

// snapshot puts the cluster with the pods placed so far in the snapshot.
func (u *UpstreamBatch) snapshot(c *Case, placed []*v1.Pod) {
	pods := append(slices.Clone(c.Pods), placed...)
	u.lister.Snapshot = cache.NewSnapshot(pods, c.Nodes)
	nodes, err := u.lister.NodeInfos().List()
	if err != nil {
		panic(err)
	}
	liveCacheImageSizes(c.Nodes, nodes)
	u.dra.use(c)
}

// Guide is what phalanx did with one pod of a sequence, given to kube-scheduler for what
// it leaves to chance: the node phalanx chose, and the feasible nodes in the order phalanx's
// scan found them.
type Guide struct {
	Node  string
	Order []string
}

// Schedule runs the sequence's pods in cycles first..first+len-1. guides, when not nil,
// says for each pod what phalanx did; ties are the one thing kube-scheduler leaves to
// chance, to the order its parallel filter happens to find the feasible nodes in:
//   - in a cycle that scores afresh, the node phalanx chose gets the highest tie-breaker
//     (the other nodes get phalanx's, podfit.TieBreak), so that kube-scheduler's heap pops
//     it whenever its total is the highest;
//   - the nodes are filtered in the order phalanx's scan found them (the others after, by
//     name), so that the scores kube-scheduler stores are laid out in its heap as phalanx's
//     are: a node scored again for a batch has no tie-breaker of its own on either side,
//     and between two such nodes of equal total the heap's layout decides which is hinted.
//     (The snapshot lists its nodes in a map's order, a different one in every run.)
func (u *UpstreamBatch) Schedule(ctx context.Context, s *Sequence, first int64, guides []Guide) []Step {
	var placed []*v1.Pod
	steps := make([]Step, len(s.Pods))
	for i, pod := range s.Pods {
		cycle := first + int64(i)
		u.snapshot(s.Case, placed)
		pod = pod.DeepCopy()
		state := framework.NewCycleState()
		preRes, st, _ := u.fh.RunPreFilterPlugins(ctx, state, pod)
		if !st.IsSuccess() {
			continue
		}
		sig := u.fh.SignPod(ctx, pod)
		hint := u.fh.GetNodeHint(ctx, pod, sig, state, cycle)
		var feasible []fwk.NodeInfo
		failed := false
		if hint != "" {
			if ni, err := u.lister.NodeInfos().Get(hint); err == nil {
				switch st := u.fh.RunFilterPlugins(ctx, state, pod, ni); {
				case st.IsSuccess():
					feasible = []fwk.NodeInfo{ni}
				case st.Code() == fwk.Error:
					// evaluateNominatedNode returns the error: the cycle fails.
					failed = true
				}
			}
		}
		if feasible == nil && !failed {
			nodes, err := u.lister.NodeInfos().List()
			if err != nil {
				panic(err)
			}
			if guides != nil {
				nodes = inOrder(nodes, guides[i].Order)
			}
			for _, ni := range nodes {
				if !preRes.AllNodes() && !preRes.NodeNames.Has(ni.Node().Name) {
					continue
				}
				switch st := u.fh.RunFilterPlugins(ctx, state, pod, ni); {
				case st.IsSuccess():
					feasible = append(feasible, ni)
				case st.Code() == fwk.Error:
					// findNodesThatPassFilters stops on an error: the cycle fails.
					failed = true
				}
				if failed {
					break
				}
			}
		}
		if failed {
			steps[i] = Step{Failed: true}
			continue
		}
		var chosen string
		switch len(feasible) {
		case 0:
			continue
		case 1:
			chosen = feasible[0].Node().Name
			u.fh.StoreScheduleResults(ctx, sig, hint, chosen, nil, cycle)
		default:
			if st := u.fh.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
				steps[i] = Step{Failed: true}
				continue
			}
			scores, st := u.fh.RunScorePlugins(ctx, state, pod, feasible)
			if !st.IsSuccess() {
				steps[i] = Step{Failed: true}
				continue
			}
			for j := range scores {
				scores[j].Randomizer = int(podfit.TieBreak(cycle, scores[j].Name))
				if guides != nil && scores[j].Name == guides[i].Node {
					scores[j].Randomizer = math.MaxInt
				}
			}
			sorted := framework.NewSortedScoredNodes(scores)
			chosen = sorted.Pop().Name
			u.fh.StoreScheduleResults(ctx, sig, hint, chosen, sorted, cycle)
		}
		steps[i] = Step{Node: chosen, Hinted: hint != "" && hint == chosen}
		pod.Spec.NodeName = chosen
		placed = append(placed, pod)
	}
	return steps
}

// inOrder returns the nodes in the given order of names, the nodes it does not name after
// them, by name.
func inOrder(nodes []fwk.NodeInfo, order []string) []fwk.NodeInfo {
	rank := make(map[string]int, len(order))
	for i, name := range order {
		rank[name] = i
	}
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b fwk.NodeInfo) int {
		ra, oka := rank[a.Node().Name]
		rb, okb := rank[b.Node().Name]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a.Node().Name, b.Node().Name)
	})
	return out
}

// stillClock is a clock that stands still: a sequence's cycles follow each other at once,
// and a batch's age is never what decides (UpstreamBatch.Expired).
type stillClock struct{}

func (stillClock) Now() time.Time { return time.Unix(0, 0) }

// ScheduleBatched runs the sequence through phalanx's pod cycle: the default profile with
// PodTopologySpread's defaultingType List, podfit's FindNodes and SelectNodeBatched with the
// pod's signature, the pod assumed in the cache, on a clock that stands still. The guides say, for each pod, where it
// went and the order phalanx's scan found its feasible nodes in (UpstreamBatch.Schedule).
func (p *Phalanx) ScheduleBatched(ctx context.Context, s *Sequence, first int64) ([]Step, []Guide, error) {
	cc := newCache(s.Case)
	cfg := config.Default()
	prof := cfg.Profiles[0]
	prof.PluginConfig = append(prof.PluginConfig, config.PluginConfig{Name: "PodTopologySpread", Args: listDefaulting})
	rnd := rand.New(rand.NewPCG(1, 2))
	f, err := fwkruntime.New(prof, field.NewPath("profiles").Index(0), p.registry, fwkruntime.Options{
		Snapshot: cc, Nominator: cc.Nominations(), Parallelizer: phframework.NewParallelizer(1), Rand: rnd,
	})
	if err != nil {
		return nil, nil, err
	}
	fit := podfit.New(podfit.Options{Snapshot: cc, Nominator: cc.Nominations(), Parallelizer: phframework.NewParallelizer(1), Rand: rnd,
		Clock: stillClock{}}).For(f)
	steps := make([]Step, len(s.Pods))
	guides := make([]Guide, len(s.Pods))
	for i, pod := range s.Pods {
		pi := phframework.NewPodInfo(pod.DeepCopy())
		bc := &podfit.BatchCycle{Signature: f.SignPod(ctx, pi), Cycle: first + int64(i)}
		before := fit.BatchedPods()
		node, err := scheduleOne(ctx, cc, fit, pi, bc, &guides[i])
		if err != nil {
			// The cycle failed (a plugin's error), as kube-scheduler's does.
			steps[i] = Step{Failed: true}
			continue
		}
		steps[i] = Step{Node: node, Hinted: fit.BatchedPods() > before}
		guides[i].Node = node
	}
	return steps, guides, nil
}

func scheduleOne(ctx context.Context, cc *phcache.Cache, fit podfit.Profile, pi *phframework.PodInfo, bc *podfit.BatchCycle, g *Guide) (string, error) {
	state := phframework.NewCycleState()
	feasible, _, err := fit.FindNodes(ctx, state, pi, podfit.Query{Batch: bc})
	if err != nil || len(feasible) == 0 {
		return "", err
	}
	for _, n := range feasible {
		g.Order = append(g.Order, n.Name)
	}
	node, err := fit.SelectNodeBatched(ctx, state, pi, feasible, bc)
	if err != nil {
		return "", err
	}
	pi.Pod.Spec.NodeName = node
	return node, cc.Nodes().AssumePod(pi, node)
}
