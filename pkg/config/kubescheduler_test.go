package config

import (
	"reflect"
	"testing"
	"time"
)

// A tuned kube-scheduler configuration, as a platform team would bring it.
const kubeSchedulerExample = `
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 8
percentageOfNodesToScore: 40
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
enableProfiling: true
leaderElection:
  leaderElect: true
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 4s
  resourceLock: leases
  resourceName: phalanx-ml
  resourceNamespace: scheduling
clientConnection:
  kubeconfig: /etc/phalanx/kubeconfig
  qps: 100
  burst: 200
  contentType: application/vnd.kubernetes.protobuf
profiles:
- schedulerName: ml
  percentageOfNodesToScore: 40
  plugins:
    multiPoint:
      disabled: [{name: ImageLocality}, {name: NodeResourcesBalancedAllocation}]
    score:
      disabled: [{name: PodTopologySpread}]
      enabled: [{name: NodeResourcesFit, weight: 5}]
    postBind:
      disabled: [{name: "*"}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: nvidia.com/gpu, weight: 5}]
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 50}
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 300}
  - name: DynamicResources
    args: {filterTimeout: 0s, bindingTimeout: 5m}
- schedulerName: batch
`

func TestKubeSchedulerConfiguration(t *testing.T) {
	c, err := Parse([]byte(kubeSchedulerExample))
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{
		`{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"nvidia.com/gpu","weight":5}]}}`,
		`{"minCandidateNodesPercentage":20,"minCandidateNodesAbsolute":50}`,
		`{"bindTimeoutSeconds":300}`,
		`{"bindingTimeout":"5m0s","filterTimeout":"0s"}`,
	}
	for i, pc := range c.Profiles[0].PluginConfig {
		if !jsonEqual(t, pc.Args, []byte(wantArgs[i])) {
			t.Errorf("args of %s: %s, want %s", pc.Name, pc.Args, wantArgs[i])
		}
		c.Profiles[0].PluginConfig[i].Args = nil
	}
	yes := true
	want := &Configuration{
		APIVersion:                        APIVersion,
		Kind:                              Kind,
		Parallelism:                       8,
		PercentageOfNodesToScore:          40,
		PodInitialBackoff:                 Duration{2 * time.Second},
		PodMaxBackoff:                     Duration{20 * time.Second},
		PodMaxInUnschedulablePodsDuration: Duration{5 * time.Minute},
		GangWaitTimeout:                   Duration{5 * time.Minute},
		ReleaseWaitTimeout:                Duration{DefaultReleaseWaitTimeout},
		FeasiblePlacementsToFind:          DefaultFeasiblePlacementsToFind,
		Seed:                              1,
		Profiles: []Profile{
			{
				SchedulerName: "ml",
				Plugins: Plugins{
					Disabled: []Plugin{{Name: "ImageLocality"}, {Name: "NodeResourcesBalancedAllocation"}},
					Score: PluginSet{
						Disabled: []Plugin{{Name: "PodTopologySpread"}},
						Enabled:  []Plugin{{Name: "NodeResourcesFit", Weight: 5}},
					},
				},
				PluginConfig: []PluginConfig{{Name: "NodeResourcesFit"}, {Name: "DefaultPreemption"}, {Name: "VolumeBinding"}, {Name: "DynamicResources"}},
			},
			{SchedulerName: "batch"},
		},
		Run: RunSettings{
			LeaderElect: &yes, LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 4 * time.Second,
			ResourceName: "phalanx-ml", ResourceNamespace: "scheduling",
			Kubeconfig: "/etc/phalanx/kubeconfig", QPS: 100, Burst: 200,
			EnableProfiling: &yes,
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", c, want)
	}
}

// The smallest file: kube-scheduler's header only gives phalanx's defaults (and a profile
// without a name is phalanx's, not default-scheduler, which would fight kube-scheduler).
func TestKubeSchedulerConfigurationDefaults(t *testing.T) {
	c, err := Parse([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("parsed\n%+v\nwant the defaults\n%+v", c, Default())
	}
}

func TestKubeSchedulerConfigurationErrors(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	profile := func(s string) string { return head + "profiles:\n- schedulerName: x\n" + s }
	tests := []struct {
		name string
		in   string
		// want are substrings of the error: the field path and what is wrong.
		want []string
	}{
		{"older version", "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
			[]string{"apiVersion", "v1beta3", "kubescheduler.config.k8s.io/v1", "config.phalanx.dev/v1alpha1"}},
		{"wrong kind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: SchedulerConfiguration\n", []string{"kind", "KubeSchedulerConfiguration"}},
		{"unknown field", head + "percentageOfNodeToScore: 5\n", []string{"unknown field", "percentageOfNodeToScore"}},
		{"extenders", head + "extenders: [{urlPrefix: 'http://x'}]\n", []string{"extenders", "Forbidden", "extenders"}},
		{"delayCacheUntilActive", head + "delayCacheUntilActive: true\n", []string{"delayCacheUntilActive", "warm"}},
		{"resource lock", head + "leaderElection: {resourceLock: endpointsleases}\n", []string{"leaderElection.resourceLock", "endpointsleases", "leases"}},
		{"content type", head + "clientConnection: {contentType: application/json}\n", []string{"clientConnection.contentType", "application/json"}},
		{"negative qps", head + "clientConnection: {qps: -1}\n", []string{"clientConnection.qps"}},
		{"zero backoff", head + "podInitialBackoffSeconds: 0\n", []string{"podInitialBackoffSeconds", "must be positive"}},
		{"max backoff below the initial", head + "podInitialBackoffSeconds: 20\npodMaxBackoffSeconds: 10\n",
			[]string{"podMaxBackoffSeconds", "podInitialBackoff"}},
		{"parallelism", head + "parallelism: 0\n", []string{"parallelism", "at least 1"}},
		{"a profile's percentage", head + "percentageOfNodesToScore: 10\nprofiles: [{percentageOfNodesToScore: 20}]\n",
			[]string{"profiles[0].percentageOfNodesToScore", "20", "top level"}},
		{"duplicate profiles", head + "profiles: [{schedulerName: a}, {schedulerName: a}]\n", []string{"profiles[1].schedulerName", "Duplicate"}},
		{"enabling a plugin phalanx does not have", profile("  plugins: {multiPoint: {enabled: [{name: DeferredPodScheduling}]}}\n"),
			[]string{"profiles[0].plugins.multiPoint.enabled[0].name", "DeferredPodScheduling", "resizes"}},
		{"typo in a disabled list", profile("  plugins: {score: {disabled: [{name: NodeResourceFit}]}}\n"),
			[]string{"profiles[0].plugins.score.disabled[0].name", `"NodeResourceFit"`, "NodeResourcesFit"}},
		{"typo in multiPoint's disabled list", profile("  plugins: {multiPoint: {disabled: [{name: ImageLocality}, {name: TaintTolerations}]}}\n"),
			[]string{"profiles[0].plugins.multiPoint.disabled[1].name", `"TaintTolerations"`}},
		{"typo in a point's enabled list", profile("  plugins: {filter: {enabled: [{name: NodePort}]}}\n"),
			[]string{"profiles[0].plugins.filter.enabled[0].name", `"NodePort"`}},
		{"removed plugin", profile("  plugins: {preScore: {enabled: [{name: SelectorSpread}]}}\n"),
			[]string{"profiles[0].plugins.preScore.enabled[0].name", `"SelectorSpread"`}},
		{"postBind", profile("  plugins: {postBind: {enabled: [{name: DefaultBinder}]}}\n"),
			[]string{"profiles[0].plugins.postBind.enabled[0].name", "PostBind"}},
		{"weight", profile("  plugins: {score: {enabled: [{name: NodeAffinity, weight: 200}]}}\n"),
			[]string{"profiles[0].plugins.score.enabled[0].weight", "200"}},
		{"args of an unknown plugin", profile("  pluginConfig: [{name: Coscheduling, args: {}}]\n"),
			[]string{"profiles[0].pluginConfig[0].name", `"Coscheduling"`}},
		{"args of a plugin phalanx does not have", profile("  pluginConfig: [{name: PodGroupPodsCount, args: {}}]\n"),
			[]string{"profiles[0].pluginConfig[0].name", "PodGroupPodsCount", "PlacementPodCount"}},
		{"args of another kind", profile("  pluginConfig: [{name: NodeResourcesFit, args: {kind: NodeAffinityArgs}}]\n"),
			[]string{"profiles[0].pluginConfig[0].args.kind", "NodeAffinityArgs", "NodeResourcesFitArgs"}},
		{"args of another version", profile("  pluginConfig: [{name: NodeAffinity, args: {apiVersion: kubescheduler.config.k8s.io/v1beta3}}]\n"),
			[]string{"profiles[0].pluginConfig[0].args.apiVersion", "v1beta3"}},
		{"unknown field in args", profile("  pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {typ: MostAllocated}}}]\n"),
			[]string{"profiles[0].pluginConfig[0].args", "unknown field", "typ"}},
		{"phalanx's own argument in kube-scheduler's type", profile("  pluginConfig: [{name: DefaultPreemption, args: {exactSearchMaxUnits: 4}}]\n"),
			[]string{"profiles[0].pluginConfig[0].args", "exactSearchMaxUnits"}},
		{"every error reported", head + "extenders: [{urlPrefix: x}]\nprofiles: [{plugins: {score: {disabled: [{name: Nope}]}}}]\n",
			[]string{"extenders", "profiles[0].plugins.score.disabled[0].name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkParseError(t, tt.in, tt.want) })
	}
}
