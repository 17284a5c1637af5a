package placement

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// CapacityPlugin is the pseudo-plugin blamed when every placement is too small in
// aggregate: room appears only when pods leave or nodes come or grow (CapacityEvents).
const CapacityPlugin = "PlacementCapacity"

// CapacityEvents are the cluster events that may give a placement too small in aggregate
// the room it lacks.
var CapacityEvents = []framework.ClusterEvent{
	{Resource: framework.AssignedPod, Action: framework.Delete | framework.UpdatePodScaleDown},
	{Resource: framework.Node, Action: framework.Add | framework.UpdateNodeAllocatable | framework.UpdateNodeLabel},
}

// failure explains why no placement is feasible, and hands every placement to preemption,
// best first: by rank, then by the score it has with the members that fit there now.
func (ps *placementSearch) failure(ctx context.Context, placements []*framework.Placement) (*SearchResult, error) {
	out := &SearchResult{Rejectors: sets.New[string]()}
	pruned, rejected := 0, 0
	reasons := map[string]int{}
	var lastRejected *placementEval
	pre := make(map[*framework.Placement]int64, len(placements))
	for i, p := range placements {
		e := &ps.evals[i]
		placed := e.placed
		switch {
		case e.evaluated:
			rejected++
			lastRejected = e
			for _, r := range placed.Reasons {
				reasons[r]++
			}
			out.Rejectors.Insert(placed.UnschedulablePlugins...)
		default:
			pruned++
			placed = &framework.GroupPlacement{}
		}
		sc, st := ps.score(ctx, p, placed)
		if !st.IsSuccess() {
			return nil, st.AsError()
		}
		pre[p] = sc
	}
	if pruned > 0 {
		out.Rejectors.Insert(CapacityPlugin)
	}

	var parts []string
	if pruned > 0 {
		parts = append(parts, fmt.Sprintf("%d too small in aggregate", pruned))
	}
	if rejected > 0 {
		part := fmt.Sprintf("%d failed the pod filters", rejected)
		if rejected == 1 {
			part += fmt.Sprintf(" (%s: %s)", lastRejected.p.Name, strings.TrimSuffix(lastRejected.placed.Message, "."))
		} else if r, n := mostCommon(reasons); n > 0 {
			part += fmt.Sprintf(" (most common reason: %s, in %d)", r, n)
		}
		parts = append(parts, part)
	}
	noun := "placements"
	if len(placements) == 1 {
		noun = "placement"
	}
	out.Message = fmt.Sprintf("no placement can hold the %d pods needed: of %d %s, %s.", ps.need, len(placements), noun, strings.Join(parts, ", "))

	list := slices.Clone(placements)
	slices.SortStableFunc(list, func(a, b *framework.Placement) int {
		if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
			return c
		}
		return cmp.Compare(pre[b], pre[a])
	})
	out.Candidates = &framework.PlacementCandidates{
		List: list,
		Score: func(ctx context.Context, p *framework.Placement, placed *framework.GroupPlacement) int64 {
			sc, _ := ps.score(ctx, p, placed)
			return sc
		},
	}
	return out, nil
}

// mostCommon returns the reason counted most often (the first in order among equals).
func mostCommon(counts map[string]int) (string, int) {
	best, n := "", 0
	for _, r := range slices.Sorted(maps.Keys(counts)) {
		if counts[r] > n {
			best, n = r, counts[r]
		}
	}
	return best, n
}
