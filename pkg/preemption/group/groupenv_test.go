package group_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
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
	"github.com/phalanx-dev/phalanx/pkg/plugins/noderesources"
	"github.com/phalanx-dev/phalanx/pkg/podfit"
	"github.com/phalanx-dev/phalanx/pkg/preemption"
	"github.com/phalanx-dev/phalanx/pkg/preemption/group"
	"github.com/phalanx-dev/phalanx/pkg/preemption/internal/preempttest"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// groupPriority is the preempting group's priority in these tests.
const groupPriority = 100

// The clusters of these tests are built as pod preemption's are: PodGroups in namespace
// default (all: of disruption mode All), running pods of lower priority asking for cpu,
// nodes with cpu, pods being deleted.
var (
	podGroup = preempttest.PodGroup
	low      = preempttest.Low
	cpuNodes = preempttest.CPUNodes
	deleting = preempttest.Deleting
)

// groupEnv is a cluster, the default profile over it, and a group preemption evaluator
// whose members are placed by the group cycle's placer (wrapped to count its calls).
type groupEnv struct {
	c      *cache.Cache
	e      *group.Evaluator
	g      *framework.GroupInfo
	placer *countingPlacer
}

type groupEnvOptions struct {
	// minCount is the gang's (members that must fit).
	minCount int32
	// exactMax is the evaluators' exact search bound (0: the default).
	exactMax      int
	binarySearch  bool
	maxPlacements int
	pdbs          []*policyv1.PodDisruptionBudget
	// groups are other PodGroups (victims of disruption mode All).
	groups []*framework.GroupInfo
}

func newGroupEnv(t testing.TB, nodes []*v1.Node, pods []*v1.Pod, o groupEnvOptions) *groupEnv {
	t.Helper()
	c := cache.New()
	for _, n := range nodes {
		c.Nodes().AddNode(n)
	}
	g := podGroup("g", groupPriority, o.minCount, false)
	c.Groups().SetGroup(g)
	for _, other := range o.groups {
		c.Groups().SetGroup(other)
	}
	for _, p := range pods {
		if err := c.Nodes().AddBoundPod(framework.NewPodInfo(p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, pdb := range o.pdbs {
		c.DisruptionBudgets().SetPDB(pdb)
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	fwk, err := fwkruntime.New(config.Profile{SchedulerName: "phalanx"}, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd, Metrics: metrics.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	finder := podfit.New(podfit.Options{Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1), Rand: rnd})
	placer := placement.New(placement.Options{Framework: fwk, Pods: finder.For(fwk), Snapshot: c, Rand: rnd, Metrics: metrics.New(), FeasiblePlacementsToFind: 1})
	h := preempttest.Handle(fwk, c)
	pod := &preemption.Evaluator{Handle: h, MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100,
		ResourcePlugins: []string{noderesources.FitName}, ExactSearchMaxUnits: o.exactMax}
	maxPlacements := o.maxPlacements
	if maxPlacements == 0 {
		maxPlacements = group.DefaultMaxPlacements
	}
	e := &group.Evaluator{Handle: h, Pod: pod, BinarySearch: o.binarySearch,
		Placements: group.PlacementOptions{MaxPlacements: maxPlacements}}
	return &groupEnv{c: c, e: e, g: g, placer: &countingPlacer{GroupPlacer: placer.For(g, framework.NewCycleState())}}
}

// attempt is the group's failed cycle for its pending members.
func (ge *groupEnv) attempt(members ...*v1.Pod) *framework.GroupAttempt {
	var pending []*framework.PodInfo
	for _, m := range members {
		pending = append(pending, framework.NewPodInfo(m))
	}
	return &framework.GroupAttempt{Group: ge.g, Pending: pending, Placer: ge.placer}
}

// part prepares the decision's parts for members in a domain (nil nodes: the cluster).
func (ge *groupEnv) part(nodes []string, members ...*v1.Pod) *group.Part {
	var dom []*framework.NodeInfo
	for _, n := range nodes {
		dom = append(dom, ge.c.Get(n))
	}
	return ge.e.Part(ge.attempt(members...), dom)
}

// nodeOf is where a pod of namespace default is in the snapshot ("": off every node).
func (ge *groupEnv) nodeOf(name string) string {
	if p := ge.c.Nodes().Pod("default/" + name); p != nil {
		return p.NodeName
	}
	return ""
}

// member is a pending member of the group asking for cpu.
func member(name, cpu string) *v1.Pod {
	return testutil.Pod(name).Labels(v1alpha1.LabelPodGroup, "g").Priority(groupPriority).Req("cpu", cpu).Obj()
}

// budget is a PodDisruptionBudget over the pods labelled app=app, allowing none.
func budget(app string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: app},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	}
}

// countingPlacer is the group cycle's placer, recording the members of every Place call
// (with the placement they are held to); it can refuse every confirmation, and then fail
// every later Place, to stand for a search whose placement does not hold.
type countingPlacer struct {
	framework.GroupPlacer
	places        []string
	refuseConfirm bool
	failAfter     bool
	confirmed     bool
	// placesAtConfirm counts the Place calls made before the first confirmation.
	placesAtConfirm int
	// calls lists Place calls (as in places) and Confirm calls ("confirm on" the nodes),
	// in order.
	calls []string
}

func (p *countingPlacer) Place(ctx context.Context, members []*framework.PodInfo, opts framework.PlaceOptions) (*framework.GroupPlacement, error) {
	var names []string
	for _, m := range members {
		names = append(names, m.Pod.Name)
	}
	call := strings.Join(names, " ")
	if opts.Placement != nil {
		call += " in " + opts.Placement.Name
	}
	p.places = append(p.places, call)
	p.calls = append(p.calls, call)
	if p.failAfter && p.confirmed {
		return &framework.GroupPlacement{Unplaced: members, Message: "refused by the test"}, nil
	}
	return p.GroupPlacer.Place(ctx, members, opts)
}

func (p *countingPlacer) Confirm(ctx context.Context, as []framework.Assignment) (bool, error) {
	if !p.confirmed {
		p.placesAtConfirm = len(p.places)
	}
	p.confirmed = true
	var nodes []string
	for _, a := range as {
		nodes = append(nodes, a.Node.Name)
	}
	p.calls = append(p.calls, "confirm on "+strings.Join(nodes, " "))
	if p.refuseConfirm {
		return false, nil
	}
	return p.GroupPlacer.Confirm(ctx, as)
}

// nominations renders a decision's nominations, "member node", sorted.
func nominations(res *group.Result) []string {
	out := []string{}
	for m, n := range res.Nominations {
		out = append(out, m.Pod.Name+" "+n)
	}
	slices.Sort(out)
	return out
}

func sortedNames(pods []*framework.PodInfo) []string {
	out := preempttest.Names(pods)
	slices.Sort(out)
	return out
}
