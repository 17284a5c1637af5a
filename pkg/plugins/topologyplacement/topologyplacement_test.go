package topologyplacement

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

const (
	block = "example.com/block"
	rack  = "example.com/rack"
)

// cluster: block b1 has racks r1 (two nodes) and r2, plus a node with no rack label;
// block b2 has rack r3; one node has no label at all.
func cluster() []*v1.Node {
	return []*v1.Node{
		testutil.Node("n1").Labels(block, "b1", rack, "r1").Obj(),
		testutil.Node("n2").Labels(block, "b1", rack, "r1").Obj(),
		testutil.Node("n3").Labels(block, "b1", rack, "r2").Obj(),
		testutil.Node("n4").Labels(block, "b1").Obj(),
		testutil.Node("n5").Labels(block, "b2", rack, "r3").Obj(),
		testutil.Node("n6").Obj(),
	}
}

func group(levels ...v1alpha1.TopologyConstraint) *framework.GroupInfo {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g"}}
	pg.Spec.SchedulingPolicy.Gang = &v1alpha1.GangSchedulingPolicy{MinCount: 1}
	if len(levels) > 0 {
		pg.Spec.SchedulingConstraints = &v1alpha1.PodGroupSchedulingConstraints{Topology: levels}
	}
	return &framework.GroupInfo{PodGroup: pg, Key: "default/g"}
}

func required(key string) v1alpha1.TopologyConstraint { return v1alpha1.TopologyConstraint{Key: key} }
func preferred(key string) v1alpha1.TopologyConstraint {
	return v1alpha1.TopologyConstraint{Key: key, Mode: v1alpha1.TopologyModePreferred}
}

// describe renders placements as "rank name [nodes] {children}".
func describe(ps []*framework.Placement) []string {
	var out []string
	for _, p := range ps {
		var nodes, children []string
		for _, n := range p.Nodes {
			nodes = append(nodes, n.Name)
		}
		for _, c := range p.Children {
			children = append(children, c.Name)
		}
		s := p.Name + " [" + strings.Join(nodes, " ") + "]"
		if len(children) > 0 {
			s += " {" + strings.Join(children, "; ") + "}"
		}
		out = append(out, string(rune('0'+p.Rank))+" "+s)
	}
	slices.Sort(out)
	return out
}

func TestGeneratePlacements(t *testing.T) {
	tests := []struct {
		name    string
		levels  []v1alpha1.TopologyConstraint
		running []string // nodes running members of the group
		want    []string
		wantErr string
	}{{
		name:   "no topology: skipped",
		levels: nil,
	}, {
		name:   "one required level: a placement per rack, unlabeled nodes in none",
		levels: []v1alpha1.TopologyConstraint{required(rack)},
		want: []string{
			"0 example.com/rack=r1 [n1 n2]",
			"0 example.com/rack=r2 [n3]",
			"0 example.com/rack=r3 [n5]",
		},
	}, {
		name:   "block required, rack preferred: racks nested in blocks, blocks as fallbacks",
		levels: []v1alpha1.TopologyConstraint{required(block), preferred(rack)},
		want: []string{
			"0 example.com/block=b1, example.com/rack=r1 [n1 n2]",
			"0 example.com/block=b1, example.com/rack=r2 [n3]",
			"0 example.com/block=b2, example.com/rack=r3 [n5]",
			"1 example.com/block=b1 [n1 n2 n3 n4] {example.com/block=b1, example.com/rack=r1; example.com/block=b1, example.com/rack=r2}",
			"1 example.com/block=b2 [n5] {example.com/block=b2, example.com/rack=r3}",
		},
	}, {
		name:   "rack preferred alone: the whole cluster is the fallback",
		levels: []v1alpha1.TopologyConstraint{preferred(rack)},
		want: []string{
			"0 example.com/rack=r1 [n1 n2]",
			"0 example.com/rack=r2 [n3]",
			"0 example.com/rack=r3 [n5]",
			"1 the cluster [n1 n2 n3 n4 n5 n6] {example.com/rack=r1; example.com/rack=r2; example.com/rack=r3}",
		},
	}, {
		name:    "running members pin the required level",
		levels:  []v1alpha1.TopologyConstraint{required(rack)},
		running: []string{"n3"},
		want:    []string{"0 example.com/rack=r2 [n3]"},
	}, {
		name:    "running members pin the block and their rack",
		levels:  []v1alpha1.TopologyConstraint{required(block), preferred(rack)},
		running: []string{"n1", "n2"},
		want: []string{
			"0 example.com/block=b1, example.com/rack=r1 [n1 n2]",
			"1 example.com/block=b1 [n1 n2 n3 n4] {example.com/block=b1, example.com/rack=r1}",
		},
	}, {
		name:    "running members over two racks give the preferred level up",
		levels:  []v1alpha1.TopologyConstraint{required(block), preferred(rack)},
		running: []string{"n1", "n3"},
		want:    []string{"1 example.com/block=b1 [n1 n2 n3 n4]"},
	}, {
		name:    "running members over two racks of a required level: no placement",
		levels:  []v1alpha1.TopologyConstraint{required(rack)},
		running: []string{"n1", "n5"},
		wantErr: "the running members of the pod group are not all in one domain of example.com/rack",
	}, {
		name:    "a running member on a node without the label: no placement",
		levels:  []v1alpha1.TopologyConstraint{required(rack)},
		running: []string{"n6"},
		wantErr: "not all in one domain of example.com/rack",
	}, {
		name:    "no node has the label",
		levels:  []v1alpha1.TopologyConstraint{required("example.com/pod")},
		wantErr: "no node has the topology label example.com/pod",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pods []*v1.Pod
			for i, n := range tc.running {
				pods = append(pods, testutil.Pod("m"+string(rune('0'+i))).Labels(v1alpha1.LabelPodGroup, "g").Node(n).Obj())
			}
			h := &testutil.Handle{Cache: testutil.NewCache(cluster(), pods)}
			pl, err := New(nil, h)
			if err != nil {
				t.Fatal(err)
			}
			out, st := pl.(*TopologyPlacement).GeneratePlacements(context.Background(), framework.NewCycleState(), group(tc.levels...), nil, nil)
			switch {
			case tc.levels == nil:
				if st.Code() != framework.Skip {
					t.Errorf("status %v, want Skip", st)
				}
				return
			case tc.wantErr != "":
				if st.Code() != framework.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), tc.wantErr) {
					t.Errorf("status %v, want UnschedulableAndUnresolvable %q", st, tc.wantErr)
				}
				return
			case !st.IsSuccess():
				t.Fatalf("status %v", st)
			}
			if got := describe(out); !slices.Equal(got, tc.want) {
				t.Errorf("placements\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			for _, p := range out {
				if p.PackWeight != DefaultPackingWeight {
					t.Errorf("%s: pack weight %d, want %d", p.Name, p.PackWeight, DefaultPackingWeight)
				}
			}
		})
	}
}

// The domain tree is rebuilt when a node's labels change.
func TestTreeFollowsLabels(t *testing.T) {
	c := testutil.NewCache(cluster(), nil)
	h := &testutil.Handle{Cache: c}
	pl, _ := New(nil, h)
	tp := pl.(*TopologyPlacement)
	g := group(required(rack))
	first, _ := tp.GeneratePlacements(context.Background(), framework.NewCycleState(), g, nil, nil)
	c.Nodes().AddNode(testutil.Node("n6").Labels(rack, "r4").Obj())
	second, _ := tp.GeneratePlacements(context.Background(), framework.NewCycleState(), g, nil, nil)
	if len(first) != 3 || len(second) != 4 {
		t.Errorf("%d placements before n6 got its label and %d after, want 3 and 4", len(first), len(second))
	}
}

func TestArgs(t *testing.T) {
	h := &testutil.Handle{Cache: testutil.NewCache(nil, nil)}
	for _, tc := range []struct {
		args, wantErr string
		want          int64
	}{
		{"", "", DefaultPackingWeight},
		{`{"packingWeight": 0}`, "", 0},
		{`{"packingWeight": 12}`, "", 12},
		{`{"packingWeight": -1}`, "packingWeight: Invalid value: -1", 0},
		{`{"packing": 1}`, "unknown field", 0},
	} {
		pl, err := New(json.RawMessage(tc.args), h)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("args %s: error %v, want %q", tc.args, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("args %s: %v", tc.args, err)
		case pl.(*TopologyPlacement).pack != tc.want:
			t.Errorf("args %s: packing weight %d, want %d", tc.args, pl.(*TopologyPlacement).pack, tc.want)
		}
	}
}

// A group no running member pins gets the placements generated before while the tree
// stands, the same values, and always what a fresh generation gives; running members,
// other modes or changed labels get placements of their own.
func TestPlacementsSharedWhileUnpinned(t *testing.T) {
	c := testutil.NewCache(cluster(), nil)
	h := &testutil.Handle{Cache: c}
	pl, _ := New(nil, h)
	tp := pl.(*TopologyPlacement)
	blockThenRack := []v1alpha1.TopologyConstraint{required(block), preferred(rack)}
	member := framework.NewPodInfo(testutil.Pod("m0").Labels(v1alpha1.LabelPodGroup, "g").Node("n1").Obj())
	steps := []struct {
		name   string
		levels []v1alpha1.TopologyConstraint
		change func()
		// list names the placements a step gets: steps of one list get the same values.
		list string
	}{
		{name: "first", levels: blockThenRack, list: "A"},
		{name: "again", levels: blockThenRack, list: "A"},
		{name: "same keys, both required", levels: []v1alpha1.TopologyConstraint{required(block), required(rack)}, list: "B"},
		{name: "a running member pins the group", levels: blockThenRack, list: "C", change: func() {
			if err := c.Nodes().AddBoundPod(member); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "the member gone", levels: blockThenRack, list: "A", change: func() { c.Nodes().RemoveBoundPod(member.Key) }},
		{name: "a node labelled", levels: blockThenRack, list: "D", change: func() {
			c.Nodes().AddNode(testutil.Node("n6").Labels(block, "b2", rack, "r4").Obj())
		}},
		{name: "again after the labels", levels: blockThenRack, list: "D"},
	}
	var got [][]*framework.Placement
	for i, s := range steps {
		if s.change != nil {
			s.change()
		}
		out, st := tp.GeneratePlacements(context.Background(), framework.NewCycleState(), group(s.levels...), nil, nil)
		if !st.IsSuccess() {
			t.Fatalf("%s: %v", s.name, st)
		}
		got = append(got, out)
		fresh, _ := New(nil, h)
		want, _ := fresh.(*TopologyPlacement).GeneratePlacements(context.Background(), framework.NewCycleState(), group(s.levels...), nil, nil)
		if !reflect.DeepEqual(out, want) {
			t.Errorf("%s: placements\n  %s\nwant those of a fresh generation\n  %s", s.name,
				strings.Join(describe(out), "\n  "), strings.Join(describe(want), "\n  "))
		}
		for j := range i {
			if shared, want := got[j][0] == out[0], steps[j].list == s.list; shared != want {
				t.Errorf("%s: shares the placements of %q: %v, want %v", s.name, steps[j].name, shared, want)
			}
		}
	}
	// Two callers appending to the shared list each keep what they appended.
	a := append(got[1], &framework.Placement{Name: "a"})
	b := append(got[4], &framework.Placement{Name: "b"})
	if a[len(a)-1].Name != "a" || b[len(b)-1].Name != "b" {
		t.Errorf("appends to the shared list overwrote each other: %q and %q", a[len(a)-1].Name, b[len(b)-1].Name)
	}
}
