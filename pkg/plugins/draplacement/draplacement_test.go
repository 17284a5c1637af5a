package draplacement

import (
	"context"
	"slices"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const driver = "gpu.example.com"

// groupWith is a gang with a device topology constraint.
func groupWith(attr string) *framework.GroupInfo {
	pg := &v1alpha1.PodGroup{}
	pg.Namespace, pg.Name = "default", "g"
	pg.Spec.SchedulingPolicy.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: 2}
	pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{DeviceTopology: &v1alpha1.DeviceTopologyConstraint{MatchAttribute: attr}}
	return &framework.GroupInfo{PodGroup: pg, Key: "default/g"}
}

func names(ps []*framework.Placement) []string {
	var out []string
	for _, p := range ps {
		var nodes []string
		for _, n := range p.Nodes {
			nodes = append(nodes, n.Name)
		}
		out = append(out, p.Name+":"+slicesJoin(nodes))
	}
	return out
}

func slicesJoin(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s
}

// Four nodes in two cliques; n3 has a GPU of each clique (so each clique's placement must
// exclude the other's GPU there).
func setup(t *testing.T) (*cache.Cache, *DRAPlacement) {
	t.Helper()
	c := cache.New()
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		c.Nodes().AddNode(testutil.Node(n).Labels("rack", map[string]string{"n1": "r1", "n2": "r1", "n3": "r2", "n4": "r2"}[n]).Capacity("cpu", "8").Obj())
	}
	c.Devices().SetResourceSlice(testutil.Slice("n1", driver, "gpu", 2, "clique", "a"))
	c.Devices().SetResourceSlice(testutil.Slice("n2", driver, "gpu", 2, "clique", "a"))
	mixed := testutil.Slice("n3", driver, "gpu", 2, "clique", "a")
	b := "b"
	mixed.Spec.Devices[1].Attributes["clique"] = resourceapi.DeviceAttribute{StringValue: &b}
	c.Devices().SetResourceSlice(mixed)
	c.Devices().SetResourceSlice(testutil.Slice("n4", driver, "gpu", 2, "clique", "b"))
	pl, err := New(nil, &testutil.Handle{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	return c, pl.(*DRAPlacement)
}

func TestGeneratePlacements(t *testing.T) {
	c, pl := setup(t)
	ctx := context.Background()
	out, st := pl.GeneratePlacements(ctx, framework.NewCycleState(), groupWith(driver+"/clique"), nil, nil)
	if !st.IsSuccess() {
		t.Fatal(st)
	}
	want := []string{driver + "/clique=a:n1,n2,n3", driver + "/clique=b:n3,n4"}
	if got := names(out); !slices.Equal(got, want) {
		t.Fatalf("placements %v, want %v", got, want)
	}
	// Clique a's placement excludes clique b's GPU on n3, and restricts the snapshot while
	// it is assumed.
	a := out[0]
	if a.Devices == nil || a.Devices.Excluded["n3"].Len() != 1 || !a.Devices.ExcludesOn("n3") || a.Devices.ExcludesOn("n1") {
		t.Fatalf("clique a excludes %v", a.Devices)
	}
	pl.AssumePlacement(ctx, nil, nil, a)
	if c.DRA().Domain() != a.Devices {
		t.Error("AssumePlacement did not set the domain")
	}
	pl.RevertPlacement(ctx, nil, nil, a)
	if c.DRA().Domain() != nil {
		t.Error("RevertPlacement did not clear the domain")
	}

	// Inside label-based parents, each clique's nodes are cut to the parent's.
	r1 := &framework.Placement{Name: "rack=r1", Nodes: []*framework.NodeInfo{c.Get("n1"), c.Get("n2")}}
	r2 := &framework.Placement{Name: "rack=r2", Nodes: []*framework.NodeInfo{c.Get("n3"), c.Get("n4")}, Rank: 1}
	out, st = pl.GeneratePlacements(ctx, framework.NewCycleState(), groupWith(driver+"/clique"), nil, []*framework.Placement{r1, r2})
	if !st.IsSuccess() {
		t.Fatal(st)
	}
	want = []string{"rack=r1, " + driver + "/clique=a:n1,n2", "rack=r2, " + driver + "/clique=a:n3", "rack=r2, " + driver + "/clique=b:n3,n4"}
	if got := names(out); !slices.Equal(got, want) {
		t.Errorf("nested placements %v, want %v", got, want)
	}
	if out[2].Rank != 1 || out[2].Parent != r2 {
		t.Errorf("nested placement keeps rank %d and parent %v", out[2].Rank, out[2].Parent)
	}

	// By pool: one placement per node here.
	out, _ = pl.GeneratePlacements(ctx, framework.NewCycleState(), groupWith(""), nil, nil)
	if len(out) != 4 {
		t.Errorf("%d pool placements, want 4", len(out))
	}
	// An attribute no device has.
	if _, st := pl.GeneratePlacements(ctx, framework.NewCycleState(), groupWith(driver+"/nvlink"), nil, nil); st.Code() != framework.UnschedulableAndUnresolvable {
		t.Errorf("unknown attribute: %v", st)
	}
	// A group without the constraint is not this plugin's.
	g := groupWith("")
	g.PodGroup.Spec.SchedulingConstraints = nil
	if _, st := pl.GeneratePlacements(ctx, framework.NewCycleState(), g, nil, nil); st.Code() != framework.Skip {
		t.Errorf("no constraint: %v", st)
	}
}
