package schedulerdiff

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// swapLister is the snapshot upstream's plugins read: the framework handle, and the
// informers behind it, are made once, and each case puts its own snapshot here.
type swapLister struct{ *cache.Snapshot }

// Upstream runs kube-scheduler v1.37.2's plugins, built from its in-tree registry with the
// arguments of its default profile, on a fake framework handle as its own plugin tests do.
type Upstream struct {
	*upstreamFramework
	// current and nodes are the case the snapshot holds, and its nodes.
	current *Case
	nodes   []fwk.NodeInfo
	plugins map[string]fwk.Plugin
	// registry builds plugins with other arguments (Build), on the framework's handle.
	registry frameworkruntime.Registry
	// Weights are the default profile's score weights.
	Weights map[string]int64
	// Order is the default profile's plugin order.
	Order []string
}

// NewUpstream builds the named plugins of kube-scheduler's default profile.
func NewUpstream(ctx context.Context, names []string) (*Upstream, error) {
	return NewUpstreamIn(ctx, names, Namespaces)
}

// NewUpstreamIn is NewUpstream with other namespaces in its informers (those of an
// upstream test table; the cases run on it must name the same, see Case.Namespaces).
func NewUpstreamIn(ctx context.Context, names []string, namespaces []*v1.Namespace) (*Upstream, error) {
	return NewUpstreamWith(ctx, names, namespaces, StorageObjects())
}

// NewUpstreamWith is NewUpstreamIn with other storage objects in its informers (those of
// an upstream test table: see Case.Storage) instead of the fixed storage universe.
func NewUpstreamWith(ctx context.Context, names []string, namespaces []*v1.Namespace, storage []runtime.Object) (*Upstream, error) {
	prof, err := defaultProfile()
	if err != nil {
		return nil, err
	}
	args := map[string]runtime.Object{}
	for _, pc := range prof.PluginConfig {
		args[pc.Name] = pc.Args
	}
	u := &Upstream{plugins: map[string]fwk.Plugin{}, Weights: map[string]int64{}}
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		u.Order = append(u.Order, p.Name)
		// As upstream's framework (getValidScoreWeights): a score plugin listed without
		// a weight (VolumeBinding) weighs 1.
		u.Weights[p.Name] = max(int64(p.Weight), 1)
	}
	u.upstreamFramework, err = newUpstreamFramework(ctx, frameworkOptions{namespaces: namespaces, objects: storage})
	if err != nil {
		return nil, err
	}
	u.registry = plugins.NewInTreeRegistry()
	for _, name := range names {
		factory, ok := u.registry[name]
		if !ok {
			return nil, fmt.Errorf("kube-scheduler has no plugin %q", name)
		}
		pl, err := factory(ctx, args[name], u.fh)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", name, err)
		}
		u.plugins[name] = pl
	}
	u.start(ctx)
	return u, nil
}

func upstreamVerdict(s *fwk.Status) Verdict {
	if s == nil { // upstream's Reasons does not accept a nil (successful) status
		return Verdict{Code: fwk.Success.String()}
	}
	return Verdict{Code: s.Code().String(), Reasons: s.Reasons()}
}

// use puts a case's cluster in the snapshot the plugins read and returns its nodes; the
// plugins compared on one case share it (none of them changes it).
func (u *Upstream) use(c *Case) []fwk.NodeInfo {
	if u.current == c {
		return u.nodes
	}
	u.lister.Snapshot = cache.NewSnapshot(c.Pods, c.Nodes)
	nodes, err := u.lister.NodeInfos().List()
	if err != nil {
		panic(err) // a snapshot's own list never fails
	}
	liveCacheImageSizes(c.Nodes, nodes)
	u.dra.use(c)
	u.current, u.nodes = c, nodes
	return nodes
}

// liveCacheImageSizes gives every node's entry of an image the size the node listed first
// gave it, as kube-scheduler's live cache does (its imageStates keep the size of the node
// that added the name); the test snapshot NewSnapshot builds gives each node its own size
// instead, which no running kube-scheduler reads. "First" is in the case's order, the order
// phalanx's cache is fed in (the snapshot's own list comes from a map, in no order).
func liveCacheImageSizes(added []*v1.Node, nodes []fwk.NodeInfo) {
	first := map[string]int64{}
	for _, n := range added {
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				if _, seen := first[name]; !seen {
					first[name] = img.SizeBytes
				}
			}
		}
	}
	for _, n := range nodes {
		for name, st := range n.GetImageStates() {
			if size, ok := first[name]; ok {
				st.Size = size
			}
		}
	}
}

// Plugin runs one plugin on a case: PreFilter, Filter on every node, and the scores of the
// nodes scoreOn names (the feasible ones, as in a cycle).
func (u *Upstream) Plugin(ctx context.Context, name string, c *Case, scoreOn []string) *PluginResult {
	return u.Run(ctx, u.plugins[name], c, scoreOn)
}

// Build makes one of kube-scheduler's plugins with the given arguments (its internal
// configuration type, as its own tests pass them), on the handle the default ones share.
func (u *Upstream) Build(ctx context.Context, name string, args runtime.Object) (fwk.Plugin, error) {
	factory, ok := u.registry[name]
	if !ok {
		return nil, fmt.Errorf("kube-scheduler has no plugin %q", name)
	}
	pl, err := factory(ctx, args, u.fh)
	// The informers the plugin asked for (InterPodAffinity's namespaces) start now.
	u.start(ctx)
	return pl, err
}

// Run runs a plugin on a case as Plugin does.
func (u *Upstream) Run(ctx context.Context, pl fwk.Plugin, c *Case, scoreOn []string) *PluginResult {
	nodes := u.use(c)
	state := framework.NewCycleState()
	res := &PluginResult{PreFilter: &Verdict{Code: "Success"}}
	filter, skipped := true, false
	if pf, ok := pl.(fwk.PreFilterPlugin); ok {
		r, st := pf.PreFilter(ctx, state, c.Pod, nodes)
		res.PreFilter, skipped = preFilterVerdict(upstreamVerdict(st))
		if r != nil && r.NodeNames != nil {
			res.PreFilterNodes = []string{}
			for n := range r.NodeNames {
				res.PreFilterNodes = append(res.PreFilterNodes, n)
			}
			slices.Sort(res.PreFilterNodes)
		}
		filter = st.IsSuccess() || skipped
	}
	if f, ok := pl.(fwk.FilterPlugin); ok && filter {
		res.Filter = map[string]Verdict{}
		for _, n := range nodes {
			v := Verdict{Code: "Success"}
			if !skipped {
				v = upstreamVerdict(f.Filter(ctx, state, c.Pod, n))
			}
			res.Filter[n.Node().Name] = v
		}
	}
	// A cycle scores only after PreFilter let the pod through (a rejection writes no state).
	if sp, ok := pl.(fwk.ScorePlugin); ok && filter {
		var feasible []fwk.NodeInfo
		for _, n := range nodes {
			if slices.Contains(scoreOn, n.Node().Name) {
				feasible = append(feasible, n)
			}
		}
		res.Score, res.ScoreError = u.score(ctx, sp, state, c.Pod, feasible)
	}
	return res
}

func (u *Upstream) score(ctx context.Context, sp fwk.ScorePlugin, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (map[string]int64, string) {
	out := map[string]int64{}
	for _, n := range nodes {
		out[n.Node().Name] = 0
	}
	if ps, ok := sp.(fwk.PreScorePlugin); ok {
		st := ps.PreScore(ctx, state, pod, nodes)
		if st.IsSkip() {
			return out, ""
		}
		if !st.IsSuccess() {
			return out, "PreScore: " + st.Code().String()
		}
	}
	list := make(fwk.NodeScoreList, len(nodes))
	for i, n := range nodes {
		s, st := sp.Score(ctx, state, pod, n)
		if !st.IsSuccess() {
			return out, "Score: " + st.Code().String()
		}
		list[i] = fwk.NodeScore{Name: n.Node().Name, Score: s}
	}
	if ext := sp.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
			return out, "NormalizeScore: " + st.Code().String()
		}
	}
	for _, s := range list {
		out[s.Name] = s.Score
	}
	return out, ""
}

// Cycle runs a whole scheduling cycle with the plugins it was built with, in the default
// profile's order: PreFilter and Filter give the feasible nodes, and their weighted,
// normalized scores the best ones.
func (u *Upstream) Cycle(ctx context.Context, c *Case) *CycleResult {
	res, state, plugins, feasible := u.filterCycle(ctx, c)
	if len(feasible) == 0 {
		return res
	}
	for _, pl := range plugins {
		sp, ok := pl.(fwk.ScorePlugin)
		if !ok {
			continue
		}
		scores, errMsg := u.score(ctx, sp, state, c.Pod, feasible)
		if errMsg != "" {
			res.PreFilter = pl.Name() + " " + errMsg
			return res
		}
		for n, s := range scores {
			res.Totals[n] += s * u.Weights[pl.Name()]
		}
	}
	res.Best = best(res.Totals)
	return res
}

// Feasible returns the nodes that pass every plugin's PreFilter and Filter: the nodes a
// cycle scores, and so those the plugins' scores are compared on.
func (u *Upstream) Feasible(ctx context.Context, c *Case) []string {
	res, _, _, _ := u.filterCycle(ctx, c)
	return res.Feasible
}

func (u *Upstream) filterCycle(ctx context.Context, c *Case) (*CycleResult, fwk.CycleState, []fwk.Plugin, []fwk.NodeInfo) {
	nodes := u.use(c)
	state := framework.NewCycleState()
	res := &CycleResult{PreFilter: "Success", Totals: map[string]int64{}, Rejected: map[string]Verdict{}}
	var plugins []fwk.Plugin
	for _, name := range u.Order {
		if pl, ok := u.plugins[name]; ok {
			plugins = append(plugins, pl)
		}
	}
	allowed := map[string]bool{}
	for _, n := range nodes {
		allowed[n.Node().Name] = true
	}
	skip := map[string]bool{}
	var merged *fwk.PreFilterResult
	for _, pl := range plugins {
		pf, ok := pl.(fwk.PreFilterPlugin)
		if !ok {
			continue
		}
		r, st := pf.PreFilter(ctx, state, c.Pod, nodes)
		if st.IsSkip() {
			skip[pl.Name()] = true
			continue
		}
		if !st.IsSuccess() {
			res.PreFilter = st.Code().String()
			return res, state, plugins, nil
		}
		// As upstream's framework: the results merged, and an empty intersection rejects
		// the pod (a narrowed set that names no existing node does not).
		merged = merged.Merge(r)
		if !merged.AllNodes() && len(merged.NodeNames) == 0 {
			res.PreFilter = fwk.UnschedulableAndUnresolvable.String()
			return res, state, plugins, nil
		}
	}
	if !merged.AllNodes() {
		for n := range allowed {
			if !merged.NodeNames.Has(n) {
				delete(allowed, n)
			}
		}
	}
	var feasible []fwk.NodeInfo
nodes:
	for _, n := range nodes {
		if !allowed[n.Node().Name] {
			continue
		}
		for _, pl := range plugins {
			if f, ok := pl.(fwk.FilterPlugin); ok && !skip[pl.Name()] {
				if st := f.Filter(ctx, state, c.Pod, n); !st.IsSuccess() {
					if !st.IsRejected() {
						// As kube-scheduler's framework (RunFilterPlugins) reports an error.
						st = fwk.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), st.AsError()))
					}
					res.Rejected[n.Node().Name] = upstreamVerdict(st)
					continue nodes
				}
			}
		}
		feasible = append(feasible, n)
		res.Feasible = append(res.Feasible, n.Node().Name)
		res.Totals[n.Node().Name] = 0
	}
	slices.Sort(res.Feasible)
	return res, state, plugins, feasible
}
