package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// kubeSchedulerPlugins is every plugin of kube-scheduler v1.37's in-tree registry
// (k8s.io/kubernetes/pkg/scheduler/framework/plugins/registry.go), with its default weight
// in v1.37's default profile (getDefaultPlugins and the default-on feature gates; 0: none
// given there, so that a scorer weighs 1, as VolumeBinding does, or not in the default
// profile), whether phalanx implements it, and its
// arguments' type in kubescheduler.config.k8s.io/v1 ("" when it has none).
var kubeSchedulerPlugins = []struct {
	name        string
	weight      int32
	inDefault   bool
	implemented bool
	args        string
}{
	{"PrioritySort", 0, true, true, ""},
	{"SchedulingGates", 0, true, true, ""},
	{"NodeName", 0, true, true, ""},
	{"NodeUnschedulable", 0, true, true, ""},
	{"TaintToleration", 3, true, true, ""},
	{"NodeAffinity", 2, true, true, "NodeAffinityArgs"},
	{"NodePorts", 0, true, true, ""},
	{"NodeResourcesFit", 1, true, true, "NodeResourcesFitArgs"},
	{"VolumeRestrictions", 0, true, true, ""},
	{"NodeVolumeLimits", 0, true, true, ""},
	{"VolumeBinding", 0, true, true, "VolumeBindingArgs"},
	{"VolumeZone", 0, true, true, ""},
	{"PodTopologySpread", 2, true, true, "PodTopologySpreadArgs"},
	{"InterPodAffinity", 2, true, true, "InterPodAffinityArgs"},
	{"DefaultPreemption", 0, true, true, "DefaultPreemptionArgs"},
	{"NodeResourcesBalancedAllocation", 1, true, true, "NodeResourcesBalancedAllocationArgs"},
	{"ImageLocality", 1, true, true, ""},
	{"DefaultBinder", 0, true, true, ""},
	{"NodeDeclaredFeatures", 0, true, true, ""}, // GA and locked on in v1.37
	// DynamicResources is in the default profile as DRA is on by default, weight 2 for its
	// Score (prioritized lists).
	{"DynamicResources", 2, true, true, "DynamicResourcesArgs"},
	// Behind gates off by default in v1.37.
	{"GangScheduling", 0, false, true, ""},
	{"DeferredPodScheduling", 0, false, false, ""},
	{"TopologyPlacementGenerator", 0, false, false, ""},
	{"PodGroupPodsCount", 0, false, false, ""},
}

// defaultWeightDifferences are the default weights phalanx sets apart from v1.37's, each
// with its reason; the audit fails on any other.
var defaultWeightDifferences = map[string]string{}

// TestKubeSchedulerPluginAudit holds every v1.37 plugin to what phalanx does with it in a
// KubeSchedulerConfiguration: an implemented plugin can be enabled (with a weight when it
// scores), disabled and given arguments of its type; one phalanx does not implement is
// refused by name with the reason, and may be disabled. Default weights are upstream's.
func TestKubeSchedulerPluginAudit(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: x\n"
	for _, pl := range kubeSchedulerPlugins {
		t.Run(pl.name, func(t *testing.T) {
			disabled := head + fmt.Sprintf("  plugins: {multiPoint: {disabled: [{name: %s}]}}\n", pl.name)
			if _, err := Parse([]byte(disabled)); err != nil {
				t.Errorf("disabling: %v", err)
			}
			enabled := head + fmt.Sprintf("  plugins: {multiPoint: {enabled: [{name: %s}]}}\n", pl.name)
			args := head + fmt.Sprintf("  pluginConfig: [{name: %s, args: {}}]\n", pl.name)
			if pl.args != "" {
				args = head + fmt.Sprintf("  pluginConfig: [{name: %s, args: {apiVersion: kubescheduler.config.k8s.io/v1, kind: %s}}]\n", pl.name, pl.args)
			}
			i := slices.IndexFunc(DefaultPlugins, func(d DefaultPlugin) bool { return d.Name == pl.name })
			if !pl.implemented {
				why, ok := upstreamOnlyPlugins[pl.name]
				if !ok || i >= 0 {
					t.Fatalf("not implemented, yet not refused by name (reason %q, default index %d)", why, i)
				}
				for what, in := range map[string]string{"enabling": enabled, "args": args} {
					_, err := Parse([]byte(in))
					if err == nil || !strings.Contains(err.Error(), pl.name) || !strings.Contains(err.Error(), why) {
						t.Errorf("%s: error %v, want one naming %s and why (%s)", what, err, pl.name, why)
					}
				}
				return
			}
			if _, ok := upstreamOnlyPlugins[pl.name]; ok {
				t.Errorf("implemented, yet refused")
			}
			if i < 0 {
				t.Fatalf("implemented, yet not in phalanx's plugin set")
			}
			if !pl.inDefault && !slices.Contains([]string{"GangScheduling"}, pl.name) {
				t.Errorf("in phalanx's default profile, not in kube-scheduler's")
			}
			if _, err := Parse([]byte(enabled)); err != nil {
				t.Errorf("enabling: %v", err)
			}
			if _, err := Parse([]byte(args)); err != nil {
				t.Errorf("args: %v", err)
			}
			if pl.args != "" && upstreamArgs[pl.name] == nil {
				t.Errorf("args type %s not read as kube-scheduler's", pl.args)
			}
			if pl.weight > 0 {
				weighted := head + fmt.Sprintf("  plugins: {score: {enabled: [{name: %s, weight: 7}]}}\n", pl.name)
				if _, ok := defaultWeightDifferences[pl.name]; !ok {
					if _, err := Parse([]byte(weighted)); err != nil {
						t.Errorf("a weight: %v", err)
					}
				}
			}
			if got := DefaultPlugins[i].Weight; got != pl.weight {
				if why, ok := defaultWeightDifferences[pl.name]; !ok {
					t.Errorf("default weight %d, kube-scheduler v1.37's %d", got, pl.weight)
				} else {
					t.Logf("default weight %d, kube-scheduler's %d: %s", got, pl.weight, why)
				}
			}
		})
	}
	// Every plugin phalanx refuses is one of kube-scheduler's.
	for name := range upstreamOnlyPlugins {
		if !slices.ContainsFunc(kubeSchedulerPlugins, func(p struct {
			name        string
			weight      int32
			inDefault   bool
			implemented bool
			args        string
		}) bool {
			return p.name == name
		}) {
			t.Errorf("%s is refused as kube-scheduler's, but v1.37 has no such plugin", name)
		}
	}
}
