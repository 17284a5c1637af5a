package runtime_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// scripted is a PreFilter and PreScore plugin whose status for each pod is drawn from a
// script: Skip, a rejection, or success.
type scripted struct {
	name   string
	script map[string]framework.Code
}

func (p *scripted) Name() string { return p.name }
func (p *scripted) status(pod *framework.PodInfo) *framework.Status {
	if c := p.script[pod.Pod.Name]; c != framework.Success {
		return framework.NewStatus(c)
	}
	return nil
}
func (p *scripted) PreFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, p.status(pod)
}
func (p *scripted) PreFilterExtensions() framework.PreFilterExtensions { return nil }
func (p *scripted) PreScore(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	return p.status(pod)
}

// TestSkipSetsAgainstReference runs PreFilter and PreScore for random pods on a few
// cycle states, some more than once, with plugins that skip, reject (ending the run) or
// pass by a random script, and checks each state's skip sets against a plain union of
// the plugins that skipped before the run ended. States share the sets (one map per
// distinct set), so a run that wrote a shared set would show in another state. With more
// plugins than a mask holds, each state has a map of its own.
func TestSkipSetsAgainstReference(t *testing.T) {
	for _, n := range []int{1, 5, 64, 70} {
		t.Run(fmt.Sprint(n, " plugins"), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 67))
			const pods = 6
			var pls []framework.Plugin
			var scripts []*scripted
			for i := range n {
				s := &scripted{name: fmt.Sprintf("P%02d", i), script: map[string]framework.Code{}}
				for j := range pods {
					switch r := rng.IntN(100); {
					case r < 40:
						s.script[fmt.Sprint("pod", j)] = framework.Skip
					case r < 42:
						s.script[fmt.Sprint("pod", j)] = framework.Unschedulable
					}
				}
				pls, scripts = append(pls, s), append(scripts, s)
			}
			f := only(t, pls...)
			// reference is what a run adds to a skip set: the plugins that skipped, in
			// order, until one rejected.
			reference := func(set map[string]bool, pod *framework.PodInfo) {
				for _, s := range scripts {
					switch s.script[pod.Pod.Name] {
					case framework.Skip:
						set[s.name] = true
					case framework.Unschedulable:
						return
					}
				}
			}
			type run struct {
				state                 *framework.CycleState
				wantFilter, wantScore map[string]bool
				times                 int
			}
			var runs []*run
			for range 40 {
				var r *run
				if len(runs) == 0 || rng.IntN(3) > 0 {
					r = &run{state: framework.NewCycleState(), wantFilter: map[string]bool{}, wantScore: map[string]bool{}}
					runs = append(runs, r)
				} else {
					r = runs[rng.IntN(len(runs))] // a state run again
				}
				r.times++
				pod := framework.NewPodInfo(testutil.Pod(fmt.Sprint("pod", rng.IntN(pods))).Obj())
				f.RunPreFilterPlugins(context.Background(), r.state, pod)
				f.RunPreScorePlugins(context.Background(), r.state, pod, nil)
				reference(r.wantFilter, pod)
				reference(r.wantScore, pod)
			}
			// States run once get the shared set; those run again, a union of their own.
			shared := map[string]map[string]bool{}
			for i, r := range runs {
				for _, c := range []struct {
					point     string
					got, want map[string]bool
				}{{"PreFilter", r.state.SkipFilterPlugins, r.wantFilter}, {"PreScore", r.state.SkipScorePlugins, r.wantScore}} {
					if !maps.Equal(c.got, c.want) {
						t.Errorf("state %d: %s skipped %v, want %v", i, c.point, slices.Sorted(maps.Keys(c.got)), slices.Sorted(maps.Keys(c.want)))
					}
					if len(c.got) == 0 && c.got != nil {
						t.Errorf("state %d: %s skipped nothing and has an empty set, want none", i, c.point)
					}
					key := c.point + fmt.Sprint(slices.Sorted(maps.Keys(c.got)))
					if r.times > 1 || len(c.got) == 0 || n > 64 {
						continue
					}
					if first, ok := shared[key]; ok && reflect.ValueOf(first).UnsafePointer() != reflect.ValueOf(c.got).UnsafePointer() {
						t.Errorf("state %d: %s's set %v is a map of its own, want the shared one", i, c.point, slices.Sorted(maps.Keys(c.got)))
					}
					shared[key] = c.got
				}
			}
		})
	}
}

var _ framework.PreFilterPlugin = (*scripted)(nil)
var _ framework.PreScorePlugin = (*scripted)(nil)
var _ = runtime.Registry{}
