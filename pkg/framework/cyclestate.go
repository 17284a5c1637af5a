package framework

import "github.com/phalanx-dev/phalanx/pkg/metrics"

// StateKey names a piece of per-cycle state; plugins use their own name as a prefix.
type StateKey string

// StateData is what a plugin keeps between extension points of one cycle.
type StateData interface {
	// Clone returns a copy for a preemption dry run that will mutate it through
	// PreFilterExtensions. Data that is never mutated after PreFilter may return itself.
	Clone() StateData
}

// CycleState carries plugin state through one scheduling cycle. It is written sequentially
// (PreFilter, PreScore) and only read by the parallel Filter and Score loops, so it needs no
// lock.
type CycleState struct {
	// data is a short list rather than a map: a cycle holds a handful of entries and
	// Filter reads them on every node, where a linear scan beats hashing.
	data []stateEntry
	// SkipFilterPlugins and SkipScorePlugins record plugins whose PreFilter or PreScore
	// returned Skip.
	SkipFilterPlugins map[string]bool
	SkipScorePlugins  map[string]bool
	// PluginMetrics, when set, times each plugin's runs in this cycle (the framework sets
	// it for a sample of cycles; a clone for a dry run is not timed).
	PluginMetrics *metrics.FrameworkRecorder
}

type stateEntry struct {
	key StateKey
	val StateData
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{data: make([]stateEntry, 0, 8)}
}

// Read returns the data stored under key, or nil.
func (c *CycleState) Read(key StateKey) StateData {
	for i := range c.data {
		if c.data[i].key == key {
			return c.data[i].val
		}
	}
	return nil
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, val StateData) {
	for i := range c.data {
		if c.data[i].key == key {
			c.data[i].val = val
			return
		}
	}
	c.data = append(c.data, stateEntry{key, val})
}

// Delete removes key.
func (c *CycleState) Delete(key StateKey) {
	for i := range c.data {
		if c.data[i].key == key {
			c.data = append(c.data[:i], c.data[i+1:]...)
			return
		}
	}
}

// Clone copies the state, cloning every entry.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := &CycleState{data: make([]stateEntry, len(c.data))}
	for i, e := range c.data {
		out.data[i] = stateEntry{e.key, e.val.Clone()}
	}
	out.SkipFilterPlugins = cloneSet(c.SkipFilterPlugins)
	out.SkipScorePlugins = cloneSet(c.SkipScorePlugins)
	return out
}

func cloneSet(s map[string]bool) map[string]bool {
	if s == nil {
		return nil
	}
	out := make(map[string]bool, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}
