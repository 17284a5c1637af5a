package runtime

import (
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// pluginSampleEvery: one pod cycle in ten has its plugins' runs timed
// (scheduler_plugin_execution_duration_seconds), as kube-scheduler samples 10% of its
// cycles; at Filter and Score, which run per node, only one node in nodeSampleEvery is
// timed in those cycles: timing every node's calls took a fifth of the scheduling time on
// 5,000 nodes. Every run of an extension point is timed
// (scheduler_framework_extension_point_duration_seconds), but Filter's, which runs per
// node.
const (
	pluginSampleEvery = 10
	nodeSampleEvery   = 16
)

// sample marks every pluginSampleEvery-th cycle's state for plugin timing; PreFilter
// starts a cycle.
func (f *Framework) sample(state *framework.CycleState) {
	if f.metrics == nil {
		return
	}
	f.cycles++
	if f.cycles%pluginSampleEvery == 1 {
		state.PluginMetrics = f.metrics
	}
}

// pointStart is when an extension point started running (zero when nothing records).
func (f *Framework) pointStart() time.Time {
	if f.metrics == nil {
		return time.Time{}
	}
	return time.Now()
}

// observePoint records an extension point's run.
func (f *Framework) observePoint(point string, st *framework.Status, start time.Time) {
	if f.metrics != nil {
		f.metrics.ExtensionPoint(point, st.Code().String(), time.Since(start))
	}
}

// pluginStart is when a plugin started running in a sampled cycle (zero otherwise).
func pluginStart(state *framework.CycleState) time.Time {
	if state == nil || state.PluginMetrics == nil {
		return time.Time{}
	}
	return time.Now()
}

// nodePluginStart is pluginStart for the per-node extension points: zero but for the
// sampled nodes of a sampled cycle.
func nodePluginStart(state *framework.CycleState, node *framework.NodeInfo) time.Time {
	if !nodeTimed(state, node) {
		return time.Time{}
	}
	return time.Now()
}

// nodeTimed says whether the plugins' runs on node are timed: in a sampled cycle, on a
// sampled node.
func nodeTimed(state *framework.CycleState, node *framework.NodeInfo) bool {
	return state.PluginMetrics != nil && node.Index%nodeSampleEvery == 0
}

// observePlugin records a plugin's run that started at start (zero: not timed).
func observePlugin(state *framework.CycleState, point, plugin string, st *framework.Status, start time.Time) {
	if !start.IsZero() {
		state.PluginMetrics.Plugin(point, plugin, st.Code().String(), time.Since(start))
	}
}
