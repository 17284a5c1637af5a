package runtime_test

import (
	"context"
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

type generator struct {
	name   string
	out    []*framework.Placement
	status *framework.Status
	got    []*framework.Placement
}

func (p *generator) Name() string { return p.name }
func (p *generator) GeneratePlacements(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, _ []*framework.PodInfo, parents []*framework.Placement) ([]*framework.Placement, *framework.Status) {
	p.got = parents
	return p.out, p.status
}

type placementState struct {
	name   string
	status *framework.Status
	log    *calls
}

func (p *placementState) Name() string { return p.name }
func (p *placementState) AssumePlacement(context.Context, *framework.CycleState, *framework.GroupInfo, *framework.Placement) *framework.Status {
	p.log.add(p.name, "Assume")
	return p.status
}
func (p *placementState) RevertPlacement(context.Context, *framework.CycleState, *framework.GroupInfo, *framework.Placement) {
	p.log.add(p.name, "Revert")
}

type placementScorer struct {
	name  string
	score int64
}

func (p *placementScorer) Name() string { return p.name }
func (p *placementScorer) ScorePlacement(context.Context, *framework.CycleState, *framework.GroupInfo, *framework.Placement, *framework.GroupPlacement, int) (int64, *framework.Status) {
	return p.score, nil
}

func TestRunPlacementGeneratePlugins(t *testing.T) {
	a := []*framework.Placement{{Name: "a"}}
	b := []*framework.Placement{{Name: "b"}}
	ctx, g := context.Background(), &framework.GroupInfo{Key: "ns/g"}

	skip := &generator{name: "Skip", status: framework.NewStatus(framework.Skip)}
	f := only(t, skip)
	if out, generated, st := f.RunPlacementGeneratePlugins(ctx, framework.NewCycleState(), g, nil); out != nil || generated || st != nil {
		t.Errorf("all skipped: %v %v %v, want nothing generated", out, generated, st)
	}

	first, second := &generator{name: "First", out: a}, &generator{name: "Second", out: b}
	f = only(t, first, skip, second)
	out, generated, st := f.RunPlacementGeneratePlugins(ctx, framework.NewCycleState(), g, nil)
	if !generated || st != nil || !slices.Equal(out, b) || !slices.Equal(second.got, a) {
		t.Errorf("chain: %v %v %v (second got parents %v), want b with a as parents", out, generated, st, second.got)
	}

	fail := &generator{name: "Fail", status: framework.NewStatus(framework.UnschedulableAndUnresolvable, "no label")}
	f = only(t, first, fail)
	if _, generated, st := f.RunPlacementGeneratePlugins(ctx, framework.NewCycleState(), g, nil); !generated || st.Plugin() != "Fail" || st.Message() != "no label" {
		t.Errorf("failure: generated %v, status %v from %q", generated, st, st.Plugin())
	}
}

func TestRunAssumeAndRevertPlacement(t *testing.T) {
	var log calls
	ok1, ok2 := &placementState{name: "A", log: &log}, &placementState{name: "B", log: &log}
	bad := &placementState{name: "C", log: &log, status: framework.NewStatus(framework.Unschedulable, "no devices")}
	ctx, g, p := context.Background(), &framework.GroupInfo{Key: "ns/g"}, &framework.Placement{Name: "p"}

	f := only(t, ok1, ok2)
	if st := f.RunAssumePlacement(ctx, framework.NewCycleState(), g, p); st != nil {
		t.Fatalf("assume: %v", st)
	}
	f.RunRevertPlacement(ctx, framework.NewCycleState(), g, p)
	if want := (calls{"A.Assume", "B.Assume", "B.Revert", "A.Revert"}); !slices.Equal(log, want) {
		t.Errorf("calls %v, want %v", log, want)
	}

	log = nil
	f = only(t, ok1, ok2, bad)
	st := f.RunAssumePlacement(ctx, framework.NewCycleState(), g, p)
	if st.Code() != framework.Unschedulable || st.Plugin() != "C" {
		t.Errorf("status %v from %q, want Unschedulable from C", st, st.Plugin())
	}
	if want := (calls{"A.Assume", "B.Assume", "C.Assume", "B.Revert", "A.Revert"}); !slices.Equal(log, want) {
		t.Errorf("calls %v, want %v: those assumed before the failure are reverted", log, want)
	}
}

func TestRunPlacementScorePlugins(t *testing.T) {
	r := registryOf(&placementScorer{name: "X", score: 30}, &placementScorer{name: "Y", score: 50})
	f := build(t, r, config.Profile{SchedulerName: "test", Plugins: config.Plugins{
		Disabled: []config.Plugin{{Name: "*"}},
		Enabled:  []config.Plugin{{Name: "X", Weight: 2}, {Name: "Y"}},
	}})
	got, st := f.RunPlacementScorePlugins(context.Background(), framework.NewCycleState(), &framework.GroupInfo{}, &framework.Placement{}, &framework.GroupPlacement{}, 1)
	if st != nil || got != 2*30+50 {
		t.Errorf("score %d, %v; want %d", got, st, 2*30+50)
	}
	f = only(t, &placementScorer{name: "Big", score: 101})
	if _, st := f.RunPlacementScorePlugins(context.Background(), framework.NewCycleState(), &framework.GroupInfo{}, &framework.Placement{}, &framework.GroupPlacement{}, 1); st.Code() != framework.Error {
		t.Errorf("out of range score: %v, want an error", st)
	}
}
