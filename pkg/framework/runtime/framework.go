package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// Framework is one profile: its plugins, in order, at each extension point.
type Framework struct {
	schedulerName string
	snapshot      framework.Snapshot
	nominator     framework.Nominator
	parallelizer  framework.Parallelizer

	plugins            []framework.Plugin
	queueSort          framework.QueueSortPlugin
	preEnqueue         []framework.PreEnqueuePlugin
	groupPreEnqueue    []framework.GroupPreEnqueuePlugin
	podGroupPostFilter []framework.PodGroupPostFilterPlugin
	placementGenerate  []framework.PlacementGeneratePlugin
	placementState     []framework.PlacementStatePlugin
	placementScore     []weightedPlacementScore
	preFilter          []framework.PreFilterPlugin
	filter             []framework.FilterPlugin
	staticFilter       []framework.StaticFilterPlugin
	precheck           []framework.StaticPrecheckPlugin
	dynamicFilter      []framework.FilterPlugin
	postFilter         []framework.PostFilterPlugin
	preScore           []framework.PreScorePlugin
	score              []weightedScore
	reserve            []framework.ReservePlugin
	permit             []framework.PermitPlugin
	preBind            []framework.PreBindPlugin
	bind               []framework.BindPlugin
	enqueueEvents      map[string][]framework.ClusterEvent
	hints              map[string]framework.QueueingHintPlugin
	scoreScratch       [][]int64
	totalsScratch      []int64
	memoScratch        []*keyScores
	missedScratch      []bool
	errsScratch        []*framework.Status
	// metrics times the extension points and, in sampled cycles, the plugins (nil: no
	// metrics); cycles counts PreFilter runs, for the sampling (metrics.go).
	metrics *metrics.FrameworkRecorder
	cycles  uint64
	// signers are the SignPlugins of PreFilter, Filter, PreScore and Score, each once;
	// signable is false when some plugin there cannot sign (sign.go).
	signers  []framework.SignPlugin
	signable bool
	unsigned []string
	// preFilterSkips and preScoreSkips hand out the cycle states' skip sets (skipsets.go).
	preFilterSkips, preScoreSkips *skipSets
}

type weightedScore struct {
	framework.ScorePlugin
	weight int64
	// memo remembers the scores of a ScoreKeyPlugin (nil for other plugins).
	memo *scoreMemo
}

// Options are the pieces of the scheduler a framework's plugins see.
type Options struct {
	Snapshot     framework.Snapshot
	Nominator    framework.Nominator
	Parallelizer framework.Parallelizer
	// Binder makes binding calls for the default Bind plugin.
	Binder framework.Binder
	// Preemption carries out preemptions.
	Preemption framework.PreemptionActuator
	// GroupPreemption carries out preemptions for pod groups.
	GroupPreemption framework.GroupPreemptionActuator
	// Rand is the scheduler's seeded generator.
	Rand *rand.Rand
	// Metrics are the scheduler's metrics.
	Metrics *metrics.Metrics
	// ResourceClient writes storage and DRA objects for PreBind plugins (nil: none).
	ResourceClient framework.ResourceClient
	// Clock is the scheduler's clock (nil: the wall clock).
	Clock framework.Clock
}

// New builds a profile's plugins: the defaults minus the disabled ones, then the enabled
// ones, each with its arguments, at every extension point it implements; then each
// point's own set changes that point (pluginsets.go). Errors name the profile field at
// fault.
func New(profile config.Profile, path *field.Path, registry Registry, opts Options) (*Framework, error) {
	f := &Framework{
		schedulerName: profile.SchedulerName,
		snapshot:      opts.Snapshot,
		nominator:     opts.Nominator,
		parallelizer:  opts.Parallelizer,
		enqueueEvents: map[string][]framework.ClusterEvent{},
		hints:         map[string]framework.QueueingHintPlugin{},
		metrics:       opts.Metrics.Framework(profile.SchedulerName),
	}
	pluginsPath := path.Child("plugins")
	if err := checkNames(profile.Plugins, pluginsPath, registry); err != nil {
		return nil, err
	}
	args := map[string][]byte{}
	for _, pc := range profile.PluginConfig {
		args[pc.Name] = pc.Args
	}
	multi := multiPoint(profile.Plugins)
	// One instance per plugin, wherever it is enabled: the multi-point ones in order,
	// then those only a point's set enables.
	var names []string
	for _, e := range multi {
		names = append(names, e.name)
	}
	for _, ps := range profile.Plugins.Points() {
		for _, e := range ps.Set.Enabled {
			if !slices.Contains(names, e.Name) {
				names = append(names, e.Name)
			}
		}
	}
	handle := &handle{f: f, opts: opts}
	instances := map[string]framework.Plugin{}
	for _, name := range names {
		factory, ok := registry[name]
		if !ok {
			return nil, fmt.Errorf("%s: default plugin %q is not registered", path, name)
		}
		pl, err := factory(args[name], handle)
		if err != nil {
			return nil, fmt.Errorf("%s: plugin %s: %w", path.Child("pluginConfig"), name, err)
		}
		instances[name] = pl
		f.plugins = append(f.plugins, pl)
		if p, ok := pl.(framework.EnqueueExtensions); ok {
			f.enqueueEvents[name] = p.EventsToRegister()
		}
		if p, ok := pl.(framework.QueueingHintPlugin); ok {
			f.hints[name] = p
		}
	}
	for name := range args {
		if instances[name] == nil {
			return nil, field.Invalid(path.Child("pluginConfig"), name, "arguments for a plugin that is not enabled")
		}
	}
	for _, ps := range profile.Plugins.Points() {
		implements := implementers[ps.Point]
		for i, e := range ps.Set.Enabled {
			if !implements(instances[e.Name]) {
				return nil, field.Invalid(pluginsPath.Child(ps.Point, "enabled").Index(i).Child("name"), e.Name,
					"the plugin does not implement the "+ps.Point+" extension point")
			}
		}
		for _, e := range atPoint(multi, *ps.Set, func(name string) bool { return implements(instances[name]) }) {
			weight := int64(e.weight)
			if weight == 0 {
				weight = 1
			}
			f.add(ps.Point, instances[e.name], weight)
		}
	}
	f.computeSigners()
	f.preFilterSkips, f.preScoreSkips = newSkipSets(pluginNames(f.preFilter)), newSkipSets(pluginNames(f.preScore))
	return f, nil
}

// add enables a plugin at one extension point of the configuration.
func (f *Framework) add(point string, pl framework.Plugin, weight int64) {
	switch point {
	case config.QueueSort:
		if p, ok := pl.(framework.QueueSortPlugin); ok && f.queueSort == nil {
			f.queueSort = p
		}
	case config.PreEnqueue:
		if p, ok := pl.(framework.PreEnqueuePlugin); ok {
			f.preEnqueue = append(f.preEnqueue, p)
		}
		if p, ok := pl.(framework.GroupPreEnqueuePlugin); ok {
			f.groupPreEnqueue = append(f.groupPreEnqueue, p)
		}
	case config.PostFilter:
		if p, ok := pl.(framework.PostFilterPlugin); ok {
			f.postFilter = append(f.postFilter, p)
		}
		if p, ok := pl.(framework.PodGroupPostFilterPlugin); ok {
			f.podGroupPostFilter = append(f.podGroupPostFilter, p)
		}
	case config.PlacementGenerate:
		if p, ok := pl.(framework.PlacementGeneratePlugin); ok {
			f.placementGenerate = append(f.placementGenerate, p)
		}
		if p, ok := pl.(framework.PlacementStatePlugin); ok {
			f.placementState = append(f.placementState, p)
		}
	case config.PlacementScore:
		f.placementScore = append(f.placementScore, weightedPlacementScore{pl.(framework.PlacementScorePlugin), weight})
	case config.PreFilter:
		f.preFilter = append(f.preFilter, pl.(framework.PreFilterPlugin))
	case config.Filter:
		p := pl.(framework.FilterPlugin)
		f.filter = append(f.filter, p)
		// A plugin with a static precheck is still a dynamic filter; only plugins that
		// are static and nothing else have their Filter cached.
		if pc, ok := p.(framework.StaticPrecheckPlugin); ok {
			f.precheck = append(f.precheck, pc)
			f.dynamicFilter = append(f.dynamicFilter, p)
		} else if sp, ok := p.(framework.StaticFilterPlugin); ok {
			f.staticFilter = append(f.staticFilter, sp)
		} else {
			f.dynamicFilter = append(f.dynamicFilter, p)
		}
	case config.PreScore:
		f.preScore = append(f.preScore, pl.(framework.PreScorePlugin))
	case config.Score:
		ws := weightedScore{ScorePlugin: pl.(framework.ScorePlugin), weight: weight}
		if _, ok := pl.(framework.ScoreKeyPlugin); ok {
			ws.memo = &scoreMemo{}
		}
		f.score = append(f.score, ws)
	case config.Reserve:
		f.reserve = append(f.reserve, pl.(framework.ReservePlugin))
	case config.Permit:
		f.permit = append(f.permit, pl.(framework.PermitPlugin))
	case config.PreBind:
		f.preBind = append(f.preBind, pl.(framework.PreBindPlugin))
	case config.Bind:
		f.bind = append(f.bind, pl.(framework.BindPlugin))
	}
}

// QueueSort returns the profile's QueueSort plugin, or nil.
func (f *Framework) QueueSort() framework.QueueSortPlugin { return f.queueSort }

// SchedulerName is the profile's scheduler name.
func (f *Framework) SchedulerName() string { return f.schedulerName }

// Plugins returns the plugin instances in order.
func (f *Framework) Plugins() []framework.Plugin { return f.plugins }

// EventsToRegister returns, per plugin, the events that may undo its rejection. A plugin
// without EnqueueExtensions is absent: any event may help it.
func (f *Framework) EventsToRegister() map[string][]framework.ClusterEvent { return f.enqueueEvents }

// QueueingHint returns the queueing hint of a plugin, or nil when it has none.
func (f *Framework) QueueingHint(plugin string) framework.QueueingHintPlugin { return f.hints[plugin] }

// HasPostFilter reports whether any PostFilter plugin is enabled.
func (f *Framework) HasPostFilter() bool { return len(f.postFilter) > 0 }

// RunPreEnqueuePlugins returns the first non-success status.
func (f *Framework) RunPreEnqueuePlugins(ctx context.Context, p *framework.PodInfo) (st *framework.Status) {
	if len(f.preEnqueue) == 0 {
		return nil
	}
	defer func(start time.Time) { f.observePoint(metrics.PreEnqueue, st, start) }(f.pointStart())
	for _, pl := range f.preEnqueue {
		if s := pl.PreEnqueue(ctx, p); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunGroupPreEnqueuePlugins returns the first non-success status of the group gates.
func (f *Framework) RunGroupPreEnqueuePlugins(ctx context.Context, g *framework.GroupInfo, pending []*framework.PodInfo, running int) *framework.Status {
	for _, pl := range f.groupPreEnqueue {
		if s := pl.PreEnqueueGroup(ctx, g, pending, running); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunPodGroupPostFilterPlugins runs the PodGroupPostFilter plugins in order until one
// succeeds (KEP-5710); the reasons of those that did not are joined.
func (f *Framework) RunPodGroupPostFilterPlugins(ctx context.Context, attempt *framework.GroupAttempt) (_ *framework.PodGroupPostFilterResult, st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.PodGroupPostFilter, st, start) }(f.pointStart())
	var reasons []string
	var result *framework.PodGroupPostFilterResult
	for _, pl := range f.podGroupPostFilter {
		r, s := pl.PodGroupPostFilter(ctx, attempt)
		if s.IsSuccess() {
			return r, nil
		}
		if s.Code() == framework.Error {
			return nil, s.WithPlugin(pl.Name())
		}
		if r != nil {
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
	}
	return result, framework.NewStatus(framework.Unschedulable, reasons...)
}

// RunPreFilterPlugins runs PreFilter; the node sets of their results are intersected. A
// plugin returning Skip has its Filter skipped for this cycle.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo) (_ *framework.PreFilterResult, st *framework.Status) {
	f.sample(state)
	defer func(start time.Time) { f.observePoint(metrics.PreFilter, st, start) }(f.pointStart())
	var result *framework.PreFilterResult
	var narrowing []string
	// skipped marks the plugins that returned Skip, recorded in the state however the
	// run ends.
	var skipped uint64
	if f.preFilterSkips.tracked() {
		defer func() { state.SkipFilterPlugins = f.preFilterSkips.with(state.SkipFilterPlugins, skipped) }()
	}
	for i, pl := range f.preFilter {
		start := pluginStart(state)
		r, s := pl.PreFilter(ctx, state, p)
		observePlugin(state, metrics.PreFilter, pl.Name(), s, start)
		if s.IsSkip() {
			if f.preFilterSkips.tracked() {
				skipped |= 1 << i
				continue
			}
			if state.SkipFilterPlugins == nil {
				state.SkipFilterPlugins = make(map[string]bool, len(f.preFilter))
			}
			state.SkipFilterPlugins[pl.Name()] = true
			continue
		}
		if !s.IsSuccess() {
			return nil, s.WithPlugin(pl.Name())
		}
		if r == nil || r.NodeNames == nil {
			continue
		}
		narrowing = append(narrowing, pl.Name())
		result = mergePreFilterResults(result, r)
		if len(result.NodeNames) == 0 {
			// kube-scheduler's wording, one plugin or several.
			msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", narrowing)
			if len(narrowing) == 1 {
				msg = "node(s) didn't satisfy plugin " + narrowing[0]
			}
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msg).WithPlugin(pl.Name())
		}
	}
	if result != nil {
		result = &framework.PreFilterResult{NodeNames: result.NodeNames, Plugins: slices.Sorted(slices.Values(narrowing))}
	}
	return result, nil
}

func mergePreFilterResults(a, b *framework.PreFilterResult) *framework.PreFilterResult {
	if b == nil || b.NodeNames == nil {
		return a
	}
	if a == nil {
		return b
	}
	out := &framework.PreFilterResult{NodeNames: map[string]struct{}{}}
	for n := range a.NodeNames {
		if _, ok := b.NodeNames[n]; ok {
			out.NodeNames[n] = struct{}{}
		}
	}
	return out
}

// RunFilterPlugins returns the first plugin's rejection, or nil when the pod fits.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return runFilters(ctx, f.filter, state, p, node)
}

// RunStaticFilterPlugins runs only the static filters (see framework.StaticFilterPlugin).
func (f *Framework) RunStaticFilterPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for _, pl := range f.staticFilter {
		if state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		start := nodePluginStart(state, node)
		s := pl.Filter(ctx, state, p, node)
		observePlugin(state, metrics.Filter, pl.Name(), s, start)
		if !s.IsSuccess() {
			return filterFailure(pl, s)
		}
	}
	for _, pl := range f.precheck {
		if state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		start := nodePluginStart(state, node)
		s := pl.StaticPrecheck(ctx, p, node)
		observePlugin(state, metrics.Filter, pl.Name(), s, start)
		if !s.IsSuccess() {
			return filterFailure(pl, s)
		}
	}
	return nil
}

// ActiveDynamicFilters returns the filters that are not static and that PreFilter did not
// skip, for RunFilters; computing the list once per cycle keeps the per-node loop free
// of lookups.
func (f *Framework) ActiveDynamicFilters(state *framework.CycleState) []framework.FilterPlugin {
	out := make([]framework.FilterPlugin, 0, len(f.dynamicFilter))
	for _, pl := range f.dynamicFilter {
		if !state.SkipFilterPlugins[pl.Name()] {
			out = append(out, pl)
		}
	}
	return out
}

// RunFilters runs the given filters (from ActiveDynamicFilters) in order.
func RunFilters(ctx context.Context, plugins []framework.FilterPlugin, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if nodeTimed(state, node) {
		return runFilters(ctx, plugins, state, p, node)
	}
	for _, pl := range plugins {
		if s := pl.Filter(ctx, state, p, node); !s.IsSuccess() {
			return filterFailure(pl, s)
		}
	}
	return nil
}

// StaticFilterKey combines the static filters' keys for a pod: pods with equal keys get
// equal static verdicts on every node.
func (f *Framework) StaticFilterKey(state *framework.CycleState, p *framework.PodInfo) string {
	var b strings.Builder
	b.WriteString(f.schedulerName)
	for _, pl := range f.staticFilter {
		b.WriteByte(0)
		if state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		b.WriteString(pl.StaticFilterKey(p))
	}
	for _, pl := range f.precheck {
		b.WriteByte(0)
		if state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		b.WriteString(pl.StaticFilterKey(p))
	}
	return b.String()
}

// HasStaticFilters reports whether any filter is static or has a static precheck.
func (f *Framework) HasStaticFilters() bool { return len(f.staticFilter)+len(f.precheck) > 0 }

func filterFailure(pl framework.Plugin, s *framework.Status) *framework.Status {
	switch {
	case s.Code() == framework.Error:
		s = framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), s.AsError()))
	case !s.IsRejected():
		// Skip, Wait or Pending mean nothing from a Filter: a plugin bug.
		s = framework.NewStatus(framework.Error, fmt.Sprintf("running %q filter plugin: unexpected status %s", pl.Name(), s.Code()))
	}
	return s.WithPlugin(pl.Name())
}

func runFilters[P framework.FilterPlugin](ctx context.Context, plugins []P, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for _, pl := range plugins {
		if state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		start := nodePluginStart(state, node)
		s := pl.Filter(ctx, state, p, node)
		observePlugin(state, metrics.Filter, pl.Name(), s, start)
		if !s.IsSuccess() {
			return filterFailure(pl, s)
		}
	}
	return nil
}

// RunPreFilterExtensionAddPod updates every plugin's state for a pod added to a node.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, p, add *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilter {
		ext := pl.PreFilterExtensions()
		if ext == nil || state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		if s := ext.AddPod(ctx, state, p, add, node); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod updates every plugin's state for a pod removed from a node.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, p, remove *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilter {
		ext := pl.PreFilterExtensions()
		if ext == nil || state.SkipFilterPlugins[pl.Name()] {
			continue
		}
		if s := ext.RemovePod(ctx, state, p, remove, node); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// HasActivePreFilterExtensions implements framework.PluginRunner.
func (f *Framework) HasActivePreFilterExtensions(state *framework.CycleState) bool {
	for _, pl := range f.preFilter {
		if pl.PreFilterExtensions() != nil && !state.SkipFilterPlugins[pl.Name()] {
			return true
		}
	}
	return false
}

// RunBlockingPodsPlugin asks the plugin that returned st, if it can tell, which pods cause
// that rejection.
func (f *Framework) RunBlockingPodsPlugin(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node *framework.NodeInfo, st *framework.Status) []*framework.PodInfo {
	for _, pl := range f.filter {
		if pl.Name() != st.Plugin() {
			continue
		}
		if bp, ok := pl.(framework.BlockingPodsPlugin); ok {
			return bp.BlockingPods(ctx, state, p, node, st)
		}
	}
	return nil
}

// RunPostFilterPlugins runs PostFilter plugins until one succeeds. The statuses of those
// that did not are joined into the returned status, so the user sees why.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, filtered *framework.NodeToStatus) (_ *framework.PostFilterResult, st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.PostFilter, st, start) }(f.pointStart())
	var reasons []string
	var result *framework.PostFilterResult
	for _, pl := range f.postFilter {
		start := pluginStart(state)
		r, s := pl.PostFilter(ctx, state, p, filtered)
		observePlugin(state, metrics.PostFilter, pl.Name(), s, start)
		if s.IsSuccess() {
			return r, nil
		}
		if s.Code() == framework.Error {
			return nil, s.WithPlugin(pl.Name())
		}
		if r != nil {
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
	}
	return result, framework.NewStatus(framework.Unschedulable, reasons...)
}

// RunPreScorePlugins runs PreScore; Skip turns off the plugin's Score for this cycle.
func (f *Framework) RunPreScorePlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo) (st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.PreScore, st, start) }(f.pointStart())
	var skipped uint64 // as in RunPreFilterPlugins
	if f.preScoreSkips.tracked() {
		defer func() { state.SkipScorePlugins = f.preScoreSkips.with(state.SkipScorePlugins, skipped) }()
	}
	for i, pl := range f.preScore {
		start := pluginStart(state)
		s := pl.PreScore(ctx, state, p, nodes)
		observePlugin(state, metrics.PreScore, pl.Name(), s, start)
		if s.IsSkip() {
			if f.preScoreSkips.tracked() {
				skipped |= 1 << i
				continue
			}
			if state.SkipScorePlugins == nil {
				state.SkipScorePlugins = make(map[string]bool, len(f.preScore))
			}
			state.SkipScorePlugins[pl.Name()] = true
			continue
		}
		if !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunScorePlugins scores every node with every plugin (in parallel over nodes), normalises,
// weights and sums. The result is each node's total, totals[i] for nodes[i], valid until the
// next call.
func (f *Framework) RunScorePlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo) (totals []int64, st *framework.Status) {
	return f.runScorePlugins(ctx, state, p, nodes, nil)
}

// runScorePlugins is RunScorePlugins; raw, when not nil, receives each node's scores before
// normalisation (raw[i] for nodes[i], by plugin name) for OpportunisticBatching.
func (f *Framework) runScorePlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, nodes []*framework.NodeInfo, raw [][]framework.PluginScore) (_ []int64, st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.Score, st, start) }(f.pointStart())
	// The totals and per-node errors are reused across cycles too: the caller is done with
	// the result before the next call.
	if cap(f.totalsScratch) < len(nodes) {
		f.totalsScratch = make([]int64, len(nodes))
		f.errsScratch = make([]*framework.Status, len(nodes))
		f.missedScratch = make([]bool, len(nodes))
	}
	totals := f.totalsScratch[:len(nodes)]
	clear(totals)
	active := f.activeScore(state)
	if len(active) == 0 {
		return totals, nil
	}
	// Each plugin's scores are indexed like nodes, without names (see ScoreExtensions), in
	// buffers reused across cycles: only the scheduling loop scores, and nothing keeps them
	// past the cycle (raw scores are copied out below).
	scores := f.scoreScratch[:0]
	for range active {
		var buf []int64
		if len(scores) < cap(scores) {
			buf = scores[:len(scores)+1][len(scores)]
		}
		if cap(buf) < len(nodes) {
			buf = make([]int64, len(nodes))
		}
		scores = append(scores, buf[:len(nodes)])
	}
	f.scoreScratch = scores
	// memos[j] holds what active[j] scored before for this pod's key (nil: not remembered).
	memos := f.memoScratch[:0]
	for _, pl := range active {
		memos = append(memos, pl.scoresOf(p))
	}
	f.memoScratch = memos
	// missed[i] says a remembered score of node i was not there: only those are written
	// back, after the loop (the loop only reads the memo).
	missed := f.missedScratch[:len(nodes)]
	clear(missed)
	errs := f.errsScratch[:len(nodes)]
	clear(errs)
	f.parallelizer.Until(ctx, len(nodes), func(i int) {
		n := nodes[i]
		// Whether this node is timed is decided once, not per plugin: most nodes are not,
		// and then nothing but the plugins runs here.
		if nodeTimed(state, n) {
			for j, pl := range active {
				start := time.Now()
				s, st := pl.Score(ctx, state, p, n)
				observePlugin(state, metrics.Score, pl.Name(), st, start)
				if !st.IsSuccess() {
					errs[i] = st.WithPlugin(pl.Name())
					return
				}
				scores[j][i] = s
			}
			missed[i] = true
			return
		}
		for j, pl := range active {
			if memo := memos[j]; memo != nil {
				if s, ok := memo.lookup(n); ok {
					scores[j][i] = s
					continue
				}
				missed[i] = true
			}
			s, st := pl.Score(ctx, state, p, n)
			if !st.IsSuccess() {
				errs[i] = st.WithPlugin(pl.Name())
				return
			}
			scores[j][i] = s
		}
	})
	for _, st := range errs {
		if st != nil {
			return nil, st
		}
	}
	for j, memo := range memos {
		if memo != nil {
			memo.remember(nodes, scores[j], missed)
		}
	}
	if raw != nil {
		// One backing array for every node's raw scores.
		flat := make([]framework.PluginScore, len(nodes)*len(active))
		for i := range nodes {
			rs := flat[i*len(active) : (i+1)*len(active) : (i+1)*len(active)]
			for j, pl := range active {
				rs[j] = framework.PluginScore{Name: pl.Name(), Score: scores[j][i]}
			}
			raw[i] = rs
		}
	}
	for j, pl := range active {
		if st := f.normalizeAndAdd(ctx, state, p, pl, nodes, scores[j], totals); !st.IsSuccess() {
			return nil, st
		}
	}
	return totals, nil
}

// normalizeAndAdd normalises plugin pl's scores of nodes (scores[i] for nodes[i]), checks
// they are in range and adds them, weighted, to totals.
func (f *Framework) normalizeAndAdd(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, pl weightedScore, nodes []*framework.NodeInfo, scores, totals []int64) *framework.Status {
	if ext := pl.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(ctx, state, p, nodes, scores); !st.IsSuccess() {
			return st.WithPlugin(pl.Name())
		}
	}
	for i, s := range scores {
		if s < framework.MinNodeScore || s > framework.MaxNodeScore {
			return framework.AsStatus(fmt.Errorf("plugin %q returned score %d for node %q, outside [%d, %d]",
				pl.Name(), s, nodes[i].Name, framework.MinNodeScore, framework.MaxNodeScore))
		}
		totals[i] += s * pl.weight
	}
	return nil
}

// RunReservePluginsReserve reserves in order; on failure the caller must Unreserve.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string) (st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.Reserve, st, start) }(f.pointStart())
	for _, pl := range f.reserve {
		start := pluginStart(state)
		s := pl.Reserve(ctx, state, p, node)
		observePlugin(state, metrics.Reserve, pl.Name(), s, start)
		if !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}

// RunReservePluginsUnreserve undoes Reserve, in reverse order.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string) {
	defer func(start time.Time) { f.observePoint(metrics.Unreserve, nil, start) }(f.pointStart())
	for i := len(f.reserve) - 1; i >= 0; i-- {
		f.reserve[i].Unreserve(ctx, state, p, node)
	}
}

// RunPermitPlugins returns the first rejection, or Wait with the shortest timeout when some
// plugin waits, or nil.
func (f *Framework) RunPermitPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string) (st *framework.Status, _ time.Duration) {
	defer func(start time.Time) { f.observePoint(metrics.Permit, st, start) }(f.pointStart())
	var wait time.Duration
	waiting := false
	for _, pl := range f.permit {
		start := pluginStart(state)
		s, timeout := pl.Permit(ctx, state, p, node)
		observePlugin(state, metrics.Permit, pl.Name(), s, start)
		switch {
		case s.IsSuccess():
		case s.Code() == framework.Wait:
			if !waiting || timeout < wait {
				wait = timeout
			}
			waiting = true
		default:
			return s.WithPlugin(pl.Name()), 0
		}
	}
	if waiting {
		return framework.NewStatus(framework.Wait), wait
	}
	return nil, 0
}

// RunBindPlugins asks bind plugins in order until one does not Skip.
func (f *Framework) RunBindPlugins(ctx context.Context, state *framework.CycleState, p *framework.PodInfo, node string) (st *framework.Status) {
	defer func(start time.Time) { f.observePoint(metrics.Bind, st, start) }(f.pointStart())
	for _, pl := range f.bind {
		start := pluginStart(state)
		s := pl.Bind(ctx, state, p, node)
		observePlugin(state, metrics.Bind, pl.Name(), s, start)
		if s.IsSkip() {
			continue
		}
		return s.WithPlugin(pl.Name())
	}
	return framework.AsStatus(fmt.Errorf("no bind plugin bound pod %s", p.Key))
}

type handle struct {
	f    *Framework
	opts Options
}

func (h *handle) Snapshot() framework.Snapshot         { return h.f.snapshot }
func (h *handle) Nominator() framework.Nominator       { return h.f.nominator }
func (h *handle) Parallelizer() framework.Parallelizer { return h.f.parallelizer }
func (h *handle) Binder() framework.Binder             { return h.opts.Binder }
func (h *handle) Preemption() framework.PreemptionActuator {
	return h.opts.Preemption
}
func (h *handle) Rand() *rand.Rand { return h.opts.Rand }
func (h *handle) GroupPreemption() framework.GroupPreemptionActuator {
	return h.opts.GroupPreemption
}
func (h *handle) Metrics() *metrics.Metrics { return h.opts.Metrics }
func (h *handle) ProfileName() string       { return h.f.schedulerName }
func (h *handle) Clock() framework.Clock {
	if h.opts.Clock == nil {
		return framework.WallClock{}
	}
	return h.opts.Clock
}
func (h *handle) ResourceClient() framework.ResourceClient {
	return h.opts.ResourceClient
}
func (h *handle) RunReservePluginsReserve(ctx context.Context, s *framework.CycleState, p *framework.PodInfo, node string) *framework.Status {
	return h.f.RunReservePluginsReserve(ctx, s, p, node)
}
func (h *handle) RunReservePluginsUnreserve(ctx context.Context, s *framework.CycleState, p *framework.PodInfo, node string) {
	h.f.RunReservePluginsUnreserve(ctx, s, p, node)
}
func (h *handle) RunPreFilterPlugins(ctx context.Context, s *framework.CycleState, p *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	return h.f.RunPreFilterPlugins(ctx, s, p)
}
func (h *handle) RunFilterPlugins(ctx context.Context, s *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return h.f.RunFilterPlugins(ctx, s, p, n)
}
func (h *handle) RunPreFilterExtensionAddPod(ctx context.Context, s *framework.CycleState, p, a *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return h.f.RunPreFilterExtensionAddPod(ctx, s, p, a, n)
}
func (h *handle) RunStaticFilterPlugins(ctx context.Context, s *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return h.f.RunStaticFilterPlugins(ctx, s, p, n)
}
func (h *handle) HasActivePreFilterExtensions(s *framework.CycleState) bool {
	return h.f.HasActivePreFilterExtensions(s)
}
func (h *handle) RunBlockingPodsPlugin(ctx context.Context, s *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo, st *framework.Status) []*framework.PodInfo {
	return h.f.RunBlockingPodsPlugin(ctx, s, p, n, st)
}
func (h *handle) RunPreFilterExtensionRemovePod(ctx context.Context, s *framework.CycleState, p, r *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return h.f.RunPreFilterExtensionRemovePod(ctx, s, p, r, n)
}
