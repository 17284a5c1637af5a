package runtime_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
)

// calls records the extension points called, as "Plugin.Point".
type calls []string

func (c *calls) add(name, point string) {
	if c != nil {
		*c = append(*c, name+"."+point)
	}
}

// plain is a plugin with no extension point.
type plain struct{ name string }

func (p *plain) Name() string { return p.name }

// filter is a dynamic Filter plugin.
type filter struct {
	name   string
	status *framework.Status
	log    *calls
}

func (p *filter) Name() string { return p.name }
func (p *filter) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	p.log.add(p.name, "Filter")
	return p.status
}

// preFilter is a PreFilter and Filter plugin.
type preFilter struct {
	filter
	result    *framework.PreFilterResult
	preStatus *framework.Status
}

func (p *preFilter) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	p.log.add(p.name, "PreFilter")
	return p.result, p.preStatus
}
func (p *preFilter) PreFilterExtensions() framework.PreFilterExtensions { return p }
func (p *preFilter) AddPod(context.Context, *framework.CycleState, *framework.PodInfo, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	p.log.add(p.name, "AddPod")
	return nil
}
func (p *preFilter) RemovePod(context.Context, *framework.CycleState, *framework.PodInfo, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	p.log.add(p.name, "RemovePod")
	return nil
}

// static is a StaticFilterPlugin.
type static struct {
	filter
	key string
}

func (p *static) StaticFilterKey(*framework.PodInfo) string { return p.key }

// staticPreFilter is a StaticFilterPlugin with a PreFilter (which may Skip).
type staticPreFilter struct {
	preFilter
	key string
}

func (p *staticPreFilter) StaticFilterKey(*framework.PodInfo) string { return p.key }

// precheck is a StaticPrecheckPlugin with a PreFilter (which may Skip).
type precheck struct {
	preFilter
	key            string
	precheckStatus *framework.Status
}

func (p *precheck) StaticFilterKey(*framework.PodInfo) string { return p.key }
func (p *precheck) StaticPrecheck(context.Context, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	p.log.add(p.name, "StaticPrecheck")
	return p.precheckStatus
}

// scorer scores nodes from a table (default score for nodes not in it), optionally
// normalising.
type scorer struct {
	name      string
	scores    map[string]int64
	def       int64
	status    *framework.Status
	normalize func([]int64) *framework.Status
	preScore  *framework.Status
}

func (p *scorer) Name() string { return p.name }
func (p *scorer) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if p.status != nil {
		return 0, p.status
	}
	if s, ok := p.scores[n.Name]; ok {
		return s, nil
	}
	return p.def, nil
}
func (p *scorer) ScoreExtensions() framework.ScoreExtensions {
	if p.normalize == nil {
		return nil
	}
	return p
}
func (p *scorer) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, s []int64) *framework.Status {
	return p.normalize(s)
}
func (p *scorer) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	return p.preScore
}

type permit struct {
	name    string
	status  *framework.Status
	timeout time.Duration
}

func (p *permit) Name() string { return p.name }
func (p *permit) Permit(context.Context, *framework.CycleState, *framework.PodInfo, string) (*framework.Status, time.Duration) {
	return p.status, p.timeout
}

type postFilter struct {
	name   string
	result *framework.PostFilterResult
	status *framework.Status
	log    *calls
}

func (p *postFilter) Name() string { return p.name }
func (p *postFilter) PostFilter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	p.log.add(p.name, "PostFilter")
	return p.result, p.status
}

type binder struct {
	name   string
	status *framework.Status
	log    *calls
}

func (p *binder) Name() string { return p.name }
func (p *binder) Bind(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	p.log.add(p.name, "Bind")
	return p.status
}

type reserve struct {
	name   string
	status *framework.Status
	log    *calls
}

func (p *reserve) Name() string { return p.name }
func (p *reserve) Reserve(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	p.log.add(p.name, "Reserve")
	return p.status
}
func (p *reserve) Unreserve(context.Context, *framework.CycleState, *framework.PodInfo, string) {
	p.log.add(p.name, "Unreserve")
}

type preEnqueue struct {
	name   string
	status *framework.Status
}

func (p *preEnqueue) Name() string { return p.name }
func (p *preEnqueue) PreEnqueue(context.Context, *framework.PodInfo) *framework.Status {
	return p.status
}

// registryOf registers plugin instances under their names.
func registryOf(pls ...framework.Plugin) runtime.Registry {
	r := runtime.Registry{}
	for _, pl := range pls {
		r[pl.Name()] = func(json.RawMessage, framework.Handle) (framework.Plugin, error) { return pl, nil }
	}
	return r
}

// only builds a profile of exactly these plugins, in order, none of the defaults.
func only(t *testing.T, pls ...framework.Plugin) *runtime.Framework {
	t.Helper()
	enabled := make([]config.Plugin, len(pls))
	for i, pl := range pls {
		enabled[i] = config.Plugin{Name: pl.Name()}
	}
	return build(t, registryOf(pls...), config.Profile{SchedulerName: "test", Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}},
		Enabled:  enabled,
	}})
}

func build(t *testing.T, r runtime.Registry, prof config.Profile) *runtime.Framework {
	t.Helper()
	f, err := runtime.New(prof, profilePath, r, options())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

var profilePath = field.NewPath("profiles").Index(0)

func options() runtime.Options {
	return runtime.Options{Parallelizer: framework.NewParallelizer(4), Metrics: metrics.New()}
}

func pluginNames[P framework.Plugin](pls []P) []string {
	out := make([]string, len(pls))
	for i, p := range pls {
		out[i] = p.Name()
	}
	return out
}

type groupPreEnqueue struct {
	name   string
	status *framework.Status
}

func (p *groupPreEnqueue) Name() string { return p.name }
func (p *groupPreEnqueue) PreEnqueueGroup(context.Context, *framework.GroupInfo, []*framework.PodInfo, int) *framework.Status {
	return p.status
}

type groupPostFilter struct {
	name   string
	result *framework.PodGroupPostFilterResult
	status *framework.Status
	log    *calls
}

func (p *groupPostFilter) Name() string { return p.name }
func (p *groupPostFilter) PodGroupPostFilter(context.Context, *framework.GroupAttempt) (*framework.PodGroupPostFilterResult, *framework.Status) {
	p.log.add(p.name, "PodGroupPostFilter")
	return p.result, p.status
}

// noExtensions is a PreFilter plugin whose state needs no updates.
type noExtensions struct{ preFilter }

func (p *noExtensions) PreFilterExtensions() framework.PreFilterExtensions { return nil }
