package config

import "time"

// DefaultSchedulerName is the scheduler name phalanx answers to by default.
const DefaultSchedulerName = "phalanx"

// DefaultFeasiblePlacementsToFind is the default of Configuration.FeasiblePlacementsToFind.
const DefaultFeasiblePlacementsToFind = 8

// DefaultReleaseWaitTimeout is releaseWaitTimeout's default: a ResourceClaim controller
// releases a gone pod's claims within a second or two; 30 s leaves room for a busy one.
const DefaultReleaseWaitTimeout = 30 * time.Second

// DefaultPlugin is a plugin enabled by default, with its default score weight.
type DefaultPlugin struct {
	Name   string
	Weight int32
}

// DefaultPlugins is the default plugin set, in the order plugins run at each extension
// point. Weights follow kube-scheduler's defaults.
var DefaultPlugins = []DefaultPlugin{
	{Name: "PrioritySort"},
	{Name: "SchedulingGates"},
	{Name: "NodeUnschedulable"},
	{Name: "NodeName"},
	{Name: "TaintToleration", Weight: 3},
	{Name: "NodeAffinity", Weight: 2},
	{Name: "NodePorts"},
	{Name: "NodeResourcesFit", Weight: 1},
	{Name: "VolumeRestrictions"},
	{Name: "NodeVolumeLimits"},
	{Name: "VolumeBinding"},
	{Name: "VolumeZone"},
	{Name: "PodTopologySpread", Weight: 2},
	{Name: "InterPodAffinity", Weight: 2},
	{Name: "NodeResourcesBalancedAllocation", Weight: 1},
	{Name: "ImageLocality", Weight: 1},
	{Name: "NodeDeclaredFeatures"},
	{Name: "DynamicResources", Weight: 2},
	{Name: "GangScheduling"},
	{Name: "TopologyPlacement"},
	{Name: "DRAPlacement"},
	{Name: "PlacementBinPacking", Weight: 1},
	{Name: "PlacementPodCount", Weight: 4},
	{Name: "DefaultPreemption"},
	{Name: "WorkloadPreemption"},
	{Name: "DefaultBinder"},
}

// Default returns the configuration used when no file is given.
func Default() *Configuration {
	c := &Configuration{}
	SetDefaults(c)
	return c
}

// SetDefaults fills unset fields.
func SetDefaults(c *Configuration) {
	if c.APIVersion == "" {
		c.APIVersion = APIVersion
	}
	if c.Kind == "" {
		c.Kind = Kind
	}
	if c.Parallelism == 0 {
		c.Parallelism = 16
	}
	if c.FeasiblePlacementsToFind == 0 {
		c.FeasiblePlacementsToFind = DefaultFeasiblePlacementsToFind
	}
	if c.PodInitialBackoff.Duration == 0 {
		c.PodInitialBackoff.Duration = time.Second
	}
	if c.PodMaxBackoff.Duration == 0 {
		c.PodMaxBackoff.Duration = 10 * time.Second
	}
	if c.PodMaxInUnschedulablePodsDuration.Duration == 0 {
		c.PodMaxInUnschedulablePodsDuration.Duration = 5 * time.Minute
	}
	if c.GangWaitTimeout.Duration == 0 {
		c.GangWaitTimeout.Duration = 5 * time.Minute
	}
	if c.ReleaseWaitTimeout.Duration == 0 {
		c.ReleaseWaitTimeout.Duration = DefaultReleaseWaitTimeout
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if len(c.Profiles) == 0 {
		c.Profiles = []Profile{{}}
	}
	for i := range c.Profiles {
		if c.Profiles[i].SchedulerName == "" {
			c.Profiles[i].SchedulerName = DefaultSchedulerName
		}
	}
}
