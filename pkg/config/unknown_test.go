package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A typo in a configuration, phalanx's or kube-scheduler's, is reported with its line and
// path, and a typo inside plugin arguments names the field and the arguments' type, not
// the whole arguments (issue 29).
func TestUnknownFieldNamesLineAndPath(t *testing.T) {
	const kube = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	const own = "apiVersion: config.phalanx.dev/v1alpha1\nkind: SchedulerConfiguration\n"
	tests := []struct {
		name, file, want string
	}{
		{"kube: top level", kube + "percentageOfNodeToScore: 5\n",
			`line 3: unknown field "percentageOfNodeToScore"`},
		{"kube: in a profile", kube + "profiles:\n- schedulerName: a\n  pluginConfg: []\n",
			`line 5: unknown field "pluginConfg" in profiles[0]`},
		{"kube: plugin set", kube + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeResourcesFit\n        wieght: 2\n",
			`line 8: unknown field "wieght" in profiles[0].plugins.score.enabled[0]`},
		{"kube: in plugin arguments", kube + `profiles:
- schedulerName: phalanx
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
      scoreStrategyy: x
`, `line 10: unknown field "scoreStrategyy" in profiles[0].pluginConfig[0].args (NodeResourcesFitArgs)`},
		{"kube: nested in plugin arguments", kube + "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args: {minCandidateNodesPercentage: 10}\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        typ: MostAllocated\n",
			`line 10: unknown field "typ" in profiles[0].pluginConfig[1].args.scoringStrategy (NodeResourcesFitArgs)`},
		{"kube: leader election", kube + "leaderElection:\n  leaseDurations: 10s\n",
			`line 4: unknown field "leaseDurations" in leaderElection`},
		{"own: top level", own + "parallelizm: 4\n", `line 3: unknown field "parallelizm"`},
		{"own: in a profile", own + "profiles:\n- schedulerName: a\n  pluginConfg: []\n",
			`line 5: unknown field "pluginConfg" in profiles[0]`},
		{"own: plugin weight", own + "profiles:\n- plugins:\n    enabled:\n    - {name: X, wieght: 2}\n",
			`line 6: unknown field "wieght" in profiles[0].plugins.enabled[0]`},
		{"own: a flow-style document", `{"parallelism": 2, "profiles": [{"plugins": {"score": {"enable": []}}}]}`,
			`line 1: unknown field "enable" in profiles[0].plugins.score`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.file))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "error unmarshaling JSON") {
				t.Errorf("error %q keeps the decoder's wrapping", err)
			}
		})
	}
}

// Load puts the file's name first: "config.yaml: line 12: ...".
func TestLoadNamesFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	data := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoreStrategyy: {}}\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + `: line 6: unknown field "scoreStrategyy" in profiles[0].pluginConfig[0].args (NodeResourcesFitArgs)`
	if err == nil || err.Error() != want {
		t.Errorf("Load: %v, want %s", err, want)
	}
}

// Every plugin whose arguments are read as kube-scheduler's type has that type known
// to the typo finder.
func TestUpstreamArgsTypes(t *testing.T) {
	for name := range upstreamArgs {
		if upstreamArgsTypes[name] == nil {
			t.Errorf("upstreamArgsTypes has no %s", name)
		}
	}
	for name, typ := range upstreamArgsTypes {
		if upstreamArgs[name] == nil || typ.Name() != name+"Args" {
			t.Errorf("upstreamArgsTypes[%s] = %s", name, typ)
		}
	}
}
