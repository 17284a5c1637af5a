// Package config holds phalanx's scheduler configuration: profiles with their plugins,
// weights and arguments, read from a YAML file in phalanx's format or as kube-scheduler's
// KubeSchedulerConfiguration, with defaults that work when no file is given.
package config

import (
	"encoding/json"
	"time"
)

// Kind and APIVersion of the configuration file.
const (
	APIVersion = "config.phalanx.dev/v1alpha1"
	Kind       = "SchedulerConfiguration"
)

// Configuration is the whole scheduler configuration.
type Configuration struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`

	// Parallelism is the number of goroutines that filter and score nodes (default 16,
	// as kube-scheduler).
	Parallelism int `json:"parallelism,omitempty"`
	// PercentageOfNodesToScore is how many nodes, in percent, the scheduler looks for before
	// it stops filtering. 0 means kube-scheduler's adaptive default (50% on 100 nodes down
	// to 5% on 5,000 and more, never fewer than 100 nodes).
	PercentageOfNodesToScore int `json:"percentageOfNodesToScore,omitempty"`
	// FeasiblePlacementsToFind is how many feasible placements of a topology-constrained
	// group the scheduler evaluates, tightest first, before it scores them and picks one
	// (KEP-5732's feasible placements limit; default 8). Larger finds better packings on
	// clusters with many domains, at a cost that grows with it.
	FeasiblePlacementsToFind int `json:"feasiblePlacementsToFind,omitempty"`
	// PodInitialBackoff and PodMaxBackoff bound the exponential backoff after a failed
	// attempt (defaults 1s and 10s).
	PodInitialBackoff Duration `json:"podInitialBackoff,omitempty"`
	PodMaxBackoff     Duration `json:"podMaxBackoff,omitempty"`
	// PodMaxInUnschedulablePodsDuration is the longest a pod stays unschedulable without a
	// retry, even when no cluster event suggests one (default 5m).
	PodMaxInUnschedulablePodsDuration Duration `json:"podMaxInUnschedulablePodsDuration,omitempty"`
	// GangWaitTimeout is how long a gang whose members are still arriving may hold a
	// partial reservation before it is given up (default 5m); see the gang docs.
	GangWaitTimeout Duration `json:"gangWaitTimeout,omitempty"`
	// ReleaseWaitTimeout bounds how long a preemptor whose victims are gone waits for the
	// devices of their ResourceClaims to be released (the ResourceClaim controller deletes
	// or deallocates the claims a moment later) before it may preempt other pods (default
	// 30s).
	ReleaseWaitTimeout Duration `json:"releaseWaitTimeout,omitempty"`
	// Seed makes tie-breaks between equally good nodes reproducible (default 1).
	Seed int64 `json:"seed,omitempty"`
	// FeatureGates switches the kube-scheduler feature gates phalanx models, by name, from
	// their v1.37 defaults (KnownFeatureGates).
	FeatureGates map[string]bool `json:"featureGates,omitempty"`

	Profiles []Profile `json:"profiles,omitempty"`

	// Run holds what a KubeSchedulerConfiguration says about the process (leader
	// election, client connection, profiling); phalanx's own format has none of it.
	Run RunSettings `json:"-"`
}

// Profile is a scheduler name with its plugins.
type Profile struct {
	// SchedulerName is the spec.schedulerName of the pods this profile schedules.
	SchedulerName string `json:"schedulerName,omitempty"`
	// Plugins adds to or removes from the default plugin set, at every extension point or
	// at one.
	Plugins Plugins `json:"plugins,omitzero"`
	// PluginConfig carries plugin arguments.
	PluginConfig []PluginConfig `json:"pluginConfig,omitempty"`
}

// Plugins lists plugins to enable after the defaults and defaults to disable ("*" disables
// them all). Enabled and Disabled apply at every extension point a plugin implements
// (kube-scheduler's multiPoint); the per-point sets then change one extension point, as
// kube-scheduler's do: a point's Disabled removes plugins there ("*": every multi-point
// plugin), its Enabled adds plugins there (or, for a plugin already enabled, sets its
// weight and moves it first).
type Plugins struct {
	Enabled  []Plugin `json:"enabled,omitempty"`
	Disabled []Plugin `json:"disabled,omitempty"`

	PreEnqueue PluginSet `json:"preEnqueue,omitzero"`
	QueueSort  PluginSet `json:"queueSort,omitzero"`
	PreFilter  PluginSet `json:"preFilter,omitzero"`
	Filter     PluginSet `json:"filter,omitzero"`
	PostFilter PluginSet `json:"postFilter,omitzero"`
	PreScore   PluginSet `json:"preScore,omitzero"`
	Score      PluginSet `json:"score,omitzero"`
	Reserve    PluginSet `json:"reserve,omitzero"`
	Permit     PluginSet `json:"permit,omitzero"`
	PreBind    PluginSet `json:"preBind,omitzero"`
	Bind       PluginSet `json:"bind,omitzero"`
	// PlacementGenerate and PlacementScore are KEP-5732's points for pod groups (a
	// generator's PlacementState part goes with PlacementGenerate).
	PlacementGenerate PluginSet `json:"placementGenerate,omitzero"`
	PlacementScore    PluginSet `json:"placementScore,omitzero"`
}

// PluginSet enables and disables plugins at one extension point.
type PluginSet struct {
	Enabled  []Plugin `json:"enabled,omitempty"`
	Disabled []Plugin `json:"disabled,omitempty"`
}

// IsZero says whether the set changes nothing. An empty list (`enabled: []`) changes nothing
// either, so the set is left out when written, as an absent one is (omitzero asks this).
func (s PluginSet) IsZero() bool { return len(s.Enabled) == 0 && len(s.Disabled) == 0 }

// Extension points that a per-point plugin set names, with the spelling of the
// configuration file (kube-scheduler's). PreEnqueue covers phalanx's pod group gates too,
// and PostFilter its PodGroupPostFilter.
const (
	PreEnqueue        = "preEnqueue"
	QueueSort         = "queueSort"
	PreFilter         = "preFilter"
	Filter            = "filter"
	PostFilter        = "postFilter"
	PreScore          = "preScore"
	Score             = "score"
	Reserve           = "reserve"
	Permit            = "permit"
	PreBind           = "preBind"
	Bind              = "bind"
	PlacementGenerate = "placementGenerate"
	PlacementScore    = "placementScore"
)

// PointSet is one extension point's set, by the point's name.
type PointSet struct {
	Point string
	Set   *PluginSet
}

// Points returns every per-point set, in the order the extension points run.
// IsZero says whether the plugins change nothing at any extension point (omitzero asks this).
func (p Plugins) IsZero() bool {
	if len(p.Enabled) > 0 || len(p.Disabled) > 0 {
		return false
	}
	for _, point := range p.Points() {
		if !point.Set.IsZero() {
			return false
		}
	}
	return true
}

func (p *Plugins) Points() []PointSet {
	return []PointSet{
		{PreEnqueue, &p.PreEnqueue}, {QueueSort, &p.QueueSort}, {PreFilter, &p.PreFilter},
		{Filter, &p.Filter}, {PostFilter, &p.PostFilter}, {PreScore, &p.PreScore}, {Score, &p.Score},
		{Reserve, &p.Reserve}, {Permit, &p.Permit}, {PreBind, &p.PreBind}, {Bind, &p.Bind},
		{PlacementGenerate, &p.PlacementGenerate}, {PlacementScore, &p.PlacementScore},
	}
}

// Plugin names a plugin and, for Score plugins, its weight (default 1, or the plugin's own
// default weight when it is a default plugin).
type Plugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight,omitempty"`
}

// PluginConfig is a plugin's arguments, decoded by the plugin.
type PluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("10s", "5m").
type Duration struct{ time.Duration }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// OpportunisticBatching is kube-scheduler's gate (beta, on by default since 1.35): a pod
// whose plugins can sign it, following a pod of the same signature, is first tried on the
// best node the previous cycle scored and did not take.
const OpportunisticBatching = "OpportunisticBatching"

// KnownFeatureGates are the gates FeatureGates may switch, with their defaults.
var KnownFeatureGates = map[string]bool{OpportunisticBatching: true}

// FeatureEnabled says whether a known gate is on.
func (c *Configuration) FeatureEnabled(name string) bool {
	if on, ok := c.FeatureGates[name]; ok {
		return on
	}
	return KnownFeatureGates[name]
}
