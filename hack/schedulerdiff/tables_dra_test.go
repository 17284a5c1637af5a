package schedulerdiff

import (
	"context"
	"fmt"
	"slices"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"sigs.k8s.io/yaml"

	phframework "github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables/dynamicresources"
)

// TestUpstreamTablesDRAReserve follows DynamicResources' TestPlugin cases one step
// further than TestUpstreamTables: where upstream's test states the claims its Reserve
// makes pending allocation, both plugins run PreFilter, Filter and Reserve on the node
// upstream's loop selects (the first node Filter passes with the highest score), and must
// choose the same allocation for every claim; kube-scheduler's must be the one its test
// states.
func TestUpstreamTablesDRAReserve(t *testing.T) {
	ctx := t.Context()
	ph := NewPhalanx()
	var cases, compared int
	for _, tc := range dynamicresources.Cases() {
		if tc.NotRun != "" || tc.DRA == nil || tc.DRA.WantReserve == nil {
			continue
		}
		cases++
		id := tc.ID()
		c := normalized(&tc)
		cctx, cancel := context.WithCancel(ctx)
		up, err := NewUpstreamWith(cctx, nil, Namespaces, StorageObjects())
		if err != nil {
			t.Fatal(err)
		}
		upstreamAlloc, node, err := upstreamReserve(cctx, up, &tc, c)
		cancel()
		if err != nil {
			t.Errorf("%s: kube-scheduler's plugin: %v", id, err)
			continue
		}
		for _, want := range tc.DRA.WantReserve {
			got := upstreamAlloc[want.Namespace+"/"+want.Name]
			// Upstream's test does not say which device a request gets (its comparison
			// ignores the device names); phalanx is compared with kube-scheduler by them.
			if !sameAllocation(withoutDevices(got), withoutDevices(want.Status.Allocation)) {
				t.Errorf("%s: kube-scheduler's Reserve makes %s pending with %s, upstream's test states %s (a transcription mistake)", id, want.Name, show(got), show(want.Status.Allocation))
			}
		}
		args, err := phalanxArgs(tc.Args)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		phAlloc, err := phalanxReserve(ctx, ph, args, c, node)
		if err != nil {
			t.Errorf("%s: phalanx's plugin: %v", id, err)
			continue
		}
		compared++
		for _, cl := range c.Claims {
			key := cl.Namespace + "/" + cl.Name
			if !sameAllocation(phAlloc[key], upstreamAlloc[key]) {
				t.Errorf("%s: Reserve on %s allocates %s: phalanx %s, kube-scheduler %s", id, node, key, show(phAlloc[key]), show(upstreamAlloc[key]))
			}
		}
	}
	t.Logf("DynamicResources Reserve: upstream cases stating it %d, compared %d", cases, compared)
	fmt.Printf("schedulerdiff upstream tables DynamicResources Reserve: cases %d, compared %d\n", cases, compared)
	if compared == 0 {
		t.Error("no case compared")
	}
}

func sameAllocation(a, b *resourceapi.AllocationResult) bool {
	if a == nil || b == nil {
		return a == b
	}
	// The time of the allocation is when it was made, not what it is.
	a, b = a.DeepCopy(), b.DeepCopy()
	a.AllocationTimestamp, b.AllocationTimestamp = nil, nil
	return equality.Semantic.DeepEqual(a, b)
}

// withoutDevices is an allocation without the devices' names.
func withoutDevices(a *resourceapi.AllocationResult) *resourceapi.AllocationResult {
	if a == nil {
		return nil
	}
	a = a.DeepCopy()
	for i := range a.Devices.Results {
		a.Devices.Results[i].Device = ""
	}
	return a
}

func show(a *resourceapi.AllocationResult) string {
	if a == nil {
		return "no allocation"
	}
	out, _ := yaml.Marshal(a)
	return "\n" + string(out)
}

// upstreamReserve runs kube-scheduler's plugin through Reserve as upstream's TestPlugin
// loop does and returns the claims pending allocation, by key, and the node selected.
func upstreamReserve(ctx context.Context, up *Upstream, tc *tables.Case, c *Case) (map[string]*resourceapi.AllocationResult, string, error) {
	pl, err := up.Build(ctx, tc.Plugin, tc.Args)
	if err != nil {
		return nil, "", err
	}
	nodes := up.use(c)
	state := framework.NewCycleState()
	if _, st := pl.(fwk.PreFilterPlugin).PreFilter(ctx, state, c.Pod, nodes); !st.IsSuccess() {
		return nil, "", fmt.Errorf("PreFilter: %v", st)
	}
	var potential []fwk.NodeInfo
	for _, n := range nodes {
		if st := pl.(fwk.FilterPlugin).Filter(ctx, state, c.Pod, n); st.IsSuccess() {
			potential = append(potential, n)
		}
	}
	if len(potential) == 0 {
		return nil, "", fmt.Errorf("no node passes Filter")
	}
	node, best := potential[0].Node().Name, int64(-1)
	if len(potential) > 1 {
		for _, n := range potential {
			s, st := pl.(fwk.ScorePlugin).Score(ctx, state, c.Pod, n)
			if !st.IsSuccess() {
				return nil, "", fmt.Errorf("Score: %v", st)
			}
			if s > best {
				node, best = n.Node().Name, s
			}
		}
	}
	if st := pl.(fwk.ReservePlugin).Reserve(ctx, state, c.Pod, node); !st.IsSuccess() {
		return nil, "", fmt.Errorf("Reserve: %v", st)
	}
	out := map[string]*resourceapi.AllocationResult{}
	for _, cl := range c.Claims {
		if a := up.dra.ResourceClaims().GetPendingAllocation(cl.UID); a != nil {
			out[cl.Namespace+"/"+cl.Name] = a
		}
	}
	return out, node, nil
}

// phalanxReserve runs phalanx's plugin through Reserve on the node and returns the
// allocations it assumed, by claim key.
func phalanxReserve(ctx context.Context, ph *Phalanx, args []byte, c *Case, node string) (map[string]*resourceapi.AllocationResult, error) {
	cc := newCache(c)
	pl, err := ph.registry["DynamicResources"](args, &testutil.Handle{Cache: cc})
	if err != nil {
		return nil, err
	}
	pod := phframework.NewPodInfo(c.Pod)
	state := phframework.NewCycleState()
	if _, st := pl.(phframework.PreFilterPlugin).PreFilter(ctx, state, pod); !st.IsSuccess() {
		return nil, fmt.Errorf("PreFilter: %v", st)
	}
	var n *phframework.NodeInfo
	for _, ni := range cc.NodeInfos() {
		if ni.Name == node {
			n = ni
		}
	}
	if n == nil {
		return nil, fmt.Errorf("no node %s", node)
	}
	if st := pl.(phframework.FilterPlugin).Filter(ctx, state, pod, n); !st.IsSuccess() {
		return nil, fmt.Errorf("Filter on %s: %v", node, st)
	}
	if st := pl.(phframework.ReservePlugin).Reserve(ctx, state, pod, node); !st.IsSuccess() {
		return nil, fmt.Errorf("Reserve: %v", st)
	}
	out := map[string]*resourceapi.AllocationResult{}
	for _, cl := range c.Claims {
		key := cl.Namespace + "/" + cl.Name
		if ci := cc.DRA().Claim(key); ci != nil && ci.Assumed != nil {
			out[key] = ci.Assumed
		}
	}
	return out, nil
}

// TestUpstreamTablesDRANormalizeScore runs DynamicResources' TestNormalizeScore through
// both plugins' NormalizeScore: kube-scheduler's must leave the scores its test states,
// and phalanx's the same.
func TestUpstreamTablesDRANormalizeScore(t *testing.T) {
	ctx := t.Context()
	up, err := NewUpstreamWith(ctx, nil, Namespaces, StorageObjects())
	if err != nil {
		t.Fatal(err)
	}
	upl, err := up.Build(ctx, "DynamicResources", dynamicresources.DefaultArgs())
	if err != nil {
		t.Fatal(err)
	}
	phl, err := NewPhalanx().registry["DynamicResources"](nil, &testutil.Handle{Cache: newCache(&Case{})})
	if err != nil {
		t.Fatal(err)
	}
	cases := dynamicresources.NormalizeScoreCases()
	for _, tc := range cases {
		id := dynamicresources.NormalizeScoreFrom + " " + tc.Name
		scores := slices.Clone(tc.Scores)
		upl.(fwk.ScorePlugin).ScoreExtensions().NormalizeScore(ctx, nil, nil, scores)
		if !slices.Equal(scores, tc.Want) {
			t.Errorf("%s: kube-scheduler's plugin gives %v, upstream's test states %v (a transcription mistake)", id, scores, tc.Want)
		}
		nodes := make([]*phframework.NodeInfo, len(tc.Scores))
		ph := make([]int64, len(tc.Scores))
		for i, s := range tc.Scores {
			nodes[i] = &phframework.NodeInfo{Name: s.Name}
			ph[i] = s.Score
		}
		phl.(phframework.ScorePlugin).ScoreExtensions().NormalizeScore(ctx, nil, nil, nodes, ph)
		for i, s := range ph {
			if s != tc.Want[i].Score {
				t.Errorf("%s: phalanx gives %s %d, stated %s %d", id, nodes[i].Name, s, tc.Want[i].Name, tc.Want[i].Score)
			}
		}
	}
	t.Logf("DynamicResources TestNormalizeScore: %d cases agreed", len(cases))
	fmt.Printf("schedulerdiff upstream tables DynamicResources TestNormalizeScore: cases %d\n", len(cases))
}
