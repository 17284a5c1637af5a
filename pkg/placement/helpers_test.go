package placement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/placement"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// probe is a test plugin: it counts each pod's PreFilter runs, logs the placements it is
// asked to assume and revert, holds members to the assumed placement's nodes (as a DRA
// placement holds them to its devices), refuses to assume the placement named refuse,
// and scores placements from a table.
type probe struct {
	preFilters map[string]int
	log        []string
	assumed    *framework.Placement
	refuse     string
	scores     map[string]int64
}

const probeName = "Probe"

func (p *probe) Name() string { return probeName }

func (p *probe) PreFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	p.preFilters[pod.Pod.Name]++
	return nil, nil
}

func (p *probe) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func (p *probe) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if p.assumed != nil && !slices.Contains(p.assumed.Nodes, n) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "outside the assumed placement")
	}
	return nil
}

func (p *probe) AssumePlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, pl *framework.Placement) *framework.Status {
	p.log = append(p.log, "assume "+pl.Name)
	if pl.Name == p.refuse {
		return framework.NewStatus(framework.Unschedulable, "no devices")
	}
	p.assumed = pl
	return nil
}

func (p *probe) RevertPlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, pl *framework.Placement) {
	p.log = append(p.log, "revert "+pl.Name)
	p.assumed = nil
}

func (p *probe) ScorePlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, pl *framework.Placement, _ *framework.GroupPlacement, _ int) (int64, *framework.Status) {
	return p.scores[pl.Name], nil
}

// env is a cluster with the default profile plus the probe (the default placement scores
// disabled, so that the probe's table alone scores placements), and a Placer over it.
type env struct {
	c      *cache.Cache
	probe  *probe
	placer *placement.Placer
	fwk    *fwkruntime.Framework
}

type envOptions struct {
	feasiblePlacements int
}

func newEnv(t *testing.T, nodes []*v1.Node, pods []*v1.Pod, opts ...envOptions) *env {
	t.Helper()
	o := envOptions{feasiblePlacements: 1}
	if len(opts) > 0 {
		o = opts[0]
	}
	c := testutil.NewCache(nodes, pods)
	pr := &probe{preFilters: map[string]int{}, scores: map[string]int64{}}
	registry := plugins.NewRegistry()
	if err := registry.Merge(fwkruntime.Registry{probeName: func(json.RawMessage, framework.Handle) (framework.Plugin, error) { return pr, nil }}); err != nil {
		t.Fatal(err)
	}
	prof := config.Profile{SchedulerName: "phalanx", Plugins: config.Plugins{
		Enabled:  []config.Plugin{{Name: probeName}},
		Disabled: []config.Plugin{{Name: "PlacementBinPacking"}, {Name: "PlacementPodCount"}},
	}}
	rnd := rand.New(rand.NewPCG(1, 1))
	fwk, err := fwkruntime.New(prof, field.NewPath("profile"), registry, fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd, Metrics: metrics.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	finder := podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd})
	placer := placement.New(placement.Options{Framework: fwk, Pods: finder.For(fwk), Snapshot: c, Rand: rnd,
		Metrics: metrics.New(), FeasiblePlacementsToFind: o.feasiblePlacements})
	return &env{c: c, probe: pr, placer: placer, fwk: fwk}
}

// group is a gang of minCount members in namespace default.
func group(minCount int32) *framework.GroupInfo {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g"}}
	pg.Spec.SchedulingPolicy.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: minCount}
	return &framework.GroupInfo{PodGroup: pg, Key: "default/g"}
}

func infos(pods ...*v1.Pod) []*framework.PodInfo {
	out := make([]*framework.PodInfo, len(pods))
	for i, p := range pods {
		out[i] = framework.NewPodInfo(p)
	}
	return out
}

func (e *env) nodes(names ...string) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, n := range names {
		if ni := e.c.Get(n); ni != nil {
			out = append(out, ni)
		} else {
			panic("no node " + n)
		}
	}
	return out
}

// placed renders assignments as "member node", in order.
func placed(as []framework.Assignment) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Pod.Pod.Name+" "+a.Node.Name)
	}
	return out
}

func podNames(ps []*framework.PodInfo) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Pod.Name)
	}
	return out
}

// podsPerNode renders how many pods each node holds, to check that the snapshot is left
// as it was.
func (e *env) podsPerNode() string {
	var out string
	for _, n := range e.c.NodeInfos() {
		out += fmt.Sprintf("%s:%d ", n.Name, len(n.Pods))
	}
	return out
}
