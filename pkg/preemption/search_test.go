package preemption

import (
	"slices"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// cpuOracle fits the preemptor when the units taken off free at least need cpu.
type cpuOracle struct {
	size map[*Unit]int
	free int
	need int
}

func (o *cpuOracle) Keep(u *Unit) (bool, error) {
	if o.free-o.size[u] >= o.need {
		o.free -= o.size[u]
		return true, nil
	}
	return false, nil
}

func (o *cpuOracle) Drop(u *Unit) error { o.free += o.size[u]; return nil }
func (o *cpuOracle) Witness() any       { return nil }

func testUnit(name string, prio int32, started time.Duration) *Unit {
	p := testutil.Pod(name).Priority(prio).Req("cpu", "1").Info()
	return &Unit{Key: p.Key, Pods: []*framework.PodInfo{p}, Priority: prio, Start: time.Unix(1000, 0).Add(started), QOS: 1}
}

func TestVictimSearch(t *testing.T) {
	// big is the most important (earliest start): greedy reprieval keeps it and must then
	// preempt both small ones; one victim (big) is enough.
	big, small1, small2 := testUnit("big", 5, 0), testUnit("small1", 5, time.Minute), testUnit("small2", 5, 2*time.Minute)
	// low is of lower priority than everything else: preempting it alone is not enough,
	// and with mid it beats big.
	low, mid := testUnit("low", 1, 0), testUnit("mid", 3, 0)
	tests := []struct {
		name     string
		units    []*Unit
		size     []int
		need     int
		exactMax int
		budget   int // the decision's shared budget; -1 for none
		want     []string
	}{
		{"exact: one big victim instead of two small ones", []*Unit{big, small1, small2}, []int{4, 2, 2}, 4, 20, -1, []string{"big"}},
		{"greedy alone: both small ones", []*Unit{big, small1, small2}, []int{4, 2, 2}, 4, -1, -1, []string{"small1", "small2"}},
		{"exact search out of budget: greedy's answer", []*Unit{big, small1, small2}, []int{4, 2, 2}, 4, 20, 0, []string{"small1", "small2"}},
		{"lower highest priority first, even with more victims", []*Unit{big, mid, low}, []int{4, 2, 2}, 4, 20, -1, []string{"low", "mid"}},
		{"nothing to preempt when the room is there", []*Unit{big, small1}, []int{4, 2}, 0, 20, -1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &cpuOracle{size: map[*Unit]int{}, need: tc.need}
			for i, u := range tc.units {
				o.size[u] = tc.size[i]
				o.free += tc.size[i]
			}
			units := slices.Clone(tc.units)
			SortUnits(units)
			s := &VictimSearch{Units: units, Oracle: o, ExactMax: tc.exactMax}
			outOfBudget := tc.budget == 0
			if tc.budget >= 0 {
				s.Shared = &tc.budget
			}
			before := o.free
			victims, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range victims {
				got = append(got, u.Pods[0].Pod.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
			if o.free != before {
				t.Errorf("the oracle is left with %d free, it started with %d: every unit must be off again", o.free, before)
			}
			// Only a search stopped by its budget is said to be one.
			if s.exhaustedSaid != outOfBudget {
				t.Errorf("stopped at its budget: %v, want %v", s.exhaustedSaid, outOfBudget)
			}
		})
	}
}

// The cost of a set never drops when a less important unit is added: what lets the
// branch and bound prune on the units chosen so far.
func TestCostGrowsWithLessImportantUnits(t *testing.T) {
	units := []*Unit{testUnit("a", 9, 0), testUnit("b", 9, time.Minute), testUnit("c", 4, 0), testUnit("d", 1, 0)}
	SortUnits(units)
	for i := 1; i < len(units); i++ {
		before, after := CostOfUnits(units[:i], nil), CostOfUnits(units[:i+1], nil)
		if after.Compare(before) <= 0 {
			t.Errorf("adding %s: cost %+v is not above %+v", units[i].Key, after, before)
		}
	}
	if NoCost.Compare(CostOfUnits(units[:1], nil)) >= 0 {
		t.Error("no victims must cost less than one")
	}
}
