package testutil

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// RunPreFilterPlugins implements framework.PluginRunner (no plugins).
func (h *Handle) RunPreFilterPlugins(context.Context, *framework.CycleState, *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}

// RunFilterPlugins implements framework.PluginRunner (no plugins).
func (h *Handle) RunFilterPlugins(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

// RunPreFilterExtensionAddPod implements framework.PluginRunner (no plugins).
func (h *Handle) RunPreFilterExtensionAddPod(context.Context, *framework.CycleState, *framework.PodInfo, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

// RunPreFilterExtensionRemovePod implements framework.PluginRunner (no plugins).
func (h *Handle) RunPreFilterExtensionRemovePod(context.Context, *framework.CycleState, *framework.PodInfo, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

// RunStaticFilterPlugins implements framework.PluginRunner (no plugins).
func (h *Handle) RunStaticFilterPlugins(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

// HasActivePreFilterExtensions implements framework.PluginRunner (no plugins).
func (h *Handle) HasActivePreFilterExtensions(*framework.CycleState) bool { return false }

// RunBlockingPodsPlugin implements framework.PluginRunner (no plugins).
func (h *Handle) RunBlockingPodsPlugin(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo, *framework.Status) []*framework.PodInfo {
	return nil
}

var _ framework.Handle = (*Handle)(nil)

// RunReservePluginsReserve implements framework.PluginRunner (no plugins).
func (h *Handle) RunReservePluginsReserve(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	return nil
}

// RunReservePluginsUnreserve implements framework.PluginRunner (no plugins).
func (h *Handle) RunReservePluginsUnreserve(context.Context, *framework.CycleState, *framework.PodInfo, string) {
}
