package schedulerdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// Phalanx runs phalanx's plugins, from its registry with their default arguments, over a
// cache holding a case's cluster.
type Phalanx struct {
	registry fwkruntime.Registry
	// current and cached are the last case and its cache, shared by the plugins compared
	// on it (none of them changes it).
	current *Case
	cached  *cache.Cache
	pod     *framework.PodInfo
}

// NewPhalanx returns the runner of phalanx's plugins.
func NewPhalanx() *Phalanx { return &Phalanx{registry: plugins.NewRegistry()} }

func phalanxVerdict(s *framework.Status) Verdict {
	return Verdict{Code: s.Code().String(), Reasons: s.Reasons()}
}

func (p *Phalanx) cache(c *Case) *cache.Cache {
	if p.current == c {
		return p.cached
	}
	cc := newCache(c)
	p.current, p.cached, p.pod = c, cc, framework.NewPodInfo(c.Pod)
	return cc
}

// newCache is phalanx's cache holding a case's cluster, with the namespaces and the
// storage objects every case shares (upstream's informers hold the same).
func newCache(c *Case) *cache.Cache {
	cc := cache.New()
	namespaces := Namespaces
	if c.Namespaces != nil {
		namespaces = c.Namespaces
	}
	for _, ns := range namespaces {
		cc.SetNamespace(ns)
	}
	if c.Storage != nil {
		setStorageObjects(cc, c.Storage)
	} else {
		setStorage(cc)
	}
	setDevices(cc, c)
	for _, n := range c.Nodes {
		cc.Nodes().AddNode(n)
	}
	for _, p := range c.Pods {
		if err := cc.Nodes().AddBoundPod(framework.NewPodInfo(p)); err != nil {
			panic(err) // a generator mistake: a bound pod on a node it does not have
		}
	}
	return cc
}

// Plugin runs one plugin on a case, as Upstream.Plugin does.
func (p *Phalanx) Plugin(ctx context.Context, name string, c *Case, scoreOn []string) (*PluginResult, error) {
	return p.PluginWith(ctx, name, nil, c, scoreOn)
}

// PluginWith runs one plugin, built with the given arguments (nil: its defaults), on a case.
func (p *Phalanx) PluginWith(ctx context.Context, name string, args json.RawMessage, c *Case, scoreOn []string) (*PluginResult, error) {
	cc := p.cache(c)
	factory, ok := p.registry[name]
	if !ok {
		return nil, fmt.Errorf("phalanx has no plugin %q", name)
	}
	pl, err := factory(args, &testutil.Handle{Cache: cc})
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	nodes := cc.NodeInfos()
	pod := p.pod
	state := framework.NewCycleState()
	res := &PluginResult{PreFilter: &Verdict{Code: "Success"}}
	filter, skipped := true, false
	if pf, ok := pl.(framework.PreFilterPlugin); ok {
		r, st := pf.PreFilter(ctx, state, pod)
		res.PreFilter, skipped = preFilterVerdict(phalanxVerdict(st))
		if r != nil && r.NodeNames != nil {
			res.PreFilterNodes = []string{}
			for n := range r.NodeNames {
				res.PreFilterNodes = append(res.PreFilterNodes, n)
			}
			slices.Sort(res.PreFilterNodes)
		}
		filter = st.IsSuccess() || skipped
	}
	if f, ok := pl.(framework.FilterPlugin); ok && filter {
		res.Filter = map[string]Verdict{}
		for _, n := range nodes {
			v := Verdict{Code: "Success"}
			if !skipped {
				v = phalanxVerdict(f.Filter(ctx, state, pod, n))
			}
			res.Filter[n.Name] = v
		}
	}
	if sp, ok := pl.(framework.ScorePlugin); ok && filter {
		var feasible []*framework.NodeInfo
		for _, n := range nodes {
			if slices.Contains(scoreOn, n.Name) {
				feasible = append(feasible, n)
			}
		}
		res.Score, res.ScoreError = p.score(ctx, sp, state, pod, feasible)
	}
	return res, nil
}

func (p *Phalanx) score(ctx context.Context, sp framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (map[string]int64, string) {
	out := map[string]int64{}
	for _, n := range nodes {
		out[n.Name] = 0
	}
	if ps, ok := sp.(framework.PreScorePlugin); ok {
		st := ps.PreScore(ctx, state, pod, nodes)
		if st.IsSkip() {
			return out, ""
		}
		if !st.IsSuccess() {
			return out, "PreScore: " + st.Code().String()
		}
	}
	list := make([]int64, len(nodes))
	for i, n := range nodes {
		s, st := sp.Score(ctx, state, pod, n)
		if !st.IsSuccess() {
			return out, "Score: " + st.Code().String()
		}
		list[i] = s
	}
	if ext := sp.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(ctx, state, pod, nodes, list); !st.IsSuccess() {
			return out, "NormalizeScore: " + st.Code().String()
		}
	}
	for i, s := range list {
		out[nodes[i].Name] = s
	}
	return out, ""
}

// Cycle runs a whole cycle through phalanx's default profile, as the scheduler builds it
// (pkg/framework/runtime): PreFilter, Filter on every node PreFilter allows, PreScore and
// the weighted, normalized scores.
func (p *Phalanx) Cycle(ctx context.Context, c *Case) (*CycleResult, error) {
	cc := p.cache(c)
	cfg := config.Default()
	f, err := fwkruntime.New(cfg.Profiles[0], field.NewPath("profiles").Index(0), p.registry, fwkruntime.Options{
		Snapshot:     cc,
		Nominator:    cc.Nominations(),
		Parallelizer: framework.NewParallelizer(1),
		Rand:         rand.New(rand.NewPCG(1, 2)),
	})
	if err != nil {
		return nil, err
	}
	pod := framework.NewPodInfo(c.Pod)
	state := framework.NewCycleState()
	res := &CycleResult{PreFilter: "Success", Totals: map[string]int64{}, Rejected: map[string]Verdict{}}
	r, st := f.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		res.PreFilter = st.Code().String()
		return res, nil
	}
	var feasible []*framework.NodeInfo
	for _, n := range cc.NodeInfos() {
		if r != nil && r.NodeNames != nil {
			if _, ok := r.NodeNames[n.Name]; !ok {
				continue
			}
		}
		if st := f.RunFilterPlugins(ctx, state, pod, n); !st.IsSuccess() {
			res.Rejected[n.Name] = phalanxVerdict(st)
			continue
		}
		feasible = append(feasible, n)
		res.Feasible = append(res.Feasible, n.Name)
	}
	slices.Sort(res.Feasible)
	if len(feasible) == 0 {
		return res, nil
	}
	if st := f.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
		res.PreFilter = "PreScore " + st.String()
		return res, nil
	}
	totals, st := f.RunScorePlugins(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		res.PreFilter = "Score " + st.String()
		return res, nil
	}
	for i, t := range totals {
		res.Totals[feasible[i].Name] = t
	}
	res.Best = best(res.Totals)
	return res, nil
}

// Has reports whether phalanx implements a plugin.
func (p *Phalanx) Has(name string) bool {
	_, ok := p.registry[name]
	return ok
}
