package runtime

import (
	"maps"
	"math/bits"
	"sync"
)

// skipSets hands out the sets of plugins that returned Skip from one extension point
// (PreFilter, or PreScore) as shared maps, one per distinct set. A group cycle runs
// PreFilter and PreScore for every member in every placement it evaluates (512 times for
// a gang of 64 in 8 racks) and the members skip the same plugins, so making each cycle
// state a map of its own was most of what those runs allocated.
//
// A shared map is never written: the framework fills a state's skip set only here (a
// state that already has one, run again, gets a new map), a cycle state's Clone copies
// it, and plugins only read it.
type skipSets struct {
	// names are the extension point's plugins, in order: bit i of a mask is names[i].
	names []string
	mu    sync.Mutex
	sets  map[uint64]map[string]bool
}

// maxSkipSets bounds the sets remembered (a few kinds of pods skip differently; more
// than this is unusual and costs one rebuild of each).
const maxSkipSets = 64

func newSkipSets(names []string) *skipSets { return &skipSets{names: names} }

// tracked reports whether masks can name every plugin of the extension point.
func (s *skipSets) tracked() bool { return len(s.names) <= 64 }

// with returns the skip set of a state that had current (nil when none) after a run that
// skipped the plugins of mask: current itself when nothing more was skipped.
func (s *skipSets) with(current map[string]bool, mask uint64) map[string]bool {
	switch {
	case mask == 0:
		return current
	case current == nil:
		return s.shared(mask)
	}
	out := maps.Clone(current) // current may be shared: never written
	for m := mask; m != 0; m &= m - 1 {
		out[s.names[bits.TrailingZeros64(m)]] = true
	}
	return out
}

// shared returns the one map of the plugins of mask.
func (s *skipSets) shared(mask uint64) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.sets[mask]; ok {
		return set
	}
	if s.sets == nil || len(s.sets) >= maxSkipSets {
		s.sets = map[uint64]map[string]bool{}
	}
	set := make(map[string]bool, bits.OnesCount64(mask))
	for m := mask; m != 0; m &= m - 1 {
		set[s.names[bits.TrailingZeros64(m)]] = true
	}
	s.sets[mask] = set
	return set
}

func pluginNames[P interface{ Name() string }](plugins []P) []string {
	names := make([]string, len(plugins))
	for i, pl := range plugins {
		names[i] = pl.Name()
	}
	return names
}
