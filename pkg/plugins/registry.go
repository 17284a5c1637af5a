// Package plugins assembles the registry of phalanx's in-tree plugins.
package plugins

import (
	"github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/plugins/defaultbinder"
	"github.com/phalanx-dev/phalanx/pkg/plugins/defaultpreemption"
	"github.com/phalanx-dev/phalanx/pkg/plugins/draplacement"
	"github.com/phalanx-dev/phalanx/pkg/plugins/dynamicresources"
	"github.com/phalanx-dev/phalanx/pkg/plugins/gangscheduling"
	"github.com/phalanx-dev/phalanx/pkg/plugins/imagelocality"
	"github.com/phalanx-dev/phalanx/pkg/plugins/interpodaffinity"
	"github.com/phalanx-dev/phalanx/pkg/plugins/nodeaffinity"
	"github.com/phalanx-dev/phalanx/pkg/plugins/nodedeclaredfeatures"
	"github.com/phalanx-dev/phalanx/pkg/plugins/nodename"
	"github.com/phalanx-dev/phalanx/pkg/plugins/nodeports"
	"github.com/phalanx-dev/phalanx/pkg/plugins/noderesources"
	"github.com/phalanx-dev/phalanx/pkg/plugins/nodeunschedulable"
	"github.com/phalanx-dev/phalanx/pkg/plugins/nodevolumelimits"
	"github.com/phalanx-dev/phalanx/pkg/plugins/placementscore"
	"github.com/phalanx-dev/phalanx/pkg/plugins/podtopologyspread"
	"github.com/phalanx-dev/phalanx/pkg/plugins/prioritysort"
	"github.com/phalanx-dev/phalanx/pkg/plugins/schedulinggates"
	"github.com/phalanx-dev/phalanx/pkg/plugins/tainttoleration"
	"github.com/phalanx-dev/phalanx/pkg/plugins/topologyplacement"
	"github.com/phalanx-dev/phalanx/pkg/plugins/volumebinding"
	"github.com/phalanx-dev/phalanx/pkg/plugins/volumerestrictions"
	"github.com/phalanx-dev/phalanx/pkg/plugins/volumezone"
	"github.com/phalanx-dev/phalanx/pkg/plugins/workloadpreemption"
)

// NewRegistry returns every in-tree plugin by name.
func NewRegistry() runtime.Registry {
	return runtime.Registry{
		prioritysort.Name:                    prioritysort.New,
		schedulinggates.Name:                 schedulinggates.New,
		nodeunschedulable.Name:               nodeunschedulable.New,
		nodedeclaredfeatures.Name:            nodedeclaredfeatures.New,
		imagelocality.Name:                   imagelocality.New,
		nodename.Name:                        nodename.New,
		noderesources.FitName:                noderesources.NewFit,
		noderesources.BalancedAllocationName: noderesources.NewBalancedAllocation,
		tainttoleration.Name:                 tainttoleration.New,
		nodeaffinity.Name:                    nodeaffinity.New,
		nodeports.Name:                       nodeports.New,
		interpodaffinity.Name:                interpodaffinity.New,
		podtopologyspread.Name:               podtopologyspread.New,
		defaultbinder.Name:                   defaultbinder.New,
		dynamicresources.Name:                dynamicresources.New,
		volumebinding.Name:                   volumebinding.New,
		volumezone.Name:                      volumezone.New,
		volumerestrictions.Name:              volumerestrictions.New,
		nodevolumelimits.Name:                nodevolumelimits.New,
		defaultpreemption.Name:               defaultpreemption.New,
		gangscheduling.Name:                  gangscheduling.New,
		workloadpreemption.Name:              workloadpreemption.New,
		topologyplacement.Name:               topologyplacement.New,
		draplacement.Name:                    draplacement.New,
		placementscore.BinPackingName:        placementscore.NewBinPacking,
		placementscore.PodCountName:          placementscore.NewPodCount,
	}
}
