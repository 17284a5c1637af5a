package config

import (
	"bytes"
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzParse feeds arbitrary bytes to Parse, as a user's configuration file would be (in
// phalanx's format or kube-scheduler's). Parse
// must never panic; a configuration it accepts must be defaulted and valid, and must parse
// again to the same thing when written back out.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		fullExample,
		kubeSchedulerExample,
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{plugins: {multiPoint: {disabled: [{name: '*'}]}, postBind: {enabled: [{name: X}]}}}]",
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{pluginConfig: [{name: VolumeBinding, args: [1]}, {name: GangScheduling, args: 'x'}, {name: NodeAffinity, args: {kind: 3}}]}]",
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection: {leaseDuration: 1x}\nclientConnection: {burst: -1}",
		"",
		"{}",
		"null",
		"[]",
		"parallelism: -1",
		"percentageOfNodesToScore: 101",
		"podInitialBackoff: 20s\npodMaxBackoff: 1s",
		"podMaxBackoff: 10",
		"podMaxBackoff: null",
		"profiles: [{}, {}]",
		"profiles: [null]",
		"profiles: [{pluginConfig: [{name: A, args: null}, {name: B, args: [1, 2]}, {name: C, args: 'x'}]}]",
		"profiles: [{plugins: {enabled: [{name: '', weight: 101}], disabled: [{name: '*'}]}}]",
		"profiles: [{plugins: {score: {enabled: [{name: A, weight: 3}], disabled: [{name: '*'}]}, filter: {disabled: [{name: B}]}}}]",
		"profiles: [{plugins: {placementScore: null, bind: {}}}]",
		"profiles: [{plugins: {score: {enabled: []}, disabled: []}}]",
		"seed: 9223372036854775807\ngangWaitTimeout: 2562047h47m16.854775807s",
		"apiVersion: 1\nkind: [x]",
		"&a [*a]",
		"profiles: &p [{pluginConfg: *p}]",
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {typ: x}}}, {name: &n PodTopologySpread, args: {<<: {x: 1}}}]}]",
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{pluginConfig: [{name: [x], args: {a: 1}}, {args: &a {b: *a}}]}]",
		"a: &a\n  b: *a",
		"? [a, b]\n: c",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if c != nil {
				t.Errorf("Parse returned a configuration with error %v", err)
			}
			return
		}
		if errs := Validate(c); len(errs) > 0 {
			t.Fatalf("accepted an invalid configuration: %v", errs)
		}
		if c.Parallelism < 1 || c.PodInitialBackoff.Duration <= 0 || len(c.Profiles) == 0 || c.Seed == 0 {
			t.Fatalf("accepted configuration not defaulted: %+v", c)
		}
		for i, p := range c.Profiles {
			if p.SchedulerName == "" {
				t.Fatalf("profile %d has no scheduler name", i)
			}
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parsing\n%s\n: %v", out, err)
		}
		// Arguments are the plugins' business and YAML may respell their numbers; compare
		// everything else, as JSON so that empty and absent lists are alike.
		strip := func(c *Configuration) {
			for i := range c.Profiles {
				for j := range c.Profiles[i].PluginConfig {
					c.Profiles[i].PluginConfig[j].Args = nil
				}
			}
		}
		strip(c)
		strip(back)
		a, _ := json.Marshal(c)
		b, _ := json.Marshal(back)
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip\n%s\ngave %s\nwant %s", out, b, a)
		}
	})
}
